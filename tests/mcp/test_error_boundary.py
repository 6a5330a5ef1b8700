"""One error boundary for the whole surface: every registered tool, resource and prompt goes through it.

Each handler is served with a lifespan state it cannot use, so every one of them fails unexpectedly
the moment it runs. Whatever the component, the client sees only the fixed ``internal_error`` message
of its kind, and the log has exactly one ERROR record (``incident <id> in <kind> <name>``, with the
traceback) whose id the request line carries, and no record of FastMCP's own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware

from bounded_refusals import all_records
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.mcp.boundary import ErrorBoundary
from kgfegmcp.mcp.curriculum_map import MapListingMiddleware
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.protocol_versions import ProtocolVersionMiddleware
from kgfegmcp.mcp.register import PROMPTS, register
from kgfegmcp.mcp.request_log import RequestLogMiddleware
from kgfegmcp.mcp.tools import PLACEHOLDERS, TOOLS, example_calls
from kgfegmcp.resources.families import FAMILIES
from mcp import MCPError
from served_apps import SERVED

FRAMEWORK = "some-framework"
#: A request every tool's published schema accepts (the handler then runs): each tool's example over placeholders.
VALID_REQUESTS: dict[str, dict[str, Any]] = dict(example_calls(PLACEHOLDERS))
#: A value every resource template parameter accepts.
PARAMETERS = {
    "framework_id": FRAMEWORK,
    "snapshot_id": "2026-01",
    "node_id": "n1",
    "relationship_id": "r1",
    "part": "07",
    "logical_name": "nodes",
}
MASKED = {
    "tool": "internal_error: The server could not complete the request.",
    "resource": "internal_error: The server could not read the resource.",
    "prompt": "internal_error: The server could not render the prompt.",
}


#: A lifespan state that is no AppState: every handler of the server assembled over it raises RuntimeError.
UNUSABLE: Any = object()


@pytest.fixture
async def unusable_client() -> AsyncIterator[Client[Any]]:
    """A fresh client of the one server assembled over :data:`UNUSABLE`."""
    async with SERVED.client(UNUSABLE) as client:
        yield client


def assert_one_incident(caplog: pytest.LogCaptureFixture, kind: str, name: str) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [f"{r.name}: {r.getMessage()[:200]}" for r in errors]
    (record,) = errors
    match = re.fullmatch(rf"incident ([0-9a-f]{{12}}) in {kind} {re.escape(name)}", record.getMessage())
    assert match and record.name == "kgfegmcp.mcp", record.getMessage()
    assert record.exc_info is not None and isinstance(record.exc_info[1], RuntimeError)
    assert "lifespan has not built its state" in str(record.exc_info[1])
    (line,) = [r for r in caplog.records if r.name == "kgfegmcp.request"]
    fields = line.kgfegmcp_fields  # type: ignore[attr-defined]
    assert line.levelno == logging.INFO and fields["name"] == name
    assert fields["outcome"] == "internal_error" and fields["incident"] == match.group(1)


def test_the_tables_cover_the_whole_surface() -> None:
    assert list(VALID_REQUESTS) == [tool.name for tool in TOOLS]
    assert {p for family in FAMILIES for p in family.variables} <= set(PARAMETERS)


@pytest.mark.parametrize("tool", [tool.name for tool in TOOLS])
async def test_every_tool_is_behind_the_boundary(
    unusable_client: Client[Any], caplog: pytest.LogCaptureFixture, tool: str
) -> None:
    with all_records(caplog):
        result = await unusable_client.call_tool(tool, {"request": VALID_REQUESTS[tool]}, raise_on_error=False)
    assert result.is_error and result.structured_content is None
    assert [block.text for block in result.content] == [MASKED["tool"]]  # type: ignore[union-attr]
    assert_one_incident(caplog, "tool", tool)


@pytest.mark.parametrize(("template", "name"), [(f.template, f.name) for f in FAMILIES], ids=[f.name for f in FAMILIES])
async def test_every_resource_is_behind_the_boundary(
    unusable_client: Client[Any], caplog: pytest.LogCaptureFixture, template: str, name: str
) -> None:
    with all_records(caplog), pytest.raises(MCPError) as raised:
        await unusable_client.session.read_resource(template.format(**PARAMETERS))
    assert raised.value.error.message == MASKED["resource"]
    assert raised.value.error.data == {"errorCode": "internal_error"}
    assert_one_incident(caplog, "resource", name)


@pytest.mark.parametrize("prompt", PROMPTS)
async def test_every_prompt_is_behind_the_boundary(
    unusable_client: Client[Any], caplog: pytest.LogCaptureFixture, prompt: str
) -> None:
    with all_records(caplog), pytest.raises(MCPError) as raised:
        await unusable_client.get_prompt(prompt, {})
    assert raised.value.error.message == MASKED["prompt"]
    assert raised.value.error.data == {"errorCode": "internal_error"}
    assert_one_incident(caplog, "prompt", prompt)


def test_the_middleware_is_declared_once_outermost_first(default_state: AppState) -> None:
    """The request line outside everything, the one boundary inside the result and listing shaping; nothing else."""
    layers = [type(layer) for layer in SERVED.app(default_state).middleware]
    assert layers == [
        RequestLogMiddleware,
        ProtocolVersionMiddleware,
        MapListingMiddleware,
        ErrorBoundary,
        DereferenceRefsMiddleware,
    ]


def test_register_refuses_a_server_that_already_has_middleware(default_state: AppState) -> None:
    server = create_app(default_state)
    with pytest.raises(ValueError, match="declares every middleware"):
        register(server, Readiness())
