"""The MCPB bundle's door: ``python -m kgfegmcp.mcpb_server``, the module path a bundle's manifest names.

Kept at this path because installed bundles run it by name; the STDIO server itself is ``stdio_transport``.
"""

from __future__ import annotations

from kgfegmcp.stdio_transport.server import main

if __name__ == "__main__":
    main()
