"""Catalog, framework metadata, capabilities and statistics (package-level, so shared by both kinds)."""

from __future__ import annotations

from collections import Counter

from pydantic import Field

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.errors import FrameworkNotFoundError, InvalidRequestError, echo
from kgfegmcp.core.limits import (
    CODE_QUERY_CHARS,
    COMPARISON_FRAMEWORKS,
    COMPARISON_MATCHES,
    EVIDENCE_WINDOW_BYTES,
    MAX_COMPARISON_SNAPSHOTS,
    MAX_CURSOR_CHARS,
    MAX_FACETS,
    MAX_PROGRESSION_CANDIDATES,
    MAX_QUERY_TOKENS,
    MAX_QUEUE_ADMISSIONS,
    MAX_SELECTORS,
    PAGE_LIMIT,
    PATH_DEPTH,
    PATHS,
    PROGRESSION_PAGE,
    TEXT_QUERY_CHARS,
    TRAVERSAL_DEPTH,
    TRAVERSAL_EDGES,
    TRAVERSAL_NODES,
    Bound,
)
from kgfegmcp.core.rendering import RESULT_MAX_BYTES, RESULT_MAX_CHARS
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.packages.manifest import Capabilities, SourceInfo
from kgfegmcp.packages.records import SUPPORTS
from kgfegmcp.packages.stats import item_statistics
from kgfegmcp.resources import uris
from kgfegmcp.services.graph_packages import holds_progression_links
from kgfegmcp.services.paging import CursorPage, Pager
from kgfegmcp.services.requests import (
    GetCapabilitiesRequest,
    GetFrameworkRequest,
    GetFrameworkStatisticsRequest,
    ListFrameworksRequest,
)
from kgfegmcp.services.views import (
    DisclosureView,
    LinkMention,
    PackageRef,
    ResultModel,
    disclosures,
)

#: Catalog values an error message lists at most.
_MAX_LISTED = 24


def _range(bound: Bound, keys: tuple[str, ...] = ("min", "max", "default")) -> dict[str, int | list[int]]:
    """``{min, max, default}`` of a bound, or the ``keys`` of them stated (``default`` where there is one)."""
    values = {"min": bound.min, "max": bound.max, "default": bound.default}
    return {key: value for key in keys if (value := values[key]) is not None}


def _default_and_max(bound: Bound) -> list[int]:
    assert bound.default is not None
    return [bound.default, bound.max]


def _limits() -> dict[str, dict[str, int | list[int]]]:
    """The limits ``get_capabilities`` states, read from the table the request models and services read."""
    return {
        "listFrameworksLimit": _range(PAGE_LIMIT),
        "searchStandardsLimit": _range(PAGE_LIMIT),
        "textQueryCharacters": _range(TEXT_QUERY_CHARS),
        "textQueryTokens": {"max": MAX_QUERY_TOKENS},
        "codeQueryCharacters": _range(CODE_QUERY_CHARS),
        "selectorArrays": {"max": MAX_SELECTORS},
        "facetArrays": {"max": MAX_FACETS},
        "cursorCharacters": {"max": MAX_CURSOR_CHARS},
        "progressionPage": _range(PROGRESSION_PAGE),
        "progressionCandidatesExamined": {"max": MAX_PROGRESSION_CANDIDATES},
        "traversal": {
            "depth": _default_and_max(TRAVERSAL_DEPTH),
            "nodes": _default_and_max(TRAVERSAL_NODES),
            "edges": _default_and_max(TRAVERSAL_EDGES),
            "queueAdmissions": MAX_QUEUE_ADMISSIONS,
        },
        "paths": {
            "depth": _default_and_max(PATH_DEPTH),
            "paths": _default_and_max(PATHS),
            "queueAdmissions": MAX_QUEUE_ADMISSIONS,
        },
        "comparison": {
            "frameworks": [COMPARISON_FRAMEWORKS.min, COMPARISON_FRAMEWORKS.max],
            "snapshots": MAX_COMPARISON_SNAPSHOTS,
            "matchesPerFramework": [COMPARISON_MATCHES.min, COMPARISON_MATCHES.max],
        },
        "evidenceWindowBytes": _range(EVIDENCE_WINDOW_BYTES, ("min", "default", "max")),
        "toolResult": {"maxBytes": RESULT_MAX_BYTES, "maxCharacters": RESULT_MAX_CHARS},
    }


class GraphTypesView(ResultModel):
    """How a package is filed and what it contains."""

    filed_as: str
    contains: list[str]


