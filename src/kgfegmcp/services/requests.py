"""Request models: the one argument (``request``) of every tool, validated strictly.

Lower-camel-case aliases only (snake_case names are rejected), no coercion, no unknown fields,
and every bound from the specification declared here so the published schema carries it.

Every rule that can refuse a request is published in the tool's full input schema (docs/tools.md),
written once beside its check, so a client built from the schema does not guess; ``tools/list`` lists
it compact (:mod:`kgfegmcp.mcp.listing`), with the rules across fields in the fields' descriptions.
A rule on one field that pydantic's own constraints cannot state is a :class:`Published` marker on
the field (``uniqueItems``, ``pattern``); a rule across fields is a :class:`SchemaRule`, a sentence in
the fields' descriptions plus, where JSON Schema can say it simply, a schema the request object must
also satisfy. Rules that depend on
the catalog (an id that must exist, a grade label a package uses) or that JSON Schema cannot state
(values compared across fields, normalised token counts) are described only. Optional fields are
published without ``null``: a client leaves a field out to leave it unset.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    model_validator,
)
from pydantic.alias_generators import to_camel

from kgfegmcp.core.cursors import CURSOR_PATTERN
from kgfegmcp.core.identifiers import SNAPSHOT_ID_PATTERN
from kgfegmcp.core.limits import (
    CODE_QUERY_CHARS,
    COMPARISON_FRAMEWORKS,
    COMPARISON_MATCHES,
    COMPONENT_LINKS,
    CONTEXT_ANCESTOR_DEPTH,
    CONTEXT_CHILD_DEPTH,
    CONTEXT_NODES,
    CONTEXT_PATH_NODE_OCCURRENCES,
    CONTEXT_PATHS,
    EVIDENCE_WINDOW_BYTES,
    IDENTIFIER_MAX_LENGTH,
    IDENTIFIER_MIN_LENGTH,
    MAX_COMPARISON_SNAPSHOTS,
    MAX_CURSOR_CHARS,
    MAX_EVIDENCE_URI_CHARS,
    MAX_FACET_CHARS,
    MAX_FACETS,
    MAX_NODE_ID_CHARS,
    MAX_QUERY_TOKENS,
    MAX_SELECTORS,
    PAGE_LIMIT,
    PATH_DEPTH,
    PATHS,
    PROGRESSION_PAGE,
    SNAPSHOT_MAX_LENGTH,
    TEXT_QUERY_CHARS,
    TRAVERSAL_DEPTH,
    TRAVERSAL_EDGES,
    TRAVERSAL_NODES,
    Bound,
)
from kgfegmcp.search.normalize import QueryWords, has_cjk, query_words
from kgfegmcp.services.schema_rules import (
    DISTINCT,
    NOT_BLANK,
    SchemaRule,
    distinct_checked_by,
    publish,
)

# ---------------------------------------------------------------------------------------------
# Shared field types.
# ---------------------------------------------------------------------------------------------

_ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
IdentifierText = Annotated[
    str,
    StringConstraints(min_length=IDENTIFIER_MIN_LENGTH, max_length=IDENTIFIER_MAX_LENGTH, pattern=_ID_PATTERN),
]
#: A snapshot id: an identifier, or the supplied packages' ``<framework-id>@<year>+<hex>``.
SnapshotIdText = Annotated[
    str,
    StringConstraints(min_length=IDENTIFIER_MIN_LENGTH, max_length=SNAPSHOT_MAX_LENGTH, pattern=SNAPSHOT_ID_PATTERN),
]
NodeIdText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NODE_ID_CHARS)]
CursorText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CURSOR_CHARS, pattern=CURSOR_PATTERN)]
FacetText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FACET_CHARS)]
QueryText = Annotated[
    str, StringConstraints(min_length=TEXT_QUERY_CHARS.min, max_length=TEXT_QUERY_CHARS.max), NOT_BLANK
]
StatementCodeText = Annotated[str, StringConstraints(min_length=CODE_QUERY_CHARS.min, max_length=CODE_QUERY_CHARS.max)]
GraphTypeName = Literal["AcademicStandards", "LearningComponents", "LearningProgressions"]
DistinctIds = Annotated[list[IdentifierText], DISTINCT]
DistinctSnapshotIds = Annotated[list[SnapshotIdText], DISTINCT]
DistinctFacets = Annotated[list[FacetText], DISTINCT]


def bounded(bound: Bound, **field: Any) -> Any:
    """An integer field within ``bound`` (its default, minimum and maximum published in the schema)."""
    if bound.default is None:
        raise TypeError(f"{bound} has no default: declare the field required instead")
    return Field(bound.default, ge=bound.min, le=bound.max, **field)


CURSOR_DESCRIPTION = "page.nextCursor; same other fields."
#: Filters whose values are a framework's own vocabulary: get_framework lists them.
GRADES_DESCRIPTION = SUBJECTS_DESCRIPTION = "From get_framework filterValues."

# Cross-field rules shared by several requests (each checked where its comment says).

#: Checked by :class:`StandardSelector`; described once, on the first of the three keys.
ONE_STANDARD_KEY = SchemaRule(
    ("nodeId",),
    "Or caseIdentifierUUID or statementCode.",
    {"oneOf": [{"required": ["nodeId"]}, {"required": ["caseIdentifierUUID"]}, {"required": ["statementCode"]}]},
    refusal="Give exactly one of nodeId, caseIdentifierUUID or statementCode.",
)
#: Checked by :func:`_code_query_bounds`.
CODE_QUERY_LENGTH = SchemaRule(
    ("query",),
    f"Code: ≤{CODE_QUERY_CHARS.max} characters.",
    {
        "if": {"properties": {"searchMode": {"const": "code"}}, "required": ["searchMode"]},
        "then": {"properties": {"query": {"maxLength": CODE_QUERY_CHARS.max}}},
    },
    refusal=f"With searchMode 'code' the query has at most {CODE_QUERY_CHARS.max} characters.",
)
#: Checked by :func:`_text_query_bounds`; JSON Schema cannot count normalised tokens.
QUERY_TOKENS = SchemaRule(
    ("query",),
    f"≤{MAX_QUERY_TOKENS} distinct words.",
    refusal=f"The query has at most {MAX_QUERY_TOKENS} normalised tokens (distinct words after accent and case "
    "folding).",
)
#: Checked by :func:`_code_query_bounds`; JSON Schema cannot count normalised tokens.
TEXT_QUERY_TOKENS = SchemaRule(
    ("query",),
    f"Words: ≤{MAX_QUERY_TOKENS} distinct.",
    refusal=f"Unless searchMode is 'code', the query has at most {MAX_QUERY_TOKENS} normalised tokens (distinct "
    "words after accent and case folding).",
)
#: Checked by :meth:`kgfegmcp.catalog.catalog.AcceptedCatalog.select` (framework_not_found); needs the catalog.
SNAPSHOTS_SELECT = SchemaRule(
    ("snapshotIds",),
    "Each of frameworkIds needs one of these.",
)

#: Checked by ``services.filter_values.require_known`` (invalid_request); needs the packages' values. The whole
#: description of the fields it names: "only" says that any other value is refused.
FILTER_VALUES = SchemaRule(
    ("gradeLevels", "statementTypes", "academicSubjects"),
    "Only get_framework filterValues.",
)


#: The two rules again, as a query holding Han, kana or Hangul is refused: it has no spaces to count words by.
CJK_TOKENS = (
    " Han, kana and Hangul count one token per pair of adjacent characters; shorten the query to its key words."
)


def _counted_in_pairs(rule: SchemaRule) -> SchemaRule:
    return SchemaRule(rule.fields, rule.text, refusal=rule.message + CJK_TOKENS)


CJK_QUERY_TOKENS = _counted_in_pairs(QUERY_TOKENS)
CJK_TEXT_QUERY_TOKENS = _counted_in_pairs(TEXT_QUERY_TOKENS)


def _text_query_bounds(query: str) -> QueryWords:
    """The query's words, once they are within the token bound."""
    words = query_words(query)
    if len(words.distinct) > MAX_QUERY_TOKENS:
        if has_cjk(query):
            raise ValueError(CJK_QUERY_TOKENS.message)
        raise ValueError(QUERY_TOKENS.message)
    return words


