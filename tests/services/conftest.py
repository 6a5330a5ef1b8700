"""Session states for the service-level tests: the MCP suites' fixture worlds, called without transport.

Each world is built and validated once per session (never the default catalog: this suite stays fast).
"""

from __future__ import annotations

import pytest
from service_worlds import evidence_world, rights_world, search_world

from kgfegmcp.bootstrap import AppState
from package_factory import state_for


@pytest.fixture(scope="session")
def search_state(tmp_path_factory: pytest.TempPathFactory) -> AppState:
    """tests/mcp's search world: tree, DAG, LC, no-code, no-prefix, some-codes, no-text, twin snapshots."""
    return state_for(search_world(tmp_path_factory.mktemp("services-search-world")))


@pytest.fixture(scope="session")
def evidence_state(tmp_path_factory: pytest.TempPathFactory) -> AppState:
    """tests/progressions' world plus two packages whose profiles store fewer link kinds."""
    return state_for(evidence_world(tmp_path_factory.mktemp("services-progression-world")))


@pytest.fixture(scope="session")
def rights_state(tmp_path_factory: pytest.TempPathFactory) -> AppState:
    """tests/resources' rights matrix: one fixture-lc snapshot per rights variant, fixture-tree, fixture-dag."""
    return state_for(rights_world(tmp_path_factory.mktemp("services-rights-world")))
