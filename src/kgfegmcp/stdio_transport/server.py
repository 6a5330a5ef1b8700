"""STDIO entry point (local MCP hosts, the MCPB bundle). No registration or domain logic here."""

from __future__ import annotations

import sys
from pathlib import Path

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_serving_state
from kgfegmcp.core.config import BackendSettings, load_settings
from kgfegmcp.core.entry_boundary import run_entry_point
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.logging_setup import configure_logging
from kgfegmcp.mcp.warm_up import warm_up
from kgfegmcp.stdio_transport.lines import use_bounded_stdin


def serve_stdio(settings: BackendSettings) -> None:
    """Build the catalog first (fail fast, non-zero exit), then serve over STDIO."""
    configure_logging(settings.log_level, settings.log_format)
    state = build_serving_state(settings)
    server = create_app(state)
    warm_up(server)  # the host's first call must not pay for what FastMCP sets up on first use
    # One message is one line: the SDK would hold a line whole, however long; longer than a request body
    # may be over HTTP, it is dropped as it arrives (stdio_lines.py).
    use_bounded_stdin(settings.http_max_body_bytes)
    server.run(transport="stdio", show_banner=False)


def bundle_settings(arguments: list[str]) -> BackendSettings:
    """Settings of the MCPB bundle: ``--bundled-catalog DIR [--packages-dir DIR]``.

    The bundle's manifest passes the catalog built into the bundle and the user's optional package
    directory (its ``user_config``; empty when the user chose none), so the host needs to set no
    environment variable. Everything else comes from the environment as usual.
    """
    options: dict[str, str] = {}
    rest = list(arguments)
    while rest:
        name = rest.pop(0)
        if name not in ("--bundled-catalog", "--packages-dir") or not rest or name in options:
            raise ConfigurationError(
                "The bundle entry point takes --bundled-catalog DIR and optionally --packages-dir DIR, once each.",
                hint="Check the mcp_config args of the bundle's manifest.json.",
            )
        options[name] = rest.pop(0)
    if "--bundled-catalog" not in options:
        raise ConfigurationError("--bundled-catalog DIR is required.", hint="Check the bundle's manifest.json.")
    chosen = options.get("--packages-dir", "").strip()
    return load_settings({"graph_packages_dir": Path(chosen or options["--bundled-catalog"])})


def main() -> None:
    """``python -m kgfegmcp.stdio_transport.server``: settings from the environment, or the bundle's arguments."""
    arguments = sys.argv[1:]
    run_entry_point(lambda: serve_stdio(bundle_settings(arguments) if arguments else load_settings()), "The server")


if __name__ == "__main__":
    main()
