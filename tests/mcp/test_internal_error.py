"""Unexpected exceptions reach the client only as the fixed internal_error message; the log keeps an incident id."""

from __future__ import annotations

import logging
import re
from typing import Any, NoReturn

import pytest
from fastmcp import Client

from kgfegmcp.services.frameworks import FrameworkService
from kgfegmcp.services.standards import StandardsService
from tool_calls import error

EF = "brazil-bncc-ensino-fundamental"
PUBLIC = "internal_error: The server could not complete the request."
SECRET = "/srv/secret/graph_packages/private.jsonl line 7: boom-detail-XYZ"

CASES: list[tuple[str, type, str, dict[str, Any]]] = [
    ("list_frameworks", FrameworkService, "list_frameworks", {}),
    ("get_framework", FrameworkService, "get_framework", {"frameworkId": EF}),
    ("get_capabilities", FrameworkService, "get_capabilities", {}),
    ("get_framework_statistics", FrameworkService, "get_framework_statistics", {"frameworkId": EF}),
    ("search_standards", StandardsService, "search_standards", {"query": "fracoes"}),
    ("get_standard", StandardsService, "get_standard", {"frameworkId": EF, "statementCode": "EF05MA04"}),
    (
        "get_standard_context",
        StandardsService,
        "get_standard_context",
        {"frameworkId": EF, "statementCode": "EF05MA04"},
    ),
]


def explode(*_args: object, **_kwargs: object) -> NoReturn:
    raise RuntimeError(SECRET)


@pytest.mark.parametrize(("tool", "service", "method", "request_body"), CASES, ids=[c[0] for c in CASES])
async def test_unexpected_exception_is_masked_and_logged(
    default_client: Client[Any],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    service: type,
    method: str,
    request_body: dict[str, Any],
) -> None:
    monkeypatch.setattr(service, method, explode)
    with caplog.at_level(logging.INFO):
        message = await error(default_client, tool, request_body)
    assert message == PUBLIC
    for leak in ("secret", "/srv", "boom", "Traceback", "RuntimeError", ".py"):
        assert leak not in message
    incidents = [r for r in caplog.records if r.name == "kgfegmcp.mcp" and r.getMessage().startswith("incident ")]
    assert len(incidents) == 1
    record = incidents[0]
    assert re.fullmatch(rf"incident [0-9a-f]{{12}} in tool {tool}", record.getMessage())
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None and SECRET in str(record.exc_info[1])


async def test_domain_errors_are_not_incidents(default_client: Client[Any], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        message = await error(default_client, "get_framework", {"frameworkId": "no-such-framework"})
    assert message.startswith("framework_not_found: ")
    assert not [r for r in caplog.records if r.getMessage().startswith("incident ")]
