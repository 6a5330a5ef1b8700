"""Lexical index on tantivy (BM25, top-k), one per package and document kind.

Each document has its own text and an optional context (the names of the groupings it sits directly
under), each indexed three times: as folded words (exact forms), as lemmas (the ``*_stems`` fields) and
as roots (``search.analysis``; stop words left out of both). Words are analysed here, in Python,
exactly as queries are, and tantivy only splits on the spaces between them, so index and query can
never disagree about a word.

A query term matches a document when its lemma is in the text or the context. A word the package holds
in no form of its own is searched by its root instead (``related``: "capital" finds "Capitalize"),
which the reading of the query reports. Otherwise roots never make a match: a document matching some
of the query's terms that holds another only in a related form ("descartados" for "descarte") scores
for it as for a stem (``_ROOT_WEIGHTS``), so derivations order an "only some terms" tier and never
change a document's coverage. Ranking keys, in order, each exact and cheap to page:

1. each *leading* preference (facet terms a document has or not: a grade, a subject the query named),
   those that have it first, whatever their coverage;
2. coverage: every term matched before only some;
3. each *preference* in turn (a statement rather than a grouping), those that have it first;
4. a match in the document's own text before a *heading-only* one (no searched term's stem, nor an
   exact-only term's word, in its text: it matched through its context alone), so a statement filed
   under a heading that names the words comes after the statements that hold them, and before the
   groupings;
5. the terms found together as a phrase (in the text or the context) before apart;
6. BM25 over the fields, the statement's own text weighted above its parents' names, exact word forms
   above stem-only matches, and related forms (for a term a document does not hold) added;
7. position (file order), so equal scores always come back in the same order.

Documents are added in position order into one segment, so a document's tantivy id is its index in
that order.

A *tier* is one set of leading preferences met and one coverage; tiers are searched in key order,
each restricted to its documents by an unscored filter, until the page is full, so a page costs the
searches of the tiers it reaches (tantivy scores every document a search matches); a tier the terms'
document frequencies show empty is not searched. Keys 3 to 5 order the documents within a tier: each
is one bit of the score, a bit worth the smallest power of two above any BM25 sum the query can reach
(``_Keys``), added after the BM25 terms and read back off the hit's score exactly. A tier's core selects
its documents (every term scored there, an "only some terms" tier's scoring 0); every other scored
clause is a single term (or a constant over a heap disjunction) chained as the optional half of a
two-clause query, so a sparse tier seeks each term's skip list rather than scanning a common term's
postings, and a document is scored by the same sum, in the same order, whichever search finds it.

Counts are of whole coverage strata: the sum of the tiers' counts when every tier was searched, else
one unscored count ("only some terms" is "at least one term" less "every term", and nothing at all
when the terms' document frequencies show that each matches exactly the documents that match every
term; a term far more common than the others is counted from its frequencies, not walked). When some
terms are common, an "only some terms" tier is first ranked among the documents holding a rarer one,
and kept only when a score bound proves nothing else can enter the page (``_narrowed_page``).
"""

from __future__ import annotations

import itertools
import marshal
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import tantivy

from kgfegmcp.search.analysis import Analyzer, Term

_TEXT, _TEXT_STEMS, _CONTEXT, _CONTEXT_STEMS = "text", "text_stems", "context", "context_stems"
_TEXT_ROOTS, _CONTEXT_ROOTS = "text_roots", "context_roots"
#: Where a term's stem matches, and the weight of a match there: the statement's own text above the
#: names of the groupings it sits under. The first field is the statement's own.
_STEM_WEIGHTS = ((_TEXT_STEMS, 1.0), (_CONTEXT_STEMS, 0.5))
#: Where the exact word form adds to the score of a match (it never makes one).
_EXACT_WEIGHTS = ((_TEXT, 0.5), (_CONTEXT, 0.25))
#: Where an exact-only term (a stop word searched as typed) matches, weighted like a stem.
_EXACT_MATCH_WEIGHTS = ((_TEXT, 1.0), (_CONTEXT, 0.5))
#: Where a word's root matches, weighted like a stem: for a term searched by its related forms (a word
#: the package holds in no form of its own), and, for any other term, as a score added to a match of the
#: query's other words that holds the word in no form of its own ("descarte" and "descartados"), which
#: never makes a match nor changes its coverage, so it only orders an "only some terms" tier.
_ROOT_WEIGHTS = ((_TEXT_ROOTS, 1.0), (_CONTEXT_ROOTS, 0.5))
_TOKENIZER = "kgfegmcp_words"
_STATISTICS = "statistics.marshal"
_STATISTICS_FORMAT = 3
#: tantivy's per-thread ceiling (just under 4 GiB). The writer takes memory as documents arrive and
#: flushes a segment only when this fills, so every package up to tens of millions of items is
#: indexed as the one segment that keeps document ids in position order.
_WRITER_HEAP_BYTES = 4_000_000_000

