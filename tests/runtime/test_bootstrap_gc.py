"""Start-up pauses the cyclic garbage collector while it builds, and always gives it back."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgfegmcp.core.errors import CatalogError
from package_factory import build_all, standard_world, state_for


@pytest.fixture
def restore_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    yield None
    gc.unfreeze()  # the launcher freezes this test process's heap; give it back to the collector
    (gc.enable if enabled else gc.disable)()


@pytest.mark.usefixtures("restore_gc")
@pytest.mark.parametrize("enabled", [True, False])
def test_bootstrap_leaves_the_collector_as_it_found_it(tmp_path: Path, enabled: bool) -> None:
    world = standard_world(tmp_path / "world")
    build_all(world)
    (gc.enable if enabled else gc.disable)()
    state = state_for(world, cache_dir=None)
    assert len(state.catalog.packages) == 3
    assert gc.isenabled() is enabled
    (world.packages / "fixture-tree").rename(tmp_path / "moved-away")
    for package in world.packages.iterdir():
        for snapshot in package.iterdir():
            (snapshot / "package_manifest.json").write_text("{}")
    with pytest.raises(CatalogError):
        state_for(world, cache_dir=None)
    assert gc.isenabled() is enabled


@pytest.mark.usefixtures("restore_gc")
def test_the_console_script_gives_the_collector_back_before_running_a_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kgfegmcp import launcher

    monkeypatch.setattr(sys, "argv", ["kgfegmcp", "--help"])
    with pytest.raises(SystemExit) as finished:
        launcher.main()
    assert finished.value.code == 0
    assert gc.isenabled()
