"""Session catalogs for the resource tests (built once, read-only) and the in-memory client over them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client
from resource_worlds import rights_world

from kgfegmcp.bootstrap import AppState
from package_factory import FixtureWorld, state_for
from served_apps import SERVED


@pytest.fixture(scope="session")
def matrix_world(tmp_path_factory: pytest.TempPathFactory) -> FixtureWorld:
    """Every rights variant as its own validated snapshot (read-only for tests)."""
    return rights_world(tmp_path_factory.mktemp("rights-world"))


@pytest.fixture(scope="session")
def matrix_state(matrix_world: FixtureWorld) -> AppState:
    """One AppState over the rights world."""
    return state_for(matrix_world)


@pytest.fixture
async def matrix_client(matrix_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the rights world."""
    async with SERVED.client(matrix_state) as client:
        yield client