class FrameworkSummary(PackageRef):
    """One accepted package in catalog listings: its identity once, then what it holds."""

    framework_id: str = Field(description="What frameworkId / frameworkIds of the other tools take.")
    snapshot_id: str = Field(description="What snapshotId / snapshotIds take (the current one is the default).")
    title: str
    name: str | None = Field(None, description="The framework root's name, when it differs from title.")
    jurisdiction: str
    academic_subject: str
    in_language: str
    is_current: bool
    graph_types: GraphTypesView
    standards_items: int
    learning_components: int
    learning_progression_links: int


class ListFrameworksResult(ResultModel):
    """One catalog page; each listed package carries its identity and disclosure ids once."""

    frameworks: list[FrameworkSummary]
    total: int
    page: CursorPage
    catalog_fingerprint: str


class GradeLevelValue(ResultModel):
    """A grade label the package's items carry, and its normalised facet (a filter accepts either)."""

    label: str
    facet: str | None = None


class StatementTypeValue(ResultModel):
    """A statement type the package's items carry, its normalised form (a filter accepts either) and role."""

    type: str
    normalized: str | None = None
    role: str | None = None


class FilterValuesView(ResultModel):
    """The values this package's filters accept, in its own terms; any other value is refused (invalid_request)."""

    grade_levels: list[GradeLevelValue] = Field(
        description="gradeLevels of search_standards, compare_framework_evidence and search_learning_progressions."
    )
    statement_types: list[StatementTypeValue] = Field(description="statementTypes of search_standards.")
    academic_subjects: list[str] = Field(
        description="academicSubjects of search_standards and search_learning_progressions."
    )
    component_subjects: list[str] | None = Field(
        None, description="academicSubjects of search_learning_components (packages with learning components)."
    )


def filter_values(package: ServedPackage) -> FilterValuesView:
    """What one package's filters accept, from the same vocabulary the filters are checked against."""
    vocabulary = package.standards_index.vocabulary
    components = package.component_index
    return FilterValuesView(
        grade_levels=[GradeLevelValue(label=g.label, facet=g.facet) for g in vocabulary.grades],
        statement_types=[
            StatementTypeValue(type=t.source_type, normalized=t.normalized, role=t.role) for t in vocabulary.types
        ],
        academic_subjects=list(vocabulary.subjects),
        component_subjects=list(components.subjects) if components is not None else None,
    )


class FrameworkDetail(ResultModel):
    """Everything public about one package, with its rights and its disclosures in full.

    ``source``, ``rights`` and ``capabilities`` are the manifest's own records, as its file holds them.
    """

    framework: FrameworkSummary
    description: str | None = None
    source: SourceInfo
    rights: RightsPolicy
    capabilities: Capabilities
    validation: dict[str, str | None] = Field(
        description="status, acceptedFrom, validatorVersion (null when the manifest names none), reportUri, and "
        "validatedAt for a supplied package (its pipeline's verdict)."
    )
    supersedes: str | None = None
    disclosures: list[DisclosureView]
    filter_values: FilterValuesView


class PackageCapabilities(PackageRef):
    """What one package supports, straight from its validated manifest and bound profile."""

    framework_id: str = Field(description="What frameworkId / frameworkIds of the other tools take.")
    snapshot_id: str = Field(description="What snapshotId / snapshotIds take (the current one is the default).")
    capabilities: Capabilities
    hierarchy_rule: str
    max_hierarchy_depth: int
    code_policy: dict[str, str | bool | None] = Field(
        description="codesPresent, unique, normalization, derivedParentSeparator (null when codes have none)."
    )
    search_facets: list[str]
    progression_labels: list[str]
    graph_types: GraphTypesView


class ServerBehaviour(ResultModel):
    """What the server does and does not do, whatever package is asked about."""

    read_only: bool
    calls_models: bool
    semantic_search: bool
    embeddings: bool
    search_modes: list[str]
    code_matches: list[str]
    cross_framework_links: bool
    accepted_packages: int
    catalog_fingerprint: str
    limits: dict[str, dict[str, int | list[int]]] = Field(
        description="Each bound by name: {min, max, default} where they apply; traversal and paths give "
        "[default, max] pairs, comparison frameworks and matchesPerFramework [min, max] pairs."
    )


class CapabilitiesResult(ResultModel):
    """Server-wide behaviour plus, when selected, one package's capabilities."""

    server: ServerBehaviour
    packages: list[PackageCapabilities]


class StandardsStatistics(ResultModel):
    """Counts of one package's standards items (never mixed with learning components)."""

    items: int
    standards: int
    groupings: int
    items_with_code: int
    by_statement_type: list[dict[str, str | int | None]] = Field(
        description="sourceType, normalized and role (null when the profile declares none), items."
    )
    standards_by_grade_level: list[dict[str, str | int | None]] = Field(
        description="sourceLabel, facet and display (null when the profile declares none), standards."
    )
    has_child_relationships: int
    multi_parent_items: int
    hierarchy_rule: str


