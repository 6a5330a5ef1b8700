"""Real server processes on 127.0.0.1 and one client-agnostic scenario for every client library.

Every process started here is bounded by a timeout and always terminated (then killed) in a
``finally``; nothing listens anywhere but the loopback interface.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastmcp import Client
from mcp.types import TextContent

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR

BIN = Path(sys.executable).parent
KGFEGMCP = str(BIN / "kgfegmcp")
SDK1_PYTHON = REPOSITORY_ROOT / ".venv-sdk1" / "bin" / "python"
SDK1_DRIVER = Path(__file__).resolve().parent / "sdk1_driver.py"
SDK_DRIVER_TIMEOUT = 180


def run_sdk_driver(python: Path, arguments: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``sdk1_driver.py`` under another client environment's Python and read its JSON report."""
    if not python.exists():
        raise AssertionError(f"{python} is missing: run scripts/install_dev.sh (it creates each client environment)")
    completed = subprocess.run(
        [str(python), str(SDK1_DRIVER), *arguments],
        cwd=REPOSITORY_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=SDK_DRIVER_TIMEOUT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode(errors="replace")[-3000:]
    result: dict[str, Any] = json.loads(completed.stdout)
    return result


PROFILES_ROOT = SHIPPED_PROFILES_DIR
PROMPTS_ROOT = SHIPPED_PROMPTS_DIR
START_TIMEOUT = 60.0
CALL_TIMEOUT = 60.0

CATALOG_AND_STANDARDS_TOOLS = [
    "list_frameworks",
    "get_framework",
    "get_capabilities",
    "get_framework_statistics",
    "search_standards",
    "get_standard",
    "get_standard_context",
]

#: The scenario every client runs: a query with several pages on the default catalog.
SEARCH_REQUEST: dict[str, Any] = {"query": "fracoes", "limit": 3}
CONTINUE_PREFIX = "Continue with:\n"


@dataclass(frozen=True)
class StdioExchange:
    """What a STDIO server answered to the requests written to it, and what else it printed on stdout."""

    replies: list[dict[str, Any]]
    rest: bytes


def stdio_exchange(
    command: list[str], env: dict[str, str], messages: list[dict[str, Any]], stderr_path: Path, timeout: float
) -> StdioExchange:
    """Start ``command``, write ``messages`` one per line, read one reply per request, then close stdin.

    The server's stderr goes to ``stderr_path``; a reply not ready within ``timeout`` fails with its tail.
    """
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            command, cwd=REPOSITORY_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
    assert process.stdin is not None and process.stdout is not None
    replies: list[dict[str, Any]] = []
    try:
        for message in messages:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
            if "id" in message:
                ready, _, _ = select.select([process.stdout], [], [], timeout)
                assert ready, f"no reply to {message['method']}: {stderr_path.read_text()[-2000:]}"
                replies.append(json.loads(process.stdout.readline()))
        process.stdin.close()
        rest = process.stdout.read()
        process.wait(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=timeout)
    return StdioExchange(replies, rest)


def server_env(graph_packages_dir: Path) -> dict[str, str]:
    """The server's whole configuration, from the environment, as a host would set it."""
    env = {
        "KGFEGMCP_GRAPH_PACKAGES_DIR": str(graph_packages_dir),
        "KGFEGMCP_PROFILES_DIR": str(PROFILES_ROOT),
        "KGFEGMCP_PROMPTS_DIR": str(PROMPTS_ROOT),
        "KGFEGMCP_LOG_LEVEL": "WARNING",
    }
    for inherited in ("PYTHONPATH", "KGFEGMCP_CACHE_DIR"):  # the tests' code and their session cache
        if inherited in os.environ:
            env[inherited] = os.environ[inherited]
    return env


def full_env(graph_packages_dir: Path) -> dict[str, str]:
    """The current environment plus the server configuration (for ``subprocess``)."""
    return {**os.environ, **server_env(graph_packages_dir), "PYTHONUNBUFFERED": "1"}


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class HttpServer:
    """One running ``kgfegmcp serve --transport http`` process."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path


def accepting(port: int) -> bool:
    """Whether something accepts TCP connections on ``port`` of 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate, then kill after a bounded wait."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextlib.contextmanager
def http_server(
    graph_packages_dir: Path,
    settings: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> Iterator[HttpServer]:
    """Start the HTTP server on a free loopback port, wait until it accepts, always stop it.

    ``settings`` adds environment variables; ``preexec_fn`` runs in the child before it starts
    (for example to lower its descriptor limit).
    """
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="kgfegmcp-http-", suffix=".log")[1])
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [KGFEGMCP, "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
            cwd=REPOSITORY_ROOT,
            env={**full_env(graph_packages_dir), **(settings or {})},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            preexec_fn=preexec_fn,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not accepting(port):
            if process.poll() is not None:
                raise AssertionError(f"HTTP server exited with {process.returncode}: {log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"HTTP server not ready in {START_TIMEOUT}s: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", process, log)
    finally:
        stop(process)
        log.unlink(missing_ok=True)


# -- the scenario ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """A tool result reduced to what every client library exposes."""

    texts: list[str]
    structured: dict[str, Any] | None
    is_error: bool

    def continuation(self) -> dict[str, Any] | None:
        blocks = [t for t in self.texts if t.startswith(CONTINUE_PREFIX)]
        assert len(blocks) <= 1
        return json.loads(blocks[0][len(CONTINUE_PREFIX) :]) if blocks else None


CallTool = Callable[[str, dict[str, Any]], Awaitable[Reply]]


async def scenario(tool_names: list[str], call_tool: CallTool) -> dict[str, Any]:
    """List, search, page through with ``nextRequest`` unchanged, fetch context; return what was seen."""
    assert [name for name in tool_names if name in CATALOG_AND_STANDARDS_TOOLS] == CATALOG_AND_STANDARDS_TOOLS
    first = await call_tool("search_standards", {"request": SEARCH_REQUEST})
    assert not first.is_error and first.structured is not None, first.texts
    total = first.structured["total"]
    pages = [first.structured]
    block = first.continuation()
    next_requests = []
    while block is not None:
        assert block["continuationTool"] == "search_standards"
        next_requests.append(block["nextRequest"])
        reply = await call_tool(block["continuationTool"], block["nextRequest"])
        assert not reply.is_error and reply.structured is not None, reply.texts
        pages.append(reply.structured)
        block = reply.continuation()
        assert len(pages) <= total
    ids = [hit["nodeId"] for page in pages for hit in page["hits"]]
    assert len(ids) == len(set(ids)) == total > 3
    assert pages[-1]["page"]["hasMore"] is False
    top = pages[0]["hits"][0]
    framework_id = pages[0]["packages"][top.get("package", 0)]["graphPackageId"].split("@")[0]
    context = await call_tool(
        "get_standard_context", {"request": {"frameworkId": framework_id, "nodeId": top["nodeId"]}}
    )
    assert not context.is_error and context.structured is not None, context.texts
    assert context.structured["standard"]["nodeId"] == top["nodeId"]
    assert context.structured["rootPaths"] and context.structured["rootPathsComplete"] is True
    invalid = await call_tool("search_standards", {"request": {**SEARCH_REQUEST, "limit": "3"}})
    assert invalid.is_error and invalid.texts[0].startswith("invalid_request: ")
    return {
        "ids": ids,
        "firstPageText": first.texts[0],
        "nextRequests": next_requests,
        "context": context.structured,
    }


def fastmcp_caller(client: Client[Any]) -> CallTool:
    """The scenario's ``call_tool`` over a FastMCP client (any transport)."""

    async def call_tool(name: str, arguments: dict[str, Any]) -> Reply:
        result = await client.call_tool(name, arguments, raise_on_error=False, timeout=60)
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        return Reply(texts, result.structured_content, result.is_error)

    return call_tool
