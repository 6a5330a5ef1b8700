"""Lexical search over learning components: its own text index per package, never mixed with standards.

Components carry no code, grade or statement type, so only their text is indexed. Ranking is the
same deterministic BM25 as standards search, with (package order, file position) as the tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgfegmcp.catalog.catalog import AcceptedCatalog, PackageRuntime
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ComponentNode
from kgfegmcp.search.normalize import query_tokens
from kgfegmcp.search.package_indexes import TextIndexes
from kgfegmcp.search.text_index import TextIndex


@dataclass(frozen=True, slots=True)
class ComponentHit:
    """One matching component of one package."""

    package_order: int
    component: ComponentNode
    position: int
    score: float


@dataclass(frozen=True, slots=True)
class ComponentSearchOutcome:
    """The first ``needed`` hits in final order and the exact number of matches."""

    hits: list[ComponentHit]
    total: int


class ComponentSearch:
    """One component text index per accepted package that has components."""

    def __init__(self, catalog: AcceptedCatalog, stores: dict[str, GraphStore], text: TextIndexes) -> None:
        self.catalog = catalog
        self._stores = stores
        self._indexes: dict[str, TextIndex] = {}
        for runtime in catalog.packages:
            index = text[runtime.graph_package_id].components
            if index is not None:
                self._indexes[runtime.graph_package_id] = index

    def has_components(self, runtime: PackageRuntime) -> bool:
        """Whether the package has a component index (it has learning components)."""
        return runtime.graph_package_id in self._indexes

    def search(
        self, packages: Sequence[PackageRuntime], query: str, subjects: frozenset[str], needed: int
    ) -> ComponentSearchOutcome:
        """Best-first hits across ``packages`` (only those with components), ``subjects`` filtering exactly."""
        tokens = query_tokens(query)
        rows: list[tuple[float, int, int]] = []
        total = 0
        for order, runtime in enumerate(packages):
            index = self._indexes.get(runtime.graph_package_id)
            if index is None:
                continue
            store = self._stores[runtime.graph_package_id]
            found, count = index.ranked(tokens, None if subjects else needed)
            if subjects:
                found = [(p, s) for p, s in found if _subject(store, runtime, p) in subjects]
                count = len(found)
            total += count
            rows.extend((-score, order, position) for position, score in found)
        rows.sort()
        hits = []
        for negative_score, order, position in rows[:needed]:
            node = self._stores[packages[order].graph_package_id].node_at(position)
            assert isinstance(node, ComponentNode)
            hits.append(ComponentHit(order, node, position, -negative_score))
        return ComponentSearchOutcome(hits, total)


def _subject(store: GraphStore, runtime: PackageRuntime, position: int) -> str:
    node = store.node_at(position)
    subject = node.academic_subject if isinstance(node, ComponentNode) else None
    return subject or runtime.framework.academic_subject