def _code_query_bounds(query: str, search_mode: str) -> QueryWords | None:
    """The query rules of the searchMode-aware tools; the query's words unless it is searched as a code only."""
    if search_mode == "code":
        if len(query) > CODE_QUERY_CHARS.max:
            raise ValueError(CODE_QUERY_LENGTH.message)
        return None
    words = query_words(query)
    if len(words.distinct) > MAX_QUERY_TOKENS:
        if has_cjk(query):
            raise ValueError(CJK_TEXT_QUERY_TOKENS.message)
        raise ValueError(TEXT_QUERY_TOKENS.message)
    return words


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
        json_schema_extra=publish,
        # Python's engine: the snapshot-id pattern bounds its words' length with a look-ahead, which the default
        # (Rust) engine lacks; published as written, it is ECMA-262 as JSON Schema asks.
        regex_engine="python-re",
    )
    #: This model's own cross-field rules (a subclass inherits its bases' rules).
    schema_rules: ClassVar[tuple[SchemaRule, ...]] = ()
    #: The words of each query the request's bounds read, kept so the search splits no query twice.
    _words: dict[str, QueryWords] = PrivateAttr(default_factory=dict)

    def _read(self, words: QueryWords | None) -> None:
        if words is not None:
            self._words[words.text] = words

    def words_of(self, query: str) -> QueryWords:
        """``query``'s words, as the request's bounds split them."""
        found = self._words.get(query)
        return found if found is not None else query_words(query)


