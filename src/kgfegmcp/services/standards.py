"""Standards: search orchestration, exact retrieval and bounded hierarchy context.

Every operation here reads standards items only; a learning-component id given as a standard
is ``standard_not_found``, exactly as an unknown id is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.errors import (
    AmbiguousGraphNodeError,
    CapabilityUnavailableError,
    StandardNotFoundError,
)
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import BUILDS_TOWARDS, RELATES_TO, SUPPORTS, ItemNode
from kgfegmcp.search.match_explanation import MatchExplainer, MatchExplanation
from kgfegmcp.search.service import (
    Interpretation,
    SearchFilters,
    SearchHit,
    find_standards,
    require_servable,
)
from kgfegmcp.search.text_index import Coverage
from kgfegmcp.services.filter_values import FilterKind, require_known, standards_accepted
from kgfegmcp.services.graph_packages import GraphPackageRef, graph_fields
from kgfegmcp.services.paging import CursorPage, Pager
from kgfegmcp.services.requests import (
    GetStandardContextRequest,
    GetStandardRequest,
    SearchStandardsRequest,
    StandardSelector,
)
from kgfegmcp.services.views import (
    FrameworkRootRef,
    LinkedStandardRecord,
    PackageRef,
    PagePackages,
    ResultModel,
    ResultWarning,
    SourceLocation,
    StandardDetailView,
    StandardRecord,
    framework_root_ref,
)

TruncationReason = Literal["max_nodes", "max_paths", "max_path_node_occurrences"]
#: Where a text hit's searched terms are: in the standard's own text, or only in its headings.
MatchedIn = Literal["statement", "heading"]


class HitRank(ResultModel):
    """Where a hit ranks and how it matched."""

    rank: int
    package: int | None = Field(
        None, description="The number of its package in packages; left out when the answer has one package."
    )
    match_type: str | None = Field(
        None, description="Code hits: code_exact, code_prefix or derived_parent_code. Text hits give coverage instead."
    )
    coverage: Coverage | None = Field(
        None, description="Text hits: the phrase, every searched term, or only some of them (the ranking's first key)."
    )
    matched_in: MatchedIn | None = Field(
        None,
        description="Text hits: 'statement' when a searched term is in the standard's own text (its code "
        "included); 'heading' when none is, and it matched only through the names of the groupings above it.",
    )
    matched_terms: list[str] | None = Field(
        None,
        description="Text hits: the searched terms (as interpretation lists them) in the standard's own text; left "
        "out when that is every searched term.",
    )
    heading_terms: list[str] | None = Field(
        None,
        description="Text hits: the searched terms found only in the names of the groupings directly above it, "
        "not in its own text.",
    )
    score: float

    @staticmethod
    def matched(explanation: MatchExplanation | None) -> dict[str, Any]:
        """The match fields of a text hit's explanation (none for a code hit)."""
        if explanation is None:
            return {}
        return {
            "matched_in": "heading" if explanation.heading_only else "statement",
            "matched_terms": None
            if explanation.whole_query_in_statement
            else (list(explanation.statement_terms) or None),
            "heading_terms": list(explanation.heading_terms) or None,
        }


class SearchHitView(StandardRecord, HitRank):
    """One ranked standard: its rank and match, then its record (fields in that order)."""


class MatchCountsView(ResultModel):
    """What ``total`` is made of: items matched by code, by every searched term, by only some terms."""

    code: int
    all_terms: int
    some_terms: int


