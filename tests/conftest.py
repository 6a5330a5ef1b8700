"""Session fixtures shared by every test package.

``default_catalog_root`` builds the real default catalog (four BNCC packages from ``bncc`` + ``bncc-mcp``,
CCSS ELA from ``chiron-common-core-standards``) once per session into a temporary directory,
validates it, and returns the graph-package root. Tests must treat it as read-only.
"""

from __future__ import annotations

import atexit
import collections
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, BackendSettings, load_settings
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.default_catalog import build_default_catalog
from served_apps import SERVED
from work_units import work_unit

PROFILES_ROOT = SHIPPED_PROFILES_DIR

# Hermetic derived-index cache: every state and server process of this session caches into one
# temporary directory, never into the checkout's ./data/cache. Tests of the cache use their own.
SESSION_CACHE_ROOT = tempfile.mkdtemp(prefix="kgfegmcp-test-cache-")
os.environ["KGFEGMCP_CACHE_DIR"] = SESSION_CACHE_ROOT
atexit.register(shutil.rmtree, SESSION_CACHE_ROOT, ignore_errors=True)


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
    shutil.copytree(PROFILES_ROOT, root)
    return root


@pytest.fixture(scope="session")
def default_catalog_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Root of the validated default catalog, built once per session (read-only for tests)."""
    root = tmp_path_factory.mktemp("default-catalog") / "graph_packages"
    outcomes = build_default_catalog(root, ProfileRepository(PROFILES_ROOT))
    problems = {
        o.outcome.graph_package_id: sorted({f.code for f in o.outcome.findings if f.severity == "error"})
        for o in outcomes
        if not o.accepted
    }
    assert not problems, f"default catalog packages failed validation: {problems}"
    return root


@pytest.fixture(scope="session")
def default_settings(default_catalog_root: Path) -> BackendSettings:
    """Settings serving the real default catalog built for this session."""
    return load_settings({"graph_packages_dir": default_catalog_root, "profiles_dir": PROFILES_ROOT})


@pytest.fixture(scope="session")
def default_state(default_settings: BackendSettings) -> AppState:
    """One immutable AppState over the real default catalog (services share it; never mutate)."""
    return build_app_state(default_settings)


@pytest.fixture
async def default_client(default_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client connected to the assembled server over the real catalog."""
    async with SERVED.client(default_state) as client:
        yield client
