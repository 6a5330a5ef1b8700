"""The ``kgfegmcp`` console script: imports the command line with the cyclic GC paused.

What the imports build (FastMCP, the MCP SDK, our models) lives as long as the process, so it is
then frozen out of the collector's reach: later collections never rescan it either.
"""

from __future__ import annotations

import gc

from kgfegmcp.gc_pause import cyclic_gc_paused


def main() -> None:
    """Import the command line with the collector paused, then run it with the collector on."""
    with cyclic_gc_paused():
        from kgfegmcp.cli import main as cli_main

        gc.freeze()
    cli_main()
