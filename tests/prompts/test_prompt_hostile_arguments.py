"""Hostile prompt calls: refused in one bounded, coded message and one bounded log line, never a traceback.

A refusal used to be logged by FastMCP with a rich traceback echoing the argument names, whose
rendering grows quadratically with their length while every client waits; a list argument nested
deeper than the interpreter's recursion limit used to be an internal error.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from fastmcp import Client
from mcp.types import INVALID_PARAMS

from bounded_refusals import MAX_LOG_LINE, all_records, assert_bounded
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.prompts.workflows import WORKFLOWS
from mcp import MCPError

EF = "brazil-bncc-ensino-fundamental"
COMPARISON = {"framework_ids": json.dumps([EF, "brazil-bncc-computacao"]), "topic": "algoritmos"}


async def refused(client: Client[Any], name: str, arguments: dict[str, str]) -> MCPError:
    with pytest.raises(MCPError) as info:
        await client.get_prompt(name, arguments)
    assert_bounded(info.value.error.message)
    return info.value


@pytest.mark.parametrize("length", [100, 20_000, 40_000])
async def test_a_huge_argument_name_is_refused_in_one_bounded_log_line(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture, length: int
) -> None:
    with all_records(caplog):
        error = await refused(default_client, "teacher_guide_draft", {"x" * length: "v"})
    message = error.error.message
    assert message.startswith("invalid_request: ")
    assert "is not an argument of teacher_guide_draft" in message
    assert "framework_id: is required" in message
    if length > 100:
        assert f"({length} characters)" in message
    assert error.error.code == INVALID_PARAMS
    assert error.error.data == {"errorCode": "invalid_request"}
    assert not [r.getMessage()[:200] for r in caplog.records if r.exc_info], "refusal logged with a traceback"
    assert all(len(r.getMessage()) <= MAX_LOG_LINE for r in caplog.records)
    refusals = [r for r in caplog.records if r.name == "kgfegmcp.mcp" and "refused" in r.getMessage()]
    assert len(refusals) == 1, [r.getMessage()[:200] for r in caplog.records]


async def test_domain_refusals_are_not_logged_with_a_traceback(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture
) -> None:
    with all_records(caplog):
        error = await refused(
            default_client, "teacher_guide_draft", {"framework_id": "no-such-framework", "topic": "x"}
        )
    assert error.error.message.startswith("framework_not_found: ")
    assert not [r for r in caplog.records if r.exc_info]


async def test_many_huge_argument_names_stay_bounded(default_client: Client[Any]) -> None:
    arguments = {f"{i:03d}{'y' * 10_000}": "v" for i in range(200)}
    error = await refused(default_client, "cross_framework_comparison", {**COMPARISON, **arguments})
    assert error.error.message.startswith("invalid_request: 000yyyy")
    assert "more problems" in error.error.message


async def test_unknown_prompt_names_are_coded_and_bounded(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture
) -> None:
    for name in ("no_such_prompt", "p" * 1_000_000):
        with all_records(caplog):
            error = await refused(default_client, name, {})
        assert error.error.message.startswith("invalid_request: Unknown prompt ")
        assert "Next action: Call prompts/list" in error.error.message
        assert error.error.code == INVALID_PARAMS
        assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.parametrize("depth", [2, 64, 1_000, 30_000])
async def test_deeply_nested_list_arguments_are_invalid_request(default_client: Client[Any], depth: int) -> None:
    nested = "[" * depth + "]" * depth
    error = await refused(default_client, "cross_framework_comparison", {**COMPARISON, "snapshot_ids": nested})
    assert error.error.message.startswith("invalid_request: snapshot_ids: ")


@pytest.mark.parametrize(
    ("workflow", "name"),
    [(workflow, use.spec.name) for workflow, spec in WORKFLOWS.items() for use in spec.arguments if use.spec.is_list],
)
async def test_every_list_argument_bounds_its_nesting(default_client: Client[Any], workflow: str, name: str) -> None:
    error = await refused(default_client, workflow, {name: "[" * 5_000 + "]" * 5_000})
    assert error.error.message.startswith(f"invalid_request: {name}: ")


async def test_an_unexpected_failure_is_logged_once(default_state: AppState, caplog: pytest.LogCaptureFixture) -> None:
    class Broken(type(default_state.prompts)):  # type: ignore[misc]
        def render_prompt(self, name: str, raw: Any) -> Any:
            raise RuntimeError("/secret/path exploded")

    broken = Broken(default_state.catalog, default_state.prompts.registry)
    async with Client(create_app(replace(default_state, prompts=broken))) as client:
        with all_records(caplog):
            error = await refused(client, "teacher_guide_draft", {"framework_id": EF, "topic": "x"})
    assert error.error.message == "internal_error: The server could not render the prompt."
    with_traceback = [r for r in caplog.records if r.exc_info]
    assert len(with_traceback) == 1 and with_traceback[0].getMessage().startswith("incident ")