class PackageSelector(RequestModel):
    """A package: ``frameworkId`` plus optional ``snapshotId`` (omitted: the unique current one)."""

    framework_id: IdentifierText
    snapshot_id: SnapshotIdText | None = Field(None)


class StandardSelector(PackageSelector):
    """A standard: a package plus exactly one of ``nodeId``, ``caseIdentifierUUID``, ``statementCode``."""

    schema_rules = (ONE_STANDARD_KEY,)

    node_id: NodeIdText | None = None
    case_identifier_uuid: NodeIdText | None = Field(None, alias="caseIdentifierUUID")
    statement_code: StatementCodeText | None = None

    @model_validator(mode="after")
    def _exactly_one_key(self) -> StandardSelector:
        given = [v for v in (self.node_id, self.case_identifier_uuid, self.statement_code) if v is not None]
        if len(given) != 1:
            raise ValueError(ONE_STANDARD_KEY.message)
        return self


#: Checked by ``FrameworkService._known_values``; needs the catalog.
CATALOG_VALUES = SchemaRule(
    ("jurisdiction", "academicSubject", "inLanguage"),
    "Exact catalog values.",
)


class ListFrameworksRequest(RequestModel):
    """Catalog discovery, paged."""

    schema_rules = (CATALOG_VALUES,)

    framework_ids: DistinctIds | None = Field(None, max_length=MAX_SELECTORS)
    jurisdiction: FacetText | None = None
    academic_subject: FacetText | None = None
    in_language: FacetText | None = None
    graph_types: Annotated[list[GraphTypeName], DISTINCT] | None = Field(
        None, max_length=3, description="Match packages containing all."
    )
    include_non_current: bool = False
    limit: int = bounded(PAGE_LIMIT)
    cursor: CursorText | None = Field(None, description=CURSOR_DESCRIPTION)


class GetFrameworkRequest(PackageSelector):
    """One framework snapshot's metadata."""


class GetFrameworkStatisticsRequest(PackageSelector):
    """Counts for one package, standards and learning components kept apart."""


#: Checked by :meth:`GetCapabilitiesRequest._snapshot_needs_framework`.
SNAPSHOT_NEEDS_FRAMEWORK = SchemaRule(
    ("snapshotId",),
    "Requires frameworkId.",
    {"dependentRequired": {"snapshotId": ["frameworkId"]}},
    refusal="snapshotId requires frameworkId.",
)


class GetCapabilitiesRequest(RequestModel):
    """Server capabilities, optionally with one package's capabilities."""

    schema_rules = (SNAPSHOT_NEEDS_FRAMEWORK,)

    framework_id: IdentifierText | None = None
    snapshot_id: SnapshotIdText | None = Field(None)

    @model_validator(mode="after")
    def _snapshot_needs_framework(self) -> GetCapabilitiesRequest:
        if self.snapshot_id is not None and self.framework_id is None:
            raise ValueError(SNAPSHOT_NEEDS_FRAMEWORK.message)
        return self


SearchMode = Literal["auto", "text", "code"]
CodeMatch = Literal["exact", "prefix"]

#: Checked by :meth:`SearchStandardsRequest._bounds`.
PREFIX_NEEDS_CODE = SchemaRule(
    ("codeMatch",),
    "'prefix' needs searchMode 'code'.",
    {
        "if": {"properties": {"codeMatch": {"const": "prefix"}}, "required": ["codeMatch"]},
        "then": {"properties": {"searchMode": {"const": "code"}}, "required": ["searchMode"]},
    },
    refusal="codeMatch 'prefix' requires searchMode 'code'.",
)


