"""Lexical index on tantivy (BM25, top-k with pruning), one per package and document kind.

Each document has its own text and an optional context (the names of the groupings it sits directly
under), each indexed twice: as folded words (exact forms) and as stems (``search.analysis``, stop words
left out). Words are analysed here, in Python, exactly as queries are, and tantivy only splits on the
spaces between them, so index and query can never disagree about a word.

A query term matches a document when its stem is in the text or the context. Ranking follows the
strata of established lexical engines, each exact and cheap to page:

1. coverage: every term matched before only some;
2. then each *preference* in turn (facet terms a document has or not: a statement rather than a
   grouping, a grade the query named), those that have it first;
3. then the terms found together as a phrase (in the text or the context) before apart;
4. then BM25 over the four fields, the statement's own text weighted above its parents' names and
   exact word forms above stem-only matches;
5. then position (file order), so equal scores always come back in the same order.

Documents are added in position order into one segment, so a document's tantivy id is its index in
that order.

Each stratum that can reach the page is one search of the ranking query (its count comes with it);
those searches are what a page costs, since tantivy scores every document a search matches. A
stratum past a full page is only counted, with an unscored query of the same documents: "only
some terms" is "at least one term" less "every term", and nothing at all when the terms' document
frequencies show that each matches exactly the documents that match every term. When some terms are
common, "only some terms" is first ranked among the documents holding a rarer one, and the whole
stratum only counted when a score bound proves nothing else can enter the page (``_some_page``).
"""

from __future__ import annotations

import marshal
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import tantivy

from kgfegmcp.search.analysis import Analyzer, Term

_TEXT, _TEXT_STEMS, _CONTEXT, _CONTEXT_STEMS = "text", "text_stems", "context", "context_stems"
#: Where a term's stem matches, and the weight of a match there: the statement's own text above the
#: names of the groupings it sits under.
_STEM_WEIGHTS = ((_TEXT_STEMS, 1.0), (_CONTEXT_STEMS, 0.5))
#: Where the exact word form adds to the score of a match (it never makes one).
_EXACT_WEIGHTS = ((_TEXT, 0.5), (_CONTEXT, 0.25))
#: Where an exact-only term (a stop word searched as typed) matches, weighted like a stem.
_EXACT_MATCH_WEIGHTS = ((_TEXT, 1.0), (_CONTEXT, 0.5))
_TOKENIZER = "kgfegmcp_words"
_STATISTICS = "statistics.marshal"
_STATISTICS_FORMAT = 2
#: tantivy's per-thread ceiling (just under 4 GiB). The writer takes memory as documents arrive and
#: flushes a segment only when this fills, so every package up to tens of millions of items is
#: indexed as the one segment that keeps document ids in position order.
_WRITER_HEAP_BYTES = 4_000_000_000

#: How much of a query a match covers: the terms as a phrase, every term apart, only some terms.
Coverage = Literal["phrase", "all_terms", "some_terms"]
#: What meeting the last preference adds to a score (the one before it twice that, and so on). Far
#: above any BM25 score here: a term scores at most about ln(documents) x 2.2 x the field weights'
#: sum (under 70 for a million documents), and a query has at most 32 terms.
_PREFERENCE_UNIT = 10_000.0
#: From how many positions a term set beats a union of position terms.
_TERM_SET_FROM = 128
#: tantivy's BM25 ``k1``: a term's score in a field is below its idf x (1 + k1) x the field's boost.
_BM25_K1 = 1.2
#: A term is *common* when at least this share of the documents holds it: the "only some terms"
#: stratum is first ranked without the documents that match common terms alone (see ``_some_page``).
_COMMON_SHARE = 1 / 16
#: Relative slack on a score bound (tantivy sums float32 scores; the bound is computed in float64).
_BOUND_SLACK = 1e-3
SCORE_DECIMALS = 3  # scores are float32 sums: digits beyond these are not meaningful


@dataclass(frozen=True, slots=True)
class Preference:
    """Facet terms that put a match first within its coverage stratum, and who has them."""

    terms: frozenset[str]
    met: Callable[[int], bool]


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for field in (_TEXT, _TEXT_STEMS, _CONTEXT, _CONTEXT_STEMS):
        builder.add_text_field(field, tokenizer_name=_TOKENIZER)
    builder.add_integer_field("position", indexed=True, fast=True)
    builder.add_text_field("facet", tokenizer_name="raw")
    return builder.build()


def _register_tokenizer(index: tantivy.Index) -> None:
    """Tokenizers are not stored with an index: register ours on every index built or opened."""
    index.register_tokenizer(_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())


@dataclass(frozen=True, slots=True)
class RankedRow:
    """One match: whether it matched every term, which preferences it missed, the phrase, its score."""

    complete: bool
    unmet: tuple[bool, ...]
    phrase: bool
    position: int
    score: float

    @property
    def coverage(self) -> Coverage:
        """The phrase, every term, or only some."""
        return "phrase" if self.phrase else ("all_terms" if self.complete else "some_terms")

    def key(self) -> tuple[bool, tuple[bool, ...], bool, float, int]:
        """Ranking order: every term, then each preference, then the phrase, then score, then position."""
        return (not self.complete, self.unmet, not self.phrase, -self.score, self.position)


