"""Lexical search over learning components: its own text index per package, never mixed with standards.

Components carry no code, grade or statement type, so only their text is indexed, analysed in the
package's language like standards, and grade words stay text. Ranking is the same as standards search
(coverage strata, BM25), with (package order, file position) as the tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ComponentNode
from kgfegmcp.search.normalize import QueryWords
from kgfegmcp.search.query import QueryInterpreter, QueryReadings, interpreter_for
from kgfegmcp.search.service import Interpretation, MatchCounts, PackageReading, by_related_forms, interpretations
from kgfegmcp.search.text_index import Stratum, TextIndex


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
    #: Components are found by their words only: ``code`` stays 0.
    counts: MatchCounts
    interpretations: list[Interpretation]

    @property
    def total(self) -> int:
        """Every match."""
        return self.counts.total


class PackageComponentIndex:
    """The component text index of one package that has learning components."""

    def __init__(self, store: GraphStore, text: TextIndex) -> None:
        self.store = store
        self.text = text
        #: The most this package can match.
        self.documents = text.documents
        self.interpreter: QueryInterpreter = interpreter_for(store.runtime.profile.profile)
        #: The academic subjects a subject filter may name here (each component's, else its framework's).
        self.subjects: tuple[str, ...] = tuple(
            sorted({c.academic_subject or store.framework.academic_subject for c in store.runtime.components})
        )

    def subject_at(self, position: int) -> str:
        """A component's academic subject, else its framework's."""
        node = self.store.node_at(position)
        subject = node.academic_subject if isinstance(node, ComponentNode) else None
        return subject or self.store.framework.academic_subject

    def component_at(self, position: int) -> ComponentNode:
        node = self.store.node_at(position)
        assert isinstance(node, ComponentNode)
        return node


def find_components(
    indexes: Sequence[PackageComponentIndex | None], query: QueryWords, subjects: frozenset[str], needed: int
) -> ComponentSearchOutcome:
    """Best-first hits across the packages (``None``: one without components), ``subjects`` filtering exactly."""
    rows: list[tuple[Stratum, float, int, int]] = []
    all_terms = some_terms = 0
    read: list[PackageReading] = []
    readings = QueryReadings(query)
    for order, index in enumerate(indexes):
        if index is None:
            continue
        reading = readings.by(index.interpreter, recognise_grades=False)
        related = index.text.related(reading.terms)
        terms = by_related_forms(reading.terms, related)
        unknown = tuple(word for word in index.text.absent(reading.terms) if word not in related)
        runtime = index.store.runtime
        read.append(
            PackageReading(
                runtime.graph_package_id, runtime, index.text, index.interpreter.analyzer, reading, unknown, related
            )
        )
        page = index.text.ranked(terms, None if subjects else needed)
        found = page.rows
        if subjects:
            found = [row for row in found if index.subject_at(row.position) in subjects]
            every = sum(1 for row in found if row.complete)
            all_terms, some_terms = all_terms + every, some_terms + len(found) - every
        else:
            all_terms, some_terms = all_terms + page.all_terms, some_terms + page.some_terms
        rows.extend((row.stratum(), -row.score, order, row.position) for row in found)
    rows.sort()
    hits = []
    for _, negative_score, order, position in rows[:needed]:
        index = indexes[order]
        assert index is not None
        hits.append(ComponentHit(order, index.component_at(position), position, -negative_score))
    return ComponentSearchOutcome(hits, MatchCounts(0, all_terms, some_terms), interpretations(read))
