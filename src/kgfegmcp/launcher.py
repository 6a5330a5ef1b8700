"""The ``kgfegmcp`` console script: imports the command line with the cyclic GC paused.

What the imports build (FastMCP, the MCP SDK, our models) lives as long as the process, so it is
then frozen out of the collector's reach: later collections never rescan it either. Even a failure
to import (a broken installation) leaves through the entry-point boundary: one coded line, exit 2.
"""

from __future__ import annotations

import gc

from kgfegmcp.core.entry_boundary import run_entry_point
from kgfegmcp.core.gc_pause import cyclic_gc_paused


def main() -> None:
    """Import the command line with the collector paused, then run it with the collector on."""
    run_entry_point(_import_and_run)


def _import_and_run() -> None:
    with cyclic_gc_paused():
        from kgfegmcp.cli import main as cli_main

        gc.freeze()
    cli_main()
