"""One INFO line per MCP request, with its outcome; refusals never above INFO; an unexpected failure is one ERROR.

The in-memory client runs the assembled server with its middleware, so every request here goes
through the same request line as over HTTP or STDIO (tests/e2e/test_logging.py checks those).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

import pytest
from fastmcp import Client

from bounded_refusals import all_records
from kgfegmcp.core.logging_setup import install_library_filters
from kgfegmcp.services.frameworks import FrameworkService
from kgfegmcp.services.prompts import PromptService
from kgfegmcp.services.resources import ResourceService
from mcp import MCPError

EF = "brazil-bncc-ensino-fundamental"
REQUEST_LOG = "kgfegmcp.request"
SECRET = "/srv/secret/graph_packages/private.jsonl: boom-detail-XYZ"

Operation = Callable[[Client[Any]], Awaitable[object]]


@pytest.fixture(autouse=True)
def library_filters() -> None:
    """What every serving process installs: the libraries' per-request chatter lowered to DEBUG."""
    install_library_filters()


def request_lines(caplog: pytest.LogCaptureFixture, method: str) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name == REQUEST_LOG and getattr(r, "kgfegmcp_fields", {})["method"] == method
    ]


def fields(record: logging.LogRecord) -> dict[str, Any]:
    found: dict[str, Any] = record.kgfegmcp_fields  # type: ignore[attr-defined]
    return found


def tool(name: str, request: dict[str, Any]) -> Operation:
    async def run(client: Client[Any]) -> object:
        try:
            return await client.call_tool(name, {"request": request}, raise_on_error=False)
        except MCPError as refused:  # an unknown tool is a protocol error, not a tool result
            return refused

    return run


def resource(uri: str) -> Operation:
    async def run(client: Client[Any]) -> object:
        try:
            return await client.session.read_resource(uri)  # sent exactly as written
        except MCPError as refused:
            return refused

    return run


def prompt(name: str, arguments: dict[str, str]) -> Operation:
    async def run(client: Client[Any]) -> object:
        try:
            return await client.get_prompt(name, arguments)
        except MCPError as refused:
            return refused

    return run


async def list_tools(client: Client[Any]) -> object:
    return await client.list_tools()


CASES: list[tuple[str, Operation, str, str | None, str]] = [
    ("tool-ok", tool("list_frameworks", {}), "tools/call", "list_frameworks", "ok"),
    (
        "tool-refused",
        tool("get_standard", {"frameworkId": EF, "statementCode": "EF99ZZ99"}),
        "tools/call",
        "get_standard",
        "standard_not_found",
    ),
    (
        "tool-invalid-argument",
        tool("search_standards", {"query": "fracoes", "limit": "3"}),
        "tools/call",
        "search_standards",
        "invalid_request",
    ),
    ("tool-unknown", tool("no_such_tool", {}), "tools/call", "no_such_tool", "invalid_request"),
    ("resource-ok", resource("kgfegmcp://catalog"), "resources/read", "catalog", "ok"),
    (
        "resource-refused",
        resource("kgfegmcp://framework/no-such-framework"),
        "resources/read",
        "framework",
        "resource_not_found",
    ),
    ("resource-unsupported", resource("file:///etc/passwd"), "resources/read", "unsupported", "resource_not_found"),
    (
        "prompt-ok",
        prompt("teacher_guide_draft", {"framework_id": EF, "topic": "frações"}),
        "prompts/get",
        "teacher_guide_draft",
        "ok",
    ),
    ("prompt-refused", prompt("teacher_guide_draft", {}), "prompts/get", "teacher_guide_draft", "invalid_request"),
    ("prompt-unknown", prompt("no_such_prompt", {}), "prompts/get", "no_such_prompt", "invalid_request"),
    ("list", list_tools, "tools/list", None, "ok"),
]


@pytest.mark.parametrize(("operation", "method", "name", "outcome"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_every_request_is_one_info_line_with_its_outcome(
    default_client: Client[Any],
    caplog: pytest.LogCaptureFixture,
    operation: Operation,
    method: str,
    name: str | None,
    outcome: str,
) -> None:
    with all_records(caplog):
        await operation(default_client)
    (line,) = request_lines(caplog, method)
    expected = {"method": method, "outcome": outcome} | ({"name": name} if name else {})
    assert {k: v for k, v in fields(line).items() if k != "duration_ms"} == expected
    assert isinstance(fields(line)["duration_ms"], float) and fields(line)["duration_ms"] >= 0
    assert line.levelno == logging.INFO
    message = line.getMessage()
    assert re.fullmatch(rf"method={method}( name={name})? outcome={outcome} duration_ms=[0-9.]+", message), message
    louder = [f"{r.levelname} {r.name}: {r.getMessage()[:200]}" for r in caplog.records if r.levelno > logging.INFO]
    assert not louder, "an ordinary request or refusal logged above INFO"
    assert not [r for r in caplog.records if r.exc_info], "an ordinary request or refusal logged a traceback"
    assert all("/etc/passwd" not in r.getMessage() for r in caplog.records), "a resource URI reached the log"


async def test_a_hostile_name_is_logged_clipped_on_one_line(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture
) -> None:
    with all_records(caplog), pytest.raises(MCPError):
        await default_client.call_tool("x\n" * 500_000, {"request": {}}, raise_on_error=False)
    (line,) = request_lines(caplog, "tools/call")
    assert fields(line)["outcome"] == "invalid_request"
    assert len(line.getMessage()) < 300 and "\n" not in line.getMessage(), line.getMessage()[:400]


def explode(*_args: object, **_kwargs: object) -> NoReturn:
    raise RuntimeError(SECRET)


FAILURES: list[tuple[str, type, str, Operation, str, str]] = [
    ("tool", FrameworkService, "get_capabilities", tool("get_capabilities", {}), "tools/call", "get_capabilities"),
    ("resource", ResourceService, "read", resource("kgfegmcp://catalog"), "resources/read", "catalog"),
    (
        "prompt",
        PromptService,
        "render_prompt",
        prompt("teacher_guide_draft", {"framework_id": EF, "topic": "x"}),
        "prompts/get",
        "teacher_guide_draft",
    ),
]


@pytest.mark.parametrize(
    ("service", "attribute", "operation", "method", "name"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES]
)
async def test_an_unexpected_failure_is_one_error_record_whose_incident_the_request_line_carries(
    default_client: Client[Any],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    service: type,
    attribute: str,
    operation: Operation,
    method: str,
    name: str,
) -> None:
    monkeypatch.setattr(service, attribute, explode)
    with all_records(caplog):
        await operation(default_client)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [f"{r.name}: {r.getMessage()[:200]}" for r in errors]
    match = re.fullmatch(r"incident ([0-9a-f]{12}) in \w+ \w+", errors[0].getMessage())
    assert match and errors[0].exc_info is not None, errors[0].getMessage()
    (line,) = request_lines(caplog, method)
    assert fields(line)["outcome"] == "internal_error" and fields(line)["name"] == name
    assert fields(line)["incident"] == match.group(1)
    assert line.getMessage().endswith(f" incident={match.group(1)}")
    assert line.levelno == logging.INFO