class QueryInterpretationView(ResultModel):
    """How the query was read for these packages: nothing is matched that is not listed here.

    Compact: ``graphPackageIds`` is left out when the answer searched one package, ``grades``,
    ``subjects`` (and ``subjectsAs``), ``droppedWords``, ``requestWords``, ``relatedForms``,
    ``unknownTerms`` and ``nearestWords`` when empty.
    """

    graph_package_ids: list[str] | None = None
    analysis: str = Field(description="Word analysis: dictionary lemmas with stop words, or folding only.")
    searched_terms: list[str] = Field(description="The words matched (each by its lemma), as folded.")
    grades: list[str] | None = Field(None, description="Grade labels named in the query, taken out of the text.")
    grades_as: Literal["preference", "ignored_grade_filter_given", "none"]
    subjects: list[str] | None = Field(
        None,
        description="Academic subjects named in the query (as the framework's items carry them), taken out "
        "of the text.",
    )
    subjects_as: Literal["preference", "ignored_subject_filter_given"] | None = Field(
        None,
        description="Whether the named subjects' items ranked first ('preference'), or were not, academicSubjects "
        "filtering already; left out when no subject is named.",
    )
    dropped_words: list[str] | None = Field(None, description="Stop words not searched.")
    request_words: list[str] | None = Field(
        None, description="Words about the request itself (how to teach, activity, lesson), not searched."
    )
    related_forms: list[str] | None = Field(
        None,
        description="Searched words these packages hold in no form of their own, searched instead by their "
        "related forms (words sharing their root: capital finds Capitalize).",
    )
    unknown_terms: list[str] | None = Field(
        None,
        description="Searched words that occur nowhere in these packages (after the same analysis), so match "
        "nothing here: rephrase them in the framework's own words and language, in a new call.",
    )
    nearest_words: dict[str, list[str]] | None = Field(
        None,
        description="For each unknown term that has any: the framework's own nearest words (folded), its spelling "
        "neighbours first, then words sharing its beginning, at most 5. Never searched: name one in a new call.",
    )


def interpretation_views(
    interpretations: list[Interpretation], *, single_package: bool = False
) -> list[QueryInterpretationView]:
    """One view per distinct reading of the query (package ids left out when one package was searched)."""
    return [
        QueryInterpretationView(
            graph_package_ids=None if single_package else list(reading.graph_package_ids),
            analysis=reading.query.analysis,
            searched_terms=[term.exact for term in reading.query.terms],
            grades=list(reading.query.grades) or None,
            grades_as="preference"
            if reading.grades_used
            else ("ignored_grade_filter_given" if reading.query.grades else "none"),
            subjects=list(reading.query.subjects) or None,
            subjects_as=("preference" if reading.subjects_used else "ignored_subject_filter_given")
            if reading.query.subjects
            else None,
            dropped_words=list(reading.query.dropped) or None,
            request_words=list(reading.query.request_words) or None,
            related_forms=list(reading.related_forms) or None,
            unknown_terms=list(reading.unknown_terms) or None,
            nearest_words={word: list(hints) for word, hints in reading.hints} or None,
        )
        for reading in interpretations
    ]


def explain_hits(
    packages: list[ServedPackage], interpretations: list[Interpretation], hits: list[SearchHit]
) -> list[MatchExplanation | None]:
    """What each hit matched, ``None`` for a code hit: the searched terms of its package's reading, found
    again in its own text and its headings (only the hits asked for are analysed, never every match)."""
    terms = {package: reading.searched for reading in interpretations for package in reading.graph_package_ids}
    explainers: dict[int, MatchExplainer] = {}
    explained: list[MatchExplanation | None] = []
    for hit in hits:
        if hit.match_type != "text":
            explained.append(None)
            continue
        package = packages[hit.package_order]
        index = package.standards_index
        explainer = explainers.get(hit.package_order)
        if explainer is None:
            explainer = explainers[hit.package_order] = MatchExplainer(
                index.interpreter.analyzer, terms[package.graph_package_id]
            )
        explained.append(explainer.explain(package.store, hit.item, index.facets(hit.position).role))
    return explained


class SearchStandardsResult(ResultModel):
    """One page of search hits across the selected packages."""

    query: str
    search_mode: str
    hits: list[SearchHitView]
    total: int
    matched: MatchCountsView
    interpretation: list[QueryInterpretationView]
    page: CursorPage
    warnings: list[ResultWarning]
    packages: list[PackageRef] = Field(
        description="The packages this page's hits come from, once each (every searched package when the page is "
        "empty); hits refer to them by number. interpretation names every package searched."
    )


class StandardDetail(ResultModel):
    """One exact standard with its direct hierarchy neighbours."""

    standard: StandardDetailView
    parents: list[StandardRecord | FrameworkRootRef]
    child_count: int
    package: PackageRef


