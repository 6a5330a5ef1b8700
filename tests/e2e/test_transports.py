"""The server as a real subprocess over STDIO and Streamable HTTP, driven by three client libraries.

Each run lists the tools, searches, pages through with ``nextRequest`` unchanged and fetches
context; every transport and client must see exactly what the in-memory reference sees. A STDIO line
longer than a request may be is dropped as it arrives, and the next one served; the HTTP server names
its URL only once a client can connect to it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    CATALOG_AND_STANDARDS_TOOLS,
    KGFEGMCP,
    REPOSITORY_ROOT,
    SDK1_PYTHON,
    START_TIMEOUT,
    HttpServer,
    Reply,
    fastmcp_caller,
    free_port,
    full_env,
    http_server,
    run_sdk_driver,
    scenario,
    server_env,
    stop,
)
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession

pytestmark = pytest.mark.slow

SCENARIO_TIMEOUT = 120


def assert_same(seen: dict[str, Any], reference: dict[str, Any]) -> None:
    assert seen["ids"] == reference["ids"]
    assert seen["nextRequests"] == reference["nextRequests"]
    assert seen["firstPageText"] == reference["firstPageText"]
    assert seen["context"] == reference["context"]


def sdk_caller(session: ClientSession) -> Any:
    """The scenario's ``call_tool`` over the official SDK 2.x session."""

    async def call_tool(name: str, arguments: dict[str, Any]) -> Reply:
        result = await session.call_tool(name, arguments, read_timeout_seconds=60)
        texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
        return Reply(texts, result.structured_content, bool(result.is_error))

    return call_tool


