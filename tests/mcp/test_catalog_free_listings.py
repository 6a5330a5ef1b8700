"""What a server lists does not depend on the catalog it serves.

The initialize handshake, the tools (their input and output schemas), prompts, resources and resource templates
are generated from the code alone. So the tests of schemas and listings (test_surface, test_tool_definitions,
test_output_schemas, test_capabilities, test_prompt_registration) read them from the small search world; this
test is what makes that the same as reading them from the default catalog.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from kgfegmcp.bootstrap import AppState
from served_apps import SERVED


async def _listings(client: Client[Any]) -> dict[str, Any]:
    dumped = {"mode": "json", "by_alias": True, "exclude_none": True}
    return {
        "tools": (await client.list_tools_mcp()).model_dump(**dumped),
        "prompts": (await client.list_prompts_mcp()).model_dump(**dumped),
        "resources": (await client.list_resources_mcp()).model_dump(**dumped),
        "templates": (await client.list_resource_templates_mcp()).model_dump(**dumped),
    }


async def test_the_handshake_and_every_listing_are_the_same_over_the_search_world_and_the_default_catalog(
    fixture_state: AppState, default_state: AppState
) -> None:
    async with (
        SERVED.client(fixture_state, mode="legacy") as small,  # the initialize handshake
        SERVED.client(default_state, mode="legacy") as default,
    ):
        assert small.initialize_result is not None
        assert small.initialize_result == default.initialize_result
        assert await _listings(small) == await _listings(default)
