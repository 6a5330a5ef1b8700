"""Learning components: search, exact retrieval, and the ``supports`` edge in both directions.

A learning component is generated or curated content decomposed from standards; it is never a
standard. Component lookups resolve components only (a standard's id is ``graph_node_not_found``),
and the standards side resolves standards only (a component's id is ``standard_not_found``). Each
``supports`` link is returned with its relationship id, its ``supportConfidence`` and the resource
links needed to cite it and open its evidence.
"""

from __future__ import annotations

from typing import Literal

from kgfegmcp.catalog.catalog import AcceptedCatalog, PackageRuntime
from kgfegmcp.cursors import CursorCodec, request_fingerprint
from kgfegmcp.errors import (
    CapabilityUnavailableError,
    GraphNodeNotFoundError,
    InvalidCursorError,
)
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import SUPPORTS, ComponentNode, RelationshipRecord
from kgfegmcp.resources import uris
from kgfegmcp.search.components import ComponentSearch
from kgfegmcp.services.requests import (
    GetLearningComponentRequest,
    GetLearningComponentsForStandardRequest,
    GetStandardsForLearningComponentRequest,
    LearningComponentSelector,
    SearchLearningComponentsRequest,
)
from kgfegmcp.services.standards import StandardsService
from kgfegmcp.services.views import (
    DisclosureView,
    PackageIdentity,
    PageInfo,
    ResultModel,
    ResultWarning,
    StandardView,
    disclosures,
    offset_page,
    package_identity,
    standard_view,
)

SEARCH_LEARNING_COMPONENTS = "search_learning_components"

COMPONENT_NATURE = (
    "Learning components are content decomposed from standards by their provider (see the disclosures and "
    "each component's provenance); they are not standards and carry no grade or statement type of their own."
)


class LearningComponentView(ResultModel):
    """One learning component, in its own terms."""

    graph_package_id: str
    node_id: str
    kind: Literal["learningComponent"] = "learningComponent"
    description: str
    academic_subject: str | None = None
    in_language: str
    tags: list[str]
    author: str | None = None
    provider: str | None = None
    license: str | None = None
    attribution_statement: str | None = None
    supports_count: int
    uri: str
    provenance_uri: str


class ComponentHitView(ResultModel):
    """One ranked component."""

    rank: int
    score: float
    component: LearningComponentView


class SearchLearningComponentsResult(ResultModel):
    """One page of component hits across the selected packages."""

    query: str
    hits: list[ComponentHitView]
    total: int
    page: PageInfo
    warnings: list[ResultWarning]
    nature: str = COMPONENT_NATURE
    packages: list[PackageIdentity]
    disclosures: list[DisclosureView]


class SupportLinkRef(ResultModel):
    """A ``supports`` link of a component, by id (open the standards with get_standards_for_learning_component)."""

    relationship_id: str
    support_confidence: float | None = None
    standard_node_id: str
    relationship_uri: str


class LearningComponentDetail(ResultModel):
    """One exact learning component and the ids of its supports links."""

    component: LearningComponentView
    supports: list[SupportLinkRef]
    nature: str = COMPONENT_NATURE
    package: PackageIdentity
    disclosures: list[DisclosureView]


class ComponentSupportView(ResultModel):
    """One supports link into the selected standard, with everything needed to cite it."""

    relationship_id: str
    support_confidence: float | None = None
    component: LearningComponentView
    relationship_uri: str
    component_uri: str
    component_provenance_uri: str
    standard_uri: str


class ComponentsForStandardResult(ResultModel):
    """The learning components supporting one standard."""

    standard: StandardView
    supports: list[ComponentSupportView]
    total: int
    returned: int
    omitted: int
    nature: str = COMPONENT_NATURE
    package: PackageIdentity
    disclosures: list[DisclosureView]


class StandardSupportView(ResultModel):
    """One standard the selected component supports, with its local grade labels and statement type."""

    relationship_id: str
    support_confidence: float | None = None
    standard: StandardView
    relationship_uri: str
    standard_uri: str


class StandardsForComponentResult(ResultModel):
    """The standards one learning component supports."""

    component: LearningComponentView
    standards: list[StandardSupportView]
    total: int
    returned: int
    omitted: int
    nature: str = COMPONENT_NATURE
    package: PackageIdentity
    disclosures: list[DisclosureView]


