"""The run's worlds and the clients over them, for every test directory, and the order work is handed out in.

Every catalog is built by ``worlds`` (on disk once per run, its state once per process); the fixtures here only
name them. ``SERVED`` (``served_apps``) assembles one server per state, and each test connects a fresh in-memory
client to it. Tests treat all of them as read-only.
"""

from __future__ import annotations

import collections
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

import worlds
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, BackendSettings
from package_factory import FixtureWorld
from served_apps import SERVED
from work_units import work_unit

# Before any state is built or process started: the run's directory, and its derived-index cache (never the
# checkout's ./data/cache; tests of the cache use their own).
worlds.start_run()


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--dist loadscope`` (``scripts/test.sh``), hand out :func:`work_unit`s in collection order.

    xdist's own grouping (``--dist loadgroup`` with ``xdist_group`` marks) renames each test's node id, which
    pytest 9.2 no longer reads, so its groups silently became single tests spread over every worker.
    """
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ModuleScheduling(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest work units first: the install tests, then modules that start processes or sweep, then the rest,
    each tier by its number of tests.

    Units are handed out in collection order (``scripts/test.sh`` passes ``--no-loadscope-reorder``); a long
    unit handed out last would leave the other core idle while it runs alone. The sort is stable, so a
    module's tests keep their order.
    """
    tier: dict[str, int] = {}
    size: collections.Counter[str] = collections.Counter()
    for item in items:
        unit = work_unit(item.nodeid)
        rank = 0 if unit == "tests/install" else 1 if item.get_closest_marker("slow") else 2
        tier[unit] = min(tier.get(unit, rank), rank)
        size[unit] += 1
    items.sort(key=lambda item: (tier[unit := work_unit(item.nodeid)], -size[unit], unit))


@pytest.fixture(scope="session")
def profiles_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shipped interpretation profiles (``src/kgfegmcp/shipped/profiles``), made once per session.

    A CASE build stores the profile it derives in the profiles root it is given: into this copy, never into
    the checkout.
    """
    root = tmp_path_factory.mktemp("profiles") / "profiles"
    shutil.copytree(SHIPPED_PROFILES_DIR, root)
    return root


# -- the default catalog ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def default_catalog_root() -> Path:
    """Root of the validated default catalog (read-only)."""
    return worlds.default_catalog()


@pytest.fixture(scope="session")
def default_settings(default_catalog_root: Path) -> BackendSettings:
    """Settings serving the default catalog."""
    return worlds.default_settings()


@pytest.fixture(scope="session")
def default_state(default_settings: BackendSettings) -> AppState:
    """One immutable AppState over the default catalog (services share it; never mutate)."""
    return worlds.default_state()


@pytest.fixture
async def default_client(default_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client connected to the assembled server over the default catalog."""
    async with SERVED.client(default_state) as client:
        yield client


# -- fixture catalogs ---------------------------------------------------------------------------------
# Some worlds go by two names: tests/services calls the states it shares with tests/mcp and tests/resources
# after what it reads in them.


@pytest.fixture(scope="session")
def fixture_world() -> FixtureWorld:
    """The search world (``standards_worlds``)."""
    return worlds.fixture_world("search")


@pytest.fixture(scope="session")
def fixture_state(fixture_world: FixtureWorld) -> AppState:
    return worlds.fixture_state("search")


@pytest.fixture(scope="session")
def search_state(fixture_state: AppState) -> AppState:
    return fixture_state


@pytest.fixture
async def fixture_client(fixture_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the search world."""
    async with SERVED.client(fixture_state) as client:
        yield client


@pytest.fixture(scope="session")
def other_state() -> AppState:
    """A different catalog (tree + DAG only)."""
    return worlds.fixture_state("small")


@pytest.fixture(scope="session")
def progression_fixture_world() -> FixtureWorld:
    """The progression world (``progression_worlds``)."""
    return worlds.fixture_world("progression")


@pytest.fixture(scope="session")
def progression_state(progression_fixture_world: FixtureWorld) -> AppState:
    return worlds.fixture_state("progression")


@pytest.fixture
async def progression_client(progression_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the progression world."""
    async with SERVED.client(progression_state) as client:
        yield client


@pytest.fixture(scope="session")
def evidence_state() -> AppState:
    """The progression world plus two packages whose profiles store fewer link kinds (``service_worlds``)."""
    return worlds.fixture_state("evidence")


@pytest.fixture(scope="session")
def matrix_world() -> FixtureWorld:
    """Every rights variant as its own validated snapshot (``resource_worlds``)."""
    return worlds.fixture_world("rights")


@pytest.fixture(scope="session")
def matrix_state(matrix_world: FixtureWorld) -> AppState:
    return worlds.fixture_state("rights")


@pytest.fixture(scope="session")
def rights_state(matrix_state: AppState) -> AppState:
    return matrix_state


@pytest.fixture
async def matrix_client(matrix_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the rights world."""
    async with SERVED.client(matrix_state) as client:
        yield client
