"""The text index answers exactly as its references do (``text_index_reference``): the brute-force
ranking by documented keys, and the straightforward tiered search.

A generated index of a few thousand documents, shaped like the scale benchmark's package (a small
vocabulary most documents share, numbers and codes that few do, groupings above statements, words
that many statements hold only in their headings) with words repeated and lengths varied so BM25
scores differ, is queried many ways: benchmark-like word runs, codes, stop words only, absent words;
every page size; with and without facet filters, preferences and leading preferences. Rows (order,
tier, own text or heading, preferences, scores) and both counts must be identical.
"""

from __future__ import annotations

import random

import pytest
from text_index_reference import facts_ranked, reference_coverage_counts, tiered_ranked

from kgfegmcp.search.analysis import Analyzer, Term
from kgfegmcp.search.text_index import Preference, TextIndex

pytestmark = pytest.mark.slow  # a sweep: thousands of generated queries, each answered twice

DOCUMENTS = 3_000
WORDS = [
    "reason",
    "about",
    "quantity",
    "using",
    "models",
    "number",
    "lines",
    "and",
    "equations",
    "the",
    "fractions",
    "place",
    "value",
    "of",
    # Related forms (a root shared, a lemma not): they score where the word itself is missing.
    "reasonable",
    "modeler",
    "fractional",
    "equational",
    "useful",
]


def _documents() -> list[tuple[int, str, str, list[str]]]:
    rng = random.Random(7)
    documents = []
    for index in range(DOCUMENTS):
        position = 3 + 2 * index  # positions need not be contiguous; document ids follow their order
        grade = f"grade\x1f{1 + index % 3}"
        subject = f"subject\x1f{'math' if index % 5 else 'ela'}"
        if index % 50 == 0:
            text = f"Cluster {index // 50} about fractions and place value"
            context = f"Domain {index // 500} of measurement"
            documents.append((position, text, context, [grade, subject, "role\x1fgrouping"]))
            continue
        s = index
        text = f"GEN.{s // 100}.{s % 100} Standard {s}: reason about quantity {s % 97} using models, number lines and equations."
        if index % 7 == 0:  # longer texts, repeated words: scores differ
            text += " " + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 12)))
        context = "" if index % 11 == 0 else f"Cluster {index // 50} about fractions and place value"
        documents.append((position, text, context, [grade, subject, "role\x1fstandard"]))
    return documents


def _terms(analyzer: Analyzer, query: str) -> list[Term]:
    """As the query interpreter reads a query without grade expressions."""
    terms: dict[str, Term] = {}
    dropped: dict[str, None] = {}
    for word in analyzer.words(query):
        if analyzer.is_stopword(word):
            dropped.setdefault(word, None)
        else:
            terms.setdefault(word, analyzer.term(word))
    if not terms and dropped:
        return [Term(word, word, exact_only=True) for word in dropped]
    return list(terms.values())


@pytest.fixture(scope="module")
def generated() -> tuple[TextIndex, Analyzer, list[tuple[int, str, str, list[str]]]]:
    analyzer = Analyzer("en")
    documents = _documents()
    return TextIndex.build(documents, analyzer), analyzer, documents


def _queries(documents: list[tuple[int, str, str, list[str]]]) -> list[str]:
    rng = random.Random(20260101)
    queries = ["models number lines", "reason about quantity", "the and", "of", "fractions", "zebra", "zebra models"]
    queries += ["place value models", "quantity 12 using", "GEN.3", "Standard 1234", "equations equations"]
    for number in range(160):
        _, text, _, _ = rng.choice(documents)
        words = [w.strip(".,:") for w in text.split()]
        if number % 3 == 0:
            queries.append(words[0])  # a code, or a grouping's first word
            continue
        start = rng.randrange(0, max(1, len(words) - 3))
        queries.append(" ".join(words[start : start + rng.choice((1, 2, 3, 4))]))
    return queries


def test_ranked_pages_and_counts_are_those_of_the_reference(
    generated: tuple[TextIndex, Analyzer, list[tuple[int, str, str, list[str]]]],
) -> None:
    index, analyzer, documents = generated
    role = Preference(frozenset({"role\x1fstandard"}))
    grade = Preference(frozenset({"grade\x1f2"}))
    grades = Preference(frozenset({"grade\x1f1", "grade\x1f3"}))
    ela = Preference(frozenset({"subject\x1fela"}))
    filters: list[list[frozenset[str]]] = [
        [],
        [frozenset({"grade\x1f1"})],
        [frozenset({"grade\x1f1", "grade\x1f3"}), frozenset({"role\x1fstandard"})],
        [frozenset({"grade\x1f9"})],  # nothing has it
    ]
    rng = random.Random(3)
    compared = heading_only = 0
    for query in _queries(documents):
        terms = _terms(analyzer, query)
        for limit in (None, 0, 1, 3, 10, 25) if len(query) < 22 else (10,):
            required = rng.choice(filters)
            preferences = rng.choice([[], [role], [role, grade]])
            leading = rng.choice([[], [grade], [grades, ela], [ela]])
            got = index.ranked(terms, limit, required, preferences, leading)
            expected = facts_ranked(index, terms, limit, required, preferences, leading)
            assert got == expected, (query, limit, required, preferences, leading)
            assert got == tiered_ranked(index, terms, limit, required, preferences, leading), (query, limit)
            compared += 1
            heading_only += sum(row.heading_only for row in got.rows)
    assert compared > 500 and heading_only > 100