class ComponentStatistics(ResultModel):
    """Counts of one package's learning components and their supports links."""

    components: int
    supports_relationships: int
    standards_with_components: int


class ProgressionStatistics(ResultModel):
    """Stored progression links of one package, by link type."""

    builds_towards: int
    relates_to: int


class StatisticsResult(ResultModel):
    """Standards and learning components as separately labelled blocks; never combined totals."""

    package: PackageRef
    standards: StandardsStatistics
    learning_components: ComponentStatistics
    learning_progressions: ProgressionStatistics
    unresolved_items: int


def _graph_types(package: ServedPackage) -> GraphTypesView:
    types = package.manifest.graph_types
    return GraphTypesView(filed_as=types.filed_as, contains=list(types.contains))


def framework_summary(package: ServedPackage, number: int = 1) -> FrameworkSummary:
    """The catalog entry of one package (the ``number``-th of its answer)."""
    manifest, framework = package.manifest, package.framework
    relationships = manifest.counts.links
    return FrameworkSummary.of(
        package,
        number,
        links=_links_held(package),
        framework_id=manifest.framework_id,
        snapshot_id=manifest.snapshot_id,
        title=manifest.title,
        name=None if framework.name == manifest.title else framework.name,
        jurisdiction=framework.jurisdiction,
        academic_subject=framework.academic_subject,
        in_language=framework.in_language,
        is_current=manifest.is_current,
        graph_types=_graph_types(package),
        standards_items=manifest.counts.items,
        learning_components=manifest.counts.components,
        learning_progression_links=relationships.builds_towards + relationships.relates_to,
    )


def _links_held(package: ServedPackage) -> LinkMention | None:
    """What an answer describing ``package`` whole says of its progression links: their label, when it has any."""
    return "held" if holds_progression_links(package) else None


