"""The registered prompts are the workflow specs: their names are written once, in ``prompts/workflows.py``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, get_args

import pytest
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.mcp.register import PROMPTS
from kgfegmcp.prompts.workflows import TOOL_WORKFLOW_NAMES, WORKFLOWS, ToolWorkflowName, WorkflowName

#: The nine prompts in their declared order (docs/prompts.md).
DECLARED_PROMPTS = (
    "teacher_guide_draft",
    "student_handbook_section",
    "multigrade_lesson_plan",
    "practice_item_set",
    "learning_progression_teaching_sequence",
    "learning_progression_support_plan",
    "learning_progression_curriculum_review",
    "administrator_alignment_review",
    "cross_framework_comparison",
)


def test_the_registered_names_are_the_spec_names_in_design_order() -> None:
    assert tuple(spec.name for spec in WORKFLOWS.values()) == DECLARED_PROMPTS
    assert tuple(WORKFLOWS) == PROMPTS


def test_the_name_types_spell_the_spec_table() -> None:
    """The literal types (static checking and the published ``workflow`` enum need them written out) say
    exactly what the spec table says, in its order."""
    assert get_args(WorkflowName) == tuple(WORKFLOWS)
    assert get_args(ToolWorkflowName) == TOOL_WORKFLOW_NAMES


async def test_every_spec_is_listed_with_its_title_in_spec_order(fixture_client: Client[Any]) -> None:
    listed = await fixture_client.list_prompts()
    assert [(p.name, p.title) for p in listed] == [(spec.name, spec.title) for spec in WORKFLOWS.values()]


async def test_a_spec_is_registered_from_the_spec_table_alone(
    fixture_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second list to update: a spec added to the table is a prompt of the next server built."""
    extra = replace(WORKFLOWS["practice_item_set"], name="extra_workflow")  # type: ignore[arg-type]
    monkeypatch.setitem(WORKFLOWS, "extra_workflow", extra)
    async with Client(create_app(fixture_state)) as client:
        listed = [p.name for p in await client.list_prompts()]
    assert listed == [*DECLARED_PROMPTS, "extra_workflow"]
