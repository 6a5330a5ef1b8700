"""Catalog, framework metadata, capabilities and statistics (package-level, so shared by both kinds)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.errors import FrameworkNotFoundError, InvalidRequestError, echo
from kgfegmcp.core.limits import MAX_CODE_QUERY_CHARS
from kgfegmcp.core.rendering import RESULT_MAX_BYTES, RESULT_MAX_CHARS
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.graph.progressions import MAX_ADMISSIONS
from kgfegmcp.packages.manifest import Capabilities, SourceInfo
from kgfegmcp.packages.records import SUPPORTS
from kgfegmcp.resources import uris
from kgfegmcp.services.graph_packages import holds_progression_links
from kgfegmcp.services.paging import CursorPage, Pager
from kgfegmcp.services.progression_views import MAX_CANDIDATES
from kgfegmcp.services.requests import (
    COMPARISON_SNAPSHOTS_MAX,
    EVIDENCE_WINDOW_DEFAULT,
    EVIDENCE_WINDOW_MAX,
    MAX_FACETS,
    MAX_SELECTORS,
    PROGRESSION_PAGE_DEFAULT,
    PROGRESSION_PAGE_MAX,
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
        description="Each bound by name: {min, max, default} where they apply, or [default, max] pairs."
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
            limits={
                "listFrameworksLimit": {"min": 1, "max": 100, "default": 25},
                "searchStandardsLimit": {"min": 1, "max": 100, "default": 25},
                "textQueryCharacters": {"min": 1, "max": 512},
                "textQueryTokens": {"max": 32},
                "codeQueryCharacters": {"min": 1, "max": MAX_CODE_QUERY_CHARS},
                "selectorArrays": {"max": MAX_SELECTORS},
                "facetArrays": {"max": MAX_FACETS},
                "cursorCharacters": {"max": 4096},
                "progressionPage": {"min": 1, "max": PROGRESSION_PAGE_MAX, "default": PROGRESSION_PAGE_DEFAULT},
                "progressionCandidatesExamined": {"max": MAX_CANDIDATES},
                "traversal": {
                    "depth": [8, 12],
                    "nodes": [100, 250],
                    "edges": [100, 100],
                    "queueAdmissions": MAX_ADMISSIONS,
                },
                "paths": {"depth": [6, 12], "paths": [3, 20], "queueAdmissions": MAX_ADMISSIONS},
                "comparison": {
                    "frameworks": [2, 8],
                    "snapshots": COMPARISON_SNAPSHOTS_MAX,
                    "matchesPerFramework": [1, 10],
                },
                "evidenceWindowBytes": {"default": EVIDENCE_WINDOW_DEFAULT, "max": EVIDENCE_WINDOW_MAX},
                "toolResult": {"maxBytes": RESULT_MAX_BYTES, "maxCharacters": RESULT_MAX_CHARS},
            },
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
        # Items repeat a handful of (type, grades) pairs: count those, then expand (a million items stay cheap).
        pairs = Counter((item.statement_type, item.grade_level) for item in store.items)
        by_type: Counter[str] = Counter()
        by_grade: Counter[str] = Counter()
        for (statement_type, labels), count in pairs.items():
            by_type[statement_type] += count
            rule = profile.statement_type(statement_type)
            if rule is not None and rule.role == "standard":
                for label in labels:
                    by_grade[label] += count
        multi_parent = store.items_with_parents(at_least=2)
        types = []
        for source_type, count in sorted(by_type.items()):
            rule = profile.statement_type(source_type)
            types.append(
                {
                    "sourceType": source_type,
                    "normalized": rule.normalized if rule else None,
                    "role": rule.role if rule else None,
                    "items": count,
                }
            )
        grades = []
        for label in profile.in_grade_order(by_grade):
            declared = profile.grade_label(label)
            grades.append(
                {
                    "sourceLabel": label,
                    "facet": declared.facet if declared else None,
                    "display": declared.display if declared else None,
                    "standards": by_grade[label],
                }
            )
        counts = package.manifest.counts
        links = counts.links
        supported = store.nodes_reached_by(SUPPORTS)
        roles: Counter[str] = Counter()
        for source_type, count in by_type.items():
            rule = profile.statement_type(source_type)
            roles[rule.role if rule is not None else "unknown"] += count
        return StatisticsResult(
            package=PackageRef.of(package, links=_links_held(package)),
            standards=StandardsStatistics(
                items=counts.items,
                standards=roles["standard"],
                groupings=roles["grouping"],
                items_with_code=counts.coded_items,
                by_statement_type=types,
                standards_by_grade_level=grades,
                has_child_relationships=links.has_child,
                multi_parent_items=multi_parent,
                hierarchy_rule=profile.hierarchy.rule,
            ),
            learning_components=ComponentStatistics(
                components=counts.components,
                supports_relationships=links.supports,
                standards_with_components=supported,
            ),
            learning_progressions=ProgressionStatistics(
                builds_towards=links.builds_towards,
                relates_to=links.relates_to,
            ),
            unresolved_items=counts.unresolved,
        )


def _bounds(model: type[BaseModel], *fields: str) -> dict[str, dict[str, Any]]:
    """Default and range of integer request fields, read from the request model itself."""
    found: dict[str, dict[str, Any]] = {}
    for name in fields:
        info = model.model_fields[name]
        entry: dict[str, Any] = {"default": info.default}
        for constraint in info.metadata:
            for key, label in (("ge", "min"), ("le", "max")):
                if hasattr(constraint, key):
                    entry[label] = getattr(constraint, key)
        found[info.alias or name] = entry
    return found
