"""STDIO entry point (local MCP hosts, the MCPB bundle). No registration or domain logic here."""

from __future__ import annotations

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_serving_state
from kgfegmcp.config import BackendSettings, load_settings
from kgfegmcp.errors import exit_on_domain_error
from kgfegmcp.logging_setup import configure_logging
from kgfegmcp.mcp.warm_up import warm_up


def serve_stdio(settings: BackendSettings) -> None:
    """Build the catalog first (fail fast, non-zero exit), then serve over STDIO."""
    configure_logging(settings.log_level, settings.log_format)
    state = build_serving_state(settings)
    server = create_app(state)
    warm_up(server)  # the host's first call must not pay for what FastMCP sets up on first use
    server.run(transport="stdio", show_banner=False)


def main() -> None:
    """``python -m kgfegmcp.mcpb_server``: settings from the environment."""
    exit_on_domain_error(lambda: serve_stdio(load_settings()))


if __name__ == "__main__":
    main()
