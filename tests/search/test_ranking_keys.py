"""The ranking keys of ``TextIndex.ranked`` on small hand-made indexes, each key shown deciding against BM25.

Leading preferences (a grade or a subject the query named) come before coverage, coverage before a match in
the document's own text, that before the preferences, the phrase and the score. Every page is the head of
the whole ranking and the counts never depend on the page, whatever the keys; the brute-force reference
(``text_index_reference.facts_ranked``) agrees on every page.
"""

from __future__ import annotations

import pytest
from text_index_reference import facts_ranked

from kgfegmcp.search.analysis import Analyzer, Term
from kgfegmcp.search.text_index import Preference, RankedPage, TextIndex

ANALYZER = Analyzer("en")
STANDARD, GROUPING = "role\x1fstandard", "role\x1fgrouping"
ROLE = Preference(frozenset({STANDARD}))
GRADE_7 = Preference(frozenset({"grade\x1f7"}))
ELA = Preference(frozenset({"subject\x1fela"}))


def terms(query: str) -> list[Term]:
    return [Term(word, ANALYZER.stem(word)) for word in ANALYZER.words(query) if not ANALYZER.is_stopword(word)]


def positions(page: RankedPage) -> list[int]:
    return [row.position for row in page.rows]


def assert_pages_are_heads(index: TextIndex, query: str, **keys: object) -> RankedPage:
    """Every page size gives the head of the whole ranking, the same counts, and the reference's answer."""
    whole = index.ranked(terms(query), None, **keys)  # type: ignore[arg-type]
    assert whole == facts_ranked(index, terms(query), None, **keys)  # type: ignore[arg-type]
    for limit in range(len(whole.rows) + 2):
        page = index.ranked(terms(query), limit, **keys)  # type: ignore[arg-type]
        assert page.rows == whole.rows[:limit], limit
        assert (page.all_terms, page.some_terms) == (whole.all_terms, whole.some_terms), limit
        assert page == facts_ranked(index, terms(query), limit, **keys)  # type: ignore[arg-type]
    return whole


@pytest.fixture(scope="module")
def reading() -> TextIndex:
    """Standards under headings, as CCSS writes them: the heading "Key Ideas and Details" holds "ideas"."""
    heading = "Key Ideas and Details"
    documents = [
        (10, "RI.3.2 Determine the main idea of a text.", heading, [STANDARD]),
        (11, "RI.3.1 Ask and answer questions to demonstrate understanding of a text.", heading, [STANDARD]),
        (
            12,
            "W.3.2.c Use linking words and phrases (e.g., also, another, and, more, but) to connect ideas within "
            "categories of information, in their own writing about texts read or heard in class.",
            "",
            [STANDARD],
        ),
        (13, "RL.3.3 Describe characters in a story.", heading, [STANDARD]),
        (14, "Key Ideas and Details", "", [GROUPING]),
        (15, "RI.3.8 Describe the logical connection between sentences.", "Main Ideas", [STANDARD]),
        (16, "SL.3.4 Report on a topic.", "Ideas", [STANDARD]),
    ]
    # Standards holding neither word, so that both are rare words here, as in a real framework.
    documents += [
        (20 + n, f"L.3.{n} Use knowledge of language {n}.", "Craft and Structure", [STANDARD]) for n in range(40)
    ]
    return TextIndex.build(documents, ANALYZER)


def test_a_heading_only_match_ranks_below_every_statement_match_of_its_coverage(reading: TextIndex) -> None:
    page = assert_pages_are_heads(reading, "main idea", preferences=[ROLE])
    assert [(row.position, row.coverage, row.heading_only) for row in page.rows] == [
        (10, "phrase", False),  # both words in its own text
        (15, "phrase", True),  # both words, but only in its heading "Main Ideas": still every term
        (12, "some_terms", False),  # "ideas" in its own text
        (16, "some_terms", True),  # "Ideas" only in the heading above it
        (11, "some_terms", True),
        (13, "some_terms", True),
        (14, "some_terms", False),  # a grouping holding "Ideas" in its own name: below every statement
    ]
    assert (page.all_terms, page.some_terms) == (2, 5)
    # The key decides, not the score: the heading-only rows outscore a statement match ranked above them.
    by_position = {row.position: row for row in page.rows}
    assert by_position[16].score > by_position[12].score


def test_a_statement_match_ranks_first_without_any_preference(reading: TextIndex) -> None:
    page = assert_pages_are_heads(reading, "ideas")
    assert [row.heading_only for row in page.rows] == [False, False, False, True, True, True, True]
    assert [row.unmet for row in page.rows] == [()] * 7


