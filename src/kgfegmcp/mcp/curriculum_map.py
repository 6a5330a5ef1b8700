"""The curriculum map: the one MCP Apps view (extension ``io.modelcontextprotocol/ui``) this server offers.

A host that renders MCP Apps shows it beside the answer of every tool whose answer is a graph
(``Tool.draws_map`` in ``register.py``): the tool's listing carries ``_meta.ui.resourceUri`` naming
:data:`MAP_URI`, and the host reads that resource (one self-contained HTML document shipped in
``kgfegmcp/shipped/apps/``) and feeds it the tool's ``structuredContent``. The view draws only what
answers hold, so it shows no text a tool withholds, and it asks for more only through the host, with
the same tools and bounds a model has (and, for its statements' language, the package resource).

The view is not curriculum evidence: it has no package, no rights and no access class, so it is not a
resource family (``resources/families.py``) and never passes the rights policy; it is declared here.

Extensions are opt-in on both sides, so a client whose capabilities say it lacks the extension sees no
change at all: :class:`MapListingMiddleware` leaves the link and the resource out of its listings. A client
declares the extension on ``initialize`` or, from 2026-07-28 on, in each request's ``_meta``; under
``extensions`` or, as hosts double-tag during the transition, under ``experimental``. Over stateless HTTP a
client of an earlier protocol declared its capabilities on an ``initialize`` this process no longer holds:
its capabilities are unknown, and it is listed the view, as servers built on the official SDKs list it to
every client (a host that renders no MCP Apps ignores ``_meta.ui``; the answers are the same). Tool results
are never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any, Final

import mcp.types as mt
from fastmcp.apps.config import UI_EXTENSION_ID, UI_MIME_TYPE, AppConfig, ResourceCSP, app_config_to_meta_dict
from fastmcp.resources import Resource
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import Tool

#: The view's address: the ``resourceUri`` every linked tool names.
MAP_URI: Final = "ui://kgfegmcp/curriculum-map.html"
#: Its resource name and the file it is shipped as (``kgfegmcp/shipped/apps/``).
MAP_NAME: Final = "curriculum_map"
MAP_FILE: Final = "curriculum-map.html"
MAP_DESCRIPTION: Final = (
    "Interactive curriculum map (MCP Apps view): a standard in its hierarchy, what it builds on and towards "
    "by grade, its learning components and the links an answer left unreturned. Drawn from the linked tools' "
    "structuredContent; interface in Portuguese and English."
)
#: What the view may reach beyond its own document: nothing (no connection, no resource, no frame); it talks
#: to the host only, through the bridge.
MAP_RESOURCE_UI: Final = AppConfig(
    csp=ResourceCSP(connect_domains=[], resource_domains=[], frame_domains=[], base_uri_domains=[]),
    prefers_border=True,
)
#: The listing ``_meta`` of a tool whose answers the view draws.
MAP_TOOL_META: Final[dict[str, Any]] = {"ui": app_config_to_meta_dict(AppConfig(resource_uri=MAP_URI))}


@cache
def map_document() -> str:
    """The view's HTML, read once from the package data."""
    return (resources.files("kgfegmcp") / "shipped" / "apps" / MAP_FILE).read_text(encoding="utf-8")


def map_resource() -> Resource:
    """The view as a static resource, its CSP in ``_meta.ui`` (listed and on every read)."""
    return Resource.from_function(
        map_document,
        uri=MAP_URI,
        name=MAP_NAME,
        description=MAP_DESCRIPTION,
        mime_type=UI_MIME_TYPE,
        meta={"ui": app_config_to_meta_dict(MAP_RESOURCE_UI)},
    )


def declares_extension(context: MiddlewareContext[Any]) -> bool | None:
    """Whether this request's client declared the MCP Apps extension; ``None`` when its capabilities are unknown."""
    ctx = context.fastmcp_context
    if ctx is None:
        return None
    if ctx.client_extension_settings(UI_EXTENSION_ID) is not None:
        return True
    try:
        capabilities = ctx.session.client_capabilities
    except RuntimeError:
        return None
    if capabilities is None:
        return None
    declared = {**(capabilities.experimental or {}), **(capabilities.extensions or {})}
    return UI_EXTENSION_ID in declared


def lists_map(context: MiddlewareContext[Any]) -> bool:
    """Whether this request's listings carry the view: unless the client's capabilities say it lacks it."""
    return declares_extension(context) is not False


def _without_map_link(tool: Tool) -> Tool:
    if not tool.meta or "ui" not in tool.meta:
        return tool
    meta = {key: value for key, value in tool.meta.items() if key != "ui"}
    return tool.model_copy(update={"meta": meta or None})


class MapListingMiddleware(Middleware):
    """Leave the view's link (tools) and the view (resources) out of listings for clients known to lack it."""

    async def on_list_tools(
        self,
        context: MiddlewareContext[mt.ListToolsRequest],
        call_next: CallNext[mt.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        if lists_map(context):
            return tools
        return [_without_map_link(tool) for tool in tools]

    async def on_list_resources(
        self,
        context: MiddlewareContext[mt.ListResourcesRequest],
        call_next: CallNext[mt.ListResourcesRequest, Sequence[Resource]],
    ) -> Sequence[Resource]:
        listed = await call_next(context)
        if lists_map(context):
            return listed
        return [resource for resource in listed if str(resource.uri) != MAP_URI]
