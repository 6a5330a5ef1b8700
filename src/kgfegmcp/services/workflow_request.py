"""The get_workflow_instructions request: seven of the nine workflow prompts' arguments as one strict,
published tool schema, derived from the same workflow table the prompts render from."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints, model_validator

from kgfegmcp.core.limits import MAX_FACET_CHARS, MAX_PROGRESSION_FACETS, MAX_REVIEW_SELECTORS, MAX_TOPIC_CHARS
from kgfegmcp.prompts.workflows import (
    ALL_ARGUMENTS,
    AVAILABLE_MATERIALS,
    FRAMEWORK_ID,
    FRAMEWORK_IDS,
    LEARNER_CONTEXT,
    LESSON_DURATION_MINUTES,
    LOCAL_CONTEXT,
    MATCHES_PER_FRAMEWORK,
    PRACTICE_COUNT,
    SNAPSHOT_IDS,
    WORKFLOWS,
    ArgumentSpec,
    ToolWorkflowName,
    WorkflowSpec,
)
from kgfegmcp.services.requests import (
    GRADES_DESCRIPTION,
    SUBJECTS_DESCRIPTION,
    IdentifierText,
    RequestModel,
    SnapshotIdText,
)
from kgfegmcp.services.schema_rules import (
    WORKFLOW_TEXT_PATTERN,
    Published,
    SchemaRule,
    distinct_checked_by,
)

# ---------------------------------------------------------------------------------------------
# Workflow instructions: get_workflow_instructions serves seven of the nine prompts to clients that
# cannot use MCP prompts. Fields are the prompts' arguments in camelCase, with typed JSON values
# (integers as integers, arrays as arrays). Which fields a workflow takes, and which it requires, is
# checked here (naming the workflow's fields) and again by the prompt service with the same rules as
# the native prompt. The full schema states it as one oneOf branch per workflow; tools/list leaves the
# oneOf out (kgfegmcp.mcp.listing), and the workflow field's description says which fields are required.
# ---------------------------------------------------------------------------------------------

_ARGUMENTS = {spec.name: spec for spec in ALL_ARGUMENTS}
_TOOL_WORKFLOWS = tuple(spec for spec in WORKFLOWS.values() if spec.served_as_tool)
#: Text arguments: no control characters and a character other than whitespace.
WORKFLOW_TEXT = Published((("pattern", WORKFLOW_TEXT_PATTERN),), checked_by="prompts.arguments.validate_arguments")
#: Repeated values in a list argument are refused by the prompt argument rules (invalid_request).
_WORKFLOW_DISTINCT = distinct_checked_by("prompts.arguments.validate_arguments")


def _argument_keywords(spec: ArgumentSpec) -> dict[str, Any]:
    """The bounds of one argument as JSON Schema keywords."""
    if spec.kind == "integer":
        return {"minimum": spec.minimum, "maximum": spec.maximum}
    if spec.is_list:
        items = {"items": {"maxLength": spec.item_max_chars}} if spec.item_max_chars else {}
        return {"minItems": spec.minimum, "maxItems": spec.maximum, **items}
    return {"maxLength": spec.maximum}


def _workflow_branch(workflow: WorkflowSpec) -> dict[str, Any]:
    """The fields one workflow takes (with bounds where they differ from the field's own), and requires."""
    properties: dict[str, Any] = {"workflow": {"const": workflow.name}}
    for use in workflow.arguments:
        differs = use.spec != _ARGUMENTS[use.spec.name]
        properties[use.spec.alias] = _argument_keywords(use.spec) if differs else {}
    required = ["workflow", *(use.spec.alias for use in workflow.arguments if use.required)]
    branch: dict[str, Any] = {"properties": properties, "required": required, "additionalProperties": False}
    groups = [{"anyOf": [{"required": [_ARGUMENTS[n].alias]} for n in group]} for group in workflow.at_least_one]
    if len(groups) == 1:
        branch.update(groups[0])
    elif groups:
        branch["allOf"] = groups
    return branch


def _required_text() -> str:
    """What each workflow requires, in one sentence: the listed schema's only statement of the per-workflow
    oneOf. frameworkId, which most require, is said once; bounds that differ from a field's own follow it."""
    common = FRAMEWORK_ID.alias
    by_needs: dict[tuple[tuple[str, ...], bool], list[str]] = {}
    for workflow in _TOOL_WORKFLOWS:
        needs = [" or ".join(_ARGUMENTS[n].alias for n in group) for group in workflow.at_least_one]
        for use in workflow.arguments:
            if use.required:
                differs = use.spec != _ARGUMENTS[use.spec.name]
                needs.append(use.spec.alias + (f" ({use.spec.minimum}-{use.spec.maximum})" if differs else ""))
        instead = common not in needs
        others = tuple(need for need in needs if need != common)
        if others or instead:
            by_needs.setdefault((others, instead), []).append(workflow.name)
    parts = [
        f"{' and '.join(names)}: {', '.join(needs)}" + (f" instead of {common}" if instead else "")
        for (needs, instead), names in by_needs.items()
    ]
    return f"Needs {common}; also {'; '.join(parts)}."


def fields_text(workflow: WorkflowSpec) -> str:
    """The fields one workflow takes, in camelCase, required ones marked: what a refusal lists."""
    names = []
    for use in workflow.arguments:
        groups = [group for group in workflow.at_least_one if use.spec.name in group]
        note = "required" if use.required else ""
        if groups:
            note = "or ".join(" or ".join(_ARGUMENTS[n].alias for n in group if n != use.spec.name) for group in groups)
            note = f"or {note}"
        if use.spec != _ARGUMENTS[use.spec.name]:
            note = ", ".join(filter(None, (note, f"{use.spec.minimum}-{use.spec.maximum}")))
        names.append(f"{use.spec.alias} ({note})" if note else use.spec.alias)
    return ", ".join(names)


#: Checked by :meth:`GetWorkflowInstructionsRequest._workflow_fields` (invalid_request, naming the workflow's
#: fields) and by ``prompts.arguments.validate_arguments``, for the tool and the prompts.
WORKFLOW_ARGUMENTS = SchemaRule(
    ("workflow",), _required_text(), {"oneOf": [_workflow_branch(workflow) for workflow in _TOOL_WORKFLOWS]}
)

WorkflowTopicText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOPIC_CHARS), WORKFLOW_TEXT]
WorkflowFacetText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FACET_CHARS), WORKFLOW_TEXT]
LocalContextText = Annotated[str, StringConstraints(min_length=1, max_length=LOCAL_CONTEXT.maximum), WORKFLOW_TEXT]
MaterialsText = Annotated[str, StringConstraints(min_length=1, max_length=AVAILABLE_MATERIALS.maximum), WORKFLOW_TEXT]
LearnerContextText = Annotated[str, StringConstraints(min_length=1, max_length=LEARNER_CONTEXT.maximum), WORKFLOW_TEXT]