@pytest.fixture(scope="module")
def grades() -> TextIndex:
    """Grade 9 statements holding both words, grade 7 ones holding one; subjects ELA and math."""
    documents = []
    for number in range(12):
        grade = "grade\x1f9" if number % 2 else "grade\x1f7"
        subject = "subject\x1fela" if number % 3 else "subject\x1fmath"
        text = "Compare fractions on a number line" if number % 2 else f"Compare two fractions, case {number}"
        documents.append((100 + number, text, "Fractions", [grade, subject, STANDARD]))
    return TextIndex.build(documents, ANALYZER)


def test_a_named_grade_ranks_its_items_first_whatever_their_coverage(grades: TextIndex) -> None:
    plain = assert_pages_are_heads(grades, "number line fractions")
    assert [row.complete for row in plain.rows] == [True] * 6 + [False] * 6  # grade 9 holds every term
    preferred = assert_pages_are_heads(grades, "number line fractions", leading=[GRADE_7])
    assert [row.leading_unmet for row in preferred.rows] == [(False,)] * 6 + [(True,)] * 6
    assert [row.complete for row in preferred.rows] == [False] * 6 + [True] * 6
    # The counts are those of the whole ranking: a leading preference reorders, it never filters.
    assert (preferred.all_terms, preferred.some_terms) == (plain.all_terms, plain.some_terms) == (6, 6)
    assert sorted(positions(preferred)) == sorted(positions(plain))


def test_grades_then_subjects_lead_and_a_filter_still_applies(grades: TextIndex) -> None:
    page = assert_pages_are_heads(grades, "number line fractions", leading=[GRADE_7, ELA], preferences=[ROLE])
    keys = [row.leading_unmet for row in page.rows]
    assert keys == sorted(keys) and keys[0] == (False, False) and keys[-1] == (True, True)
    assert {(False, True), (True, False)} <= set(keys)
    filtered = assert_pages_are_heads(
        grades, "number line fractions", leading=[GRADE_7, ELA], required=[frozenset({"subject\x1fmath"})]
    )
    assert {row.leading_unmet[1] for row in filtered.rows} == {True}  # every row is math: ELA met by none
    assert (filtered.all_terms, filtered.some_terms) == (2, 2)


@pytest.fixture(scope="module")
def skewed() -> TextIndex:
    """Common words in statements' own text; a rare one only in headings, some of which hold a common one."""
    documents = [(n, f"alpha beta{n % 50} words", "words" if n < 5 else "", [STANDARD]) for n in range(1500)]
    documents += [(1500 + n, f"gamma delta{n}", "zeta", [STANDARD]) for n in range(70)]
    documents += [(1600 + n, f"omega {n}", "words zeta", [STANDARD]) for n in range(20)]
    return TextIndex.build(documents, ANALYZER)


def test_a_rarer_term_found_only_in_headings_never_narrows_the_page(skewed: TextIndex) -> None:
    """Ranked first among the documents holding the rarer word, the "only some terms" page would be its
    heading-only matches (their score is far above the common word's bound); the statement matches come
    first."""
    page = skewed.ranked(terms("alpha zeta"), 10, preferences=[ROLE])
    assert page == facts_ranked(skewed, terms("alpha zeta"), 10, preferences=[ROLE])
    assert [row.heading_only for row in page.rows] == [False] * 10
    assert (page.all_terms, page.some_terms) == (0, 1590)
    heading = skewed.ranked(terms("zeta"), 3)
    assert heading.rows[0].score > page.rows[0].score and heading.rows[0].heading_only


def test_counts_taken_apart_for_a_common_word_are_exact(skewed: TextIndex) -> None:
    """ "words" is in 1,500 texts and 20 headings: its documents are counted from its frequencies, the
    rarer word's without it are walked; every page and count is the reference's."""
    for limit in (0, 1, 19, 20, 25):
        page = skewed.ranked(terms("words zeta"), limit, preferences=[ROLE])
        assert page == facts_ranked(skewed, terms("words zeta"), limit, preferences=[ROLE]), limit
        assert (page.all_terms, page.some_terms) == (20, 1570)
    assert [row.heading_only for row in skewed.ranked(terms("words zeta"), 25).rows] == [True] * 20 + [False] * 5


def test_a_term_in_no_document_leaves_every_tier_counted_and_empty_ones_unsearched(grades: TextIndex) -> None:
    page = assert_pages_are_heads(grades, "zebra fractions", leading=[GRADE_7])
    assert (page.all_terms, page.some_terms) == (0, 12) and not any(row.complete for row in page.rows)
    assert assert_pages_are_heads(grades, "zebra").rows == []
