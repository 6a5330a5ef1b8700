"""Request models: the one argument (``request``) of every tool, validated strictly.

Lower-camel-case aliases only (snake_case names are rejected), no coercion, no unknown fields,
and every bound from the specification declared here so the published schema carries it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator
from pydantic.alias_generators import to_camel

from kgfegmcp.cursors import CURSOR_PATTERN, MAX_CURSOR_CHARS
from kgfegmcp.identifiers import IDENTIFIER_MAX_LENGTH, IDENTIFIER_MIN_LENGTH
from kgfegmcp.prompts.workflows import (
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
    ToolWorkflowName,
)
from kgfegmcp.search.normalize import MAX_QUERY_TOKENS, query_tokens

_ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
IdentifierText = Annotated[
    str,
    StringConstraints(min_length=IDENTIFIER_MIN_LENGTH, max_length=IDENTIFIER_MAX_LENGTH, pattern=_ID_PATTERN),
]
NodeIdText = Annotated[str, StringConstraints(min_length=1, max_length=256)]
CursorText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CURSOR_CHARS, pattern=CURSOR_PATTERN)]
FacetText = Annotated[str, StringConstraints(min_length=1, max_length=128)]
GraphTypeName = Literal["AcademicStandards", "LearningComponents", "LearningProgressions"]

MAX_SELECTORS = 64
MAX_FACETS = 64
MAX_CODE_QUERY_CHARS = 256


class RequestModel(BaseModel):
    """Strict camelCase request contract."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=False,
        serialize_by_alias=True,
        extra="forbid",
        frozen=True,
        strict=True,
    )


class PackageSelector(RequestModel):
    """A package: ``frameworkId`` plus optional ``snapshotId`` (omitted: the unique current one)."""

    framework_id: IdentifierText
    snapshot_id: IdentifierText | None = None


