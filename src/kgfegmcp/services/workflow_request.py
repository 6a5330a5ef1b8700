"""The get_workflow_instructions request: seven of the nine workflow prompts' arguments as one strict,
published tool schema, derived from the same workflow table the prompts render from."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    Field,
    StringConstraints,
)

from kgfegmcp.prompts.workflows import (
    ALL_ARGUMENTS,
    AVAILABLE_MATERIALS,
    FRAMEWORK_IDS,
    LEARNER_CONTEXT,
    LESSON_DURATION_MINUTES,
    LOCAL_CONTEXT,
    MATCHES_PER_FRAMEWORK,
    MAX_FACET_CHARS,
    MAX_PROGRESSION_FACETS,
    MAX_REVIEW_SELECTORS,
    MAX_TOPIC_CHARS,
    PRACTICE_COUNT,
    SNAPSHOT_IDS,
    WORKFLOWS,
    ArgumentSpec,
    ToolWorkflowName,
    WorkflowSpec,
)
from kgfegmcp.services.requests import IdentifierText, RequestModel
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
# checked by the prompt service with the same rules as the native prompt; the schema publishes those
# rules from the same workflow table (one oneOf branch per workflow, and each field's description).
# ---------------------------------------------------------------------------------------------

_ARGUMENTS = {spec.name: spec for spec in ALL_ARGUMENTS}
_TOOL_WORKFLOWS = tuple(spec for spec in WORKFLOWS.values() if spec.served_as_tool)
#: Text arguments: no control characters and a character other than whitespace.
_WORKFLOW_TEXT_RULE = "Text must not be blank and holds no control characters other than tab and line breaks."
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


def _bounds_note(spec: ArgumentSpec) -> str:
    if spec.kind == "integer":
        return f"{spec.minimum}-{spec.maximum}"
    if spec.is_list:
        return f"{spec.minimum}-{spec.maximum} values"
    return f"at most {spec.maximum} characters"


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


def _argument_description(name: str) -> str:
    """An argument's description plus which served workflows take it, require it or bound it differently."""
    spec = _ARGUMENTS[name]
    uses = []
    for workflow in _TOOL_WORKFLOWS:
        use = workflow.argument(name)
        if use is None:
            continue
        notes = ["required"] if use.required else []
        notes += [
            f"at least one of {' or '.join(_ARGUMENTS[n].alias for n in group)}"
            for group in workflow.at_least_one
            if name in group
        ]
        if use.spec != spec:
            notes.append(_bounds_note(use.spec))
        uses.append(workflow.name + (f" ({', '.join(notes)})" if notes else ""))
    text = f" {_WORKFLOW_TEXT_RULE}" if spec.kind in ("text", "text_list") else ""
    return f"{spec.description}{text} Taken by {', '.join(uses)}; any other workflow refuses it."


#: Checked by ``prompts.arguments.validate_arguments`` (invalid_request), for the tool and the prompts.
WORKFLOW_ARGUMENTS = SchemaRule(
    ("workflow",),
    "Each workflow takes only its own fields and requires some of them: see each field's description, or the "
    "oneOf with one branch per workflow.",
    {"oneOf": [_workflow_branch(workflow) for workflow in _TOOL_WORKFLOWS]},
)

WorkflowTopicText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOPIC_CHARS), WORKFLOW_TEXT]
WorkflowFacetText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FACET_CHARS), WORKFLOW_TEXT]
LocalContextText = Annotated[str, StringConstraints(min_length=1, max_length=LOCAL_CONTEXT.maximum), WORKFLOW_TEXT]
MaterialsText = Annotated[str, StringConstraints(min_length=1, max_length=AVAILABLE_MATERIALS.maximum), WORKFLOW_TEXT]
LearnerContextText = Annotated[str, StringConstraints(min_length=1, max_length=LEARNER_CONTEXT.maximum), WORKFLOW_TEXT]


class GetWorkflowInstructionsRequest(RequestModel):
    """The arguments of one workflow prompt; omitted integers take the prompt's defaults."""

    schema_rules = (WORKFLOW_ARGUMENTS,)

    workflow: ToolWorkflowName = Field(description="One of the seven workflows served as a tool.")
    framework_id: IdentifierText | None = Field(None, description=_argument_description("framework_id"))
    snapshot_id: IdentifierText | None = Field(None, description=_argument_description("snapshot_id"))
    framework_ids: Annotated[list[IdentifierText], _WORKFLOW_DISTINCT] | None = Field(
        None,
        min_length=FRAMEWORK_IDS.minimum,
        max_length=FRAMEWORK_IDS.maximum,
        description=_argument_description("framework_ids"),
    )
    snapshot_ids: Annotated[list[IdentifierText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=SNAPSHOT_IDS.maximum, description=_argument_description("snapshot_ids")
    )
    topic: WorkflowTopicText | None = Field(None, description=_argument_description("topic"))
    standard: WorkflowTopicText | None = Field(None, description=_argument_description("standard"))
    target_standard: WorkflowTopicText | None = Field(None, description=_argument_description("target_standard"))
    standards: Annotated[list[WorkflowTopicText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=MAX_REVIEW_SELECTORS, description=_argument_description("standards")
    )
    grade_level: WorkflowFacetText | None = Field(None, description=_argument_description("grade_level"))
    grade_levels: Annotated[list[WorkflowFacetText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=MAX_PROGRESSION_FACETS, description=_argument_description("grade_levels")
    )
    academic_subjects: Annotated[list[WorkflowFacetText], _WORKFLOW_DISTINCT] | None = Field(
        None, min_length=1, max_length=MAX_PROGRESSION_FACETS, description=_argument_description("academic_subjects")
    )
    practice_count: int | None = Field(
        None,
        ge=PRACTICE_COUNT.minimum,
        le=PRACTICE_COUNT.maximum,
        description=_argument_description("practice_count"),
    )
    lesson_duration_minutes: int | None = Field(
        None,
        ge=LESSON_DURATION_MINUTES.minimum,
        le=LESSON_DURATION_MINUTES.maximum,
        description=_argument_description("lesson_duration_minutes"),
    )
    matches_per_framework: int | None = Field(
        None,
        ge=MATCHES_PER_FRAMEWORK.minimum,
        le=MATCHES_PER_FRAMEWORK.maximum,
        description=_argument_description("matches_per_framework"),
    )
    local_context: LocalContextText | None = Field(None, description=_argument_description("local_context"))
    available_materials: MaterialsText | None = Field(None, description=_argument_description("available_materials"))
    learner_context: LearnerContextText | None = Field(None, description=_argument_description("learner_context"))

    def argument_values(self) -> dict[str, str | int | tuple[str, ...]]:
        """The given arguments under their prompt names (snake_case), lists as tuples."""
        values: dict[str, str | int | tuple[str, ...]] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name == "workflow" or value is None:
                continue
            values[name] = tuple(value) if isinstance(value, list) else value
        return values