#: How much of a query a match covers: the terms as a phrase, every term apart, only some terms.
Coverage = Literal["phrase", "all_terms", "some_terms"]
#: A row's ranking keys before its score: leading preferences missed, not every term, preferences
#: missed, heading-only, not the phrase.
Stratum = tuple[tuple[bool, ...], bool, tuple[bool, ...], bool, bool]
#: From how many positions a term set beats a union of position terms.
_TERM_SET_FROM = 128
#: tantivy's BM25 ``k1``: a term's score in a field is below its idf x (1 + k1) x the field's boost.
_BM25_K1 = 1.2
#: A term is *common* when at least this share of the documents holds it: an "only some terms" tier
#: is first ranked without the documents that match common terms alone (see ``_narrowed_page``).
_COMMON_SHARE = 1 / 16
#: A term is counted from its document frequencies when its postings are at least this many times the
#: other terms' together (then walking theirs, without it, costs less than walking the union).
_COUNTED_ALONE_FROM = 4
#: Extra hits asked beyond twice the page when a large "only some terms" tier is first ranked as one query.
_SOME_PAGE_EXTRA = 16
#: Above the relative difference two float32 sums of the same scores, added in another order, can have
#: (a query has at most 32 terms, so at most 131 addends, each sum rounding by 2**-24 at most).
_SUM_ORDER_SLACK = 2**-13
#: Relative slack on a score bound (tantivy sums float32 scores; the bound is computed in float64).
_BOUND_SLACK = 1e-3
SCORE_DECIMALS = 3  # scores are float32 sums: digits beyond these are not meaningful

_MUST, _SHOULD, _MUST_NOT = tantivy.Occur.Must, tantivy.Occur.Should, tantivy.Occur.MustNot


@dataclass(frozen=True, slots=True)
class Preference:
    """Facet terms that put a match first (within its tier, or, leading, above coverage)."""

    terms: frozenset[str]


def _forms(term: Term) -> list[tuple[tuple[str, float], str]]:
    """Where a term's own forms add to a match's score (they never make one): its exact word, and, for a
    term searched by its related forms, its lemma, so a word's own forms rank above its derivations."""
    forms = [(place, term.exact) for place in _EXACT_WEIGHTS]
    if term.by_root:
        forms += [(place, term.stem) for place in _STEM_WEIGHTS]
    return forms


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for field in (_TEXT, _TEXT_STEMS, _CONTEXT, _CONTEXT_STEMS, _TEXT_ROOTS, _CONTEXT_ROOTS):
        builder.add_text_field(field, tokenizer_name=_TOKENIZER)
    builder.add_integer_field("position", indexed=True, fast=True)
    builder.add_text_field("facet", tokenizer_name="raw")
    return builder.build()


def _register_tokenizer(index: tantivy.Index) -> None:
    """Tokenizers are not stored with an index: register ours on every index built or opened."""
    index.register_tokenizer(_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())


