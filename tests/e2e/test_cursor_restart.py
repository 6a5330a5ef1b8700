"""A cursor issued before a restart continues after it: the install's secret file outlives the process.

Two server processes in turn, with no cursor setting, on one cache directory without a secret (it holds
the catalog's derived indexes, copied, so neither builds them): the first makes the secret, the second reads
it, answers the same first page byte for byte and continues its cursor.
"""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import Any

import pytest
from e2e_support import http_server
from fastmcp import Client

import worlds
from kgfegmcp.core.cursor_secret import SECRET_FILE_NAME
from tool_calls import call, structured, wire

pytestmark = pytest.mark.slow

REQUEST: dict[str, Any] = {"query": "frações", "limit": 2}


async def test_cursors_issued_before_a_restart_work_after_it(default_catalog_root: Path, tmp_path: Path) -> None:
    cache = worlds.default_catalog_indexes(tmp_path / "cache")
    settings = {"KGFEGMCP_CACHE_DIR": str(cache)}
    with http_server(default_catalog_root, settings) as first:
        async with asyncio.timeout(120), Client(first.url) as client:
            page = await call(client, "search_standards", REQUEST)
    secret = cache / SECRET_FILE_NAME
    made = secret.stat()
    assert stat.S_IMODE(made.st_mode) == 0o600
    cursor = structured(page)["page"]["nextCursor"]
    with http_server(default_catalog_root, settings) as second:
        async with asyncio.timeout(120), Client(second.url) as client:
            assert wire(await call(client, "search_standards", REQUEST)) == wire(page)
            following = structured(await call(client, "search_standards", {**REQUEST, "cursor": cursor}))
    assert following["hits"][0]["rank"] == 3
    assert secret.stat().st_mtime_ns == made.st_mtime_ns  # read, not made again
