"""FastMCP assembly: lifespan-built state, strict input validation, duplicate rejection, masked errors.

The public surface (tools, resources, prompts) and every MCP middleware are declared in
:mod:`kgfegmcp.mcp.register`; this module only builds the server and hands it over.

Importing this module loads nothing; the catalog is built when the lifespan starts (or handed in
already built by an entry point that wants to fail before opening a transport).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.auth import TokenVerifier
from fastmcp.server.http import StarletteWithLifespan
from fastmcp.server.lifespan import lifespan
from mcp.server.lowlevel import NotificationOptions
from starlette.middleware import Middleware as ASGIMiddleware

from kgfegmcp import __version__
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import BackendSettings, load_settings
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.protocol_versions import UnsupportedProtocolVersionGuard
from kgfegmcp.mcp.register import register

INSTRUCTIONS = (
    "KGForEdGlobalMCP serves curriculum evidence from validated, versioned graph packages: standards, "
    "their hierarchy, learning components and stored learning progressions. It never generates text. "
    "Start with list_frameworks, then search_standards / get_standard / get_standard_context. Keep each "
    "framework's own terms, cite the resource links, and preserve warnings and disclosures."
)


class KgfegmcpServer(FastMCP):
    """FastMCP whose HTTP app refuses an unsupported ``MCP-Protocol-Version`` before the SDK routes it."""

    def http_app(
        self, path: str | None = None, middleware: list[ASGIMiddleware] | None = None, *args: Any, **kwargs: Any
    ) -> StarletteWithLifespan:
        guard = ASGIMiddleware(UnsupportedProtocolVersionGuard)
        return super().http_app(path, [guard, *(middleware or [])], *args, **kwargs)


def create_app(
    state: AppState | None = None, settings: BackendSettings | None = None, auth: TokenVerifier | None = None
) -> FastMCP:
    """The one assembled server; entry points only choose the transport (and, over HTTP, the verifier)."""
    readiness = Readiness()

    @lifespan
    async def app_lifespan(server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        readiness.state = state if state is not None else build_app_state(settings or load_settings())
        yield {"state": readiness.state}

    server = KgfegmcpServer(
        name="kgfegmcp",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=app_lifespan,
        auth=auth,
        strict_input_validation=True,
        on_duplicate="error",
        mask_error_details=True,
        # No middleware of FastMCP's choosing: register() declares every one, its schema dereferencing included.
        dereference_schemas=False,
    )
    # The surface is fixed at start-up and stateless HTTP cannot notify: no list ever changes.
    server._mcp_server.notification_options = NotificationOptions()
    register(server, readiness)
    return server