def test_coverage_counts_are_those_of_the_reference(
    generated: tuple[TextIndex, Analyzer, list[tuple[int, str, str, list[str]]]],
) -> None:
    index, analyzer, documents = generated
    positions = [position for position, *_ in documents]
    rng = random.Random(11)
    for query in _queries(documents)[:80]:
        terms = _terms(analyzer, query)
        for required in ([], [frozenset({"grade\x1f2"})]):
            sample = rng.sample(positions, rng.choice((1, 2, 5, 40, 200)))  # 200: a term set
            for listed in (sample, sample + sample[:2], [], [positions[0], 10**9]):  # duplicates, none, absent
                assert index.coverage_counts(terms, listed, required) == reference_coverage_counts(
                    index, terms, listed, required
                ), (query, listed, required)


def test_counts_without_the_aggregation_api_are_the_same(
    generated: tuple[TextIndex, Analyzer, list[tuple[int, str, str, list[str]]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bindings without ``Searcher.aggregate`` (tantivy-py before 0.27) count through a search."""
    index, analyzer, documents = generated
    with_aggregation = [index.ranked(_terms(analyzer, q), 1) for q in _queries(documents)[:60]]
    monkeypatch.setattr(index, "_aggregates", False)
    for query, page in zip(_queries(documents)[:60], with_aggregation, strict=True):
        terms = _terms(analyzer, query)
        assert index.ranked(terms, 1) == page == facts_ranked(index, terms, 1), query


def test_some_terms_pages_ranked_among_rarer_terms_are_those_of_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words of skewed frequencies (a few in most documents, most in few): the "only some terms"
    stratum is first ranked among the documents holding a rarer term, and must page exactly as
    ranking the whole stratum does, ties included (many texts repeat, so many scores are equal)."""
    rng = random.Random(44)
    vocabulary = [f"w{n}x" for n in range(400)]
    weights = [1 / (n + 1) for n in range(400)]
    documents = []
    for index in range(4_000):
        words = rng.choices(vocabulary, weights, k=rng.randrange(3, 16))
        text = " ".join(words) if index % 5 else "w0x w1x w2x"  # a fifth alike: equal scores
        facets = ["role\x1fstandard"] if index % 9 else ["role\x1fgrouping"]
        documents.append((index, text, "w3x" if index % 4 == 0 else "", facets))
    analyzer = Analyzer("en")
    queries = [f"w{a}x w{b}x" for a in range(4) for b in (5, 40, 150, 399)]
    queries += [f"w0x w1x w{n}x" for n in (7, 60, 300)] + ["w0x w2x", "w1x w3x w250x"]
    queries += _runs_of(documents, rng, 60)
    assert _narrowed_pages_checked(TextIndex.build(documents, analyzer), analyzer, queries, monkeypatch) > 100


def test_some_terms_pages_with_related_forms_are_those_of_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """As above, with a third of the words written in a related form (sharing the word's root, not its
    lemma): a document matching common terms only may score for a rarer term's related form, and the
    narrowed page must still be the whole stratum's."""
    analyzer = Analyzer("en")
    letters = "bcdfgklmprstvz"

    def word(n: int) -> str:
        return "zq" + letters[n // len(letters) % len(letters)] + "a" + letters[n % len(letters)] + "o"

    vocabulary = [word(n) for n in range(150)]
    related = {w: f"{w}ness" for w in vocabulary}
    assert all(analyzer.term(r).root == analyzer.term(w).root != analyzer.term(r).stem for w, r in related.items())
    rng = random.Random(45)
    weights = [1 / (n + 1) for n in range(len(vocabulary))]
    documents = []
    for index in range(3_000):
        words = [
            w if rng.random() < 0.67 else related[w] for w in rng.choices(vocabulary, weights, k=rng.randrange(3, 14))
        ]
        facets = ["role\x1fstandard"] if index % 9 else ["role\x1fgrouping"]
        documents.append((index, " ".join(words), vocabulary[3] if index % 4 == 0 else "", facets))
    queries = [f"{vocabulary[a]} {vocabulary[b]}" for a in range(4) for b in (5, 40, 100, 149)]
    queries += _runs_of(documents, rng, 40)
    assert _narrowed_pages_checked(TextIndex.build(documents, analyzer), analyzer, queries, monkeypatch) > 50


def _runs_of(documents: list[tuple[int, str, str, list[str]]], rng: random.Random, count: int) -> list[str]:
    """``count`` runs of two or three consecutive words of random documents."""
    queries = []
    for _ in range(count):
        words = documents[rng.randrange(len(documents))][1].split()
        start = rng.randrange(0, max(1, len(words) - 3))
        queries.append(" ".join(words[start : start + rng.choice((2, 3))]))
    return queries


def _narrowed_pages_checked(
    index: TextIndex, analyzer: Analyzer, queries: list[str], monkeypatch: pytest.MonkeyPatch
) -> int:
    """Every query's pages (several sizes, filters and preferences) against the brute-force reference; how
    many "only some terms" pages were ranked among the rarer terms' documents only."""
    role = Preference(frozenset({"role\x1fstandard"}))
    narrowed = TextIndex._narrowed_page
    pruned = 0

    def counted(self: TextIndex, *arguments: object) -> object:
        nonlocal pruned
        hits = narrowed(self, *arguments)  # type: ignore[arg-type]
        pruned += hits is not None
        return hits

    monkeypatch.setattr(TextIndex, "_narrowed_page", counted)
    for query in queries:
        terms = _terms(analyzer, query)
        for limit in (1, 3, 10, 25):
            for required, preferences in (([], []), ([], [role]), ([frozenset({"role\x1fstandard"})], [role])):
                got = index.ranked(terms, limit, required, preferences)
                assert got == facts_ranked(index, terms, limit, required, preferences), (query, limit)
    return pruned