class StandardSelector(PackageSelector):
    """A standard: a package plus exactly one of ``nodeId``, ``caseIdentifierUUID``, ``statementCode``."""

    node_id: NodeIdText | None = None
    case_identifier_uuid: NodeIdText | None = Field(None, alias="caseIdentifierUUID")
    statement_code: Annotated[str, StringConstraints(min_length=1, max_length=MAX_CODE_QUERY_CHARS)] | None = None

    @model_validator(mode="after")
    def _exactly_one_key(self) -> StandardSelector:
        given = [v for v in (self.node_id, self.case_identifier_uuid, self.statement_code) if v is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of nodeId, caseIdentifierUUID or statementCode")
        return self


def _unique(values: list[str] | None, name: str) -> None:
    if values is not None and len(set(values)) != len(values):
        raise ValueError(f"{name} values must be unique")


class ListFrameworksRequest(RequestModel):
    """Catalog discovery, paged."""

    framework_ids: list[IdentifierText] | None = Field(None, max_length=MAX_SELECTORS)
    jurisdiction: FacetText | None = None
    academic_subject: FacetText | None = None
    in_language: FacetText | None = None
    graph_types: list[GraphTypeName] | None = Field(None, max_length=3, description="Match packages containing all.")
    include_non_current: bool = False
    limit: int = Field(25, ge=1, le=100)
    cursor: CursorText | None = None

    @model_validator(mode="after")
    def _unique_lists(self) -> ListFrameworksRequest:
        _unique(self.framework_ids, "frameworkIds")
        _unique(self.graph_types, "graphTypes")  # type: ignore[arg-type]
        return self


class GetFrameworkRequest(PackageSelector):
    """One framework snapshot's metadata."""


class GetFrameworkStatisticsRequest(PackageSelector):
    """Counts for one package, standards and learning components kept apart."""


class GetCapabilitiesRequest(RequestModel):
    """Server capabilities, optionally with one package's capabilities."""

    framework_id: IdentifierText | None = None
    snapshot_id: IdentifierText | None = None

    @model_validator(mode="after")
    def _snapshot_needs_framework(self) -> GetCapabilitiesRequest:
        if self.snapshot_id is not None and self.framework_id is None:
            raise ValueError("snapshotId requires frameworkId")
        return self


SearchMode = Literal["auto", "text", "code"]
CodeMatch = Literal["exact", "prefix"]


class SearchStandardsRequest(RequestModel):
    """Deterministic lexical and code search over standards items (never learning components)."""

    query: Annotated[str, StringConstraints(min_length=1, max_length=512)]
    framework_ids: list[IdentifierText] | None = Field(None, max_length=MAX_SELECTORS)
    snapshot_ids: list[IdentifierText] | None = Field(None, max_length=MAX_SELECTORS)
    search_mode: SearchMode = "auto"
    code_match: CodeMatch = "exact"
    grade_levels: list[FacetText] | None = Field(None, max_length=MAX_FACETS)
    statement_types: list[FacetText] | None = Field(None, max_length=MAX_FACETS)
    academic_subjects: list[FacetText] | None = Field(None, max_length=MAX_FACETS)
    limit: int = Field(25, ge=1, le=100)
    cursor: CursorText | None = None

    @model_validator(mode="after")
    def _bounds(self) -> SearchStandardsRequest:
        for name, values in (
            ("frameworkIds", self.framework_ids),
            ("snapshotIds", self.snapshot_ids),
            ("gradeLevels", self.grade_levels),
            ("statementTypes", self.statement_types),
            ("academicSubjects", self.academic_subjects),
        ):
            _unique(values, name)
        if not self.query.strip():
            raise ValueError("query must contain non-space characters")
        if self.search_mode == "code" and len(self.query) > MAX_CODE_QUERY_CHARS:
            raise ValueError(f"a code query has at most {MAX_CODE_QUERY_CHARS} characters")
        if self.search_mode != "code" and len(query_tokens(self.query)) > MAX_QUERY_TOKENS:
            raise ValueError(f"a text query has at most {MAX_QUERY_TOKENS} normalised tokens")
        if self.code_match == "prefix" and self.search_mode != "code":
            raise ValueError("codeMatch 'prefix' requires searchMode 'code'")
        return self


class GetStandardRequest(StandardSelector):
    """One exact standard."""


class GetStandardContextRequest(StandardSelector):
    """Direct relationships, bounded ancestors/descendants and complete root paths of a standard."""

    ancestor_depth: int = Field(16, ge=0, le=64)
    child_depth: int = Field(1, ge=0, le=64)
    max_nodes: int = Field(250, ge=1, le=2000)
    max_paths: int = Field(128, ge=1, le=1000)
    max_path_node_occurrences: int = Field(8192, ge=1, le=100000)


# ---------------------------------------------------------------------------------------------
# Learning components, stored learning progressions and cross-framework comparison (issue 5).
# Structural bounds live here (invalid_request at the boundary); semantic consistency of filters
# and selections is checked by the services (invalid_progression_request /
# invalid_comparison_selection), because only the selected package can say what is consistent.
# ---------------------------------------------------------------------------------------------

QueryText = Annotated[str, StringConstraints(min_length=1, max_length=512)]
ProgressionLinkType = Literal["buildsTowards", "relatesTo"]
ProgressionDirection = Literal["in", "out", "both"]

#: Bounds of the five progression tools (spec: errors-cursors-limits, "Progression limits").
PROGRESSION_PAGE_DEFAULT = 25
PROGRESSION_PAGE_MAX = 100
TRAVERSAL_DEPTH_DEFAULT, TRAVERSAL_DEPTH_MAX = 8, 12
TRAVERSAL_NODES_DEFAULT, TRAVERSAL_NODES_MAX = 100, 250
TRAVERSAL_EDGES_DEFAULT, TRAVERSAL_EDGES_MAX = 100, 100
PATH_DEPTH_DEFAULT, PATH_DEPTH_MAX = 6, 12
PATHS_DEFAULT, PATHS_MAX = 3, 20
#: Comparison bounds (spec: "Comparison limits").
COMPARISON_FRAMEWORKS_MIN, COMPARISON_FRAMEWORKS_MAX = 2, 8
COMPARISON_SNAPSHOTS_MAX = 8
COMPARISON_MATCHES_DEFAULT, COMPARISON_MATCHES_MAX = 5, 10
COMPONENT_LINKS_DEFAULT, COMPONENT_LINKS_MAX = 50, 100


def _text_query_bounds(query: str | None) -> None:
    if query is None:
        return
    if not query.strip():
        raise ValueError("query must contain non-space characters")
    if len(query_tokens(query)) > MAX_QUERY_TOKENS:
        raise ValueError(f"a text query has at most {MAX_QUERY_TOKENS} normalised tokens")


class SearchLearningComponentsRequest(RequestModel):
    """Lexical search over learning components (never standards), paged with a cursor."""

    query: QueryText
    framework_ids: list[IdentifierText] | None = Field(None, max_length=MAX_SELECTORS)
    snapshot_ids: list[IdentifierText] | None = Field(None, max_length=MAX_SELECTORS)
    academic_subjects: list[FacetText] | None = Field(None, max_length=MAX_FACETS)
    limit: int = Field(25, ge=1, le=100)
    cursor: CursorText | None = None

    @model_validator(mode="after")
    def _bounds(self) -> SearchLearningComponentsRequest:
        for name, values in (
            ("frameworkIds", self.framework_ids),
            ("snapshotIds", self.snapshot_ids),
            ("academicSubjects", self.academic_subjects),
        ):
            _unique(values, name)
        _text_query_bounds(self.query)
        return self


class LearningComponentSelector(PackageSelector):
    """A learning component: a package plus the component's ``nodeId``."""

    node_id: NodeIdText


class GetLearningComponentRequest(LearningComponentSelector):
    """One exact learning component."""


class GetLearningComponentsForStandardRequest(StandardSelector):
    """The learning components supporting one standard (each ``supports`` link, with its citation links)."""

    limit: int = Field(COMPONENT_LINKS_DEFAULT, ge=1, le=COMPONENT_LINKS_MAX)


class GetStandardsForLearningComponentRequest(LearningComponentSelector):
    """The standards one learning component supports."""

    limit: int = Field(COMPONENT_LINKS_DEFAULT, ge=1, le=COMPONENT_LINKS_MAX)


class GetLearningProgressionRequest(PackageSelector):
    """One exact stored progression link (``buildsTowards`` or ``relatesTo``) by its relationship id."""

    progression_id: NodeIdText


class GetStandardProgressionsRequest(StandardSelector):
    """Direct progression links of one standard, ``buildsTowards`` before ``relatesTo``, paged."""

    direction: ProgressionDirection = "both"
    link_types: list[ProgressionLinkType] | None = Field(None, min_length=1, max_length=2)
    limit: int = Field(PROGRESSION_PAGE_DEFAULT, ge=1, le=PROGRESSION_PAGE_MAX)
    cursor: CursorText | None = None


class SearchLearningProgressionsRequest(PackageSelector):
    """Discovery of stored links inside one package by grade, subject, link type and optional text."""

    query: QueryText | None = None
    grade_levels: list[FacetText] | None = Field(None, min_length=1, max_length=MAX_FACETS)
    academic_subjects: list[FacetText] | None = Field(None, min_length=1, max_length=MAX_FACETS)
    link_types: list[ProgressionLinkType] | None = Field(None, min_length=1, max_length=2)
    limit: int = Field(PROGRESSION_PAGE_DEFAULT, ge=1, le=PROGRESSION_PAGE_MAX)
    cursor: CursorText | None = None

    @model_validator(mode="after")
    def _bounds(self) -> SearchLearningProgressionsRequest:
        _text_query_bounds(self.query)
        return self


class TraverseLearningProgressionsRequest(StandardSelector):
    """Bounded traversal of stored links from one standard; no cursor (bounds are explicit)."""

    direction: ProgressionDirection = "out"
    link_types: list[ProgressionLinkType] | None = Field(None, min_length=1, max_length=2)
    max_depth: int = Field(TRAVERSAL_DEPTH_DEFAULT, ge=1, le=TRAVERSAL_DEPTH_MAX)
    max_nodes: int = Field(TRAVERSAL_NODES_DEFAULT, ge=1, le=TRAVERSAL_NODES_MAX)
    max_edges: int = Field(TRAVERSAL_EDGES_DEFAULT, ge=1, le=TRAVERSAL_EDGES_MAX)


class FindLearningProgressionPathsRequest(RequestModel):
    """Bounded directed ``buildsTowards`` paths between two standards of one package."""

    from_: StandardSelector = Field(alias="from")
    to: StandardSelector
    max_depth: int = Field(PATH_DEPTH_DEFAULT, ge=1, le=PATH_DEPTH_MAX)
    max_paths: int = Field(PATHS_DEFAULT, ge=1, le=PATHS_MAX)


class FrameworkGradeFilter(RequestModel):
    """Grade labels (source labels or normalised facets) applied inside one selected framework."""

    framework_id: IdentifierText
    grade_levels: list[FacetText] = Field(min_length=1, max_length=MAX_FACETS)


class CompareFrameworkEvidenceRequest(RequestModel):
    """Independent bounded retrieval in 2 to 8 frameworks; candidates for review, never an alignment."""

    query: QueryText
    framework_ids: list[IdentifierText] = Field(
        min_length=COMPARISON_FRAMEWORKS_MIN, max_length=COMPARISON_FRAMEWORKS_MAX
    )
    snapshot_ids: list[IdentifierText] | None = Field(None, max_length=COMPARISON_SNAPSHOTS_MAX)
    search_mode: SearchMode = "auto"
    max_matches_per_framework: int = Field(COMPARISON_MATCHES_DEFAULT, ge=1, le=COMPARISON_MATCHES_MAX)
    grade_levels: list[FacetText] | None = Field(None, min_length=1, max_length=MAX_FACETS)
    framework_grade_levels: list[FrameworkGradeFilter] | None = Field(
        None, min_length=1, max_length=COMPARISON_FRAMEWORKS_MAX
    )

    @model_validator(mode="after")
    def _bounds(self) -> CompareFrameworkEvidenceRequest:
        if self.search_mode == "code" and len(self.query) > MAX_CODE_QUERY_CHARS:
            raise ValueError(f"a code query has at most {MAX_CODE_QUERY_CHARS} characters")
        if self.search_mode != "code":
            _text_query_bounds(self.query)
        elif not self.query.strip():
            raise ValueError("query must contain non-space characters")
        return self


# ---------------------------------------------------------------------------------------------
# Evidence access (issue 6): read_evidence reads one exact resource address in UTF-8 windows.
# The URI is checked by the resource address parser (invalid_evidence_uri), not by a pattern here,
# so every malformed address gets the same stable code; only its length is bounded at the boundary.
# ---------------------------------------------------------------------------------------------

EVIDENCE_WINDOW_DEFAULT = 16_384
EVIDENCE_WINDOW_MAX = 32_768
#: A window always holds at least one whole UTF-8 character (at most 4 bytes), so reading advances.
EVIDENCE_WINDOW_MIN = 4
MAX_EVIDENCE_URI_CHARS = 2048


class ReadEvidenceRequest(RequestModel):
    """One window of a resource document; replay ``cursor`` with the same ``uri`` and ``windowBytes``."""

    uri: Annotated[str, StringConstraints(min_length=1, max_length=MAX_EVIDENCE_URI_CHARS)] = Field(
        description="One exact kgfegmcp:// resource address, as printed in resource links."
    )
    window_bytes: int = Field(
        EVIDENCE_WINDOW_DEFAULT,
        ge=EVIDENCE_WINDOW_MIN,
        le=EVIDENCE_WINDOW_MAX,
        description="Largest number of UTF-8 bytes in this window (never splits a character).",
    )
    cursor: CursorText | None = None


# ---------------------------------------------------------------------------------------------
# Workflow instructions (issue 7): get_workflow_instructions serves seven of the nine prompts to
# clients that cannot use MCP prompts. Fields are the prompts' arguments in camelCase, with typed
# JSON values (integers as integers, arrays as arrays). Which fields a workflow takes, and which it
# requires, is checked by the prompt service with the same rules as the native prompt.
# ---------------------------------------------------------------------------------------------

WorkflowTopicText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOPIC_CHARS)]