class SearchStandardsRequest(RequestModel):
    """Deterministic lexical and code search over standards items (never learning components)."""

    schema_rules = (CODE_QUERY_LENGTH, TEXT_QUERY_TOKENS, PREFIX_NEEDS_CODE, SNAPSHOTS_SELECT, FILTER_VALUES)

    query: QueryText = Field(description="Words or a statement code ('auto' tries both).")
    framework_ids: DistinctIds | None = Field(None, max_length=MAX_SELECTORS)
    snapshot_ids: DistinctSnapshotIds | None = Field(None, max_length=MAX_SELECTORS)
    search_mode: SearchMode = "auto"
    code_match: CodeMatch = "exact"
    grade_levels: DistinctFacets | None = Field(None, max_length=MAX_FACETS)
    statement_types: DistinctFacets | None = Field(None, max_length=MAX_FACETS)
    academic_subjects: DistinctFacets | None = Field(None, max_length=MAX_FACETS)
    limit: int = bounded(PAGE_LIMIT)
    cursor: CursorText | None = Field(None, description=CURSOR_DESCRIPTION)

    @model_validator(mode="after")
    def _bounds(self) -> SearchStandardsRequest:
        self._read(_code_query_bounds(self.query, self.search_mode))
        if self.code_match == "prefix" and self.search_mode != "code":
            raise ValueError(PREFIX_NEEDS_CODE.message)
        return self


class GetStandardRequest(StandardSelector):
    """One exact standard."""


class GetStandardContextRequest(StandardSelector):
    """Direct relationships, bounded ancestors/descendants and complete root paths of a standard."""

    ancestor_depth: int = bounded(CONTEXT_ANCESTOR_DEPTH)
    child_depth: int = bounded(CONTEXT_CHILD_DEPTH)
    max_nodes: int = bounded(CONTEXT_NODES)
    max_paths: int = bounded(CONTEXT_PATHS)
    max_path_node_occurrences: int = bounded(CONTEXT_PATH_NODE_OCCURRENCES)


# ---------------------------------------------------------------------------------------------
# Learning components, stored learning progressions and cross-framework comparison.
# Structural bounds live here (invalid_request at the boundary); semantic consistency of filters
# and selections is checked by the services (invalid_progression_request /
# invalid_comparison_selection), because only the selected package can say what is consistent.
# Those service rules are published here all the same, as uniqueItems or descriptions.
# ---------------------------------------------------------------------------------------------

ProgressionLinkType = Literal["buildsTowards", "relatesTo"]
ProgressionDirection = Literal["in", "out", "both"]
#: Repeated link types are refused by the progression service (invalid_progression_request).
LinkTypes = Annotated[list[ProgressionLinkType], distinct_checked_by("ProgressionService._kinds")]


#: Checked by ``services.filter_values.require_known`` (invalid_request); needs the packages' components. The
#: field's whole description.
COMPONENT_SUBJECTS = SchemaRule(
    ("academicSubjects",),
    "Only get_framework filterValues.componentSubjects.",
)


class SearchLearningComponentsRequest(RequestModel):
    """Lexical search over learning components (never standards), paged with a cursor."""

    schema_rules = (QUERY_TOKENS, SNAPSHOTS_SELECT, COMPONENT_SUBJECTS)

    query: QueryText
    framework_ids: DistinctIds | None = Field(None, max_length=MAX_SELECTORS)
    snapshot_ids: DistinctSnapshotIds | None = Field(None, max_length=MAX_SELECTORS)
    academic_subjects: DistinctFacets | None = Field(None, max_length=MAX_FACETS)
    limit: int = bounded(PAGE_LIMIT)
    cursor: CursorText | None = Field(None, description=CURSOR_DESCRIPTION)

    @model_validator(mode="after")
    def _bounds(self) -> SearchLearningComponentsRequest:
        self._read(_text_query_bounds(self.query))
        return self


class LearningComponentSelector(PackageSelector):
    """A learning component: a package plus the component's ``nodeId``."""

    node_id: NodeIdText


class GetLearningComponentRequest(LearningComponentSelector):
    """One exact learning component."""


class GetLearningComponentsForStandardRequest(StandardSelector):
    """The learning components supporting one standard (each ``supports`` link, with its citation links)."""

    limit: int = bounded(COMPONENT_LINKS)


class GetStandardsForLearningComponentRequest(LearningComponentSelector):
    """The standards one learning component supports."""

    limit: int = bounded(COMPONENT_LINKS)


