"""Standards: search orchestration, exact retrieval and bounded hierarchy context.

Every operation here reads standards items only; a learning-component id given as a standard
is ``standard_not_found``, exactly as an unknown id is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Literal

from kgfegmcp.catalog.catalog import AcceptedCatalog, PackageRuntime
from kgfegmcp.cursors import CursorCodec, request_fingerprint
from kgfegmcp.errors import (
    AmbiguousGraphNodeError,
    CapabilityUnavailableError,
    InvalidCursorError,
    StandardNotFoundError,
)
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import BUILDS_TOWARDS, RELATES_TO, SUPPORTS, ItemNode
from kgfegmcp.search.service import SearchFilters, SearchService
from kgfegmcp.services.requests import (
    GetStandardContextRequest,
    GetStandardRequest,
    SearchStandardsRequest,
    StandardSelector,
)
from kgfegmcp.services.views import (
    DisclosureView,
    FrameworkRootView,
    PackageIdentity,
    PageInfo,
    ResultModel,
    ResultWarning,
    StandardView,
    disclosures,
    framework_root_view,
    offset_page,
    package_identity,
    standard_view,
)

SEARCH_STANDARDS = "search_standards"

TruncationReason = Literal["max_nodes", "max_paths", "max_path_node_occurrences"]


class SearchHitView(ResultModel):
    """One ranked standard with how it matched."""

    rank: int
    match_type: str
    score: float
    standard: StandardView


class SearchStandardsResult(ResultModel):
    """One page of search hits across the selected packages."""

    query: str
    search_mode: str
    hits: list[SearchHitView]
    total: int
    page: PageInfo
    warnings: list[ResultWarning]
    packages: list[PackageIdentity]
    disclosures: list[DisclosureView]


class StandardDetail(ResultModel):
    """One exact standard with its direct hierarchy neighbours."""

    standard: StandardView
    parents: list[StandardView | FrameworkRootView]
    child_count: int
    package: PackageIdentity
    disclosures: list[DisclosureView]


class ContextNode(ResultModel):
    """A node met while walking the hierarchy, with its distance from the standard."""

    depth: int
    node: StandardView | FrameworkRootView


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
    """Bounded hierarchy evidence; completion is explicit and truncation is named."""

    standard: StandardView
    parents: list[StandardView | FrameworkRootView]
    children: list[StandardView]
    ancestors: list[ContextNode]
    descendants: list[ContextNode]
    root_paths: list[RootPath]
    ancestors_complete: bool
    descendants_complete: bool
    root_paths_complete: bool
    truncated: bool
    truncation_reasons: list[TruncationReason]
    direct_relationships: DirectRelationships
    package: PackageIdentity
    disclosures: list[DisclosureView]


class StandardsService:
    """Search, exact retrieval and context for standards items."""

    def __init__(
        self, catalog: AcceptedCatalog, stores: dict[str, GraphStore], search: SearchService, cursors: CursorCodec
    ) -> None:
        self._catalog = catalog
        self._stores = stores
        self._search = search
        self._cursors = cursors

    # -- resolution ----------------------------------------------------------------------------

    def resolve_standard(self, selector: StandardSelector) -> tuple[PackageRuntime, ItemNode]:
        """The one standard a selector names, or ``standard_not_found`` / ``ambiguous_graph_node``."""
        runtime = self._catalog.resolve(selector.framework_id, selector.snapshot_id)
        store = self._stores[runtime.graph_package_id]
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
            index = self._search.index(runtime)
            if index.codes is None:
                # Not "not found": the package may well hold that code, it just cannot be looked up by it.
                raise CapabilityUnavailableError(
                    f"{runtime.graph_package_id} does not support statement-code lookup.",
                    hint="Select the standard by nodeId or caseIdentifierUUID (search_standards finds them).",
                )
            positions = index.codes.exact(selector.statement_code)
            if len(positions) > 1:
                raise AmbiguousGraphNodeError(
                    f"statementCode {selector.statement_code!r} matches {len(positions)} items in "
                    f"{runtime.graph_package_id}.",
                    hint="Call search_standards with searchMode 'code' to list them, then select one by nodeId.",
                )
            item = index.item_at(positions[0]) if positions else None
            described = f"statementCode {selector.statement_code!r}"
        if item is None:
            raise StandardNotFoundError(
                f"No standard with {described} in {runtime.graph_package_id}.",
                hint="Use search_standards to find the standard's nodeId.",
            )
        return runtime, item

    # -- operations ----------------------------------------------------------------------------

    def search_standards(self, request: SearchStandardsRequest) -> SearchStandardsResult:
        """Ranked, filtered, paged hits; warnings kept beside them."""
        fingerprint = request_fingerprint(request)
        offset = self._cursors.decode_offset(request.cursor, SEARCH_STANDARDS, fingerprint)
        packages = self._catalog.select(request.framework_ids, request.snapshot_ids)
        self._search.require_servable(packages, request.search_mode, request.code_match)
        filters = SearchFilters(
            grade_levels=frozenset(request.grade_levels or ()),
            statement_types=frozenset(request.statement_types or ()),
            academic_subjects=frozenset(request.academic_subjects or ()),
        )
        outcome = self._search.search(
            packages, request.query, request.search_mode, request.code_match, filters, offset + request.limit
        )
        if offset > outcome.total:
            raise InvalidCursorError("The cursor points outside this result sequence.")
        hits, warnings = outcome.hits, outcome.warnings
        page = hits[offset : offset + request.limit]
        return SearchStandardsResult(
            query=request.query,
            search_mode=request.search_mode,
            hits=[
                SearchHitView(
                    rank=offset + i + 1,
                    match_type=hit.match_type,
                    score=hit.score,
                    standard=standard_view(packages[hit.package_order], hit.item),
                )
                for i, hit in enumerate(page)
            ],
            total=outcome.total,
            page=offset_page(
                self._cursors, SEARCH_STANDARDS, fingerprint, offset, request.limit, len(page), outcome.total
            ),
            warnings=[
                ResultWarning(code=w.code, message=w.message, graph_package_id=w.graph_package_id) for w in warnings
            ],
            packages=[package_identity(p) for p in packages],
            disclosures=[d for p in packages for d in disclosures(p)],
        )

    def get_standard(self, request: GetStandardRequest) -> StandardDetail:
        """One exact standard."""
        runtime, item = self.resolve_standard(request)
        store = self._stores[runtime.graph_package_id]
        return StandardDetail(
            standard=standard_view(runtime, item),
            parents=[self._node_view(runtime, store, p) for p in store.parents(item.identifier)],
            child_count=len(store.children(item.identifier)),
            package=package_identity(runtime),
            disclosures=disclosures(runtime),
        )

    @staticmethod
    def _node_view(runtime: PackageRuntime, store: GraphStore, identifier: str) -> StandardView | FrameworkRootView:
        node = store.node(identifier)
        if isinstance(node, ItemNode):
            return standard_view(runtime, node)
        return framework_root_view(runtime, store.framework)

    def get_standard_context(self, request: GetStandardContextRequest) -> StandardContextResult:
        """Parents, children, bounded ancestors/descendants and complete root paths."""
        runtime, item = self.resolve_standard(request)
        store = self._stores[runtime.graph_package_id]
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
        return StandardContextResult(
            standard=standard_view(runtime, item),
            parents=[self._node_view(runtime, store, p) for p in store.parents(identifier)],
            children=[
                standard_view(runtime, child)
                for child in (store.item(c) for c in store.children(identifier))
                if child is not None
            ],
            ancestors=[ContextNode(depth=d, node=self._node_view(runtime, store, n)) for n, d in ancestors],
            descendants=[ContextNode(depth=d, node=self._node_view(runtime, store, n)) for n, d in descendants],
            root_paths=[RootPath(node_ids=path) for path in paths],
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
            package=package_identity(runtime),
            disclosures=disclosures(runtime),
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