async def sdk_scenario(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    names = [tool.name for tool in (await session.list_tools()).tools]
    return await scenario(names, sdk_caller(session))


async def test_stdio_with_fastmcp_client(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    transport = StdioTransport(
        command=KGFEGMCP,
        args=["serve", "--transport", "stdio"],
        env=server_env(default_catalog_root),
        cwd=str(REPOSITORY_ROOT),
        keep_alive=False,
    )
    async with asyncio.timeout(SCENARIO_TIMEOUT), Client(transport) as client:
        names = [tool.name for tool in await client.list_tools()]
        assert_same(await scenario(names, fastmcp_caller(client)), reference)


async def test_stdio_with_official_sdk_client(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    params = StdioServerParameters(
        command=KGFEGMCP,
        args=["serve", "--transport", "stdio"],
        env=server_env(default_catalog_root),
        cwd=REPOSITORY_ROOT,
    )
    async with (
        asyncio.timeout(SCENARIO_TIMEOUT),
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        assert_same(await sdk_scenario(session), reference)


async def test_http_with_fastmcp_client(default_http_server: HttpServer, reference: dict[str, Any]) -> None:
    async with asyncio.timeout(SCENARIO_TIMEOUT), Client(default_http_server.url) as client:
        names = [tool.name for tool in await client.list_tools()]
        assert_same(await scenario(names, fastmcp_caller(client)), reference)


async def test_http_with_official_sdk_client(default_http_server: HttpServer, reference: dict[str, Any]) -> None:
    async with asyncio.timeout(SCENARIO_TIMEOUT), streamable_http_client(default_http_server.url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, read_timeout_seconds=60) as session:
            assert_same(await sdk_scenario(session), reference)


def assert_sdk1(seen: dict[str, Any], reference: dict[str, Any]) -> None:
    assert seen["sdkVersion"].startswith("1.")
    assert [name for name in seen["tools"] if name in CATALOG_AND_STANDARDS_TOOLS] == CATALOG_AND_STANDARDS_TOOLS
    assert seen["total"] == len(seen["ids"]) == len(set(seen["ids"]))
    assert seen["lastPage"]["hasMore"] is False
    assert seen["contextIsError"] is False
    assert seen["invalidIsError"] is True and seen["invalidText"].startswith("invalid_request: ")
    assert_same(seen, reference)


def test_stdio_with_sdk1_client(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    env = {**full_env(default_catalog_root), "PATH": os.environ.get("PATH", "")}
    seen = run_sdk_driver(SDK1_PYTHON, ["stdio", KGFEGMCP, "serve", "--transport", "stdio"], env)
    assert_sdk1(seen, reference)


def test_http_with_sdk1_client(default_http_server: HttpServer, reference: dict[str, Any]) -> None:
    seen = run_sdk_driver(SDK1_PYTHON, ["http", default_http_server.url], dict(os.environ))
    assert_sdk1(seen, reference)


def post_framing(url: str) -> str:
    """The Content-Type a tools/list POST is answered with."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=30) as answer:
        return str(answer.headers["Content-Type"]).split(";")[0]


async def test_plain_json_answers_when_the_operator_asks(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    # FastMCP's own variable must not change the framing: the server declares it.
    with http_server(default_catalog_root, {"FASTMCP_JSON_RESPONSE": "true"}) as server:
        assert post_framing(server.url) == "text/event-stream"
    with http_server(default_catalog_root, {"KGFEGMCP_HTTP_JSON_RESPONSE": "true"}) as server:
        assert post_framing(server.url) == "application/json"
        async with asyncio.timeout(SCENARIO_TIMEOUT), Client(server.url) as client:
            names = [tool.name for tool in await client.list_tools()]
            assert_same(await scenario(names, fastmcp_caller(client)), reference)
        async with asyncio.timeout(SCENARIO_TIMEOUT), streamable_http_client(server.url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, read_timeout_seconds=60) as session:
                assert_same(await sdk_scenario(session), reference)
        assert_sdk1(run_sdk_driver(SDK1_PYTHON, ["http", server.url], dict(os.environ)), reference)


#: The line that never ends, until the test ends it: twenty times the default bound (KGFEGMCP_HTTP_MAX_BODY_BYTES).
ENDLESS_LINE_BYTES = 20 * 1024 * 1024
MIB = 1024 * 1024
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "lines", "version": "1"}},
}
GET_STANDARD = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {
        "name": "get_standard",
        "arguments": {"request": {"frameworkId": "brazil-bncc-ensino-fundamental", "statementCode": "EF06MA07"}},
    },
}


def kib_of(pid: int, field: str) -> int:
    """A memory figure of process ``pid`` from ``/proc/<pid>/status``, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB$", status, re.MULTILINE)
    assert match is not None, status
    return int(match.group(1))


def reply_to(process: subprocess.Popen[bytes], stderr: Path) -> dict[str, Any]:
    """The next line the server writes on stdout, as JSON (within a bound)."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], SCENARIO_TIMEOUT)
    assert ready, f"no reply: {stderr.read_text()[-2000:]}"
    reply: dict[str, Any] = json.loads(process.stdout.readline())
    return reply


def test_stdio_drops_a_line_that_never_ends_and_serves_the_next(default_catalog_root: Path, tmp_path: Path) -> None:
    """20 MiB without a newline, then a request: the server holds at most the bound of that line, not all of it."""
    stderr = tmp_path / "stderr.log"
    env = {**full_env(default_catalog_root), "KGFEGMCP_LOG_LEVEL": "INFO"}
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            [KGFEGMCP, "serve", "--transport", "stdio"],
            cwd=REPOSITORY_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=sink,
        )
    assert process.stdin is not None
    try:
        process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        process.stdin.flush()
        assert reply_to(process, stderr)["id"] == 1
        # The peak resident size from here on (writing 5 to clear_refs resets VmHWM to the current size).
        Path(f"/proc/{process.pid}/clear_refs").write_text("5")
        resident = kib_of(process.pid, "VmRSS")
        chunk = b"x" * MIB
        for _ in range(ENDLESS_LINE_BYTES // MIB):  # each write waits until the server has read the pipe
            process.stdin.write(chunk)
        process.stdin.write(b"\n" + json.dumps(GET_STANDARD).encode() + b"\n")
        process.stdin.flush()
        reply = reply_to(process, stderr)
        growth_kib = kib_of(process.pid, "VmHWM") - resident
    finally:
        stop(process)
    assert reply["id"] == 2 and reply["result"]["structuredContent"]["standard"]["statementCode"] == "EF06MA07"
    # Held: at most the bound (1 MiB) of the line and the read buffers, not the 20 MiB line (nor several copies).
    assert growth_kib < ENDLESS_LINE_BYTES // 1024 // 4, f"peak resident size grew by {growth_kib} KiB"
    log = stderr.read_text()
    dropped = [line for line in log.splitlines() if "dropped a STDIO line longer than 1048576 bytes" in line]
    assert len(dropped) == 1 and " INFO kgfegmcp.stdio: " in dropped[0], log[-3000:]
    assert not re.search(r" (WARNING|ERROR|CRITICAL) ", log), log[-3000:]


def test_http_names_its_url_only_once_it_accepts_connections(default_catalog_root: Path) -> None:
    """The line a person copies the URL from arrives when a client can connect, not seconds before."""
    port = free_port()
    env = {**full_env(default_catalog_root), "KGFEGMCP_LOG_LEVEL": "INFO"}
    process = subprocess.Popen(
        [KGFEGMCP, "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPOSITORY_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    url = f"http://127.0.0.1:{port}/mcp"
    seen: list[str] = []
    pending = b""
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not any(f"packages at {url} " in line for line in seen):
            # Raw reads, split here: a buffered readline after select leaves later lines in its buffer, where
            # select never sees them.
            ready, _, _ = select.select([process.stderr], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(process.stderr.fileno(), 65536) if ready else b""
            assert chunk, f"no line naming {url} within {START_TIMEOUT} s: {seen[-20:]}"
            *lines, pending = (pending + chunk).split(b"\n")
            seen += [line.decode(errors="replace") + "\n" for line in lines]
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:  # at once: no retry, no wait
            assert probe.connect_ex(("127.0.0.1", port)) == 0, "the URL was printed before the server accepted"
    finally:
        stop(process)
    (announced,) = [line for line in seen if url in line and " kgfegmcp.http: " in line]
    assert "accepting connections; connect an MCP client to it, for example: " in announced
    assert announced.rstrip().endswith(f"fastmcp list {url}")
