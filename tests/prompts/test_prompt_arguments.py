"""Out-of-range and malformed prompt arguments are rejected with ``invalid_request``; nothing is coerced.

MCP prompt arguments are strings: integers must be canonical decimal strings, collections JSON
arrays of strings inside the string.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.core.errors import InvalidRequestError
from kgfegmcp.prompts.arguments import parse_prompt_arguments
from kgfegmcp.prompts.workflows import WORKFLOWS
from mcp import MCPError

EF = "brazil-bncc-ensino-fundamental"
BASE: dict[str, dict[str, str]] = {
    "teacher_guide_draft": {"framework_id": EF, "topic": "frações"},
    "student_handbook_section": {"framework_id": EF, "topic": "frações"},
    "multigrade_lesson_plan": {"framework_id": EF, "topic": "frações", "grade_levels": '["4º ano", "5º ano"]'},
    "practice_item_set": {"framework_id": EF, "topic": "frações"},
    "learning_progression_teaching_sequence": {"framework_id": EF, "standard": "EF05MA03"},
    "learning_progression_support_plan": {"framework_id": EF, "standard": "EF05MA03"},
    "learning_progression_curriculum_review": {"framework_id": EF, "standards": '["EF05MA03", "EF05MA04"]'},
    "administrator_alignment_review": {"framework_id": EF},
    "cross_framework_comparison": {
        "framework_ids": '["brazil-bncc-ensino-fundamental", "brazil-bncc-computacao"]',
        "topic": "algoritmos",
    },
}

BAD_INTEGERS = [
    "",
    "five",
    "5.0",
    " 5",
    "5 ",
    "+5",
    "-5",
    "05",
    "1e1",
    "0x5",
    "\u0661",
    "5_0",
    "true",
    "[5]",
    "99999999999",
]


async def _rejected(client: Client[Any], workflow: str, arguments: dict[str, str]) -> str:
    with pytest.raises(MCPError) as info:
        await client.get_prompt(workflow, arguments)
    message = str(info.value)
    assert message.startswith("invalid_request: "), message
    return message


async def test_base_arguments_render(default_client: Client[Any]) -> None:
    for workflow, arguments in BASE.items():
        result = await default_client.get_prompt(workflow, arguments)
        assert result.messages[0].content.text


@pytest.mark.parametrize(
    ("workflow", "name"),
    [
        (workflow, use.spec.name)
        for workflow, spec in WORKFLOWS.items()
        for use in spec.arguments
        if use.spec.kind == "integer"
    ],
)
async def test_integer_arguments_reject_out_of_range_and_malformed(
    default_client: Client[Any], workflow: str, name: str
) -> None:
    spec = WORKFLOWS[workflow].argument(name)
    assert spec is not None
    for value in [str(spec.spec.minimum - 1), str(spec.spec.maximum + 1), *BAD_INTEGERS]:
        if value == "":
            continue  # an empty optional argument means "not given" (form-based clients send "")
        message = await _rejected(default_client, workflow, {**BASE[workflow], name: value})
        assert message.startswith(f"invalid_request: {name}: ")
        if value in ("five", "99999999999", "0x5"):
            assert value not in message  # rejected values are not echoed back
    for value in (str(spec.spec.minimum), str(spec.spec.maximum)):
        result = await default_client.get_prompt(workflow, {**BASE[workflow], name: value})
        assert f"- `{name}`: {value}\n" in result.messages[0].content.text


@pytest.mark.parametrize(
    ("workflow", "name"),
    [(workflow, use.spec.name) for workflow, spec in WORKFLOWS.items() for use in spec.arguments if use.spec.is_list],
)
async def test_collection_arguments_are_strict_json_arrays_of_unique_strings(
    default_client: Client[Any], workflow: str, name: str
) -> None:
    arg = WORKFLOWS[workflow].argument(name)
    assert arg is not None
    bad = [
        "not json",
        "[unterminated",
        '"a single string"',
        '{"a": 1}',
        "5",
        "null",
        "[1, 2]",
        '["ok", null]',
        '["ok", ["nested"]]',
        json.dumps(["same", "same", "other"]),
        json.dumps([f"value-{i:03d}" for i in range(arg.spec.maximum + 1)]),
    ]
    if arg.spec.minimum > 1:
        bad.append(json.dumps([f"value-{i}" for i in range(arg.spec.minimum - 1)]))
    if arg.spec.kind == "text_list":
        bad.append(json.dumps(["x" * (arg.spec.item_max_chars + 1)]))
        bad.append(json.dumps(["   "]))
        bad.append(json.dumps(["bad\u0000char"]))
    else:
        bad.append(json.dumps(["Not_An_Identifier", "other-id"]))
    bad.append("[]")  # every collection holds at least one value when it is given
    for value in bad:
        message = await _rejected(default_client, workflow, {**BASE[workflow], name: value})
        assert name in message


async def test_text_arguments_enforce_length_and_content(default_client: Client[Any]) -> None:
    cases = {
        "topic": 512,
        "local_context": 4000,
        "learner_context": 2000,
        "available_materials": 2000,
        "standard": 512,
        "target_standard": 512,
        "grade_level": 128,
    }
    for workflow, spec in WORKFLOWS.items():
        for use in spec.arguments:
            name = use.spec.name
            if name not in cases:
                continue
            assert use.spec.maximum == cases[name]
            base = BASE[workflow]
            await _rejected(default_client, workflow, {**base, name: "y" * (cases[name] + 1)})
            await _rejected(default_client, workflow, {**base, name: " \n\t "})
            await _rejected(default_client, workflow, {**base, name: "ok\u0007bell"})
            at_edge = "y" * cases[name]
            result = await default_client.get_prompt(workflow, {**base, name: at_edge})
            assert at_edge in result.messages[0].content.text


async def test_unknown_missing_and_invalid_identifiers(default_client: Client[Any]) -> None:
    message = await _rejected(default_client, "practice_item_set", {**BASE["practice_item_set"], "colour": "red"})
    assert "colour: is not an argument of practice_item_set" in message
    # snake_case names only: the prompt's own argument names
    await _rejected(default_client, "practice_item_set", {**BASE["practice_item_set"], "practiceCount": "3"})
    message = await _rejected(default_client, "practice_item_set", {"framework_id": EF})
    assert "topic: is required" in message
    await _rejected(default_client, "practice_item_set", {"framework_id": "", "topic": "x"})
    await _rejected(default_client, "practice_item_set", {"framework_id": "Brazil BNCC", "topic": "x"})
    await _rejected(default_client, "practice_item_set", {**BASE["practice_item_set"], "snapshot_id": "../etc"})
    message = await _rejected(default_client, "learning_progression_support_plan", {"framework_id": EF})
    assert "standard or topic: give at least one" in message


async def test_empty_optional_arguments_mean_not_given(default_client: Client[Any]) -> None:
    given = await default_client.get_prompt(
        "practice_item_set", {**BASE["practice_item_set"], "practice_count": "", "learner_context": ""}
    )
    plain = await default_client.get_prompt("practice_item_set", BASE["practice_item_set"])
    assert given.messages[0].content.text == plain.messages[0].content.text


async def test_domain_errors_keep_their_codes(default_client: Client[Any]) -> None:
    with pytest.raises(MCPError, match=r"^framework_not_found: "):
        await default_client.get_prompt("practice_item_set", {"framework_id": "no-such-framework", "topic": "x"})
    with pytest.raises(MCPError, match=r"^framework_not_found: "):
        await default_client.get_prompt(
            "practice_item_set", {"framework_id": EF, "snapshot_id": "no-such-snapshot", "topic": "x"}
        )
    with pytest.raises(MCPError, match=r"^invalid_comparison_selection: "):
        await default_client.get_prompt(
            "cross_framework_comparison", {**BASE["cross_framework_comparison"], "snapshot_ids": '["elsewhere"]'}
        )


def test_parser_reports_every_problem_without_echoing_values() -> None:
    secret = "s3cr3t-value-that-must-not-echo"
    with pytest.raises(InvalidRequestError) as info:
        parse_prompt_arguments(
            WORKFLOWS["practice_item_set"],
            {"framework_id": EF, "topic": "x", "practice_count": secret, "learner_context": secret * 200},
        )
    message = info.value.public_message
    assert "practice_count" in message and "learner_context" in message
    assert secret not in message
