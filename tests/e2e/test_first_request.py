"""The first requests a host sends find nothing left to set up, and the start set up nothing they do not need.

Timing the first call would be noise on a shared machine, so this watches what the server does
instead. The STDIO server runs with ``python -X importtime``, which writes a line to stderr for every
module it imports, when it imports it. A server that sets something up on first use imports it while
the first requests are answered (FastMCP's session-state store alone is several hundred
milliseconds); a warmed server imports nothing once the host's first request has arrived. Nor does it
import, at any point, what only other commands or a cold validation use (the start-up budget in
``docs/performance.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import full_env, stdio_exchange

pytestmark = pytest.mark.slow

READ_TIMEOUT = 120.0
EF = "brazil-bncc-ensino-fundamental"
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "first", "version": "1"}}
#: What a host does first: the handshake, the three lists, then calls.
MESSAGES: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "resources/templates/list"},
    {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
    {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "search_standards", "arguments": {"request": {"query": "frações", "limit": 3}}},
    },
    {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "tools/call",
        "params": {"name": "get_standard", "arguments": {"request": {"frameworkId": EF, "statementCode": "EF06MA07"}}},
    },
]
LAUNCH = (
    "import sys; from kgfegmcp.launcher import main; sys.argv = ['kgfegmcp', 'serve', '--transport', 'stdio']; main()"
)


#: Modules a serving process never needs: the other commands' work (writing, fetching, diffing, the doctor,
#: progress bars), FastMCP's docstring parser (every description is given) and general ``$ref`` resolver
#: (ours inlines in one walk), and client-side schema checking.
NOT_FOR_SERVING = (
    "griffe",
    "jsonref",
    "jsonschema",
    "rich.progress",
    "kgfegmcp.doctor",
    "kgfegmcp.packages.lifecycle",
    "kgfegmcp.packages.snapshot_diff",
    "kgfegmcp.packages.writer",
    "kgfegmcp.sources",
)


@pytest.fixture(scope="module")
def server_stderr(default_catalog_root: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The stderr lines of one STDIO server under ``-X importtime`` that answered ``MESSAGES``."""
    stderr_path = tmp_path_factory.mktemp("first-request") / "stderr.log"
    env = {**full_env(default_catalog_root), "KGFEGMCP_LOG_LEVEL": "INFO"}
    command = [sys.executable, "-X", "importtime", "-c", LAUNCH]
    for reply in stdio_exchange(command, env, MESSAGES, stderr_path, READ_TIMEOUT).replies:
        assert "error" not in reply and not reply["result"].get("isError"), reply
    return stderr_path.read_text().splitlines()


def imported_modules(lines: list[str]) -> list[str]:
    """The module of each ``-X importtime`` line, in import order."""
    return [line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")]


def test_answering_the_first_requests_imports_nothing(server_stderr: list[str]) -> None:
    # The transport opens (FastMCP logs it) right before the host's first message is read.
    transport_open = next(i for i, line in enumerate(server_stderr) if "Starting MCP server" in line)
    imported = [line for line in server_stderr[transport_open:] if line.startswith("import time:")]
    assert imported == [], f"{len(imported)} modules imported while the first requests were answered: {imported[:20]}"


def test_serving_imports_nothing_only_other_commands_use(server_stderr: list[str]) -> None:
    modules = imported_modules(server_stderr)
    assert "kgfegmcp.mcp.register" in modules  # the lines are read
    unneeded = [m for m in modules if any(m == name or m.startswith(f"{name}.") for name in NOT_FOR_SERVING)]
    assert unneeded == [], f"a serving process imported {unneeded}"
