"""The assembled server over the real default catalog, through FastMCP's in-memory client."""

from __future__ import annotations

from typing import Any

from fastmcp import Client


async def test_tools_are_listed_and_callable(default_client: Client[Any]) -> None:
    names = [tool.name for tool in await default_client.list_tools()]
    assert names[:7] == [
        "list_frameworks",
        "get_framework",
        "get_capabilities",
        "get_framework_statistics",
        "search_standards",
        "get_standard",
        "get_standard_context",
    ]
    result = await default_client.call_tool("search_standards", {"request": {"query": "fracoes", "limit": 3}})
    assert result.structured_content is not None
    assert "frações" in result.structured_content["hits"][0]["description"].casefold()
