"""Fixture catalogs for the evidence tools, served through FastMCP's in-memory client."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from evidence_worlds import evidence_world
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.config import load_settings
from package_factory import FixtureWorld

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]


def state_for(world: FixtureWorld) -> AppState:
    """Settings → bootstrap over one fixture world, exactly as the server does it.

    The generic prompt configurations are used without the repository's framework overlays, which
    name frameworks that a fixture catalog does not contain.
    """
    prompts = world.base / "prompts"
    if not prompts.exists():
        shutil.copytree(REPOSITORY_ROOT / "config" / "prompts", prompts, ignore=shutil.ignore_patterns("overlays"))
    settings = load_settings(
        {"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root, "prompts_dir": prompts}
    )
    return build_app_state(settings)


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
