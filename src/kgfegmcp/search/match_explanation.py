"""What a text hit matched: the searched terms in the standard's own text, and those only in its headings.

A standard's index document is its own text (its code and statement) and its context, the names of the
groupings directly above it (``package_indexes.standards_document``). A term matches either, so a hit
can hold no searched word at all and be found through its heading alone ("Key Ideas and Details" above
every reading standard matches "idea"). Said per hit, a host can tell such a hit from one that says what
was asked.

Computed after ranking, for the hits of one page only: the hit's text and context are analysed again
by its package's analyzer, the very code path that built the index from the very strings, and a
searched term is in one of them when its stem is (its folded form, for an exact-only term, which
matches the exact words; its root, for a term searched by its related forms). A hit none of whose
searched terms is in its own text is *heading-only*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.search.analysis import Analyzer, Term
from kgfegmcp.search.package_indexes import standards_document


@dataclass(frozen=True, slots=True)
class MatchExplanation:
    """The searched terms (folded, in query order) a hit holds in its own text, and those only in its headings."""

    statement_terms: tuple[str, ...]
    heading_terms: tuple[str, ...]
    #: How many terms were searched (so whether the statement holds every one of them is known).
    searched: int

    @property
    def heading_only(self) -> bool:
        """Whether no searched term is in the standard's own text: it matched through its headings alone."""
        return not self.statement_terms

    @property
    def whole_query_in_statement(self) -> bool:
        """Whether the standard's own text holds every searched term."""
        return len(self.statement_terms) == self.searched


class MatchExplainer:
    """Explains hits of one package for one reading of a query.

    The headings are read only for a hit whose own text lacks a term, and each distinct heading text once
    (siblings on a page share their headings).
    """

    def __init__(self, analyzer: Analyzer, terms: Sequence[Term]) -> None:
        self._analyzer = analyzer
        self._terms = tuple(terms)
        self._exact = any(t.exact_only for t in terms)
        self._roots = any(t.by_root for t in terms)
        self._headings: dict[str, frozenset[str]] = {}

    def _held(self, text: str) -> frozenset[str]:
        """What ``text`` holds as the index analysed it: its stems, and its folded words (a term exact-only)
        or its roots (a term searched by its related forms) where a term matches those."""
        analysed = self._analyzer.terms(text)
        held = {term.stem for term in analysed}
        if self._exact:
            held.update(f"\x00{word}" for word in self._analyzer.words(text))
        if self._roots:
            held.update(f"\x01{term.root}" for term in analysed if term.root)
        return frozenset(held)

    @staticmethod
    def _key(term: Term) -> str:
        """What a term matches: its folded form (exact-only), its root (by related forms), else its stem."""
        if term.exact_only:
            return f"\x00{term.exact}"
        return f"\x01{term.root}" if term.by_root else term.stem

    def explain(self, store: GraphStore, item: ItemNode, role: str) -> MatchExplanation:
        """Which terms the standard ``item`` (its facet ``role``) holds in its own text, and which only in the
        names of the groupings above it."""
        text, context = standards_document(store, item, role)
        own = self._held(text)
        missing = [t for t in self._terms if self._key(t) not in own]
        above: frozenset[str] = frozenset()
        if missing:
            above = self._headings.get(context) or self._headings.setdefault(context, self._held(context))
        return MatchExplanation(
            tuple(t.exact for t in self._terms if self._key(t) in own),
            tuple(t.exact for t in missing if self._key(t) in above),
            len(self._terms),
        )


def explain_match(
    store: GraphStore, item: ItemNode, role: str, analyzer: Analyzer, terms: Sequence[Term]
) -> MatchExplanation:
    """:meth:`MatchExplainer.explain` for one hit."""
    return MatchExplainer(analyzer, terms).explain(store, item, role)