class GetWorkflowInstructionsRequest(RequestModel):
    """The arguments of one workflow prompt; omitted integers take the prompt's defaults."""

    workflow: ToolWorkflowName = Field(description="One of the seven workflows served as a tool.")
    framework_id: IdentifierText | None = None
    snapshot_id: IdentifierText | None = None
    framework_ids: list[IdentifierText] | None = Field(
        None, min_length=FRAMEWORK_IDS.minimum, max_length=FRAMEWORK_IDS.maximum
    )
    snapshot_ids: list[IdentifierText] | None = Field(None, min_length=1, max_length=SNAPSHOT_IDS.maximum)
    topic: WorkflowTopicText | None = None
    standard: WorkflowTopicText | None = None
    target_standard: WorkflowTopicText | None = None
    standards: list[WorkflowTopicText] | None = Field(None, min_length=1, max_length=MAX_REVIEW_SELECTORS)
    grade_level: Annotated[str, StringConstraints(min_length=1, max_length=MAX_FACET_CHARS)] | None = None
    grade_levels: list[Annotated[str, StringConstraints(min_length=1, max_length=MAX_FACET_CHARS)]] | None = Field(
        None, min_length=1, max_length=MAX_PROGRESSION_FACETS
    )
    academic_subjects: list[Annotated[str, StringConstraints(min_length=1, max_length=MAX_FACET_CHARS)]] | None = Field(
        None, min_length=1, max_length=MAX_PROGRESSION_FACETS
    )
    practice_count: int | None = Field(
        None, ge=PRACTICE_COUNT.minimum, le=PRACTICE_COUNT.maximum, description="Default 5."
    )
    lesson_duration_minutes: int | None = Field(
        None, ge=LESSON_DURATION_MINUTES.minimum, le=LESSON_DURATION_MINUTES.maximum, description="Default 45."
    )
    matches_per_framework: int | None = Field(
        None, ge=MATCHES_PER_FRAMEWORK.minimum, le=MATCHES_PER_FRAMEWORK.maximum, description="Default 5."
    )
    local_context: Annotated[str, StringConstraints(min_length=1, max_length=LOCAL_CONTEXT.maximum)] | None = None
    available_materials: (
        Annotated[str, StringConstraints(min_length=1, max_length=AVAILABLE_MATERIALS.maximum)] | None
    ) = None
    learner_context: Annotated[str, StringConstraints(min_length=1, max_length=LEARNER_CONTEXT.maximum)] | None = None

    def argument_values(self) -> dict[str, str | int | tuple[str, ...]]:
        """The given arguments under their prompt names (snake_case), lists as tuples."""
        values: dict[str, str | int | tuple[str, ...]] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name == "workflow" or value is None:
                continue
            values[name] = tuple(value) if isinstance(value, list) else value
        return values
