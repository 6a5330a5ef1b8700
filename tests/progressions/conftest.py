"""Fixture catalogs for the evidence tools, served through FastMCP's in-memory client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from evidence_worlds import evidence_world
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from package_factory import FixtureWorld, state_for

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def evidence_fixture_world(tmp_path_factory: pytest.TempPathFactory) -> FixtureWorld:
    """The validated evidence world (read-only for tests)."""
    return evidence_world(tmp_path_factory.mktemp("evidence-world"))


@pytest.fixture(scope="session")
def evidence_state(evidence_fixture_world: FixtureWorld) -> AppState:
    """One AppState over the evidence world."""
    return state_for(evidence_fixture_world)


@pytest.fixture
async def evidence_client(evidence_state: AppState) -> AsyncIterator[Client[Any]]:
    """FastMCP's in-memory client over the evidence world."""
    async with Client(create_app(evidence_state)) as client:
        yield client
