"""Two references for ``TextIndex.ranked``, which must answer exactly like both.

``facts_ranked`` ranks by brute force: it reads, with one plain search each, which documents hold
each term (in their own text, or at all), the phrase, and each facet group, scores every match once,
and sorts them all in Python by the documented keys. It knows nothing of tiers, early stops, score
bits or bounds, so it checks them. Small indexes only (every search lists every document).

``tiered_ranked`` is the straightforward tiered algorithm: each tier searched whole, in key order,
until the page is full, and the rest counted by a search apiece; no narrowing, no counting shortcut.
``benchmarks/search_profile.py --ab`` times it beside the current code on a served package.

``tests/search/test_text_index_equivalence.py`` compares them on generated indexes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import tantivy

from kgfegmcp.search.analysis import Term
from kgfegmcp.search.text_index import (
    SCORE_DECIMALS,
    Preference,
    RankedPage,
    RankedRow,
    TextIndex,
    _chained,
    _facet_group,
    _unscored,
)


def _fields(term: Term) -> tuple[tuple[str, str], str]:
    """(own text field, context field) a term matches in, and the word it matches there."""
    if term.exact_only:
        return ("text", "context"), term.exact
    return ("text_stems", "context_stems"), term.stem


def facts_ranked(
    index: TextIndex,
    terms: Sequence[Term],
    limit: int | None = None,
    required: Sequence[frozenset[str]] = (),
    preferences: Sequence[Preference] = (),
    leading: Sequence[Preference] = (),
) -> RankedPage:
    """Every match's keys read from plain searches, sorted in Python."""
    if not terms:
        return RankedPage([], 0, 0)
    searcher, schema, documents = index._searcher, index._schema, index.documents

    def docs(query: tantivy.Query) -> set[int]:
        return {address.doc for _, address in searcher.search(query, documents or 1).hits}

    def term_docs(field: str, word: str) -> set[int]:
        return docs(tantivy.Query.term_query(schema, field, word))

    def facet(group: Iterable[str]) -> set[int]:
        return set().union(*(term_docs("facet", t) for t in group))

    per_term, own = [], set()
    for term in terms:
        (text_field, context_field), word = _fields(term)
        in_text = term_docs(text_field, word)
        per_term.append(in_text | term_docs(context_field, word))
        own |= in_text
    matched, complete = set().union(*per_term), set.intersection(*per_term)
    phrase: set[int] = set()
    if len(terms) > 1:
        exact = any(t.exact_only for t in terms)
        words: list[str | tuple[int, str]] = [t.exact if exact else t.stem for t in terms]
        for field in ("text", "context") if exact else ("text_stems", "context_stems"):
            phrase |= docs(tantivy.Query.phrase_query(schema, field, words))
    allowed = set(range(documents))
    for group in required:
        allowed &= facet(group)
    has = [facet(p.terms) for p in preferences]
    leads = [facet(p.terms) for p in leading]
    # Every match scored as its coverage's tiers score it (their filters add nothing to a score).
    keys = index._keys(terms, preferences)
    everything = _unscored(index._any(index._postings_of(terms)))
    raw = {}
    for every_term, core in ((False, everything), (True, index._core(terms, True, []))):
        scoring = _chained(core, index._links(terms, preferences, every_term, keys))
        for score, address in searcher.search(scoring, documents or 1).hits:
            if (address.doc in complete) == every_term:
                raw[address.doc] = float(score)
    rows = []
    count = len(preferences)
    for doc in sorted(matched & allowed):
        bits = (doc in own) << 1 | (doc in phrase)
        bits |= sum(1 << (count - number + 1) for number, found in enumerate(has) if doc in found)
        score = raw[doc] - bits * keys.unit
        rows.append(
            RankedRow(
                doc in complete,
                tuple(doc not in found for found in has),
                doc in phrase,
                index._positions[doc],
                round(score, SCORE_DECIMALS),
                heading_only=doc not in own,
                leading_unmet=tuple(doc not in found for found in leads),
                rank_score=score,
            )
        )
    rows.sort(key=RankedRow.key)
    every = len(complete & allowed)
    return RankedPage(rows if limit is None else rows[:limit], every, len(matched & allowed) - every)


def tiered_ranked(
    index: TextIndex,
    terms: Sequence[Term],
    limit: int | None = None,
    required: Sequence[frozenset[str]] = (),
    preferences: Sequence[Preference] = (),
    leading: Sequence[Preference] = (),
) -> RankedPage:
    """Each tier searched whole, in key order, until the page is full; the others counted by a search."""
    if not terms:
        return RankedPage([], 0, 0)
    wanted = index.documents if limit is None else min(limit, index.documents)
    coverages = (True, False) if len(terms) > 1 else (True,)
    base = [(tantivy.Occur.Must, _facet_group(index._schema, group)) for group in required]
    rows: list[RankedRow] = []
    counts = dict.fromkeys(coverages, 0)
    keys = index._keys(terms, preferences)
    for missed in itertools.product((False, True), repeat=len(leading)):
        filters = base + [
            (tantivy.Occur.MustNot if miss else tantivy.Occur.Must, _facet_group(index._schema, p.terms))
            for p, miss in zip(leading, missed, strict=True)
        ]
        for complete in coverages:
            core = index._core(terms, complete, filters)
            if len(rows) >= wanted:
                counts[complete] += int(getattr(index._searcher.search(core, 1, count=True), "count", 0) or 0)
                continue
            links = index._links(terms, preferences, complete, keys)
            found = index._searcher.search(_chained(core, links), wanted - len(rows), count=True)
            counts[complete] += int(getattr(found, "count", 0) or 0)
            rows.extend(index._row(raw, address.doc, complete, keys, missed) for raw, address in found.hits)
    rows.sort(key=RankedRow.key)
    return RankedPage(rows, counts[True], counts.get(False, 0))


def reference_coverage_counts(
    index: TextIndex, terms: Sequence[Term], positions: Iterable[int], required: Sequence[frozenset[str]] = ()
) -> tuple[int, int]:
    """``TextIndex.coverage_counts`` as first written."""
    every = some = 0
    if not terms:
        return 0, 0
    clauses = [index._term(t) for t in terms]
    all_of, any_of = index._with(index._every(clauses), required), index._with(index._any(clauses), required)
    for position in positions:
        at = tantivy.Query.term_query(index._schema, "position", position)
        if int(getattr(index._searcher.search(index._every([all_of, at]), 1, count=True), "count", 0) or 0):
            every += 1
        elif int(getattr(index._searcher.search(index._every([any_of, at]), 1, count=True), "count", 0) or 0):
            some += 1
    return every, some
