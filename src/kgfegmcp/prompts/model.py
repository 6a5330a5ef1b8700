"""Prompt configuration documents: shared rules, one generic workflow file each, framework overlays.

Every document is strict (``extra="forbid"``, no coercion) and versioned; the repository checks
their cross-references (placeholders, tools, frameworks) before the server starts.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from kgfegmcp.core.identifiers import FrameworkId
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.prompts.workflows import WorkflowName

PROMPT_CONFIG_VERSION_PATTERN = r"^[0-9]+\.[0-9]+$"
SCHEMA_VERSION = "1.0"

Paragraph = Annotated[str, StringConstraints(min_length=1, max_length=4000)]
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Paragraphs = Annotated[tuple[Paragraph, ...], Field(max_length=64)]

CapabilityName = Literal[
    "textSearch",
    "exactCodeSearch",
    "prefixCodeSearch",
    "learningComponents",
    "learningProgressions",
    "hasDetailedProvenance",
]
MaterialKind = Literal["source_evidence", "server_context", "generated", "mixed"]


class Conditions(ContractModel):
    """When a step or call applies: arguments given / absent, package capabilities present / absent."""

    when: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    capabilities: dict[CapabilityName, bool] = Field(default_factory=dict)


class CallConfig(Conditions):
    """One tool call the host should make, with a request template."""

    #: The public tool surface the instructions may name: a configuration naming any other tool is refused.
    tool: ToolName
    purpose: Paragraph
    request: dict[str, Any]
    for_each: str | None = Field(None, description="A list argument: repeat the call once per value.")


class StepConfig(Conditions):
    """One numbered step of a workflow."""

    title: ShortText
    text: Paragraph
    calls: tuple[CallConfig, ...] = Field(default=(), max_length=16)
    notes: Paragraphs = ()


class OutputSection(ContractModel):
    """One section of the deliverable and the kind of material it holds."""

    heading: ShortText
    material: MaterialKind
    guidance: Paragraph


class CommonConfig(ContractModel):
    """Rules shared by every workflow (``common/<version>.json``)."""

    schema_version: Literal["1.0"]
    version: str = Field(pattern=PROMPT_CONFIG_VERSION_PATTERN)
    preamble: Paragraphs = Field(min_length=1)
    call_convention: Paragraphs = Field(min_length=1)
    ground_rules: Paragraphs = Field(min_length=1)
    material_labels: dict[MaterialKind, Paragraph]
    progression_notice: Paragraphs = Field(min_length=1)
    untrusted_input_notice: Paragraph
    attribution_notice: Paragraph

    @model_validator(mode="after")
    def _all_labels(self) -> CommonConfig:
        missing = {"source_evidence", "server_context", "generated", "mixed"} - set(self.material_labels)
        if missing:
            raise ValueError(f"materialLabels lacks {sorted(missing)}")
        return self


class WorkflowConfig(ContractModel):
    """The generic, framework-independent instructions of one workflow (``workflows/<name>/<version>.json``)."""

    schema_version: Literal["1.0"]
    workflow: WorkflowName
    version: str = Field(pattern=PROMPT_CONFIG_VERSION_PATTERN)
    title: ShortText
    purpose: Paragraphs = Field(min_length=1)
    rules: Paragraphs = ()
    steps: tuple[StepConfig, ...] = Field(min_length=1, max_length=24)
    output: tuple[OutputSection, ...] = Field(min_length=1, max_length=24)
    checks: Paragraphs = ()
    uses_progressions: bool = Field(
        False, description="Whether the shared progression notice (one request per link type) applies."
    )


class Term(ContractModel):
    """A framework-local term and what it means."""

    term: ShortText
    meaning: Paragraph


class WorkflowOverlay(ContractModel):
    """Framework guidance for one workflow only."""

    context: Paragraphs = ()
    warnings: Paragraphs = ()
    output_guidance: Paragraphs = ()


class OverlayConfig(ContractModel):
    """Framework-local terminology, warnings, context and output guidance (``overlays/<framework-id>/``)."""

    schema_version: Literal["1.0"]
    framework_id: FrameworkId
    version: str = Field(pattern=PROMPT_CONFIG_VERSION_PATTERN)
    language: str = Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    terminology: tuple[Term, ...] = Field(default=(), max_length=64)
    context: Paragraphs = ()
    warnings: Paragraphs = ()
    output_guidance: Paragraphs = ()
    workflows: dict[WorkflowName, WorkflowOverlay] = Field(default_factory=dict)
