"""Fixture catalogs for the progression, component and comparison tools, served through FastMCP's in-memory client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client
from progression_worlds import progression_world

from kgfegmcp.bootstrap import AppState
from package_factory import FixtureWorld, state_for
from served_apps import SERVED


@pytest.fixture(scope="session")
def progression_fixture_world(tmp_path_factory: pytest.TempPathFactory) -> FixtureWorld:
    """The validated progression world (read-only for tests)."""
    return progression_world(tmp_path_factory.mktemp("progression-world"))


@pytest.fixture(scope="session")
def progression_state(progression_fixture_world: FixtureWorld) -> AppState:
    """One AppState over the progression world."""
    return state_for(progression_fixture_world)


@pytest.fixture
async def progression_client(progression_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the progression world."""
    async with SERVED.client(progression_state) as client:
        yield client