class ContextStandard(StandardRecord):
    """A standard met while walking the hierarchy, with its distance from the selected standard."""

    depth: int


class ContextRoot(FrameworkRootRef):
    """The framework root met while walking up, with its distance from the selected standard."""

    depth: int


class RootPath(ResultModel):
    """One complete path from the framework root down to the standard (node ids, root first)."""

    node_ids: list[str]


class DirectRelationships(ResultModel):
    """Counts of the standard's other relationship kinds (fetched with their own tools)."""

    learning_components_supporting: int
    builds_towards_outgoing: int
    builds_towards_incoming: int
    relates_to_outgoing: int
    relates_to_incoming: int


class StandardContextResult(ResultModel):
    """Bounded hierarchy evidence, each node once; completion is explicit and truncation is named."""

    standard: LinkedStandardRecord
    parents: list[StandardRecord | FrameworkRootRef]
    children: list[StandardRecord]
    ancestors: list[ContextStandard | ContextRoot] = Field(
        description="Ancestors beyond the parents (depth 2 and up), breadth-first; the parents are depth 1."
    )
    descendants: list[ContextStandard] = Field(
        description="Descendants beyond the children (depth 2 and up), breadth-first; the children are depth 1."
    )
    root_paths: list[RootPath]
    path_nodes: list[StandardRecord | FrameworkRootRef] = Field(
        description="The nodes the root paths name that the standard, parents and ancestors do not, once each."
    )
    ancestors_complete: bool
    descendants_complete: bool
    root_paths_complete: bool
    truncated: bool
    truncation_reasons: list[TruncationReason]
    direct_relationships: DirectRelationships
    package: GraphPackageRef


