"""Fixture catalogs served through FastMCP's in-memory client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client
from standards_worlds import search_world, small_world

from kgfegmcp.bootstrap import AppState
from package_factory import FixtureWorld, state_for
from served_apps import SERVED


@pytest.fixture(scope="session")
def fixture_world(tmp_path_factory: pytest.TempPathFactory) -> FixtureWorld:
    """The validated search world (read-only for tests)."""
    return search_world(tmp_path_factory.mktemp("search-world"))


@pytest.fixture(scope="session")
def fixture_state(fixture_world: FixtureWorld) -> AppState:
    """One AppState over the search world."""
    return state_for(fixture_world)


@pytest.fixture(scope="session")
def other_state(tmp_path_factory: pytest.TempPathFactory) -> AppState:
    """An AppState over a different catalog (tree + DAG only)."""
    return state_for(small_world(tmp_path_factory.mktemp("small-world")))


@pytest.fixture
async def fixture_client(fixture_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the search world."""
    async with SERVED.client(fixture_state) as client:
        yield client
