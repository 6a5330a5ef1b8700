"""The curriculum map (MCP Apps view): left out for clients known to lack the extension, shipped whole.

A client whose capabilities lack ``io.modelcontextprotocol/ui`` is listed exactly what it was before (the
regression corpus holds those bytes); one that declares it sees ``_meta.ui.resourceUri`` on the five graph
tools and the ``ui://`` resource, and reads one self-contained document within 150 KB. Clients whose
capabilities the server cannot know (stateless HTTP before 2026-07-28) are tested in
``tests/e2e/test_curriculum_map_listing.py``.
"""

from __future__ import annotations

import re
from typing import Any

from fastmcp import Client, FastMCP
from mcp.client import advertise

from kgfegmcp.mcp.curriculum_map import MAP_URI, map_document
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.register import register
from kgfegmcp.mcp.tools import TOOLS

UI_EXTENSION = "io.modelcontextprotocol/ui"
UI_MIME = "text/html;profile=mcp-app"
#: The tools whose rows say the map draws them (the view's build reads the same list: test_tool_rows).
GRAPH_TOOLS = {tool.name for tool in TOOLS if tool.draws_map}


def _server() -> FastMCP:
    server = FastMCP(name="kgfegmcp", dereference_schemas=False)
    register(server, Readiness())
    return server


def _declaring() -> list[Any]:
    return [advertise(UI_EXTENSION, {"mimeTypes": [UI_MIME]})]


async def test_a_client_that_declares_the_extension_sees_the_links_and_the_view() -> None:
    async with Client(_server(), extensions=_declaring()) as client:
        tools = (await client.list_tools_mcp()).tools
        resources = (await client.list_resources_mcp()).resources
        read = await client.read_resource_mcp(MAP_URI)
    linked = {tool.name: (tool.meta or {}).get("ui") for tool in tools if (tool.meta or {}).get("ui")}
    assert linked == {name: {"resourceUri": MAP_URI} for name in GRAPH_TOOLS}
    listed = [resource for resource in resources if str(resource.uri) == MAP_URI]
    assert len(listed) == 1 and listed[0].mime_type == UI_MIME
    (content,) = read.contents
    assert content.mime_type == UI_MIME
    csp = (content.meta or {})["ui"]["csp"]
    assert csp == {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}


async def test_a_client_that_does_not_declare_it_sees_no_change() -> None:
    async with Client(_server()) as client:
        tools = (await client.list_tools_mcp()).tools
        resources = (await client.list_resources_mcp()).resources
    assert not [tool.name for tool in tools if "ui" in (tool.meta or {})]
    assert MAP_URI not in {str(resource.uri) for resource in resources}


def test_the_view_is_one_self_contained_document_within_150_kb() -> None:
    html = map_document()
    assert len(html.encode("utf-8")) <= 150 * 1024
    # No external script, style, image, frame or connection: everything inline, nothing fetched.
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", html, re.IGNORECASE)
    assert not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts)\s*\(", html)
    assert not re.search(r"https?://", html)


def test_every_interface_word_is_in_both_languages() -> None:
    html = map_document()
    table = html[html.index("const WORDS = {") : html.index("// end of WORDS")]
    english = table[table.index("en: {") : table.index("pt: {")]
    portuguese = table[table.index("pt: {") :]
    key = re.compile(r"^\s+(\w+):", re.MULTILINE)
    inline = re.compile(r"[{,]\s*(\w+):")
    keys_en = set(key.findall(english)) | set(inline.findall(english))
    keys_pt = set(key.findall(portuguese)) | set(inline.findall(portuguese))
    assert keys_en == keys_pt
    used = set(re.findall(r'\bt\("(\w+)"\)', html))
    assert used <= keys_en
