"""What a real server process writes: one format, one line per MCP request, no per-request noise.

Requests are raw JSON-RPC POSTs (protocol 2025-06-18, the SDK's stateless per-request transport,
which used to log ``Terminating session: None`` for each), then a FastMCP client (the newer
protocol), then the same over STDIO, whose stdout must stay pure JSON-RPC.
"""

from __future__ import annotations

import json
import os
import re
import socket
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from e2e_support import KGFEGMCP, full_env, http_server, stdio_exchange
from fastmcp import Client

pytestmark = pytest.mark.slow

EF = "brazil-bncc-ensino-fundamental"
PROTOCOL = "2025-06-18"
TEXT_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [A-Za-z0-9_.]+: .*")
REQUEST_LINE = re.compile(r"\S+ \S+ INFO kgfegmcp\.request: (.*)")
PAIR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
#: No record may write more than this (libraries log what a client sent at DEBUG).
LONGEST_LINE = 5000
SECRET = "/srv/secret/graph_packages/private.jsonl: boom-detail-XYZ"
INTERNAL = "internal_error: The server could not complete the request."
READ_TIMEOUT = 60.0

INITIALIZE = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "log-test", "version": "1"}}

#: (method, params) → the request line it must leave: (name or None, outcome).
REQUESTS: list[tuple[str, dict[str, Any], str | None, str]] = [
    ("initialize", INITIALIZE, None, "ok"),
    ("tools/call", {"name": "list_frameworks", "arguments": {"request": {}}}, "list_frameworks", "ok"),
    ("tools/call", {"name": "get_capabilities", "arguments": {"request": {}}}, "get_capabilities", "ok"),
    (
        "tools/call",
        {"name": "get_standard", "arguments": {"request": {"frameworkId": EF, "statementCode": "EF99ZZ99"}}},
        "get_standard",
        "standard_not_found",
    ),
    (
        "tools/call",
        {"name": "search_standards", "arguments": {"request": {"query": "fracoes", "limit": "3"}}},
        "search_standards",
        "invalid_request",
    ),
    ("resources/read", {"uri": "kgfegmcp://catalog"}, "catalog", "ok"),
    ("resources/read", {"uri": "kgfegmcp://framework/no-such-framework"}, "framework", "resource_not_found"),
    (
        "prompts/get",
        {"name": "teacher_guide_draft", "arguments": {"framework_id": EF, "topic": "frações"}},
        "teacher_guide_draft",
        "ok",
    ),
    ("prompts/get", {"name": "teacher_guide_draft", "arguments": {}}, "teacher_guide_draft", "invalid_request"),
    ("tools/list", {}, None, "ok"),
]


