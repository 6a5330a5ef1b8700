"""Learning components: search, exact retrieval, and the ``supports`` edge in both directions.

A learning component is generated or curated content decomposed from standards; it is never a
standard. Component lookups resolve components only (a standard's id is ``graph_node_not_found``),
and the standards side resolves standards only (a component's id is ``standard_not_found``). Each
``supports`` link is returned with its relationship id and its ``supportConfidence``; its resource
and the component's follow the package's URI rule (:class:`~kgfegmcp.services.views.PackageRef`).
Who authored and licensed the components is said once per answer (``attributions``), not per component.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.errors import (
    CapabilityUnavailableError,
    GraphNodeNotFoundError,
)
from kgfegmcp.core.notice_codes import NoticeCode
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.packages.records import SUPPORTS, ComponentNode, ItemNode, RelationshipRecord
from kgfegmcp.resources import uris
from kgfegmcp.search.components import find_components
from kgfegmcp.services.filter_values import component_subjects_accepted, require_known
from kgfegmcp.services.graph_packages import GraphComponentPackageRef, graph_fields
from kgfegmcp.services.paging import CursorPage, Pager
from kgfegmcp.services.requests import (
    GetLearningComponentRequest,
    GetLearningComponentsForStandardRequest,
    GetStandardsForLearningComponentRequest,
    LearningComponentSelector,
    SearchLearningComponentsRequest,
)
from kgfegmcp.services.standards import MatchCountsView, QueryInterpretationView, StandardsService, interpretation_views
from kgfegmcp.services.views import (
    ComponentPackageRef,
    LinkedStandardRecord,
    PagePackages,
    ResultModel,
    ResultWarning,
    StandardRecord,
    StandardRef,
    permitted_text,
)

#: The standards each component hit names (the ones ranked first, as get_standards_for_learning_component ranks
#: them); ``supportsCount`` counts them all. A hit names what it supports without a page of standards per hit.
HIT_SUPPORTED_STANDARDS = 3

COMPONENT_NATURE = (
    "Learning components are content decomposed from standards by their provider (see attributions and the "
    "disclosures); they are not standards and carry no grade or statement type of their own."
)


class ComponentAttribution(ResultModel):
    """Who authored, provided and licensed components: said once per answer, referred to by index."""

    author: str | None = None
    provider: str | None = None
    license: str | None = None
    attribution_statement: str | None = None


class LearningComponentRecord(ResultModel):
    """One learning component as a citation needs it (tags and language: get_learning_component)."""

    node_id: str
    description: str | None = None  # absent only under its package's textWithheld
    academic_subject: str | None = None
    supports_count: int
    attribution: int | None = Field(None, description="Index into attributions; left out when the source names none.")

    @classmethod
    def of(cls, package: ServedPackage, component: ComponentNode, attributions: _Attributions, /, **extra: Any) -> Self:
        """A component as a citation needs it, its attribution going to the answer's list; a subclass's own
        fields are ``extra`` (so every record is built once, straight from the component)."""
        return cls(
            node_id=component.identifier,
            description=permitted_text(package, component.description),
            academic_subject=component.academic_subject,
            supports_count=len(package.store.outgoing(component.identifier, SUPPORTS)),
            attribution=attributions.index(component),
            **extra,
        )


class LearningComponentDetailView(LearningComponentRecord):
    """One learning component with its details and resource link."""

    in_language: str
    tags: list[str]
    uri: str = Field(description="The component resource; its provenance is this URI + '/provenance'.")

    @classmethod
    def of(cls, package: ServedPackage, component: ComponentNode, attributions: _Attributions, /, **extra: Any) -> Self:
        """A component's record plus its language, tags and resource link."""
        return super().of(
            package,
            component,
            attributions,
            in_language=component.in_language,
            tags=list(component.tags),
            uri=uris.learning_component_uri(package.framework_id, package.snapshot_id, component.identifier),
            **extra,
        )


class ComponentRank(ResultModel):
    """Where a component hit ranks."""

    rank: int
    package: int | None = Field(
        None, description="The number of its package in packages; left out when the answer has one package."
    )
    score: float


class ComponentHitView(LearningComponentRecord, ComponentRank):
    """One ranked component: its rank, then its record (fields in that order), then the standards it supports."""

    supported_standards: list[StandardRef] = Field(
        description=f"The first {HIT_SUPPORTED_STANDARDS} standards it supports, in "
        "get_standards_for_learning_component's order (highest supportConfidence first); supportsCount counts all."
    )


class SearchLearningComponentsResult(ResultModel):
    """One page of component hits across the selected packages."""

    query: str
    hits: list[ComponentHitView]
    total: int
    matched: MatchCountsView
    interpretation: list[QueryInterpretationView]
    page: CursorPage
    warnings: list[ResultWarning]
    nature: str = COMPONENT_NATURE
    attributions: list[ComponentAttribution]
    packages: list[ComponentPackageRef] = Field(
        description="The packages this page's hits come from, once each (every searched package when the page is "
        "empty); hits refer to them by number. interpretation names every package searched."
    )


