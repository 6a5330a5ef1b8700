"""One shared HTTP server over the default catalog, the in-memory reference scenario, and headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import HttpServer, fastmcp_caller, http_server, scenario
from fastmcp import Client
from map_host import launch
from playwright.sync_api import Browser, sync_playwright


@pytest.fixture(scope="session")
def default_http_server(default_catalog_root: Path) -> Iterator[HttpServer]:
    """``kgfegmcp serve --transport http`` on a free 127.0.0.1 port (stopped at session end)."""
    with http_server(default_catalog_root) as server:
        yield server


@pytest.fixture
async def reference(default_client: Client[Any]) -> dict[str, Any]:
    """The scenario through the in-memory client: every transport must see exactly this."""
    names = [tool.name for tool in await default_client.list_tools()]
    return await scenario(names, fastmcp_caller(default_client))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless Chromium through Playwright, one per module of browser tests."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()
