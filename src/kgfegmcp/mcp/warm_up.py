"""Answer one request of each kind in memory before a transport opens, so no client pays for first use.

FastMCP and the MCP SDK set up some of their machinery on the first request that needs it: the
session-state store behind component visibility (an import of several hundred milliseconds), schema
dereferencing, the validators of each request model. A host that starts the server and sends its
first call would wait for all of that. Warming up answers the same kinds of request through the real
server, in a session opened with the initialize handshake the transports use, so that work is done
before the process reports ready. The client is the MCP SDK's in-process one, which the server
imports anyway; FastMCP's would import its own client stack (authentication flows, transports) that
a server never uses. It changes no state a client can observe: the surface is read-only and every
answer is discarded. Its requests are not logged as client requests.
"""

from __future__ import annotations

import asyncio
import logging
import time

import mcp.types as mt
from fastmcp import FastMCP
from mcp.client import Client

from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.mcp.request_log import unlogged_requests

log = logging.getLogger("kgfegmcp.warm_up")

#: A cheap call that still runs the whole tool path: request validation, a service, result shaping.
WARM_UP_CALL: tuple[str, dict[str, object]] = (ToolName.LIST_FRAMEWORKS, {"request": {"limit": 1}})


async def _answer_one_of_each(server: FastMCP) -> None:
    # The low-level server FastMCP runs on every transport; running it enters FastMCP's lifespan too.
    async with Client(server._mcp_server, mode="legacy", cache=None) as client:
        await client.list_tools()
        await client.list_resources()
        await client.list_resource_templates()
        await client.list_prompts()
        tool, arguments = WARM_UP_CALL
        # Sent below the client's call_tool, which would check the result against the tool's outputSchema:
        # client work (importing and compiling jsonschema) that a serving process never does.
        request = mt.CallToolRequest(params=mt.CallToolRequestParams(name=tool, arguments=arguments))
        await client.session.send_request(request, mt.CallToolResult)


def warm_up(server: FastMCP) -> None:
    """Run the warm-up requests to completion; call it before ``server.run``.

    It only saves time, so it never stops a start: should a warm-up request fail, the server still
    serves (a real fault in a handler is logged with its incident id by the boundary that caught it).
    """
    started = time.perf_counter()
    try:
        with unlogged_requests():
            asyncio.run(_answer_one_of_each(server))
    except Exception as exc:  # an optimisation must not turn into a failed start
        log.warning("warm-up did not complete (%s); the first requests may be slower", type(exc).__name__)
        return
    log.info("warmed up in %.0f ms", (time.perf_counter() - started) * 1000)