class GetLearningProgressionRequest(PackageSelector):
    """One exact stored progression link (``buildsTowards`` or ``relatesTo``) by its relationship id."""

    progression_id: NodeIdText


class GetStandardProgressionsRequest(StandardSelector):
    """Direct progression links of one standard, ``buildsTowards`` before ``relatesTo``, paged."""

    direction: ProgressionDirection = "both"
    link_types: LinkTypes | None = Field(None, min_length=1, max_length=2)
    limit: int = bounded(PROGRESSION_PAGE)
    cursor: CursorText | None = Field(None, description=CURSOR_DESCRIPTION)


#: Checked by ``ProgressionService._known`` (invalid_progression_request); needs the package's vocabulary.
PACKAGE_VOCABULARY = SchemaRule(("gradeLevels", "academicSubjects"), "This package's values (get_framework).")


class SearchLearningProgressionsRequest(PackageSelector):
    """Discovery of stored links inside one package by grade, subject, link type and optional text."""

    schema_rules = (QUERY_TOKENS, PACKAGE_VOCABULARY)

    query: QueryText | None = None
    grade_levels: Annotated[list[FacetText], distinct_checked_by("ProgressionService._known")] | None = Field(
        None, min_length=1, max_length=MAX_FACETS
    )
    academic_subjects: Annotated[list[FacetText], distinct_checked_by("ProgressionService._known")] | None = Field(
        None, min_length=1, max_length=MAX_FACETS
    )
    link_types: LinkTypes | None = Field(None, min_length=1, max_length=2)
    limit: int = bounded(PROGRESSION_PAGE)
    cursor: CursorText | None = Field(None, description=CURSOR_DESCRIPTION)

    @model_validator(mode="after")
    def _bounds(self) -> SearchLearningProgressionsRequest:
        if self.query is not None:
            self._read(_text_query_bounds(self.query))
        return self


class TraverseLearningProgressionsRequest(StandardSelector):
    """Bounded traversal of stored links from one standard; no cursor (bounds are explicit)."""

    direction: ProgressionDirection = "out"
    link_types: LinkTypes | None = Field(None, min_length=1, max_length=2)
    max_depth: int = bounded(TRAVERSAL_DEPTH)
    max_nodes: int = bounded(TRAVERSAL_NODES)
    max_edges: int = bounded(TRAVERSAL_EDGES)


#: Checked by ``ProgressionService.find_learning_progression_paths`` (invalid_progression_request);
#: JSON Schema cannot compare values across fields.
ONE_PACKAGE_TWO_STANDARDS = SchemaRule(("to",), "Another standard of from's framework snapshot.")


class FindLearningProgressionPathsRequest(RequestModel):
    """Bounded directed ``buildsTowards`` paths between two standards of one package."""

    schema_rules = (ONE_PACKAGE_TWO_STANDARDS,)

    from_: StandardSelector = Field(alias="from")
    to: StandardSelector
    max_depth: int = bounded(PATH_DEPTH)
    max_paths: int = bounded(PATHS)


#: Repeated values in a comparison selection are refused by the comparison service
#: (invalid_comparison_selection).
ComparisonIds = Annotated[list[IdentifierText], distinct_checked_by("ComparisonService._select")]
ComparisonSnapshotIds = Annotated[list[SnapshotIdText], distinct_checked_by("ComparisonService._select")]
ComparisonGrades = Annotated[list[FacetText], distinct_checked_by("ComparisonService._select")]


class FrameworkGradeFilter(RequestModel):
    """Grade labels (source labels or normalised facets) applied inside one selected framework."""

    framework_id: IdentifierText
    grade_levels: ComparisonGrades = Field(min_length=1, max_length=MAX_FACETS)


class FrameworkSubjectFilter(RequestModel):
    """Subjects applied inside one selected framework."""

    framework_id: IdentifierText
    academic_subjects: ComparisonGrades = Field(min_length=1, max_length=MAX_FACETS)


#: Checked by ``ComparisonService._select`` (invalid_comparison_selection); the first needs the catalog,
#: and JSON Schema cannot compare values across fields for the second.
COMPARISON_SNAPSHOTS = SchemaRule(
    ("snapshotIds",),
    "Snapshots of frameworkIds, at most one each.",
)
COMPARISON_GRADE_FILTERS = SchemaRule(
    ("frameworkGradeLevels",),
    "One entry at most per framework of frameworkIds; replaces gradeLevels there, same rules.",
)
#: Checked by ``ComparisonService._known`` (invalid_request); needs each package's grade labels.
COMPARISON_GRADE_VALUES = SchemaRule(
    ("gradeLevels",),
    "Labels from get_framework filterValues, at least one of each framework's.",
    refusal="Grade labels are local (get_framework: filterValues): each value must be one a framework it applies "
    "to uses, and each framework must use one of its values.",
)
#: Subjects are local to a framework, so they are given per framework only (``ComparisonService._known`` checks
#: each is one of that framework's, invalid_request).
COMPARISON_SUBJECT_FILTERS = SchemaRule(
    ("frameworkAcademicSubjects",),
    "One entry at most per framework of frameworkIds; its subjects from get_framework filterValues.",
)