def post(url: str, message: dict[str, Any]) -> dict[str, Any] | None:
    """One JSON-RPC message as one stateless POST; the response message (``None`` for a notification)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(message).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL,
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=READ_TIMEOUT) as response:
        body = response.read().decode()
    data = [line[len("data:") :].strip() for line in body.splitlines() if line.startswith("data:")]
    if data:
        return json.loads(data[-1])  # type: ignore[no-any-return]
    return json.loads(body) if body.strip() else None  # type: ignore[no-any-return]


def send_all(url: str) -> None:
    assert post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    for number, (method, params, _, outcome) in enumerate(REQUESTS, start=1):
        reply = post(url, {"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        assert reply is not None and reply["id"] == number, reply
        refused = "error" in reply or reply["result"].get("isError", False)
        assert refused == (outcome != "ok"), reply


def expected_lines() -> list[dict[str, str]]:
    return [{"method": m} | ({"name": n} if n else {}) | {"outcome": o} for m, _, n, o in REQUESTS]


def text_fields(message: str) -> dict[str, str]:
    return {key: json.loads(value) if value.startswith('"') else value for key, value in PAIR.findall(message)}


def without_duration(fields: dict[str, Any]) -> dict[str, Any]:
    assert float(fields["duration_ms"]) >= 0
    return {key: value for key, value in fields.items() if key != "duration_ms"}


def assert_one_text_format(log: str) -> None:
    """Every line is one record in the text format: nothing in another format, no traceback."""
    strays = [line for line in log.splitlines() if line and not TEXT_LINE.fullmatch(line)]
    assert not strays, strays[:10]
    assert "Traceback" not in log


async def test_http_text_log_is_one_format_and_one_line_per_request(default_catalog_root: Path) -> None:
    with http_server(default_catalog_root, {"KGFEGMCP_LOG_LEVEL": "INFO"}) as server:
        send_all(server.url)
        async with Client(server.url) as client:
            await client.call_tool("list_frameworks", {"request": {}}, raise_on_error=False)
            await client.call_tool("get_framework", {"request": {"frameworkId": "no-such"}}, raise_on_error=False)
        log = server.log.read_text()
    assert_one_text_format(log)
    assert "Terminating session" not in log
    louder = [line for line in log.splitlines() if re.match(r"\S+ \S+ (WARNING|ERROR|CRITICAL) ", line)]
    assert not louder, louder
    requests = [without_duration(text_fields(m.group(1))) for m in REQUEST_LINE.finditer(log)]
    assert requests[: len(REQUESTS)] == expected_lines()
    calls = [r for r in requests[len(REQUESTS) :] if r["method"] == "tools/call"]
    assert calls == [
        {"method": "tools/call", "name": "list_frameworks", "outcome": "ok"},
        {"method": "tools/call", "name": "get_framework", "outcome": "framework_not_found"},
    ]
    assert "HTTP/1.1" not in log, "uvicorn's access line repeats the request line (it is DEBUG)"
    assert "Error calling tool" not in log


async def test_http_json_log_is_one_object_per_line(default_catalog_root: Path) -> None:
    settings = {"KGFEGMCP_LOG_LEVEL": "INFO", "KGFEGMCP_LOG_FORMAT": "json"}
    with http_server(default_catalog_root, settings) as server:
        send_all(server.url)
        log = server.log.read_text()
    entries = [json.loads(line) for line in log.splitlines() if line]
    assert entries and all({"time", "level", "logger", "message"} <= entry.keys() for entry in entries)
    assert all(entry["level"] in ("DEBUG", "INFO") for entry in entries), [e for e in entries if e["level"] != "INFO"]
    assert not [entry for entry in entries if "exception" in entry]
    assert not [entry for entry in entries if "Terminating session" in entry["message"]]
    requests = [entry for entry in entries if entry["logger"] == "kgfegmcp.request"]
    assert [
        without_duration({k: v for k, v in e.items() if k not in ("time", "level", "logger", "message")})
        for e in requests
    ] == expected_lines()
    assert all(isinstance(entry["duration_ms"], float) for entry in requests)
    assert all(entry["message"].startswith(f"method={entry['method']} ") for entry in requests)


#: Requests uvicorn cannot parse, or serves without what they ask for: it logged a WARNING for each.
MALFORMED = {
    "garbage": b"\x00\xffgarbage\r\n\r\n",
    "tls-on-plain-http": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32),
    "http2-preface": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "space-in-header-name": b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n",
    "negative-length": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
    "header-without-colon": b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nnot a header\r\n\r\n",
    # A well-formed head, then a malformed chunk: uvicorn answers 400 while the application answers too (here
    # 421 for the foreign Host, or a disconnect while it reads the body); that second answer raised in h11.
    "bad-chunk-foreign-host": b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "bad-chunk": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "unsupported-upgrade": (
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close, Upgrade\r\nUpgrade: h2c\r\n\r\n"
    ),
    "websocket-upgrade": (
        b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    ),
}
#: Each malformed request is sent this many times: what is logged must not grow with it.
REPEATS = 5


def exchange(url: str, raw: bytes) -> bytes:
    """Send ``raw`` on a new connection and read until the server closes it (or stops sending for a while)."""
    address = url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((address[0], int(address[1])), timeout=READ_TIMEOUT) as sock:
        sock.sendall(raw)
        answer = b""
        sock.settimeout(2)
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            pass  # kept alive after its answer
        except ConnectionError:
            pass
        return answer


def test_malformed_requests_leave_no_warning_and_a_bounded_log(default_catalog_root: Path) -> None:
    """Anyone who can connect may send these; none may write a WARNING, and each kind is one INFO line a minute."""
    with http_server(default_catalog_root, {"KGFEGMCP_LOG_LEVEL": "INFO"}) as server:
        answers = {name: [exchange(server.url, raw) for _ in range(REPEATS)] for name, raw in MALFORMED.items()}
        send_all(server.url)  # and the server serves on
        log = server.log.read_text()
    for name in ("space-in-header-name", "bad-chunk-foreign-host", "bad-chunk"):
        assert all(answer.startswith(b"HTTP/1.1 400") for answer in answers[name]), answers[name]
    assert all(answer.startswith(b"HTTP/1.1 200") for answer in answers["unsupported-upgrade"]), answers
    assert_one_text_format(log)
    louder = [line for line in log.splitlines() if re.match(r"\S+ \S+ (WARNING|ERROR|CRITICAL) ", line)]
    assert not louder, louder
    invalid = [line for line in log.splitlines() if "Invalid HTTP request received." in line]
    assert len(invalid) == 1 and " INFO uvicorn.error: " in invalid[0], invalid
    upgrades = [line for line in log.splitlines() if "Unsupported upgrade request." in line]
    assert len(upgrades) == 1 and " INFO uvicorn.error: " in upgrades[0], upgrades


def failing_capabilities(directory: Path) -> dict[str, str]:
    """Settings whose server process fails unexpectedly in ``get_capabilities`` (``sitecustomize`` runs first)."""
    (directory / "sitecustomize.py").write_text(
        "from kgfegmcp.services.frameworks import FrameworkService\n\n"
        "def _explode(*args, **kwargs):\n"
        f"    raise RuntimeError({SECRET!r})\n\n"
        "FrameworkService.get_capabilities = _explode\n"
    )
    inherited = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(directory), inherited]))}


async def test_an_unexpected_failure_is_one_error_record_with_its_incident(
    default_catalog_root: Path, tmp_path: Path
) -> None:
    settings = {"KGFEGMCP_LOG_LEVEL": "INFO", "KGFEGMCP_LOG_FORMAT": "json", **failing_capabilities(tmp_path)}
    with http_server(default_catalog_root, settings) as server:
        reply = post(server.url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": REQUESTS[2][1]})
        log = server.log.read_text()
    assert reply is not None and reply["result"]["isError"] is True
    assert [block["text"] for block in reply["result"]["content"]] == [INTERNAL]
    entries = [json.loads(line) for line in log.splitlines() if line]
    errors = [entry for entry in entries if entry["level"] in ("ERROR", "CRITICAL")]
    assert len(errors) == 1, errors
    incident = re.fullmatch(r"incident ([0-9a-f]{12}) in tool get_capabilities", errors[0]["message"])
    assert incident and "RuntimeError" in errors[0]["exception"] and SECRET in errors[0]["exception"]
    (request,) = [entry for entry in entries if entry["logger"] == "kgfegmcp.request"]
    assert request["level"] == "INFO" and request["outcome"] == "internal_error"
    assert request["name"] == "get_capabilities" and request["incident"] == incident.group(1)


async def test_http_debug_keeps_access_lines_in_the_one_format_and_bounds_every_line(
    default_catalog_root: Path,
) -> None:
    # The huge request must reach the MCP layer (whose log lines are under test), so the body cap is raised.
    settings = {"KGFEGMCP_LOG_LEVEL": "DEBUG", "KGFEGMCP_HTTP_MAX_BODY_BYTES": str(64 * 1024 * 1024)}
    with http_server(default_catalog_root, settings) as server:
        send_all(server.url)
        huge = {"name": "x\n" * 500_000, "arguments": {}}
        reply = post(server.url, {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": huge})
        log = server.log.read_text()
    # An unknown tool (this name) is a JSON-RPC error, bounded and coded like every refusal.
    assert reply is not None and reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith("invalid_request: ") and len(reply["error"]["message"]) < 2000
    assert_one_text_format(log)  # the per-request chatter is there, at DEBUG, in the same format
    assert re.search(r" DEBUG mcp\.server\.streamable_http: Terminating session: None$", log, re.MULTILINE)
    assert max(len(line) for line in log.splitlines()) <= LONGEST_LINE
    access = [line for line in log.splitlines() if " DEBUG uvicorn.access: " in line]
    requests = REQUEST_LINE.findall(log)
    answered = [line for line in access if not line.endswith(" 202")]  # 202: a notification, no request line
    assert len(access) == len(REQUESTS) + 2 and len(requests) == len(answered) == len(REQUESTS) + 1


def test_stdio_writes_its_log_to_stderr_only(default_catalog_root: Path, tmp_path: Path) -> None:
    stderr_path = tmp_path / "stderr.log"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": REQUESTS[1][1]},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": REQUESTS[3][1]},
    ]
    env = {**full_env(default_catalog_root), "KGFEGMCP_LOG_LEVEL": "INFO"}
    exchange = stdio_exchange([KGFEGMCP, "serve", "--transport", "stdio"], env, messages, stderr_path, READ_TIMEOUT)
    replies, rest = exchange.replies, exchange.rest
    assert [reply["id"] for reply in replies] == [1, 2, 3] and all(r["jsonrpc"] == "2.0" for r in replies)
    assert not rest.strip(), rest[:500]
    log = stderr_path.read_text()
    assert_one_text_format(log)
    assert "Terminating session" not in log
    requests = [without_duration(text_fields(m.group(1))) for m in REQUEST_LINE.finditer(log)]
    assert requests == [
        {"method": "initialize", "outcome": "ok"},
        {"method": "tools/call", "name": "list_frameworks", "outcome": "ok"},
        {"method": "tools/call", "name": "get_standard", "outcome": "standard_not_found"},
    ]
