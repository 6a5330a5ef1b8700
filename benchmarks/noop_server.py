"""The framework's floor for ``benchmarks/http_load.py``: one FastMCP tool that does nothing, served like ours.

Run: .venv/bin/python benchmarks/noop_server.py --port PORT [--host 127.0.0.1] [--allowed-host NAME ...]

The same FastMCP, MCP SDK and uvicorn as ``kgfegmcp serve --transport http``, over the same stateless
Streamable HTTP (``stateless_http=True``, SSE answers, the Host/Origin guard on), with one tool, ``noop``,
that returns a short string. Nothing else is ours: no catalog, no middleware, no authentication, and
no per-request log line (uvicorn logs warnings only), so every microsecond it spends per call is the
framework's. The load benchmark sends it the same client traffic, through the same nginx, on the same
core, and divides our calls per second by its calls per second.
"""

from __future__ import annotations

import argparse

from fastmcp import FastMCP

NOOP_ANSWER = "ok"


def build() -> FastMCP:
    """A server with exactly one tool, ``noop``, answering :data:`NOOP_ANSWER`."""
    server = FastMCP(name="noop")

    @server.tool(name="noop")
    def noop() -> str:
        """Answer at once: the cost of a call here is the framework's alone."""
        return NOOP_ANSWER

    return server


def main() -> None:
    """Serve ``noop`` on ``--host``:``--port`` until stopped."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/mcp")
    parser.add_argument("--allowed-host", action="append", default=[], help="a Host a proxy forwards (repeatable)")
    args = parser.parse_args()
    build().run(
        transport="http",
        host=args.host,
        port=args.port,
        path=args.path,
        stateless_http=True,
        host_origin_protection="auto",
        allowed_hosts=args.allowed_host or None,  # as kgfegmcp passes KGFEGMCP_HTTP_ALLOWED_HOSTS
        show_banner=False,
        uvicorn_config={"log_config": None, "log_level": "warning"},
    )


if __name__ == "__main__":
    main()
