from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, ValidationOutcome
from package_factory import FixtureWorld, build_all, standard_world


@pytest.fixture
def world(tmp_path: Path) -> FixtureWorld:
    return standard_world(tmp_path)


@pytest.fixture
def built(world: FixtureWorld) -> dict[str, PackageLocation]:
    return build_all(world)


@pytest.fixture
def validator(world: FixtureWorld) -> PackageValidator:
    return PackageValidator(world.profiles())


@pytest.fixture
def validator_gates(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The gate (``every_rule``, ``cached_verdict``, ...) of every validation from here on, in order."""
    gates: list[str] = []
    original = PackageValidator.validate

    def spy(self: PackageValidator, *args: Any, **kwargs: Any) -> ValidationOutcome:
        outcome = original(self, *args, **kwargs)
        gates.append(outcome.gate)
        return outcome

    monkeypatch.setattr(PackageValidator, "validate", spy)
    return gates
