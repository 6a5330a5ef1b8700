"""Fixture catalogs served through FastMCP's in-memory client."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from standards_worlds import search_world, small_world

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.config import load_settings
from package_factory import FixtureWorld

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]


def state_for(world: FixtureWorld) -> AppState:
    """Settings → bootstrap, exactly as the server does it, over one fixture world.

    The generic prompt configurations are used without the repository's framework overlays: those
    name the default catalog's frameworks, and start-up refuses overlays for frameworks it does not serve.
    """
    prompts = world.base / "prompts"
    if not prompts.exists():
        shutil.copytree(REPOSITORY_ROOT / "config" / "prompts", prompts, ignore=shutil.ignore_patterns("overlays"))
    settings = load_settings(
        {"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root, "prompts_dir": prompts}
    )
    return build_app_state(settings)


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
    async with Client(create_app(fixture_state)) as client:
        yield client
