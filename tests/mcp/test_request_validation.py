"""Strict requests: camelCase only, JSON types only, no extras, every bound enforced (never coerced)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from tool_calls import call, error

EF = "brazil-bncc-ensino-fundamental"
STANDARD = {"frameworkId": EF, "statementCode": "EF05MA04"}

#: One valid request per catalog and standards tool.
VALID: dict[str, dict[str, Any]] = {
    "list_frameworks": {},
    "get_framework": {"frameworkId": EF},
    "get_capabilities": {},
    "get_framework_statistics": {"frameworkId": EF},
    "search_standards": {"query": "fracoes"},
    "get_standard": STANDARD,
    "get_standard_context": STANDARD,
}

#: (tool, snake_case field, value) — the Python names must not be accepted as aliases.
SNAKE_CASE = [
    ("list_frameworks", "include_non_current", True),
    ("list_frameworks", "framework_ids", [EF]),
    ("get_framework", "snapshot_id", "dados-2026-07-1"),
    ("get_capabilities", "framework_id", EF),
    ("search_standards", "search_mode", "text"),
    ("search_standards", "grade_levels", ["5º ano"]),
    ("get_standard_context", "max_nodes", 10),
    ("get_standard_context", "ancestor_depth", 2),
]

#: (tool, field, rejected value, accepted boundary value)
BOUNDS = [
    ("list_frameworks", "limit", 0, 1),
    ("list_frameworks", "limit", 101, 100),
    ("search_standards", "limit", 0, 1),
    ("search_standards", "limit", 101, 100),
    ("get_standard_context", "ancestorDepth", -1, 0),
    ("get_standard_context", "ancestorDepth", 65, 64),
    ("get_standard_context", "childDepth", -1, 0),
    ("get_standard_context", "childDepth", 65, 64),
    ("get_standard_context", "maxNodes", 0, 1),
    ("get_standard_context", "maxNodes", 2001, 2000),
    ("get_standard_context", "maxPaths", 0, 1),
    ("get_standard_context", "maxPaths", 1001, 1000),
    ("get_standard_context", "maxPathNodeOccurrences", 0, 1),
    ("get_standard_context", "maxPathNodeOccurrences", 100001, 100000),
]


async def rejected(client: Client[Any], tool: str, request: dict[str, Any]) -> str:
    message = await error(client, tool, request)
    assert message.startswith("invalid_request: "), message
    assert message.endswith("Next action: Send exactly the published schema: camelCase fields, no extras, JSON types.")
    return message


async def test_every_catalog_and_standards_tool_accepts_its_valid_request(default_client: Client[Any]) -> None:
    for tool, request in VALID.items():
        await call(default_client, tool, request)


@pytest.mark.parametrize("tool", ["list_frameworks", "search_standards"])
@pytest.mark.parametrize("value", ["25", True, 25.0, None, [25]])
async def test_limit_is_never_coerced(default_client: Client[Any], tool: str, value: Any) -> None:
    message = await rejected(default_client, tool, {**VALID[tool], "limit": value})
    assert "request.limit" in message


@pytest.mark.parametrize("tool", sorted(VALID))
async def test_unknown_fields_are_rejected_without_echoing_values(default_client: Client[Any], tool: str) -> None:
    message = await rejected(default_client, tool, {**VALID[tool], "surpriseField": "SECRET-VALUE-123"})
    assert "request.surpriseField: not a field of this request; accepted: " in message
    assert "SECRET-VALUE-123" not in message
    wrapped = await default_client.call_tool(tool, {"request": VALID[tool], "extra": 1}, raise_on_error=False)
    assert wrapped.is_error
    missing = await default_client.call_tool(tool, {}, raise_on_error=False)
    assert missing.is_error


@pytest.mark.parametrize(("tool", "field", "value"), SNAKE_CASE)
async def test_snake_case_names_are_rejected(default_client: Client[Any], tool: str, field: str, value: Any) -> None:
    message = await rejected(default_client, tool, {**VALID[tool], field: value})
    assert f"request.{field}" in message


async def test_snake_case_required_fields_do_not_stand_in(default_client: Client[Any]) -> None:
    await rejected(default_client, "get_framework", {"framework_id": EF})
    await rejected(default_client, "get_standard", {"frameworkId": EF, "statement_code": "EF05MA04"})
    await rejected(default_client, "get_standard", {"frameworkId": EF, "node_id": "x"})


@pytest.mark.parametrize(("tool", "field", "bad", "good"), BOUNDS)
async def test_integer_bounds(default_client: Client[Any], tool: str, field: str, bad: int, good: int) -> None:
    message = await rejected(default_client, tool, {**VALID[tool], field: bad})
    assert f"request.{field}" in message
    await call(default_client, tool, {**VALID[tool], field: good})


async def test_types_enums_and_collections(default_client: Client[Any]) -> None:
    for tool, request in (
        ("list_frameworks", {"includeNonCurrent": "true"}),
        ("list_frameworks", {"includeNonCurrent": 1}),
        ("list_frameworks", {"graphTypes": ["Standards"]}),
        ("list_frameworks", {"graphTypes": ["AcademicStandards", "AcademicStandards"]}),
        ("list_frameworks", {"frameworkIds": EF}),
        ("search_standards", {"query": "x", "searchMode": "semantic"}),
        ("search_standards", {"query": "x", "searchMode": "TEXT"}),
        ("search_standards", {"query": "x", "codeMatch": "fuzzy"}),
        ("search_standards", {"query": 12}),
        ("search_standards", {"query": "x", "gradeLevels": [f"g{i}" for i in range(65)]}),
        ("search_standards", {"query": "x", "statementTypes": [f"t{i}" for i in range(65)]}),
        ("search_standards", {"query": "x", "academicSubjects": [f"s{i}" for i in range(65)]}),
        ("search_standards", {"query": "x", "frameworkIds": [f"framework-{i}" for i in range(65)]}),
        ("search_standards", {"query": "x", "snapshotIds": [f"snapshot-{i}" for i in range(65)]}),
        ("search_standards", {"query": "x", "gradeLevels": ["5º ano", "5º ano"]}),
        ("search_standards", {"query": "x", "gradeLevels": [""]}),
        ("get_framework", {"frameworkId": "Not An Id"}),
        ("get_framework", {"frameworkId": EF, "snapshotId": 2026}),
        ("get_standard", {"frameworkId": EF, "nodeId": "x" * 257}),
        ("get_standard_context", {**STANDARD, "maxNodes": "10"}),
        ("get_standard_context", {**STANDARD, "childDepth": 1.5}),
        ("get_standard_context", {**STANDARD, "ancestorDepth": False}),
    ):
        await rejected(default_client, tool, request)
    # At the array bound (64 distinct values) the shape is valid: what refuses these made-up labels is the
    # catalog (no package uses them), not the bound.
    message = await error(
        default_client, "search_standards", {"query": "x", "gradeLevels": [f"g{i}" for i in range(64)]}
    )
    assert message.startswith("invalid_request: gradeLevels: 'g0', 'g1', 'g2', 'g3', 'g4' and 59 more are not grade")
    assert (
        await error(
            default_client, "search_standards", {"query": "x", "frameworkIds": [f"f-{i:03d}" for i in range(64)]}
        )
    ).startswith("framework_not_found: ")


@pytest.mark.parametrize(
    ("tool", "request_", "sent", "meant"),
    [
        ("get_standard", {"frameworkId": EF, "statement_code": "EF05MA04"}, "statement_code", "statementCode"),
        ("get_standard", {"frameworkId": EF, "code": "EF05MA04"}, "code", "statementCode"),
        ("list_frameworks", {"include_non_current": True}, "include_non_current", "includeNonCurrent"),
        ("search_standards", {"query": "x", "subject": ["Matemática"]}, "subject", "academicSubjects"),
    ],
)
async def test_an_unknown_field_names_the_accepted_one_meant(
    default_client: Client[Any], tool: str, request_: dict[str, Any], sent: str, meant: str
) -> None:
    """Issue 44: a refusal names the field to send instead of pydantic's 'Extra inputs are not permitted'."""
    message = await rejected(default_client, tool, request_)
    assert f"request.{sent}: not a field of this request; send it as {meant}." in message, message
    assert "Extra inputs" not in message


async def test_rule_refusals_read_without_pydantic_phrases(default_client: Client[Any]) -> None:
    """Issue 44: a request rule's refusal is its own sentence, without 'Value error, ' or a doubled full stop."""
    for tool, request in (
        ("get_standard", {"frameworkId": EF}),
        ("search_standards", {"query": "   "}),
        ("get_capabilities", {"snapshotId": "2026-01"}),
    ):
        message = await rejected(default_client, tool, request)
        assert "Value error" not in message and ".." not in message, message
    unknown = await rejected(default_client, "get_framework", {"frameworkId": EF, "surpriseField": 1})
    assert "request.surpriseField: not a field of this request; accepted: frameworkId, snapshotId." in unknown
