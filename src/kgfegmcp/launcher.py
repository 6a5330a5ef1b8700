"""The ``kgfegmcp`` console script: imports the command line with the cyclic GC paused.

Importing FastMCP, the MCP SDK and our models allocates a few hundred thousand long-lived objects
and next to no garbage, yet with the collector on, the growing heap is rescanned several times
(about a tenth of a server's start-up). After the imports those objects are frozen out of the
collector's reach for the life of the process, so later collections never rescan them either.
"""

from __future__ import annotations

import gc


def main() -> None:
    """Import the command line with the collector paused, then run it with the collector on."""
    gc.disable()
    try:
        from kgfegmcp.cli import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    cli_main()