class GetWorkflowInstructionsRequest(RequestModel):
    """The arguments of one workflow prompt; omitted integers take the prompt's defaults."""

    schema_rules = (WORKFLOW_ARGUMENTS,)

    workflow: ToolWorkflowName
    framework_id: IdentifierText | None = None
    snapshot_id: SnapshotIdText | None = None
    framework_ids: Annotated[list[IdentifierText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=FRAMEWORK_IDS.minimum, max_length=FRAMEWORK_IDS.maximum
    )
    snapshot_ids: Annotated[list[SnapshotIdText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=SNAPSHOT_IDS.maximum
    )
    topic: WorkflowTopicText | None = None
    standard: WorkflowTopicText | None = Field(None, description="Code or nodeId.")
    target_standard: WorkflowTopicText | None = None
    standards: Annotated[list[WorkflowTopicText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=MAX_REVIEW_SELECTORS
    )
    grade_level: WorkflowFacetText | None = Field(None, description=GRADES_DESCRIPTION)
    grade_levels: Annotated[list[WorkflowFacetText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=MAX_PROGRESSION_FACETS, description=GRADES_DESCRIPTION
    )
    academic_subjects: Annotated[list[WorkflowFacetText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=MAX_PROGRESSION_FACETS, description=SUBJECTS_DESCRIPTION
    )
    practice_count: int | None = Field(None, ge=PRACTICE_COUNT.minimum, le=PRACTICE_COUNT.maximum)
    lesson_duration_minutes: int | None = Field(
        None, ge=LESSON_DURATION_MINUTES.minimum, le=LESSON_DURATION_MINUTES.maximum
    )
    matches_per_framework: int | None = Field(None, ge=MATCHES_PER_FRAMEWORK.minimum, le=MATCHES_PER_FRAMEWORK.maximum)
    local_context: LocalContextText | None = None
    available_materials: MaterialsText | None = None
    learner_context: LearnerContextText | None = Field(None, description="No personal data.")

    @model_validator(mode="after")
    def _workflow_fields(self) -> GetWorkflowInstructionsRequest:
        """The workflow's own fields only, its required ones given: refused naming every field it takes."""
        workflow = WORKFLOWS[self.workflow]
        given = {name for name in type(self).model_fields if name != "workflow" and getattr(self, name) is not None}
        problems = [f"{_ARGUMENTS[n].alias} is not one of them" for n in sorted(given) if not workflow.argument(n)]
        problems += [
            f"{use.spec.alias} is missing" for use in workflow.arguments if use.required and use.spec.name not in given
        ]
        problems += [
            " or ".join(_ARGUMENTS[name].alias for name in group) + " is missing"
            for group in workflow.at_least_one
            if not given & set(group)
        ]
        if problems:
            raise ValueError(f"{workflow.name} takes {fields_text(workflow)}: {'; '.join(problems)}")
        return self

    def argument_values(self) -> dict[str, str | int | tuple[str, ...]]:
        """The given arguments under their prompt names (snake_case), lists as tuples."""
        values: dict[str, str | int | tuple[str, ...]] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name == "workflow" or value is None:
                continue
            values[name] = tuple(value) if isinstance(value, list) else value
        return values