class SupportLinkRef(ResultModel):
    """A ``supports`` link of a component, by id and the standard's node id, code and grade labels (its text:
    get_standards_for_learning_component)."""

    relationship_id: str
    support_confidence: float | None = None
    standard_node_id: str
    standard_statement_code: str | None = Field(None, description="Left out when the standard has no code.")
    standard_grade_levels: list[str]


class LearningComponentDetail(ResultModel):
    """One exact learning component and the ids of its supports links."""

    component: LearningComponentDetailView
    supports: list[SupportLinkRef]
    nature: str = COMPONENT_NATURE
    attributions: list[ComponentAttribution]
    package: ComponentPackageRef


class ComponentSupportView(ResultModel):
    """One supports link into the selected standard: its id, its confidence and the component."""

    relationship_id: str
    support_confidence: float | None = None
    component: LearningComponentRecord


class ComponentsForStandardResult(ResultModel):
    """The learning components supporting one standard (the first ``limit`` of ``total``)."""

    standard: LinkedStandardRecord
    supports: list[ComponentSupportView]
    total: int
    nature: str = COMPONENT_NATURE
    attributions: list[ComponentAttribution]
    package: GraphComponentPackageRef


class StandardSupportView(ResultModel):
    """One standard the selected component supports, in its local grade labels and statement type."""

    relationship_id: str
    support_confidence: float | None = None
    standard: StandardRecord


class StandardsForComponentResult(ResultModel):
    """The standards one learning component supports (the first ``limit`` of ``total``)."""

    component: LearningComponentRecord
    standards: list[StandardSupportView]
    total: int
    nature: str = COMPONENT_NATURE
    attributions: list[ComponentAttribution]
    package: ComponentPackageRef


class _Attributions:
    """Distinct component attributions in first-met order, so an answer says each once."""

    def __init__(self) -> None:
        self._index: dict[ComponentAttribution, int] = {}

    def index(self, component: ComponentNode) -> int | None:
        """The index of the component's attribution, or ``None`` when the source names none."""
        attribution = ComponentAttribution(
            author=component.author,
            provider=component.provider,
            license=component.license,
            attribution_statement=component.attribution_statement,
        )
        if attribution == ComponentAttribution():
            return None
        return self._index.setdefault(attribution, len(self._index))

    def listed(self) -> list[ComponentAttribution]:
        """Every attribution referred to, by index order."""
        return list(self._index)


def _by_confidence(relationships: tuple[RelationshipRecord, ...]) -> list[RelationshipRecord]:
    """Highest supportConfidence first (unstated last), then file order."""
    indexed = list(enumerate(relationships))
    indexed.sort(
        key=lambda pair: (-(pair[1].support_confidence if pair[1].support_confidence is not None else -1.0), pair[0])
    )
    return [rel for _, rel in indexed]


def _supported_item(package: ServedPackage, rel: RelationshipRecord) -> ItemNode:
    """The standard a ``supports`` link ends at."""
    item = package.store.item(rel.target_identifier)
    assert item is not None  # validation: supports ends at a standards item
    return item


def _support_link(package: ServedPackage, rel: RelationshipRecord) -> SupportLinkRef:
    """A ``supports`` link by its id and the standard's node id, code and grade labels."""
    item = _supported_item(package, rel)
    return SupportLinkRef(
        relationship_id=rel.identifier,
        support_confidence=rel.support_confidence,
        standard_node_id=item.identifier,
        standard_statement_code=item.statement_code,
        standard_grade_levels=list(item.grade_level),
    )


def _supported(package: ServedPackage, component: ComponentNode) -> list[StandardRef]:
    """The first standards a component supports, in get_standards_for_learning_component's order."""
    links = _by_confidence(package.store.outgoing(component.identifier, SUPPORTS))
    return [StandardRef.of(package, _supported_item(package, rel)) for rel in links[:HIT_SUPPORTED_STANDARDS]]