class StandardsService:
    """Search, exact retrieval and context for standards items."""

    def __init__(self, catalog: AcceptedCatalog, cursors: CursorCodec) -> None:
        self._catalog = catalog
        self._cursors = cursors

    # -- resolution ----------------------------------------------------------------------------

    def resolve_standard(self, selector: StandardSelector) -> tuple[ServedPackage, ItemNode]:
        """The one standard a selector names, or ``standard_not_found`` / ``ambiguous_graph_node``."""
        package = self._catalog.resolve(selector.framework_id, selector.snapshot_id)
        store = package.store
        if selector.node_id is not None:
            item = store.item(selector.node_id)
            described = f"nodeId {selector.node_id!r}"
        elif selector.case_identifier_uuid is not None:
            item = store.item(selector.case_identifier_uuid)
            if item is not None and item.case_identifier_uuid != selector.case_identifier_uuid:
                item = None
            described = f"caseIdentifierUUID {selector.case_identifier_uuid!r}"
        else:
            assert selector.statement_code is not None
            index = package.standards_index
            if index.codes is None:
                # Not "not found": the package may well hold that code, it just cannot be looked up by it.
                raise CapabilityUnavailableError(
                    f"{package.graph_package_id} does not support statement-code lookup.",
                    hint="Select the standard by nodeId or caseIdentifierUUID (search_standards finds them).",
                )
            positions = index.codes.exact(selector.statement_code)
            if len(positions) > 1:
                raise AmbiguousGraphNodeError(
                    f"statementCode {selector.statement_code!r} matches {len(positions)} items in "
                    f"{package.graph_package_id}.",
                    hint="Call search_standards with searchMode 'code' to list them, then select one by nodeId.",
                )
            item = index.item_at(positions[0]) if positions else None
            described = f"statementCode {selector.statement_code!r}"
        if item is None:
            raise StandardNotFoundError(
                f"No standard with {described} in {package.graph_package_id}.",
                hint="Use search_standards to find the standard's nodeId.",
            )
        return package, item

    # -- operations ----------------------------------------------------------------------------

    def search_standards(self, request: SearchStandardsRequest) -> SearchStandardsResult:
        """Ranked, filtered, paged hits; warnings kept beside them."""
        pager = Pager(self._cursors, ToolName.SEARCH_STANDARDS, request)
        packages = self._catalog.select(request.framework_ids, request.snapshot_ids)
        indexes = [p.standards_index for p in packages]
        require_servable(indexes, request.search_mode, request.code_match)
        checked: tuple[tuple[str, FilterKind, list[str] | None], ...] = (
            ("gradeLevels", "grade", request.grade_levels),
            ("statementTypes", "type", request.statement_types),
            ("academicSubjects", "subject", request.academic_subjects),
        )
        for field, kind, values in checked:
            require_known(field, kind, values, [standards_accepted(p, kind) for p in packages] if values else [])
        reach = sum(index.documents for index in indexes)
        start = pager.start(reach)
        filters = SearchFilters(
            grade_levels=frozenset(request.grade_levels or ()),
            statement_types=frozenset(request.statement_types or ()),
            academic_subjects=frozenset(request.academic_subjects or ()),
        )
        outcome = find_standards(
            indexes,
            request.words_of(request.query),
            request.search_mode,
            request.code_match,
            filters,
            start.offset + request.limit,
        )
        offset = start.within(outcome.total)
        hits, warnings = outcome.hits, outcome.warnings
        page = hits[offset : offset + request.limit]
        explained = explain_hits(packages, outcome.interpretations, page)
        listed = PagePackages(packages, [hit.package_order for hit in page])
        several = len(packages) > 1
        return SearchStandardsResult(
            query=request.query,
            search_mode=request.search_mode,
            hits=[
                SearchHitView.of(
                    packages[hit.package_order],
                    hit.item,
                    rank=offset + i + 1,
                    package=listed.number(hit.package_order),
                    match_type=None if hit.coverage is not None else hit.match_type,
                    coverage=hit.coverage,
                    score=hit.score,
                    **HitRank.matched(explained[i]),
                )
                for i, hit in enumerate(page)
            ],
            total=outcome.total,
            matched=MatchCountsView.of_fields(outcome.counts),
            interpretation=interpretation_views(outcome.interpretations, single_package=not several),
            page=pager.offset_page(offset, len(page), outcome.total),
            warnings=[ResultWarning.of_fields(w) for w in warnings],
            packages=[PackageRef.of(package, number) for number, package in listed.numbered()],
        )

    def get_standard(self, request: GetStandardRequest) -> StandardDetail:
        """One exact standard."""
        package, item = self.resolve_standard(request)
        store = package.store
        location = None
        if package.profile.profile.page_locators:
            _part, _entry, provenance = package.artifacts.entity_provenance(item.identifier)
            location = SourceLocation.of(provenance)
        return StandardDetail(
            standard=StandardDetailView.of(package, item, source_location=location),
            parents=[self._node_record(package, p) for p in store.parents(item.identifier)],
            child_count=len(store.children(item.identifier)),
            package=PackageRef.of(package),
        )

    @staticmethod
    def _node_record(package: ServedPackage, identifier: str) -> StandardRecord | FrameworkRootRef:
        node = package.store.node(identifier)
        if isinstance(node, ItemNode):
            return StandardRecord.of(package, node)
        return framework_root_ref(package.store.framework)

    @staticmethod
    def _context_node(package: ServedPackage, identifier: str, depth: int) -> ContextStandard | ContextRoot:
        node = package.store.node(identifier)
        if isinstance(node, ItemNode):
            return ContextStandard.of(package, node, depth=depth)
        root = package.store.framework
        return ContextRoot(node_id=root.identifier, name=root.name, depth=depth)

    def get_standard_context(self, request: GetStandardContextRequest) -> StandardContextResult:
        """Parents, children, bounded ancestors/descendants and complete root paths."""
        package, item = self.resolve_standard(request)
        store = package.store
        reasons: list[TruncationReason] = []
        budget = [request.max_nodes]
        ancestors, ancestors_complete = self._walk(
            store, item.identifier, store.parents, request.ancestor_depth, budget
        )
        descendants, descendants_complete = self._walk(
            store, item.identifier, store.children, request.child_depth, budget
        )
        if budget[0] < 0:
            reasons.append("max_nodes")
        paths, paths_complete, path_reason = self._root_paths(store, item.identifier, request)
        if path_reason is not None:
            reasons.append(path_reason)
        identifier = item.identifier
        parents = store.parents(identifier)
        # Every node a root path names is described once: by the lists above it, or in pathNodes.
        listed = {identifier, *parents, *(n for n, d in ancestors if d > 1)}
        on_paths = [n for n in dict.fromkeys(n for path in paths for n in path) if n not in listed]
        standard = LinkedStandardRecord.of(package, item)
        parent_nodes = [self._node_record(package, p) for p in parents]
        children = [
            StandardRecord.of(package, child)
            for child in (store.item(c) for c in store.children(identifier))
            if child is not None
        ]
        # Depth 1 is parents/children, listed above whatever the bounds: each node appears once.
        ancestor_nodes = [self._context_node(package, n, d) for n, d in ancestors if d > 1]
        descendant_nodes = [
            ContextStandard.of(package, child, depth=d)
            for child, d in ((store.item(n), d) for n, d in descendants if d > 1)
            if child is not None
        ]
        path_nodes = [self._node_record(package, n) for n in on_paths]
        carried = [
            node
            for node in (standard, *parent_nodes, *children, *ancestor_nodes, *descendant_nodes, *path_nodes)
            if isinstance(node, StandardRecord)
        ]
        return StandardContextResult(
            standard=standard,
            parents=parent_nodes,
            children=children,
            ancestors=ancestor_nodes,
            descendants=descendant_nodes,
            root_paths=[RootPath(node_ids=path) for path in paths],
            path_nodes=path_nodes,
            ancestors_complete=ancestors_complete,
            descendants_complete=descendants_complete,
            root_paths_complete=paths_complete,
            truncated=bool(reasons),
            truncation_reasons=reasons,
            direct_relationships=DirectRelationships(
                learning_components_supporting=len(store.incoming(identifier, SUPPORTS)),
                builds_towards_outgoing=len(store.outgoing(identifier, BUILDS_TOWARDS)),
                builds_towards_incoming=len(store.incoming(identifier, BUILDS_TOWARDS)),
                relates_to_outgoing=len(store.outgoing(identifier, RELATES_TO)),
                relates_to_incoming=len(store.incoming(identifier, RELATES_TO)),
            ),
            package=GraphPackageRef.of(package, **graph_fields(package, carried)),
        )

    @staticmethod
    def _walk(
        store: GraphStore,
        start: str,
        neighbours: Callable[[str], tuple[str, ...]],
        max_depth: int,
        budget: list[int],
    ) -> tuple[list[tuple[str, int]], bool]:
        """Breadth-first within ``max_depth``; ``budget[0]`` is shared and goes negative on truncation.

        Complete means every node within the depth bound was returned.
        """
        found: list[tuple[str, int]] = []
        seen = {start}
        queue = deque([(start, 0)])
        while queue:
            node, depth = queue.popleft()
            if depth == max_depth:
                continue
            for neighbour in neighbours(node):
                if neighbour in seen:
                    continue
                if budget[0] == 0:
                    budget[0] = -1
                    return found, False
                if budget[0] < 0:
                    return found, False
                seen.add(neighbour)
                budget[0] -= 1
                found.append((neighbour, depth + 1))
                queue.append((neighbour, depth + 1))
        return found, True

    @staticmethod
    def _root_paths(
        store: GraphStore, start: str, request: GetStandardContextRequest
    ) -> tuple[list[list[str]], bool, TruncationReason | None]:
        """Every root-to-standard path (depth-first, parents in file order), within both path caps."""
        root = store.framework.identifier
        paths: list[list[str]] = []
        occurrences = 0
        stack: list[tuple[str, tuple[str, ...]]] = [(start, (start,))]
        while stack:
            node, upward = stack.pop()
            if node == root:
                if len(paths) == request.max_paths:
                    return paths, False, "max_paths"
                if occurrences + len(upward) > request.max_path_node_occurrences:
                    return paths, False, "max_path_node_occurrences"
                occurrences += len(upward)
                paths.append(list(reversed(upward)))
                continue
            for parent in reversed(store.parents(node)):
                if parent not in upward:
                    stack.append((parent, (*upward, parent)))
        return paths, True, None
