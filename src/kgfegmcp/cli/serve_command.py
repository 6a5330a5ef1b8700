"""`kgfegmcp serve`: the accepted catalog over STDIO or stateless Streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgfegmcp.cli.console import settings_with
from kgfegmcp.core.errors import ConfigurationError


def serve_command(
    transport: Annotated[str, typer.Option(help="stdio (local hosts) or http (stateless Streamable HTTP).")] = "stdio",
    host: Annotated[str | None, typer.Option(help="HTTP bind address (KGFEGMCP_HTTP_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port (KGFEGMCP_HTTP_PORT).")] = None,
    path: Annotated[str | None, typer.Option(help="HTTP path (KGFEGMCP_HTTP_PATH).")] = None,
    root: Annotated[Path | None, typer.Option(help="Graph-package root (KGFEGMCP_GRAPH_PACKAGES_DIR).")] = None,
) -> None:
    """Serve the accepted catalog over MCP; refuses to start with no accepted package."""
    settings = settings_with(http_host=host, http_port=port, http_path=path, graph_packages_dir=root)
    if transport == "stdio":
        from kgfegmcp.stdio_transport.server import serve_stdio

        serve_stdio(settings)
    elif transport == "http":
        from kgfegmcp.http_transport.server import serve_http

        serve_http(settings)
    else:
        raise ConfigurationError(f"Unknown transport {transport!r}.", hint="Use --transport stdio or http.")