class LearningComponentService:
    """Component search, exact retrieval and supports traversal over the shared catalog."""

    def __init__(self, catalog: AcceptedCatalog, standards: StandardsService, cursors: CursorCodec) -> None:
        self._catalog = catalog
        self._standards = standards
        self._cursors = cursors

    # -- views ---------------------------------------------------------------------------------

    def resolve_component(self, selector: LearningComponentSelector) -> tuple[ServedPackage, ComponentNode]:
        """The component a selector names; ``graph_node_not_found`` for a missing or non-component id."""
        package = self._catalog.resolve(selector.framework_id, selector.snapshot_id)
        component = package.store.component(selector.node_id)
        if component is None:
            has = "" if package.component_index is not None else " (this package has no learning components)"
            raise GraphNodeNotFoundError(
                f"No learning component with nodeId {selector.node_id!r} in {package.graph_package_id}{has}.",
                hint="Use search_learning_components or get_learning_components_for_standard to find component ids.",
            )
        return package, component

    # -- operations ----------------------------------------------------------------------------

    def _packages(self, request: SearchLearningComponentsRequest) -> tuple[list[ServedPackage], list[ResultWarning]]:
        """Selected packages (sorted) that have components, plus warnings for explicitly chosen ones without."""
        if request.framework_ids or request.snapshot_ids:
            ordered = self._catalog.select(request.framework_ids, request.snapshot_ids)
        else:
            ordered = [p for p in self._catalog.select(None, None) if p.component_index is not None]
        with_components = [p for p in ordered if p.component_index is not None]
        if not with_components:
            raise CapabilityUnavailableError(
                "None of the selected packages has learning components.",
                hint="Call list_frameworks with graphTypes ['LearningComponents'] to find packages that do.",
            )
        warnings = [
            ResultWarning(
                code=NoticeCode.LEARNING_COMPONENTS_UNAVAILABLE,
                message="This package has no learning components; it was not searched.",
                graph_package_id=p.graph_package_id,
            )
            for p in ordered
            if p.component_index is None
        ]
        return with_components, warnings

    def search_learning_components(self, request: SearchLearningComponentsRequest) -> SearchLearningComponentsResult:
        """Ranked, paged component hits (lexical, accent-insensitive)."""
        pager = Pager(self._cursors, ToolName.SEARCH_LEARNING_COMPONENTS, request)
        packages, warnings = self._packages(request)
        require_known(
            "academicSubjects", "subject", request.academic_subjects, [component_subjects_accepted(p) for p in packages]
        )
        indexes = [p.component_index for p in packages]
        reach = sum(index.documents for index in indexes if index is not None)
        start = pager.start(reach)
        outcome = find_components(
            indexes,
            request.words_of(request.query),
            frozenset(request.academic_subjects or ()),
            start.offset + request.limit,
        )
        offset = start.within(outcome.total)
        page = outcome.hits[offset : offset + request.limit]
        attributions = _Attributions()
        listed = PagePackages(packages, [hit.package_order for hit in page])
        return SearchLearningComponentsResult(
            query=request.query,
            hits=[
                ComponentHitView.of(
                    packages[hit.package_order],
                    hit.component,
                    attributions,
                    rank=offset + i + 1,
                    package=listed.number(hit.package_order),
                    score=hit.score,
                    supported_standards=_supported(packages[hit.package_order], hit.component),
                )
                for i, hit in enumerate(page)
            ],
            total=outcome.total,
            matched=MatchCountsView.of_fields(outcome.counts),
            interpretation=interpretation_views(outcome.interpretations),
            page=pager.offset_page(offset, len(page), outcome.total),
            warnings=warnings,
            attributions=attributions.listed(),
            packages=[ComponentPackageRef.of(package, number) for number, package in listed.numbered()],
        )

    def get_learning_component(self, request: GetLearningComponentRequest) -> LearningComponentDetail:
        """One exact component and the ids of the standards it supports."""
        package, component = self.resolve_component(request)
        store = package.store
        attributions = _Attributions()
        return LearningComponentDetail(
            component=LearningComponentDetailView.of(package, component, attributions),
            supports=[
                _support_link(package, rel) for rel in _by_confidence(store.outgoing(component.identifier, SUPPORTS))
            ],
            attributions=attributions.listed(),
            package=ComponentPackageRef.of(package),
        )

    def get_learning_components_for_standard(
        self, request: GetLearningComponentsForStandardRequest
    ) -> ComponentsForStandardResult:
        """Each supports link into the standard, highest confidence first."""
        package, item = self._standards.resolve_standard(request)
        store = package.store
        links = _by_confidence(store.incoming(item.identifier, SUPPORTS))
        attributions = _Attributions()
        supports = []
        for rel in links[: request.limit]:
            component = store.component(rel.source_identifier)
            assert component is not None  # validation: supports runs from a component
            supports.append(
                ComponentSupportView(
                    relationship_id=rel.identifier,
                    support_confidence=rel.support_confidence,
                    component=LearningComponentRecord.of(package, component, attributions),
                )
            )
        standard = LinkedStandardRecord.of(package, item)
        return ComponentsForStandardResult(
            standard=standard,
            supports=supports,
            total=len(links),
            attributions=attributions.listed(),
            package=GraphComponentPackageRef.of(package, **graph_fields(package, [standard])),
        )

    def get_standards_for_learning_component(
        self, request: GetStandardsForLearningComponentRequest
    ) -> StandardsForComponentResult:
        """The standards a component supports, each with its local grade labels and statement type."""
        package, component = self.resolve_component(request)
        store = package.store
        links = _by_confidence(store.outgoing(component.identifier, SUPPORTS))
        standards = []
        for rel in links[: request.limit]:
            item = _supported_item(package, rel)
            standards.append(
                StandardSupportView(
                    relationship_id=rel.identifier,
                    support_confidence=rel.support_confidence,
                    standard=StandardRecord.of(package, item),
                )
            )
        attributions = _Attributions()
        return StandardsForComponentResult(
            component=LearningComponentRecord.of(package, component, attributions),
            standards=standards,
            total=len(links),
            attributions=attributions.listed(),
            package=ComponentPackageRef.of(package),
        )
