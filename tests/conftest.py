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


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: the order of what runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest work units first: the install tests, then modules that start processes or sweep, then the rest,
    each tier by its number of tests; within a tier, the longest unit that reads the default catalog first,
    then the units that do not, then the others.

    Units are handed out in collection order (``scripts/test.sh`` passes ``--no-loadscope-reorder``); a long
    unit handed out last would leave the other core idle while it runs alone. The first unit to read the
    default catalog builds it (about 25 s of CPU) while the other worker would wait for its lock: it runs
    units that need no catalog meanwhile. The sort is stable, so a module's tests keep their order.
    """
    tier: dict[str, int] = {}
    size: collections.Counter[str] = collections.Counter()
    reads_catalog: set[str] = set()
    for item in items:
        unit = work_unit(item.nodeid)
        rank = 0 if unit == "tests/install" else 1 if item.get_closest_marker("slow") else 2
        tier[unit] = min(tier.get(unit, rank), rank)
        size[unit] += 1
        if "default_catalog_root" in getattr(item, "fixturenames", ()):  # every fixture it needs, transitively
            reads_catalog.add(unit)
    first = {}  # tier → its longest unit that reads the catalog
    for unit in sorted(reads_catalog, key=lambda unit: (-size[unit], unit)):
        first.setdefault(tier[unit], unit)

    def group(unit: str) -> int:
        return 0 if first.get(tier[unit]) == unit else 2 if unit in reads_catalog else 1

    items.sort(key=lambda item: (tier[unit := work_unit(item.nodeid)], group(unit), -size[unit], unit))


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


def world_fixture(world: str) -> Any:
    """A session fixture: the fixture world ``world`` (``worlds.FIXTURE_WORLDS``)."""

    def fixture() -> FixtureWorld:
        return worlds.fixture_world(world)

    fixture.__doc__ = f"The {world} world, built once per run (read-only)."
    return pytest.fixture(scope="session")(fixture)


def state_fixture(world: str) -> Any:
    """A session fixture: this process's one AppState over ``world``."""

    def fixture() -> AppState:
        return worlds.fixture_state(world)

    fixture.__doc__ = f"The AppState over the {world} world, built once per process (never mutate)."
    return pytest.fixture(scope="session")(fixture)


def client_fixture(world: str) -> Any:
    """A fixture: FastMCP's in-memory client, connected for one test to the shared server over ``world``."""

    async def fixture() -> AsyncIterator[Client[Any]]:
        async with SERVED.client(worlds.fixture_state(world)) as client:
            yield client

    fixture.__doc__ = f"FastMCP's in-memory client over the {world} world."
    return pytest.fixture(fixture)


# The names the tests use. tests/services calls the states it shares with tests/mcp and tests/resources
# after what it reads in them.
fixture_world, fixture_state, fixture_client = (
    world_fixture("search"),
    state_fixture("search"),
    client_fixture("search"),
)
search_state = state_fixture("search")
other_state = state_fixture("small")
progression_fixture_world = world_fixture("progression")
progression_state, progression_client = state_fixture("progression"), client_fixture("progression")
evidence_state = state_fixture("evidence")
matrix_world, matrix_state, matrix_client = world_fixture("rights"), state_fixture("rights"), client_fixture("rights")
rights_state = state_fixture("rights")