@dataclass(frozen=True, slots=True)
class _Keys:
    """How a tier's keys ride on its scores, one bit each: bit 0 the phrase, bit 1 a match in the
    document's own text, the bits above them the preferences (the first highest).

    A bit is worth ``unit``, the smallest power of two above every BM25 sum the query's terms can give
    one document, so the bits are read back exactly (``raw // unit``) and the BM25 part keeps float32's
    precision: a few bits above a score, never a constant thousands of times larger than it.
    """

    unit: float
    preferences: int

    def bonus(self, bit: int) -> float:
        return self.unit * (1 << bit)

    def read(self, raw: float) -> tuple[int, float]:
        """A hit's bits and its score without them."""
        bits = int(raw // self.unit)
        return bits, raw - bits * self.unit

    #: The own-text bit, just above the phrase's: below every preference.
    own_text = 1

    def preference(self, number: int) -> int:
        """The bit of the ``number``-th preference (the first highest)."""
        return self.preferences - number + 1


@dataclass(frozen=True, slots=True)
class RankedRow:
    """One match: its tier, whether it matched in its own text, which preferences it missed, the
    phrase, its score (rounded, as shown) and the exact score it is ordered by."""

    complete: bool
    unmet: tuple[bool, ...]
    phrase: bool
    position: int
    score: float
    heading_only: bool = False
    leading_unmet: tuple[bool, ...] = ()
    #: The score unrounded: two scores that round alike still keep tantivy's order between them, so
    #: a longer page never reorders a shorter one's rows.
    rank_score: float = 0.0

    @property
    def coverage(self) -> Coverage:
        """The phrase, every term, or only some."""
        return "phrase" if self.phrase else ("all_terms" if self.complete else "some_terms")

    def stratum(self) -> Stratum:
        """The keys before the score: leading preferences, every term, own text, preferences, phrase."""
        return (self.leading_unmet, not self.complete, self.unmet, self.heading_only, not self.phrase)

    def key(self) -> tuple[Stratum, float, int]:
        """Ranking order: the stratum's keys, then score, then position."""
        return (self.stratum(), -self.rank_score, self.position)


@dataclass(frozen=True, slots=True)
class RankedPage:
    """The best rows (at most the limit asked) and how many documents matched every term, or some."""

    rows: list[RankedRow]
    all_terms: int
    some_terms: int


def _one_of(queries: Sequence[tantivy.Query]) -> tantivy.Query:
    """Documents matching any of ``queries`` (scores meaningless): a heap disjunction, which seeks each
    query's skip list where a union would scan its postings."""
    if len(queries) == 1:
        return queries[0]
    return tantivy.Query.disjunction_max_query(list(queries), 0.0)


def _facet_group(schema: tantivy.Schema, terms: Iterable[str]) -> tantivy.Query:
    """Any of ``terms`` in the facet field (scores meaningless)."""
    return _one_of([tantivy.Query.term_query(schema, "facet", t) for t in sorted(terms)])


def _unscored(query: tantivy.Query) -> tantivy.Query:
    """The documents ``query`` matches, each scoring exactly 0 (its clauses are never scored)."""
    return tantivy.Query.const_score_query(query, 0.0)


def _chained(core: tantivy.Query, links: Sequence[tantivy.Query]) -> tantivy.Query:
    """``core``'s documents, scored by the sum of the ``links`` each matches, added in order.

    Each link is the optional half of a query of two clauses, so it is sought document by document
    through its own skip list (several optional clauses of one query would be one union, which scans
    a common term's postings whole), and a document's score is the same float32 sum whichever core
    selects it.
    """
    query = core
    for link in links:
        query = tantivy.Query.boolean_query([(_MUST, query), (_SHOULD, link)])
    return query


def _analysed(analyzer: Analyzer, text: str) -> tuple[str, str, str]:
    """A text's three indexed forms: its folded words, their lemmas and their roots."""
    terms = analyzer.terms(text)
    return (
        " ".join(analyzer.words(text)),
        " ".join(t.stem for t in terms),
        " ".join(t.root for t in terms if t.root),
    )


class TextIndex:
    """Documents are (position, text[, context[, facet terms]]); ranked by tiers, BM25 and position.

    Facet terms are exact strings (a grade label, a statement type, a role, …) that filters require
    and preferences order by without affecting the score, so a filtered page costs what an unfiltered
    one does. An index lives in memory, or in a directory (the derived-index cache) from which
    :meth:`open` serves it again.
    """

    def __init__(self, index: tantivy.Index, positions: list[int]) -> None:
        _register_tokenizer(index)
        index.reload()
        self._schema = index.schema
        self._searcher = index.searcher()
        if positions and self._searcher.num_segments != 1:
            raise ValueError("a text index must be one segment so document ids follow positions")
        if self._searcher.num_docs != len(positions):
            raise ValueError("a text index must hold one document per position")
        self._positions = positions
        self._aggregates = hasattr(self._searcher, "aggregate")  # not in every tantivy-py release allowed

    @classmethod
    def build(
        cls, documents: Iterable[Sequence[object]], analyzer: Analyzer, directory: Path | None = None
    ) -> TextIndex:
        """Index ``documents`` in memory, or into the empty ``directory`` (then :meth:`open` serves it)."""
        index = tantivy.Index(_schema(), path=None if directory is None else str(directory), reuse=False)
        _register_tokenizer(index)
        writer = index.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        positions: list[int] = []
        # Siblings share their context (the groupings above them): each distinct context is analysed once per
        # build. Only contexts are kept, which number the groupings; a statement's own text is nearly always its own.
        contexts: dict[str, tuple[str, str, str]] = {}
        for document in documents:
            position, text, *rest = document
            assert isinstance(position, int)
            facets = sorted(str(term) for term in rest[1]) if len(rest) > 1 else []  # type: ignore[attr-defined]
            context = str(rest[0]) if rest else ""
            above = contexts.get(context)
            if above is None:
                above = contexts[context] = _analysed(analyzer, context)
            own = _analysed(analyzer, str(text))
            writer.add_document(
                tantivy.Document(
                    text=own[0],
                    text_stems=own[1],
                    text_roots=own[2],
                    context=above[0],
                    context_stems=above[1],
                    context_roots=above[2],
                    position=position,
                    facet=facets,
                )
            )
            positions.append(position)
        writer.commit()
        writer.wait_merging_threads()
        if directory is not None:
            (directory / _STATISTICS).write_bytes(marshal.dumps((_STATISTICS_FORMAT, positions)))
        return cls(index, positions)

    @classmethod
    def open(cls, directory: Path) -> TextIndex:
        """Serve an index :meth:`build` wrote into ``directory``; ``ValueError`` when it is not one.

        The caller vouches for the directory's bytes (the derived-index cache checks every file's
        SHA-256 against its ledger first): marshal, like the index files, is not for untrusted input.
        """
        try:
            format_, positions = marshal.loads((directory / _STATISTICS).read_bytes())
        except (OSError, EOFError, TypeError, ValueError) as exc:
            raise ValueError(f"text index statistics unreadable: {type(exc).__name__}") from None
        if format_ != _STATISTICS_FORMAT or not isinstance(positions, list):
            raise ValueError("text index statistics have another format")
        return cls(tantivy.Index.open(str(directory)), positions)

    @property
    def documents(self) -> int:
        """Indexed documents."""
        return len(self._positions)

    # -- queries --------------------------------------------------------------------------------

    def _term(self, term: Term) -> tantivy.Query:
        """One query term: its stem in the text or the context (its folded form, for an exact-only term)."""
        fields, word = self._match_on(term)
        return tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.boost_query(tantivy.Query.term_query(self._schema, f, word), w))
                for f, w in fields
            ]
        )

    def _phrase(self, terms: Sequence[Term]) -> tantivy.Query:
        """The terms in order, next to one another, in the text or in the context (scores meaningless)."""
        exact = any(t.exact_only for t in terms)
        words: list[str | tuple[int, str]] = [t.exact if exact else t.stem for t in terms]
        fields = (field for field, _ in (_EXACT_MATCH_WEIGHTS if exact else _STEM_WEIGHTS))
        return _one_of([tantivy.Query.phrase_query(self._schema, field, words) for field in fields])

    @staticmethod
    def _every(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in clauses])

    @staticmethod
    def _any(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])

    def _with(self, query: tantivy.Query, required: Sequence[frozenset[str]]) -> tantivy.Query:
        """``query`` restricted to documents holding one term of each required facet group."""
        if not required:
            return query
        groups = [(tantivy.Occur.Must, _facet_group(self._schema, group)) for group in required]
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, query), *groups])

    @staticmethod
    def _matched(result: tantivy.SearchResult) -> int:
        return int(getattr(result, "count", 0) or 0)

    def _count(self, query: tantivy.Query) -> int:
        """Documents matching ``query``, unscored: an aggregation over the position column where the
        binding has one (a search always scores every match to rank it), else a search's count."""
        if self._aggregates:
            found = self._searcher.aggregate(query, {"n": {"value_count": {"field": "position"}}})
            return int(found["n"]["value"])
        return self._matched(self._searcher.search(query, 1, count=True))

    # Counting queries: the same document sets as the ranking queries, without their scores (the
    # field weights, exact forms and bonuses only order matches and never add one).

    @staticmethod
    def _match_on(term: Term) -> tuple[tuple[tuple[str, float], ...], str]:
        """The fields a term matches in (with their weights; the statement's own text first) and the
        word it matches there."""
        if term.exact_only:
            return _EXACT_MATCH_WEIGHTS, term.exact
        if term.by_root:
            return _ROOT_WEIGHTS, term.root
        return _STEM_WEIGHTS, term.stem

    def _bare(self, term: Term) -> tantivy.Query:
        """The documents :meth:`_term` matches, unscored."""
        fields, word = self._match_on(term)
        return self._any([tantivy.Query.term_query(self._schema, field, word) for field, _ in fields])

    def _bare_any(self, terms: Sequence[Term]) -> tantivy.Query:
        """The documents matching at least one term: one flat union of term postings."""
        return self._any(
            [
                tantivy.Query.term_query(self._schema, field, word)
                for fields, word in map(self._match_on, terms)
                for field, _ in fields
            ]
        )

    def _count_every(self, terms: Sequence[Term], required: Sequence[frozenset[str]]) -> int:
        return self._count(self._with(self._every([self._bare(t) for t in terms]), required))

    def _count_any(self, terms: Sequence[Term], required: Sequence[frozenset[str]]) -> int:
        """Documents matching at least one term.

        Unfiltered, when one term is far more common than the others together, its documents are
        counted from its document frequencies (exact: an index is built in one commit and never
        deletes), and only the others' documents without it are visited: a common term (a code's
        prefix, held by nearly every statement) is never walked whole.
        """
        common = max(terms, key=self._postings)
        rest = [t for t in terms if t is not common]
        if required or not rest or sum(map(self._postings, rest)) * _COUNTED_ALONE_FROM > self._postings(common):
            return self._count(self._with(self._bare_any(terms), required))
        fields, word = self._match_on(common)
        postings = [tantivy.Query.term_query(self._schema, field, word) for field, _ in fields]
        held = [self._searcher.doc_freq(field, word) for field, _ in fields]
        alone = sum(held)
        if all(held):  # in both fields: those holding it in both are counted once
            alone -= self._count(self._every(postings))
        without = tantivy.Query.boolean_query([(_MUST, self._bare_any(rest)), (_MUST_NOT, _one_of(postings))])
        return alone + self._count(without)

    def _none_some(self, terms: Sequence[Term], every: int) -> bool:
        """Whether no document can match only some of ``terms``, given that at least ``every`` match
        all of them: each term's documents include those, and its postings' document frequencies
        (summed over its fields) bound how many it has, so a term whose bound is ``every`` has exactly
        those. Costs a dictionary lookup per term and field."""
        return len(terms) < 2 or all(self._postings(term) <= every for term in terms)

    def _count_some(self, terms: Sequence[Term], required: Sequence[frozenset[str]], every: int) -> int:
        """Documents matching only some terms, given how many match ``every`` term."""
        if self._none_some(terms, every):
            return 0
        return self._count_any(terms, required) - every

    def absent(self, terms: Sequence[Term]) -> tuple[str, ...]:
        """The terms (folded, as searched) no document holds where they would match: they can match nothing here.

        Read from the terms' document frequencies, so it costs a dictionary lookup per term and field.
        """
        return tuple(term.exact for term in terms if not self._postings(term))

    def related(self, terms: Sequence[Term]) -> tuple[str, ...]:
        """The terms (folded, as searched) no document holds in any form of their own, whose related
        forms (their root: derivations such as capitalize for capital) some document holds."""
        return tuple(term.exact for term in terms if not self._postings(term) and self._root_reaches_further(term))

    def words_with_prefix(self, prefix: str) -> list[tuple[str, int]]:
        """The folded words of the documents' own text that begin with ``prefix``, each with how many
        documents hold it, most held first, then alphabetically: a walk of the term dictionary only."""
        return self._searcher.terms_with_prefix(_TEXT, prefix)

    def roots_reach_further(self, terms: Sequence[Term]) -> bool:
        """Whether searching ``terms`` by their roots can find a document their own forms do not."""
        return any(self._root_reaches_further(term) for term in terms)

    def _root_reaches_further(self, term: Term) -> bool:
        """Whether a term's root is held by more documents than the term (each holding the word holds its
        root): else no document holds a related form without the word. Dictionary lookups only."""
        if not term.root or term.exact_only:
            return False
        return sum(self._searcher.doc_freq(field, term.root) for field, _ in _ROOT_WEIGHTS) > self._postings(term)

    def _adds_related(self, term: Term) -> bool:
        """Whether a term's related forms score where it is missing: not for one searched by its root (they
        match it), and only where some document holds them without it (a clause that can match nothing
        would still walk a common root's postings)."""
        return not term.by_root and self._root_reaches_further(term)

    def own_text_bound(self, terms: Sequence[Term]) -> int:
        """An upper bound of the documents holding a term in their own text: a dictionary lookup per term."""
        return sum(self._searcher.doc_freq(fields[0][0], word) for fields, word in map(self._match_on, terms))

    def _postings(self, term: Term) -> int:
        """An upper bound of the documents a term matches: its document frequency in each field, summed."""
        fields, word = self._match_on(term)
        return sum(self._searcher.doc_freq(field, word) for field, _ in fields)

    # -- ranking --------------------------------------------------------------------------------

    def _postings_of(self, terms: Sequence[Term]) -> list[tantivy.Query]:
        """One term query per term and field it matches in (scores meaningless)."""
        return [
            tantivy.Query.term_query(self._schema, field, word)
            for fields, word in map(self._match_on, terms)
            for field, _ in fields
        ]

    def _core(
        self,
        terms: Sequence[Term],
        complete: bool,
        filters: Sequence[tuple[tantivy.Occur, tantivy.Query]],
        within: Sequence[Term] | None = None,
    ) -> tantivy.Query:
        """The documents of one tier, restricted by the facet ``filters`` (which score nothing), and the
        score they start from.

        Every term: their BM25 in each field they match in, summed by tantivy's union and intersection
        of them (every one is walked anyway, so scoring it there costs no seek). Only some terms (of
        which one of ``within``, when given): 0, the terms' scores being links (``_links``) sought only
        for the documents the core selects.
        """
        if complete:
            scored = tantivy.Query.boolean_query([(_MUST, self._term(t)) for t in terms])
            if not filters:
                return scored
            # The filters beside the terms' intersection, not in it: they add exactly 0 to its score.
            return tantivy.Query.boolean_query([(_MUST, scored), *((o, _unscored(q)) for o, q in filters)])
        every = [(_MUST, _one_of(self._postings_of([t]))) for t in terms]
        related = [
            tantivy.Query.term_query(self._schema, field, t.root)
            for t in within or ()
            if self._adds_related(t)
            for field, _ in _ROOT_WEIGHTS
        ]
        if within is None:
            clauses = [(_MUST, _one_of(self._postings_of(terms)))]
        elif not related:  # a document holding one of ``within`` matches a term: nothing else to require
            clauses = [(_MUST, _one_of(self._postings_of(within)))]
        else:  # a document holding a related form of one of ``within`` scores for it: it is among them
            clauses = [(_MUST, _one_of(self._postings_of(terms)))]
            clauses.append((_MUST, _one_of([*self._postings_of(within), *related])))
        clauses.append((_MUST_NOT, tantivy.Query.boolean_query(every)))
        return _unscored(tantivy.Query.boolean_query([*clauses, *filters]))

    def _keys(self, terms: Sequence[Term], preferences: Sequence[Preference]) -> _Keys:
        """The unit of a query's key bits: a power of two above the sum of its terms' score bounds."""
        bound = sum(map(self._score_bound, terms)) * (1 + _BOUND_SLACK) + _BOUND_SLACK
        return _Keys(2.0 ** math.ceil(math.log2(bound)), len(preferences))

    def _links(
        self, terms: Sequence[Term], preferences: Sequence[Preference], complete: bool, keys: _Keys
    ) -> list[tantivy.Query]:
        """The scored clauses of a tier after its core, in the order their scores are added: each term's
        BM25 in each field it matches in (an "only some terms" tier's: the complete ones' core has
        them), its own forms' (``_forms``), then the bonuses (own text, each preference, the phrase of
        several)."""
        schema = self._schema
        links = []
        for term in terms if not complete else ():
            fields, word = self._match_on(term)
            for field, weight in fields:
                links.append(tantivy.Query.boost_query(tantivy.Query.term_query(schema, field, word), weight))
        for term in terms:
            for (field, weight), form in _forms(term):
                links.append(tantivy.Query.boost_query(tantivy.Query.term_query(schema, field, form), weight))
        for term in terms if not complete else ():  # a complete tier's documents hold every term
            if self._adds_related(term):
                held = _one_of([tantivy.Query.term_query(schema, field, term.stem) for field, _ in _STEM_WEIGHTS])
                for field, weight in _ROOT_WEIGHTS:
                    root = tantivy.Query.boost_query(tantivy.Query.term_query(schema, field, term.root), weight)
                    links.append(tantivy.Query.boolean_query([(_MUST, root), (_MUST_NOT, held)]))
        own = [tantivy.Query.term_query(schema, fields[0][0], word) for fields, word in map(self._match_on, terms)]
        links.append(tantivy.Query.const_score_query(_one_of(own), keys.bonus(keys.own_text)))
        for number, preference in enumerate(preferences):
            bonus = keys.bonus(keys.preference(number))
            links.append(tantivy.Query.const_score_query(_facet_group(schema, preference.terms), bonus))
        if complete and len(terms) > 1 and not any(t.by_root for t in terms):
            links.append(tantivy.Query.const_score_query(self._phrase(terms), keys.bonus(0)))
        return links

    def ranked(
        self,
        terms: Sequence[Term],
        limit: int | None = None,
        required: Sequence[frozenset[str]] = (),
        preferences: Sequence[Preference] = (),
        leading: Sequence[Preference] = (),
    ) -> RankedPage:
        """The best ``limit`` rows (all when ``None``) in key order, and the counts of each coverage.

        ``required`` lists facet groups a match must satisfy (one term of each). ``leading``
        preferences order matches above coverage, ``preferences`` within it (below the own-text key),
        those meeting the first before the others, and so on. One search per tier the page reaches,
        tiers in key order; a tier's bonuses are taken off again, exactly, for the row's score.
        """
        if not terms:
            return RankedPage([], 0, 0)
        # Never more rows than documents: tantivy allocates room for every row asked before searching.
        wanted = len(self._positions) if limit is None else min(limit, len(self._positions))
        coverages = (True, False) if len(terms) > 1 else (True,)
        keys = self._keys(terms, preferences)
        links = {c: self._links(terms, preferences, c, keys) for c in coverages}
        base = [(_MUST, _facet_group(self._schema, group)) for group in required]
        rows: list[RankedRow] = []
        counted = dict.fromkeys(coverages, 0)  # matches the tiers' searches counted
        whole = dict.fromkeys(coverages, True)  # whether those are every match of the coverage
        empty = {True: any(not self._postings(t) for t in terms), False: False}
        for missed in itertools.product((False, True), repeat=len(leading)):
            filters = base + [
                (_MUST_NOT if miss else _MUST, _facet_group(self._schema, p.terms))
                for p, miss in zip(leading, missed, strict=True)
            ]
            for complete in coverages:
                if empty[complete] or (not complete and self._none_some(terms, counted[True])):
                    continue  # no document in this coverage at all: nothing to search or count
                if len(rows) >= wanted:  # the page is full: this tier is only counted, with its stratum
                    whole[complete] = False
                    continue
                room = wanted - len(rows)
                hits = None if complete else self._narrowed_page(terms, filters, links[False], room, keys)
                if hits is not None:
                    whole[complete] = False
                elif complete:
                    query = _chained(self._core(terms, complete, filters), links[complete])
                    found = self._searcher.search(query, room, count=True)
                    counted[complete] += self._matched(found)
                    hits = found.hits
                else:
                    hits, matched = self._some_page(self._core(terms, complete, filters), links[complete], room)
                    counted[complete] += matched
                for raw, address in hits[:room]:
                    rows.append(self._row(raw, address.doc, complete, keys, missed))
        every = counted[True] if whole[True] else self._count_every(terms, required)
        some = 0
        if len(coverages) > 1:
            some = counted[False] if whole[False] else self._count_some(terms, required, every)
        rows.sort(key=RankedRow.key)
        return RankedPage(rows, every, some)

    def _row(self, raw: float, doc: int, complete: bool, keys: _Keys, missed: tuple[bool, ...]) -> RankedRow:
        """A hit of a tier as a row: its keys read off its score's bits above BM25, then taken off."""
        bits, score = keys.read(raw)
        unmet = tuple(not bits >> keys.preference(number) & 1 for number in range(keys.preferences))
        return RankedRow(
            complete,
            unmet,
            bool(bits & 1),
            self._positions[doc],
            round(score, SCORE_DECIMALS),
            heading_only=not bits >> keys.own_text & 1,
            leading_unmet=missed,
            rank_score=score,
        )

    def _some_page(
        self, core: tantivy.Query, links: Sequence[tantivy.Query], limit: int
    ) -> tuple[list[tuple[float, tantivy.DocAddress]], int]:
        """The best ``limit`` hits of a whole "only some terms" tier, scored as the chain scores them,
        and how many documents it holds.

        Such a tier is mostly documents holding common terms only, so it is first ranked as one
        query with the links as optional clauses, which tantivy walks together (for a large tier, a
        few times faster than seeking each link per document); that sums the same scores in another
        order, so they may differ in their last bits. The hits found are scored again by the chain,
        and kept when the last one kept still scores above every document not found (whose first
        score is at most the last found's, and differs from its chained one by less than
        ``_SUM_ORDER_SLACK``); else more are asked, then the chain ranks the whole tier.
        """
        flat = tantivy.Query.boolean_query([(_MUST, core), *((_SHOULD, link) for link in links)])
        asked = min(2 * limit + _SOME_PAGE_EXTRA, len(self._positions))  # tantivy allocates for every row asked
        for _ in range(2):
            found = self._searcher.search(flat, asked, count=True)
            matched, candidates = self._matched(found), found.hits
            chained = self._rescored(core, links, [address.doc for _, address in candidates])
            if len(candidates) >= matched:
                return chained[:limit], matched  # every document of the tier was found
            floor = float(candidates[-1][0])
            if len(chained) >= limit and float(chained[limit - 1][0]) > floor + abs(floor) * _SUM_ORDER_SLACK:
                return chained[:limit], matched
            asked = min(asked * 8, len(self._positions))
        found = self._searcher.search(_chained(core, links), limit, count=True)
        return found.hits, self._matched(found)

    def _rescored(
        self, core: tantivy.Query, links: Sequence[tantivy.Query], docs: Sequence[int]
    ) -> list[tuple[float, tantivy.DocAddress]]:
        """The documents ``docs`` (tantivy ids) of a tier, scored by its chain, best first (ties by id)."""
        if not docs:
            return []
        positions = sorted(self._positions[doc] for doc in docs)
        selected = tantivy.Query.boolean_query([(_MUST, core), (_MUST, _unscored(self._at(positions)))])
        return list(self._searcher.search(_chained(selected, links), len(docs), count=False).hits)

    def _narrowed_page(
        self,
        terms: Sequence[Term],
        filters: Sequence[tuple[tantivy.Occur, tantivy.Query]],
        links: Sequence[tantivy.Query],
        limit: int,
        keys: _Keys,
    ) -> list[tuple[float, tantivy.DocAddress]] | None:
        """The best ``limit`` hits of an "only some terms" tier, without scoring every match; or
        ``None`` when that cannot be shown (then the caller ranks them all).

        When some terms are common (held by a large share of the documents), the documents matching
        only common terms are most of the tier, and each scores at most the sum of those terms'
        score bounds (BM25 stays below idf x (1 + k1) per field and boost). So the tier is first
        ranked among the documents that match a rarer term or hold its related forms (for which a
        document scores without matching it); when that fills the page with rows that
        have every bonus of the tier (own text, each preference) and score above the bound, no other
        document can enter it, and the page is exactly the one ranking the whole tier gives (ties
        included: the bound is strict, and a document scores the same sum in either search).
        """
        every = len(self._positions)
        common = [t for t in terms if self._postings(t) >= every * _COMMON_SHARE]
        rare = [t for t in terms if self._postings(t) < every * _COMMON_SHARE]
        if not common or not rare or limit <= 0:
            return None
        bound = sum(map(self._score_bound, common)) * (1 + _BOUND_SLACK) + _BOUND_SLACK
        core = self._core(terms, False, filters, within=rare)
        hits = self._searcher.search(_chained(core, links), limit, count=False).hits
        if len(hits) < limit:
            return None
        bits, score = keys.read(float(hits[-1][0]))
        if bits >> 1 != (1 << (keys.preferences + 1)) - 1:  # bit 0, the phrase's, is never an "only some" tier's
            return None
        if score <= bound:
            return None
        return list(hits)

    def _score_bound(self, term: Term) -> float:
        """Above any score the term's clauses (its match, its own forms, its related forms) can give a
        document."""
        fields, word = self._match_on(term)
        every = len(self._positions)
        total = 0.0
        clauses = [*((f, word) for f in fields), *_forms(term)]
        if self._adds_related(term):
            clauses += [(place, term.root) for place in _ROOT_WEIGHTS]
        for (field, weight), form in clauses:
            frequency = self._searcher.doc_freq(field, form)
            if frequency:
                total += weight * (1 + _BM25_K1) * math.log(1 + (every - frequency + 0.5) / (frequency + 0.5))
        return total

    def matching_positions(self, terms: Sequence[Term]) -> set[int]:
        """Positions matching at least one term, for filters that need the whole set."""
        if not terms:
            return set()
        found = self._searcher.search(self._any([self._term(t) for t in terms]), len(self._positions) or 1)
        return {self._positions[address.doc] for _, address in found.hits}

    def coverage_counts(
        self, terms: Sequence[Term], positions: Iterable[int], required: Sequence[frozenset[str]] = ()
    ) -> tuple[int, int]:
        """How many of the documents at ``positions`` match every term, and how many only some.

        Each position counts as often as it is listed. Distinct positions (code hits, the usual
        case) take one count over all of them, and a second only when some do not match every term.
        """
        listed = list(positions)
        if not terms or not listed:
            return 0, 0
        every_of = self._with(self._every([self._bare(t) for t in terms]), required)
        any_of = self._with(self._bare_any(terms), required)
        distinct = sorted(set(listed))
        if len(distinct) == len(listed):
            at = self._at(distinct)
            every = self._count_few(self._every([every_of, at]))
            if every == len(distinct):
                return every, 0
            return every, self._count_few(self._every([any_of, at])) - every
        every = some = 0
        for position in listed:
            at = self._at([position])
            if self._count_few(self._every([every_of, at])):
                every += 1
            elif self._count_few(self._every([any_of, at])):
                some += 1
        return every, some

    def _at(self, positions: Sequence[int]) -> tantivy.Query:
        """The documents at ``positions``: a union of their terms (a term set walks the dictionary)."""
        if len(positions) > _TERM_SET_FROM:
            return tantivy.Query.term_set_query(self._schema, "position", list(positions))
        return self._any([tantivy.Query.term_query(self._schema, "position", p) for p in positions])

    def _count_few(self, query: tantivy.Query) -> int:
        """Documents matching ``query``, when they are few (scoring them costs less than aggregating)."""
        return self._matched(self._searcher.search(query, 1, count=True))
