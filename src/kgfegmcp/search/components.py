"""Lexical search over learning components: its own text index per package, never mixed with standards.

Components carry no code, grade or statement type, so only their text is indexed, analysed in the
package's language like standards, and grade words stay text. Ranking is the same as standards search
(coverage strata, BM25), with (package order, file position) as the tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgfegmcp.catalog.catalog import AcceptedCatalog, PackageRuntime
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ComponentNode
from kgfegmcp.search.package_indexes import TextIndexes
from kgfegmcp.search.query import InterpretedQuery, interpreter_for
from kgfegmcp.search.service import Interpretation
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
    """The first ``needed`` hits in final order, the exact number of matches, how the query was read."""

    hits: list[ComponentHit]
    all_terms: int
    some_terms: int
    interpretations: list[Interpretation]

    @property
    def total(self) -> int:
        """Every match."""
        return self.all_terms + self.some_terms


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
        rows: list[tuple[tuple[bool, tuple[bool, ...], bool], float, int, int]] = []
        all_terms = some_terms = 0
        readings: dict[InterpretedQuery, list[str]] = {}
        for order, runtime in enumerate(packages):
            index = self._indexes.get(runtime.graph_package_id)
            if index is None:
                continue
            reading = interpreter_for(runtime.profile.profile).interpret(query, recognise_grades=False)
            readings.setdefault(reading, []).append(runtime.graph_package_id)
            store = self._stores[runtime.graph_package_id]
            page = index.ranked(reading.terms, None if subjects else needed)
            found = page.rows
            if subjects:
                found = [row for row in found if _subject(store, runtime, row.position) in subjects]
                every = sum(1 for row in found if row.complete)
                all_terms, some_terms = all_terms + every, some_terms + len(found) - every
            else:
                all_terms, some_terms = all_terms + page.all_terms, some_terms + page.some_terms
            rows.extend((row.key()[:3], -row.score, order, row.position) for row in found)
        rows.sort()
        hits = []
        for _, negative_score, order, position in rows[:needed]:
            node = self._stores[packages[order].graph_package_id].node_at(position)
            assert isinstance(node, ComponentNode)
            hits.append(ComponentHit(order, node, position, -negative_score))
        return ComponentSearchOutcome(
            hits,
            all_terms,
            some_terms,
            [Interpretation(tuple(ids), reading, False) for reading, ids in readings.items()],
        )


def _subject(store: GraphStore, runtime: PackageRuntime, position: int) -> str:
    node = store.node_at(position)
    subject = node.academic_subject if isinstance(node, ComponentNode) else None
    return subject or runtime.framework.academic_subject