def _by_confidence(relationships: tuple[RelationshipRecord, ...]) -> list[RelationshipRecord]:
    """Highest supportConfidence first (unstated last), then file order."""
    indexed = list(enumerate(relationships))
    indexed.sort(
        key=lambda pair: (-(pair[1].support_confidence if pair[1].support_confidence is not None else -1.0), pair[0])
    )
    return [rel for _, rel in indexed]


class LearningComponentService:
    """Component search, exact retrieval and supports traversal over the shared catalog."""

    def __init__(
        self,
        catalog: AcceptedCatalog,
        stores: dict[str, GraphStore],
        standards: StandardsService,
        search: ComponentSearch,
        cursors: CursorCodec,
    ) -> None:
        self._catalog = catalog
        self._stores = stores
        self._standards = standards
        self._search = search
        self._cursors = cursors

    # -- views ---------------------------------------------------------------------------------

    def component_view(self, runtime: PackageRuntime, component: ComponentNode) -> LearningComponentView:
        """A component with its resource and provenance links."""
        store = self._stores[runtime.graph_package_id]
        fid, sid = runtime.framework_id, runtime.snapshot_id
        return LearningComponentView(
            graph_package_id=runtime.graph_package_id,
            node_id=component.identifier,
            description=component.description,
            academic_subject=component.academic_subject,
            in_language=component.in_language,
            tags=list(component.tags),
            author=component.author,
            provider=component.provider,
            license=component.license,
            attribution_statement=component.attribution_statement,
            supports_count=len(store.outgoing(component.identifier, SUPPORTS)),
            uri=uris.learning_component_uri(fid, sid, component.identifier),
            provenance_uri=uris.learning_component_provenance_uri(fid, sid, component.identifier),
        )

    def resolve_component(self, selector: LearningComponentSelector) -> tuple[PackageRuntime, ComponentNode]:
        """The component a selector names; ``graph_node_not_found`` for a missing or non-component id."""
        runtime = self._catalog.resolve(selector.framework_id, selector.snapshot_id)
        component = self._stores[runtime.graph_package_id].component(selector.node_id)
        if component is None:
            has = "" if runtime.components else " (this package has no learning components)"
            raise GraphNodeNotFoundError(
                f"No learning component with nodeId {selector.node_id!r} in {runtime.graph_package_id}{has}.",
                hint="Use search_learning_components or get_learning_components_for_standard to find component ids.",
            )
        return runtime, component

    # -- operations ----------------------------------------------------------------------------

    def _packages(self, request: SearchLearningComponentsRequest) -> tuple[list[PackageRuntime], list[ResultWarning]]:
        """Selected packages (sorted) that have components, plus warnings for explicitly chosen ones without."""
        if request.framework_ids or request.snapshot_ids:
            ordered = self._catalog.select(request.framework_ids, request.snapshot_ids)
        else:
            ordered = [p for p in self._catalog.select(None, None) if self._search.has_components(p)]
        with_components = [p for p in ordered if self._search.has_components(p)]
        if not with_components:
            raise CapabilityUnavailableError(
                "None of the selected packages has learning components.",
                hint="Call list_frameworks with graphTypes ['LearningComponents'] to find packages that do.",
            )
        warnings = [
            ResultWarning(
                code="learning_components_unavailable",
                message="This package has no learning components; it was not searched.",
                graph_package_id=p.graph_package_id,
            )
            for p in ordered
            if not self._search.has_components(p)
        ]
        return with_components, warnings

    def search_learning_components(self, request: SearchLearningComponentsRequest) -> SearchLearningComponentsResult:
        """Ranked, paged component hits (lexical, accent-insensitive)."""
        fingerprint = request_fingerprint(request)
        offset = self._cursors.decode_offset(request.cursor, SEARCH_LEARNING_COMPONENTS, fingerprint)
        packages, warnings = self._packages(request)
        outcome = self._search.search(
            packages, request.query, frozenset(request.academic_subjects or ()), offset + request.limit
        )
        if offset > outcome.total:
            raise InvalidCursorError("The cursor points outside this result sequence.")
        page = outcome.hits[offset : offset + request.limit]
        return SearchLearningComponentsResult(
            query=request.query,
            hits=[
                ComponentHitView(
                    rank=offset + i + 1,
                    score=hit.score,
                    component=self.component_view(packages[hit.package_order], hit.component),
                )
                for i, hit in enumerate(page)
            ],
            total=outcome.total,
            page=offset_page(
                self._cursors, SEARCH_LEARNING_COMPONENTS, fingerprint, offset, request.limit, len(page), outcome.total
            ),
            warnings=warnings,
            packages=[package_identity(p) for p in packages],
            disclosures=[d for p in packages for d in disclosures(p)],
        )

    def get_learning_component(self, request: GetLearningComponentRequest) -> LearningComponentDetail:
        """One exact component and the ids of the standards it supports."""
        runtime, component = self.resolve_component(request)
        store = self._stores[runtime.graph_package_id]
        fid, sid = runtime.framework_id, runtime.snapshot_id
        return LearningComponentDetail(
            component=self.component_view(runtime, component),
            supports=[
                SupportLinkRef(
                    relationship_id=rel.identifier,
                    support_confidence=rel.support_confidence,
                    standard_node_id=rel.target_identifier,
                    relationship_uri=uris.relationship_uri(fid, sid, rel.identifier),
                )
                for rel in _by_confidence(store.outgoing(component.identifier, SUPPORTS))
            ],
            package=package_identity(runtime),
            disclosures=disclosures(runtime),
        )

    def get_learning_components_for_standard(
        self, request: GetLearningComponentsForStandardRequest
    ) -> ComponentsForStandardResult:
        """Each supports link into the standard, highest confidence first."""
        runtime, item = self._standards.resolve_standard(request)
        store = self._stores[runtime.graph_package_id]
        fid, sid = runtime.framework_id, runtime.snapshot_id
        links = _by_confidence(store.incoming(item.identifier, SUPPORTS))
        shown = links[: request.limit]
        supports = []
        for rel in shown:
            component = store.component(rel.source_identifier)
            assert component is not None  # validation: supports runs from a component
            supports.append(
                ComponentSupportView(
                    relationship_id=rel.identifier,
                    support_confidence=rel.support_confidence,
                    component=self.component_view(runtime, component),
                    relationship_uri=uris.relationship_uri(fid, sid, rel.identifier),
                    component_uri=uris.learning_component_uri(fid, sid, component.identifier),
                    component_provenance_uri=uris.learning_component_provenance_uri(fid, sid, component.identifier),
                    standard_uri=uris.standard_uri(fid, sid, item.identifier),
                )
            )
        return ComponentsForStandardResult(
            standard=standard_view(runtime, item),
            supports=supports,
            total=len(links),
            returned=len(shown),
            omitted=len(links) - len(shown),
            package=package_identity(runtime),
            disclosures=disclosures(runtime),
        )

    def get_standards_for_learning_component(
        self, request: GetStandardsForLearningComponentRequest
    ) -> StandardsForComponentResult:
        """The standards a component supports, each with its local grade labels and statement type."""
        runtime, component = self.resolve_component(request)
        store = self._stores[runtime.graph_package_id]
        fid, sid = runtime.framework_id, runtime.snapshot_id
        links = _by_confidence(store.outgoing(component.identifier, SUPPORTS))
        shown = links[: request.limit]
        standards = []
        for rel in shown:
            item = store.item(rel.target_identifier)
            assert item is not None  # validation: supports ends at a standards item
            standards.append(
                StandardSupportView(
                    relationship_id=rel.identifier,
                    support_confidence=rel.support_confidence,
                    standard=standard_view(runtime, item),
                    relationship_uri=uris.relationship_uri(fid, sid, rel.identifier),
                    standard_uri=uris.standard_uri(fid, sid, item.identifier),
                )
            )
        return StandardsForComponentResult(
            component=self.component_view(runtime, component),
            standards=standards,
            total=len(links),
            returned=len(shown),
            omitted=len(links) - len(shown),
            package=package_identity(runtime),
            disclosures=disclosures(runtime),
        )
