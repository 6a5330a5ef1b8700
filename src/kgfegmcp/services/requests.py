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