#: Checked by :meth:`CompareFrameworkEvidenceRequest._bounds`; JSON Schema cannot compare keys with frameworkIds.
COMPARISON_QUERIES = SchemaRule(
    ("queries",),
    "Per framework of frameworkIds, a query in its language, replacing query there. query: required if a "
    "framework lacks a key, else refused.",
    {"anyOf": [{"required": ["query"]}, {"required": ["queries"]}]},
)


class CompareFrameworkEvidenceRequest(RequestModel):
    """Independent bounded retrieval in 2 to 8 frameworks; candidates for review, never an alignment."""

    schema_rules = (
        CODE_QUERY_LENGTH,
        TEXT_QUERY_TOKENS,
        COMPARISON_QUERIES,
        COMPARISON_SNAPSHOTS,
        COMPARISON_GRADE_FILTERS,
        COMPARISON_GRADE_VALUES,
        COMPARISON_SUBJECT_FILTERS,
    )

    query: QueryText | None = None
    queries: dict[IdentifierText, QueryText] | None = Field(
        None,
        min_length=1,
        max_length=COMPARISON_FRAMEWORKS.max,
        json_schema_extra={"additionalProperties": False},
    )
    framework_ids: ComparisonIds = Field(min_length=COMPARISON_FRAMEWORKS.min, max_length=COMPARISON_FRAMEWORKS.max)
    snapshot_ids: ComparisonSnapshotIds | None = Field(None, max_length=MAX_COMPARISON_SNAPSHOTS)
    search_mode: SearchMode = "auto"
    max_matches_per_framework: int = bounded(COMPARISON_MATCHES)
    grade_levels: ComparisonGrades | None = Field(
        None, min_length=1, max_length=MAX_FACETS, description="For every framework."
    )
    framework_grade_levels: list[FrameworkGradeFilter] | None = Field(
        None, min_length=1, max_length=COMPARISON_FRAMEWORKS.max
    )
    framework_academic_subjects: list[FrameworkSubjectFilter] | None = Field(
        None, min_length=1, max_length=COMPARISON_FRAMEWORKS.max
    )

    @model_validator(mode="after")
    def _bounds(self) -> CompareFrameworkEvidenceRequest:
        queries = self.queries or {}
        if any(framework_id not in self.framework_ids for framework_id in queries):
            raise ValueError("queries names a framework that is not in frameworkIds.")
        every = all(framework_id in queries for framework_id in self.framework_ids)
        if self.query is None and not every:
            raise ValueError("Give query, or an entry in queries for every framework in frameworkIds.")
        if self.query is not None and every:
            raise ValueError("query is unused when queries names every framework: send one or the other.")
        for query in (self.query, *queries.values()):
            if query is not None:
                self._read(_code_query_bounds(query, self.search_mode))
        return self

    def query_for(self, framework_id: str) -> str:
        """The query one selected framework is searched with."""
        found = (self.queries or {}).get(framework_id, self.query)
        assert found is not None  # _bounds: every framework has one
        return found


# ---------------------------------------------------------------------------------------------
# Evidence access: read_evidence reads one exact resource address in UTF-8 windows.
# The URI is checked by the resource address parser (invalid_evidence_uri), not by a pattern here,
# so every malformed address gets the same stable code; only its length is bounded at the boundary.
# ---------------------------------------------------------------------------------------------


class ReadEvidenceRequest(RequestModel):
    """One window of a resource document; replay ``cursor`` with the same ``uri`` and ``windowBytes``."""

    uri: Annotated[str, StringConstraints(min_length=1, max_length=MAX_EVIDENCE_URI_CHARS)] = Field(
        description="Exactly as an answer gives it."
    )
    window_bytes: int = bounded(EVIDENCE_WINDOW_BYTES, description="UTF-8 bytes per window.")
    cursor: CursorText | None = Field(
        None,
        description="page.nextCursor; same uri and windowBytes.",
    )
