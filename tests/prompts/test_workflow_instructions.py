"""get_workflow_instructions returns exactly the native prompt's text, as complete canonical JSON."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from prompt_cases import DEFAULT_FRAMEWORKS, TOOL_WORKFLOWS, edge_arguments, minimal_arguments

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.models import canonical_json
from kgfegmcp.prompts.workflows import WORKFLOWS


def tool_request(workflow: str, prompt_arguments: dict[str, str]) -> dict[str, Any]:
    """The tool request equivalent to a prompt's string arguments: camelCase, JSON types."""
    spec = WORKFLOWS[workflow]
    request: dict[str, Any] = {"workflow": workflow}
    for name, raw in prompt_arguments.items():
        arg = spec.argument(name)
        assert arg is not None
        if arg.spec.kind == "integer":
            request[arg.spec.alias] = int(raw)
        elif arg.spec.is_list:
            request[arg.spec.alias] = json.loads(raw)
        else:
            request[arg.spec.alias] = raw
    return request


async def _prompt_text(client: Client[Any], workflow: str, arguments: dict[str, str]) -> str:
    result = await client.get_prompt(workflow, arguments)
    return result.messages[0].content.text


async def test_tool_is_registered_last_and_serves_exactly_seven_workflows(default_client: Client[Any]) -> None:
    tools = await default_client.list_tools()
    assert tools[-1].name == "get_workflow_instructions"
    schema = tools[-1].input_schema
    assert list(schema["properties"]) == ["request"]
    assert set(TOOL_WORKFLOWS) == set(WORKFLOWS) - {"teacher_guide_draft", "student_handbook_section"}
    for workflow in ("teacher_guide_draft", "student_handbook_section"):
        with pytest.raises(ToolError, match=r"^invalid_request: "):
            await default_client.call_tool(
                "get_workflow_instructions",
                {"request": {"workflow": workflow, "frameworkId": "brazil-bncc-ensino-medio", "topic": "energia"}},
            )


@pytest.mark.parametrize("framework_id", DEFAULT_FRAMEWORKS)
@pytest.mark.parametrize("workflow", TOOL_WORKFLOWS)
async def test_tool_text_equals_native_prompt_text(
    default_client: Client[Any], default_state: AppState, workflow: str, framework_id: str
) -> None:
    for arguments in (
        minimal_arguments(default_state, workflow, framework_id),
        edge_arguments(default_state, workflow, framework_id, "min"),
    ):
        native = await _prompt_text(default_client, workflow, arguments)
        result = await default_client.call_tool(
            "get_workflow_instructions", {"request": tool_request(workflow, arguments)}
        )
        structured = result.structured_content
        assert structured is not None
        assert structured["instructions"] == native
        assert structured["workflow"] == structured["nativePrompt"] == workflow
        assert structured["instructionsBytes"] == len(native.encode("utf-8"))
        assert structured["instructionsSha256"] == hashlib.sha256(native.encode("utf-8")).hexdigest()
        # The text block is the complete canonical JSON, parsing to exactly the structured content.
        text = result.content[0].text  # type: ignore[union-attr]
        assert text == canonical_json(structured)
        assert json.loads(text) == structured
        # Attribution and identity of every package used; a manifest link per package.
        packages = [p["graphPackageId"] for p in structured["packages"]]
        assert [a["graphPackageId"] for a in structured["attribution"]] == packages
        links = [block.uri for block in result.content[1:] if block.type == "resource_link"]  # type: ignore[union-attr]
        assert links == [p["manifestUri"] for p in structured["packages"]]
        assert structured["configuration"]["workflow"] == default_state.prompts.registry.workflows[workflow].version


@pytest.mark.parametrize("workflow", TOOL_WORKFLOWS)
async def test_upper_edges_are_identical_or_refused_whole(
    default_client: Client[Any], default_state: AppState, workflow: str
) -> None:
    """At the upper bounds the tool returns the same text, or fails whole: never a clipped text."""
    for framework_id in DEFAULT_FRAMEWORKS:
        arguments = edge_arguments(default_state, workflow, framework_id, "max")
        native = await _prompt_text(default_client, workflow, arguments)
        try:
            result = await default_client.call_tool(
                "get_workflow_instructions", {"request": tool_request(workflow, arguments)}
            )
        except ToolError as exc:
            assert str(exc).startswith("workflow_instructions_too_large: ")
            # Refused only because text plus structured content exceed 100,000 characters.
            assert len(native) > 40_000
            continue
        assert result.structured_content is not None
        assert result.structured_content["instructions"] == native
        assert sum(len(b.text) for b in result.content if b.type == "text") <= 100_000  # type: ignore[union-attr]


async def test_tool_rejects_arguments_the_workflow_does_not_take(default_client: Client[Any]) -> None:
    cases: list[dict[str, Any]] = [
        # practiceCount belongs to practice_item_set only.
        {
            "workflow": "cross_framework_comparison",
            "frameworkIds": ["brazil-bncc-ensino-medio", "brazil-bncc-computacao"],
            "topic": "energia",
            "practiceCount": 3,
        },
        # a required argument missing
        {"workflow": "practice_item_set", "frameworkId": "brazil-bncc-ensino-medio"},
        # neither standard nor topic
        {"workflow": "learning_progression_support_plan", "frameworkId": "brazil-bncc-ensino-fundamental"},
        # out of range and wrong JSON types
        {"workflow": "practice_item_set", "frameworkId": "brazil-bncc-ensino-medio", "topic": "x", "practiceCount": 11},
        {
            "workflow": "practice_item_set",
            "frameworkId": "brazil-bncc-ensino-medio",
            "topic": "x",
            "practiceCount": "5",
        },
        {
            "workflow": "multigrade_lesson_plan",
            "frameworkId": "brazil-bncc-ensino-medio",
            "topic": "x",
            "gradeLevels": ["Ensino Médio", "Ensino Médio"],
        },
        {
            "workflow": "multigrade_lesson_plan",
            "frameworkId": "brazil-bncc-ensino-medio",
            "topic": "x",
            "gradeLevels": ["Ensino Médio"],
        },
        # snake_case names and unknown fields
        {"workflow": "practice_item_set", "framework_id": "brazil-bncc-ensino-medio", "topic": "x"},
        {"workflow": "practice_item_set", "frameworkId": "brazil-bncc-ensino-medio", "topic": "x", "extra": 1},
        {
            "workflow": "practice_item_set",
            "frameworkId": "brazil-bncc-ensino-medio",
            "topic": "x",
            "localContext": "not an argument of practice_item_set",
        },
    ]
    for request in cases:
        with pytest.raises(ToolError, match=r"^invalid_request: "):
            await default_client.call_tool("get_workflow_instructions", {"request": request})


async def test_tool_domain_errors_keep_their_codes(default_client: Client[Any]) -> None:
    with pytest.raises(ToolError, match=r"^framework_not_found: "):
        await default_client.call_tool(
            "get_workflow_instructions",
            {"request": {"workflow": "practice_item_set", "frameworkId": "no-such-framework", "topic": "x"}},
        )
    with pytest.raises(ToolError, match=r"^invalid_comparison_selection: "):
        await default_client.call_tool(
            "get_workflow_instructions",
            {
                "request": {
                    "workflow": "cross_framework_comparison",
                    "frameworkIds": ["brazil-bncc-ensino-medio", "us-ccss-ela-literacy-grades-2-4"],
                    "snapshotIds": ["no-such-snapshot"],
                    "topic": "x",
                }
            },
        )
