"""The ranking and counting of ``TextIndex`` as first written (one boosted search per stratum and a
count search per position), kept verbatim as the reference the current code must answer exactly like.

``tests/search/test_text_index_equivalence.py`` compares the two on a generated index, and
``benchmarks/search_profile.py --ab`` times them side by side on a served package.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import tantivy

from kgfegmcp.search.analysis import Term
from kgfegmcp.search.text_index import (
    _PREFERENCE_UNIT,
    SCORE_DECIMALS,
    Preference,
    RankedPage,
    RankedRow,
    TextIndex,
    _facet_group,
)


def _count(index: TextIndex, query: tantivy.Query) -> int:
    return int(getattr(index._searcher.search(query, 1, count=True), "count", 0) or 0)


def reference_ranked(
    index: TextIndex,
    terms: Sequence[Term],
    limit: int | None = None,
    required: Sequence[frozenset[str]] = (),
    preferences: Sequence[Preference] = (),
) -> RankedPage:
    """``TextIndex.ranked`` as first written."""
    if not terms:
        return RankedPage([], 0, 0)
    clauses = [index._term(t) for t in terms]
    bonuses = [
        (preference, _PREFERENCE_UNIT * 2 ** (len(preferences) - number))
        for number, preference in enumerate(preferences)
    ]
    boosts = [
        (tantivy.Occur.Should, tantivy.Query.const_score_query(_facet_group(index._schema, p.terms), bonus))
        for p, bonus in bonuses
    ] + index._exact_forms(terms)
    rows: list[RankedRow] = []
    counts: dict[bool, int] = {}
    wanted = len(index._positions) if limit is None else limit
    for complete, query in index._coverage(clauses).items():
        if len(rows) >= wanted:
            counts[complete] = _count(index, index._with(query, required))
            continue
        phrase = (
            [(tantivy.Occur.Should, tantivy.Query.const_score_query(index._phrase(terms), _PREFERENCE_UNIT))]
            if complete and len(terms) > 1
            else []
        )
        found = index._searcher.search(
            tantivy.Query.boolean_query([(tantivy.Occur.Must, index._with(query, required)), *boosts, *phrase]),
            wanted - len(rows),
            count=True,
        )
        counts[complete] = int(getattr(found, "count", 0) or 0)
        for raw, address in found.hits[: wanted - len(rows)]:
            position = index._positions[address.doc]
            met = [p.met(position) for p, _ in bonuses]
            score = raw - sum(bonus for (_, bonus), yes in zip(bonuses, met, strict=True) if yes)
            in_phrase = bool(phrase) and score >= _PREFERENCE_UNIT
            score -= _PREFERENCE_UNIT if in_phrase else 0.0
            unmet = tuple(not yes for yes in met)
            rows.append(RankedRow(complete, unmet, in_phrase, position, round(score, SCORE_DECIMALS)))
    rows.sort(key=RankedRow.key)
    return RankedPage(rows, counts.get(True, 0), counts.get(False, 0))


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
        if _count(index, index._every([all_of, at])):
            every += 1
        elif _count(index, index._every([any_of, at])):
            some += 1
    return every, some