class FrameworkService:
    """Catalog discovery and package-level metadata."""

    def __init__(self, catalog: AcceptedCatalog, cursors: CursorCodec) -> None:
        self._catalog = catalog
        self._cursors = cursors

    def list_frameworks(self, request: ListFrameworksRequest) -> ListFrameworksResult:
        """Filtered, paged catalog in (framework id, snapshot id) order."""
        pager = Pager(self._cursors, ToolName.LIST_FRAMEWORKS, request)
        self._known_values(request)
        selected = [p for p in self._catalog.packages if self._matches(p, request)]
        offset = pager.start(len(selected)).offset
        page = selected[offset : offset + request.limit]
        return ListFrameworksResult(
            frameworks=[framework_summary(p, number) for number, p in enumerate(page, start=1)],
            total=len(selected),
            page=pager.offset_page(offset, len(page), len(selected)),
            catalog_fingerprint=self._catalog.fingerprint,
        )

    def _known_values(self, request: ListFrameworksRequest) -> None:
        """Refuse a filter value no accepted package has (current or not), naming those that exist.

        An unknown value could only list nothing, and the catalog's values are few.
        """
        packages = self._catalog.packages
        ids = sorted({p.framework_id for p in packages})
        unknown = [f for f in request.framework_ids or () if f not in ids]
        if unknown:
            raise FrameworkNotFoundError(
                f"frameworkIds: {', '.join(repr(echo(f)) for f in unknown[:5])} "
                f"{'is not an accepted framework' if len(unknown) == 1 else 'are not accepted frameworks'}. "
                f"Accepted: {', '.join(ids[:_MAX_LISTED])}{' …' if len(ids) > _MAX_LISTED else ''}.",
                hint="Call list_frameworks without frameworkIds to see every accepted framework.",
            )
        for field, value, present in (
            ("jurisdiction", request.jurisdiction, {p.framework.jurisdiction for p in packages}),
            ("academicSubject", request.academic_subject, {p.framework.academic_subject for p in packages}),
            ("inLanguage", request.in_language, {p.framework.in_language for p in packages}),
        ):
            if value is not None and value not in present:
                values = sorted(present)
                raise InvalidRequestError(
                    f"{field}: {echo(value)!r} is the {field} of no accepted package. Accepted (exactly as written): "
                    f"{', '.join(values[:_MAX_LISTED])}{' …' if len(values) > _MAX_LISTED else ''}.",
                    hint=f"Use one of these values, or leave {field} out.",
                )

    @staticmethod
    def _matches(package: ServedPackage, request: ListFrameworksRequest) -> bool:
        framework = package.framework
        if not request.include_non_current and not package.manifest.is_current:
            return False
        if request.framework_ids is not None and package.framework_id not in request.framework_ids:
            return False
        if request.jurisdiction is not None and framework.jurisdiction != request.jurisdiction:
            return False
        if request.academic_subject is not None and framework.academic_subject != request.academic_subject:
            return False
        if request.in_language is not None and framework.in_language != request.in_language:
            return False
        contains = set(package.manifest.graph_types.contains)
        return request.graph_types is None or set(request.graph_types) <= contains

    def get_framework(self, request: GetFrameworkRequest) -> FrameworkDetail:
        """One package's public metadata."""
        package = self._catalog.resolve(request.framework_id, request.snapshot_id)
        manifest = package.manifest
        return FrameworkDetail(
            framework=framework_summary(package),
            description=package.framework.description,
            source=manifest.source_view,
            rights=package.rights,
            capabilities=manifest.capabilities_view,
            validation={
                "status": manifest.validation.status,
                "acceptedFrom": package.runtime.accepted_from,
                "validatorVersion": manifest.validation.validator_version,
                "reportUri": uris.validation_uri(package.framework_id, package.snapshot_id),
                # A supplied package's verdict is its pipeline's, dated; this server's record names no version.
                **({"validatedAt": manifest.validation.validated_at} if manifest.validation.validated_at else {}),
            },
            supersedes=manifest.supersedes,
            disclosures=disclosures(package),
            filter_values=filter_values(package),
        )

    def get_capabilities(self, request: GetCapabilitiesRequest) -> CapabilitiesResult:
        """Truthful server behaviour, and package capabilities for the selection (or every package)."""
        if request.framework_id is not None:
            selected = [self._catalog.resolve(request.framework_id, request.snapshot_id)]
        else:
            selected = list(self._catalog.packages)
        server = ServerBehaviour(
            read_only=True,
            calls_models=False,
            semantic_search=False,
            embeddings=False,
            search_modes=["auto", "text", "code"],
            code_matches=["exact", "prefix"],
            cross_framework_links=False,
            accepted_packages=len(self._catalog.packages),
            catalog_fingerprint=self._catalog.fingerprint,
            limits=_limits(),
        )
        return CapabilitiesResult(
            server=server,
            packages=[self._package_capabilities(p, number) for number, p in enumerate(selected, start=1)],
        )

    @staticmethod
    def _package_capabilities(package: ServedPackage, number: int) -> PackageCapabilities:
        profile = package.profile.profile
        policy = profile.code_policy
        return PackageCapabilities.of(
            package,
            number,
            links=_links_held(package),
            framework_id=package.manifest.framework_id,
            snapshot_id=package.manifest.snapshot_id,
            capabilities=package.manifest.capabilities_view,
            hierarchy_rule=profile.hierarchy.rule,
            max_hierarchy_depth=profile.hierarchy.max_depth,
            code_policy={
                "codesPresent": policy.codes_present,
                "unique": policy.unique,
                "normalization": policy.normalization,
                "derivedParentSeparator": policy.derived_parent_separator,
            },
            search_facets=list(profile.search_facets),
            progression_labels=list(profile.progression_labels),
            graph_types=_graph_types(package),
        )

    def get_framework_statistics(self, request: GetFrameworkStatisticsRequest) -> StatisticsResult:
        """Counts computed from the accepted package, standards and components kept apart."""
        package = self._catalog.resolve(request.framework_id, request.snapshot_id)
        store = package.store
        profile = package.profile.profile
        items = item_statistics(Counter((item.statement_type, item.grade_level) for item in store.items), profile)
        counts = package.manifest.counts
        links = counts.links
        return StatisticsResult(
            package=PackageRef.of(package, links=_links_held(package)),
            standards=StandardsStatistics(
                items=counts.items,
                standards=items.standards,
                groupings=items.groupings,
                items_with_code=counts.coded_items,
                by_statement_type=[
                    {"sourceType": t.statement_type, "normalized": t.normalized, "role": t.role, "items": t.items}
                    for t in items.types
                ],
                standards_by_grade_level=[
                    {"sourceLabel": g.label, "facet": g.facet, "display": g.display, "standards": g.standards}
                    for g in items.grades
                ],
                has_child_relationships=links.has_child,
                multi_parent_items=store.items_with_parents(at_least=2),
                hierarchy_rule=profile.hierarchy.rule,
            ),
            learning_components=ComponentStatistics(
                components=counts.components,
                supports_relationships=links.supports,
                standards_with_components=store.nodes_reached_by(SUPPORTS),
            ),
            learning_progressions=ProgressionStatistics(
                builds_towards=links.builds_towards,
                relates_to=links.relates_to,
            ),
            unresolved_items=counts.unresolved,
        )