@dataclass(frozen=True, slots=True)
class RankedPage:
    """The best rows (at most the limit asked) and how many documents matched every term, or some."""

    rows: list[RankedRow]
    all_terms: int
    some_terms: int


def _facet_group(schema: tantivy.Schema, terms: Iterable[str]) -> tantivy.Query:
    """Any of ``terms`` in the facet field, scoring nothing."""
    clauses = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "facet", t)) for t in sorted(terms)]
    return tantivy.Query.boost_query(tantivy.Query.boolean_query(clauses), 0.0)


class TextIndex:
    """Documents are (position, text[, context[, facet terms]]); ranked by strata, BM25 and position.

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
        for document in documents:
            position, text, *rest = document
            assert isinstance(position, int)
            context = str(rest[0]) if rest else ""
            facets = sorted(str(term) for term in rest[1]) if len(rest) > 1 else []  # type: ignore[attr-defined]
            writer.add_document(
                tantivy.Document(
                    text=" ".join(analyzer.words(str(text))),
                    text_stems=" ".join(t.stem for t in analyzer.terms(str(text))),
                    context=" ".join(analyzer.words(context)),
                    context_stems=" ".join(t.stem for t in analyzer.terms(context)),
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

    def _exact_forms(self, terms: Sequence[Term]) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """Optional clauses: a word found in the very form typed scores above a stem-only match."""
        return [
            (tantivy.Occur.Should, tantivy.Query.boost_query(tantivy.Query.term_query(self._schema, f, t.exact), w))
            for t in terms
            for f, w in _EXACT_WEIGHTS
        ]

    def _phrase(self, terms: Sequence[Term]) -> tantivy.Query:
        exact = any(t.exact_only for t in terms)
        words: list[str | tuple[int, str]] = [t.exact if exact else t.stem for t in terms]
        fields = (field for field, _ in (_EXACT_MATCH_WEIGHTS if exact else _STEM_WEIGHTS))
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.phrase_query(self._schema, field, words)) for field in fields]
        )

    @staticmethod
    def _every(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in clauses])

    @staticmethod
    def _any(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])

    def _coverage(self, clauses: Sequence[tantivy.Query]) -> dict[bool, tantivy.Query]:
        """The query of each coverage stratum: every term matched, then (several terms) only some."""
        every = self._every(clauses)
        if len(clauses) == 1:
            return {True: every}
        some = tantivy.Query.boolean_query([(tantivy.Occur.Must, self._any(clauses)), (tantivy.Occur.MustNot, every)])
        return {True: every, False: some}

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

    # Counting queries: the same document sets as the ranking queries, without their scores (boosts,
    # preference constants, exact forms, the phrase), which only order matches and never add one.

    @staticmethod
    def _match_on(term: Term) -> tuple[tuple[tuple[str, float], ...], str]:
        """The fields a term matches in (with their weights) and the word it matches there."""
        if term.exact_only:
            return _EXACT_MATCH_WEIGHTS, term.exact
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
        return self._count(self._with(self._bare_any(terms), required))

    def _count_some(self, terms: Sequence[Term], required: Sequence[frozenset[str]], every: int) -> int:
        """Documents matching only some terms, given how many match ``every`` term.

        No counting at all when no term can be in more documents than all of them are: each term's
        documents include those ``every`` counts, and its postings' document frequencies (summed over
        its fields) bound how many it has, so a term whose bound is ``every`` has exactly those.
        """
        if all(self._postings(term) <= every for term in terms):
            return 0
        return self._count_any(terms, required) - every

    def absent(self, terms: Sequence[Term]) -> tuple[str, ...]:
        """The terms (folded, as searched) no document holds where they would match: they can match nothing here.

        Read from the terms' document frequencies, so it costs a dictionary lookup per term and field.
        """
        return tuple(term.exact for term in terms if not self._postings(term))

    def _postings(self, term: Term) -> int:
        """An upper bound of the documents a term matches: its document frequency in each field, summed."""
        fields, word = self._match_on(term)
        return sum(self._searcher.doc_freq(field, word) for field, _ in fields)

    def ranked(
        self,
        terms: Sequence[Term],
        limit: int | None = None,
        required: Sequence[frozenset[str]] = (),
        preferences: Sequence[Preference] = (),
    ) -> RankedPage:
        """The best ``limit`` rows (all when ``None``) in stratum, score, position order, and the counts.

        ``required`` lists facet groups a match must satisfy (one term of each). ``preferences`` order
        matches within a coverage stratum, those meeting the first before the others, and so on. One
        search per coverage stratum: a preference adds a constant above any BM25 score, and is taken
        off again, exactly, for the row's reported score.
        """
        if not terms:
            return RankedPage([], 0, 0)
        clauses = [self._term(t) for t in terms]
        bonuses = [
            (preference, _PREFERENCE_UNIT * 2 ** (len(preferences) - number))
            for number, preference in enumerate(preferences)
        ]
        boosts = [
            (tantivy.Occur.Should, tantivy.Query.const_score_query(_facet_group(self._schema, p.terms), bonus))
            for p, bonus in bonuses
        ] + self._exact_forms(terms)
        rows: list[RankedRow] = []
        counts: dict[bool, int] = {}
        # Never more rows than documents: tantivy allocates room for every row asked before searching.
        wanted = len(self._positions) if limit is None else min(limit, len(self._positions))
        for complete, query in self._coverage(clauses).items():
            if len(rows) >= wanted:  # the page is full: this stratum is only counted, unscored
                # "Only some" is "at least one" less "every one", which the search before counted.
                counts[complete] = (
                    self._count_every(terms, required) if complete else self._count_some(terms, required, counts[True])
                )
                continue
            phrase = (
                [(tantivy.Occur.Should, tantivy.Query.const_score_query(self._phrase(terms), _PREFERENCE_UNIT))]
                if complete and len(terms) > 1
                else []
            )
            ranking = [(tantivy.Occur.Must, self._with(query, required)), *boosts, *phrase]
            hits = None if complete else self._some_page(terms, ranking, wanted - len(rows), preferences)
            if hits is None:
                found = self._searcher.search(tantivy.Query.boolean_query(ranking), wanted - len(rows), count=True)
                counts[complete] = self._matched(found)
                hits = found.hits
            else:
                counts[complete] = self._count_some(terms, required, counts[True])
            for raw, address in hits[: wanted - len(rows)]:
                position = self._positions[address.doc]
                met = [p.met(position) for p, _ in bonuses]
                score = raw - sum(bonus for (_, bonus), yes in zip(bonuses, met, strict=True) if yes)
                in_phrase = bool(phrase) and score >= _PREFERENCE_UNIT
                score -= _PREFERENCE_UNIT if in_phrase else 0.0
                unmet = tuple(not yes for yes in met)
                rows.append(RankedRow(complete, unmet, in_phrase, position, round(score, SCORE_DECIMALS)))
        rows.sort(key=RankedRow.key)
        return RankedPage(rows, counts.get(True, 0), counts.get(False, 0))

    def _some_page(
        self,
        terms: Sequence[Term],
        ranking: list[tuple[tantivy.Occur, tantivy.Query]],
        limit: int,
        preferences: Sequence[Preference],
    ) -> list[tuple[float, tantivy.DocAddress]] | None:
        """The best ``limit`` hits of the "only some terms" ranking, without scoring every match; or
        ``None`` when that cannot be shown (then the caller ranks them all).

        When some terms are common (held by a large share of the documents), the documents matching
        only common terms are most of the stratum, and each scores at most the sum of those terms'
        score bounds (BM25 stays below idf x (1 + k1) per field and boost). So the stratum is first
        ranked among the documents that match a rarer term; when that fills the page with rows that
        meet every preference and score above the bound, no other document can enter it, and the page
        is exactly the one ranking the whole stratum gives (ties included: the bound is strict).
        """
        every = len(self._positions)
        common = [t for t in terms if self._postings(t) >= every * _COMMON_SHARE]
        rare = [t for t in terms if self._postings(t) < every * _COMMON_SHARE]
        if not common or not rare or limit <= 0:
            return None
        bound = sum(map(self._score_bound, common)) * (1 + _BOUND_SLACK) + _BOUND_SLACK
        # Documents where a rarer term can add to the score (its match or its exact form), selected
        # by a clause boosted to nothing: it adds exactly 0 to a score.
        forms = {(f, w) for t in rare for f, w in self._term_clauses(t)}
        selected = tantivy.Query.boost_query(
            self._any([tantivy.Query.term_query(self._schema, f, w) for f, w in sorted(forms)]), 0.0
        )
        (occur, query), *rest = ranking
        narrowed = [(occur, self._every([query, selected])), *rest]
        hits = self._searcher.search(tantivy.Query.boolean_query(narrowed), limit, count=False).hits
        if len(hits) < limit:
            return None
        # Every hit meets every preference when the last one does (preferences outweigh any score).
        position = self._positions[hits[-1][1].doc]
        if not all(p.met(position) for p in preferences):
            return None
        met = _PREFERENCE_UNIT * sum(2 ** (len(preferences) - n) for n in range(len(preferences)))
        if float(hits[-1][0]) - met <= bound:
            return None
        return list(hits)

    def _term_clauses(self, term: Term) -> list[tuple[str, str]]:
        """The (field, word) of each ranking clause the term adds to a score: its match, its exact form."""
        fields, word = self._match_on(term)
        return [(f, word) for f, _ in fields] + [(f, term.exact) for f, _ in _EXACT_WEIGHTS]

    def _score_bound(self, term: Term) -> float:
        """Above any score the term's clauses (its match and its exact form) can give a document."""
        fields, _ = self._match_on(term)
        weights = [w for _, w in fields] + [w for _, w in _EXACT_WEIGHTS]
        every = len(self._positions)
        total = 0.0
        for (field, form), weight in zip(self._term_clauses(term), weights, strict=True):
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
