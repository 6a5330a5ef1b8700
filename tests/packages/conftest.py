from __future__ import annotations

from pathlib import Path

import pytest

from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
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
