"""Two server processes over the same catalog: identical results, and each accepts the other's cursors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import HttpServer, http_server
from fastmcp import Client
from mcp.types import ContentBlock

pytestmark = pytest.mark.slow

REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("list_frameworks", {"limit": 2}),
    ("get_framework", {"frameworkId": "brazil-bncc-ensino-fundamental"}),
    ("get_capabilities", {}),
    ("get_framework_statistics", {"frameworkId": "brazil-bncc-ensino-fundamental"}),
    ("search_standards", {"query": "leitura", "limit": 5}),
    ("search_standards", {"query": "CCR.R", "searchMode": "code", "codeMatch": "prefix", "limit": 4}),
    ("get_standard", {"frameworkId": "us-ccss-ela-literacy-grades-2-4", "statementCode": "RL.2.1"}),
    ("get_standard_context", {"frameworkId": "brazil-bncc-ensino-fundamental", "statementCode": "EF07CI12"}),
]


def wire(content: list[ContentBlock], structured: Any) -> str:
    """A byte-exact rendering of everything a client receives."""
    blocks = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in content]
    return json.dumps({"content": blocks, "structuredContent": structured}, ensure_ascii=False)


@pytest.fixture(scope="module")
def second_http_server(default_catalog_root: Path) -> Iterator[HttpServer]:
    """A second, independent process over the same catalog directory."""
    with http_server(default_catalog_root) as server:
        yield server


async def test_two_processes_answer_identically(
    default_http_server: HttpServer, second_http_server: HttpServer
) -> None:
    assert default_http_server.process.pid != second_http_server.process.pid
    async with asyncio.timeout(120), Client(default_http_server.url) as one, Client(second_http_server.url) as two:
        for tool, request in REQUESTS:
            first = await one.call_tool(tool, {"request": request}, timeout=60)
            second = await two.call_tool(tool, {"request": request}, timeout=60)
            assert wire(first.content, first.structured_content) == wire(second.content, second.structured_content)


async def test_each_process_continues_the_others_pages(
    default_http_server: HttpServer, second_http_server: HttpServer
) -> None:
    request = {"query": "fracoes", "limit": 2}
    async with asyncio.timeout(120), Client(default_http_server.url) as one, Client(second_http_server.url) as two:
        clients = [one, two]
        alone = []
        for client in clients:
            cursor = None
            while True:
                arguments = {"request": {**request, **({"cursor": cursor} if cursor else {})}}
                page = await client.call_tool("search_standards", arguments, timeout=60)
                assert page.structured_content is not None
                alone.append(page.structured_content)
                cursor = page.structured_content["page"].get("nextCursor")
                if cursor is None:
                    break
        half = len(alone) // 2
        assert alone[:half] == alone[half:], "each replica alone gives the same page sequence"
        # Alternate replicas on every page: the sequence must not change.
        alternating = []
        cursor = None
        turn = 0
        while True:
            arguments = {"request": {**request, **({"cursor": cursor} if cursor else {})}}
            page = await clients[turn % 2].call_tool("search_standards", arguments, timeout=60)
            assert page.structured_content is not None
            alternating.append(page.structured_content)
            cursor = page.structured_content["page"].get("nextCursor")
            turn += 1
            if cursor is None:
                break
        assert alternating == alone[:half] and turn >= 3
        listing = await one.call_tool("list_frameworks", {"request": {"limit": 2}}, timeout=60)
        assert listing.structured_content is not None
        cursor = listing.structured_content["page"]["nextCursor"]
        on_two = await two.call_tool("list_frameworks", {"request": {"limit": 2, "cursor": cursor}}, timeout=60)
        on_one = await one.call_tool("list_frameworks", {"request": {"limit": 2, "cursor": cursor}}, timeout=60)
        assert wire(on_two.content, on_two.structured_content) == wire(on_one.content, on_one.structured_content)
