"""The client side of tests/e2e/test_multihost.py, run on a host of its own.

``ip netns exec <namespace> python multihost_driver.py MODE ...`` prints one JSON document on
stdout for the test to assert on. Modes:

- ``ready URL...``: poll each URL with GET until it answers 200; print each JSON body.
- ``http``: the requests in the JSON list on stdin, one connection each; print status, headers, body.
- ``page URL``: page through ``search_standards`` with FastMCP's client, submitting each ``nextRequest``
  unchanged; print every page.
- ``loop URL``: page through the same search again and again until a stop file appears; print every
  complete pass and every failed call.

The bearer token comes from the environment (``MULTIHOST_TOKEN``), never from the command line.
Every MCP request carries ``X-Request-Id: <label>-<call>`` so that the balancer's access log ties each
call to the replica that served it.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import sys
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # e2e_support and what it imports, as the tests import them

TOKEN_VARIABLE = "MULTIHOST_TOKEN"
HTTP_TIMEOUT = 10.0
CALL_TIMEOUT = 15.0


def exchange(method: str, url: str, headers: dict[str, str], body: bytes | None) -> dict[str, Any]:
    """One request on a fresh connection: status, headers (lower-case names), body; or the socket error."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=HTTP_TIMEOUT)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return {
            "status": response.status,
            "headers": {name.lower(): value for name, value in response.getheaders()},
            "body": response.read(1 << 20).decode("utf-8", errors="replace"),
        }
    except OSError as error:
        return {"error": f"{type(error).__name__}: {error}"}
    finally:
        connection.close()


def ready(urls: list[str], timeout: float) -> dict[str, Any]:
    """Wait until every URL answers 200 (a replica's /readyz once its catalog is served)."""
    deadline = time.monotonic() + timeout
    documents: dict[str, Any] = {}
    for url in urls:
        while True:
            answer = exchange("GET", url, {}, None)
            if answer.get("status") == 200:
                documents[url] = json.loads(answer["body"])
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} not ready within {timeout}s: {answer}")
            time.sleep(0.05)
    return documents


def plan(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each ``{"method", "url", "headers", "json", "token"}``; ``token`` "valid" adds the real bearer token."""
    answers = []
    for request in requests:
        headers = dict(request.get("headers", {}))
        if request.get("token") == "valid":
            headers["Authorization"] = f"Bearer {os.environ[TOKEN_VARIABLE]}"
        body = None
        if request.get("json") is not None:
            body = json.dumps(request["json"]).encode()
            headers.setdefault("Content-Type", "application/json")
            headers.setdefault("Accept", "application/json, text/event-stream")
        answers.append(exchange(request["method"], request["url"], headers, body))
    return answers


class Labeller:
    """Puts ``X-Request-Id: <prefix>-<current>`` on every HTTP request the MCP client sends."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.current = "connect"

    async def __call__(self, request: Any) -> None:
        request.headers["X-Request-Id"] = f"{self.prefix}-{self.current}"


def mcp_client(url: str, labeller: Labeller) -> Client[StreamableHttpTransport]:
    """FastMCP's client over Streamable HTTP with the bearer token, its requests labelled.

    Imported here, not at the top: the ``ready`` and ``http`` modes need only the standard library.
    """
    import httpx2
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
        **options: Any,
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout or httpx2.Timeout(HTTP_TIMEOUT, read=60.0),
            auth=auth,
            trust_env=False,  # no proxy from the environment: the namespaces are the whole network
            event_hooks={"request": [labeller], "response": []},
            **options,
        )

    headers = {"Authorization": f"Bearer {os.environ[TOKEN_VARIABLE]}"}
    return Client(StreamableHttpTransport(url, headers=headers, httpx_client_factory=factory))


async def call(
    client: Client[StreamableHttpTransport], arguments: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One ``search_standards`` call: its structured page and its continuation block (None on the last page)."""
    from e2e_support import Reply
    from mcp.types import TextContent

    result = await client.call_tool("search_standards", arguments, raise_on_error=False, timeout=CALL_TIMEOUT)
    reply = Reply(
        [b.text for b in result.content if isinstance(b, TextContent)], result.structured_content, result.is_error
    )
    if reply.is_error or reply.structured is None:
        raise RuntimeError(f"tool error: {reply.texts[:1]}")
    block = reply.continuation()
    if block is not None:
        assert block["continuationTool"] == "search_standards", block
    return reply.structured, block


async def page(url: str, first: dict[str, Any], label: str) -> dict[str, Any]:
    """Every page of one search, each ``nextRequest`` submitted unchanged."""
    labeller = Labeller(label)
    pages: list[dict[str, Any]] = []
    next_requests: list[dict[str, Any]] = []
    async with mcp_client(url, labeller) as client:
        await client.list_tools()  # now, not inside the first call: each page is then exactly one request
        arguments: dict[str, Any] | None = first
        while arguments is not None:
            labeller.current = str(len(pages) + 1)
            structured, block = await call(client, arguments)
            pages.append(structured)
            arguments = block["nextRequest"] if block else None
            if arguments is not None:
                next_requests.append(arguments)
            if len(pages) > 100:
                raise RuntimeError("more than 100 pages: the continuation never ends")
        labeller.current = "close"
    return {"pages": pages, "nextRequests": next_requests}


async def loop(url: str, first: dict[str, Any], label: str, stop: Path, limit: float) -> dict[str, Any]:
    """Page through the search again and again until ``stop`` exists; a failed call is recorded, never retried."""
    labeller = Labeller(label)
    calls = 0
    failures: list[dict[str, str]] = []
    passes: list[list[str]] = []
    deadline = time.monotonic() + limit
    async with mcp_client(url, labeller) as client:
        await client.list_tools()
        ids: list[str] = []
        arguments = first
        while not stop.exists() and time.monotonic() < deadline:
            calls += 1
            labeller.current = str(calls)
            try:
                structured, block = await call(client, arguments)
            except Exception as error:  # recorded for the test to fail on, with the call's label
                failures.append({"label": f"{label}-{calls}", "error": f"{type(error).__name__}: {error}"[:500]})
                ids, arguments = [], first
                continue
            ids.extend(hit["nodeId"] for hit in structured["hits"])
            if block is None:
                passes.append(ids)
                ids, arguments = [], first
            else:
                arguments = block["nextRequest"]
            await asyncio.sleep(0.01)
    distinct = [list(p) for p in {tuple(p) for p in passes}]
    return {"calls": calls, "completePasses": len(passes), "distinctPasses": distinct, "failures": failures}


def main() -> None:
    """Parse the mode, run it, print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=["ready", "http", "page", "loop"])
    parser.add_argument("urls", nargs="*")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--request", type=json.loads, default=None, help="the first search_standards arguments")
    parser.add_argument("--label", default="call")
    parser.add_argument("--stop", type=Path, default=None)
    arguments = parser.parse_args()
    if arguments.mode == "ready":
        result: Any = ready(arguments.urls, arguments.timeout)
    elif arguments.mode == "http":
        result = plan(json.load(sys.stdin))
    elif arguments.mode == "page":
        result = asyncio.run(page(arguments.urls[0], arguments.request, arguments.label))
    else:
        result = asyncio.run(
            loop(arguments.urls[0], arguments.request, arguments.label, arguments.stop, arguments.timeout)
        )
    json.dump(result, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
