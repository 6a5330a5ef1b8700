"""The ranking keys of search_standards on the fixture tree: a named grade before coverage, a match in the
standard's own text before one through its heading, and the hit's flag for that agreeing with what the page
says it matched.
"""

from __future__ import annotations

from test_search_service import counts, ids, item, search

from kgfegmcp.bootstrap import AppState
from kgfegmcp.search.match_explanation import explain_match
from kgfegmcp.search.normalize import query_words
from kgfegmcp.search.service import SearchFilters, find_standards
from package_factory import DAG, TREE
from standards_worlds import SOME


def test_a_named_grade_ranks_its_items_first_whatever_their_coverage(search_state: AppState) -> None:
    plain = search(search_state, query="count number", frameworkIds=[TREE])
    assert ids(plain)[0] == item(TREE, "NBT.1")  # grade 1, the only standard holding both words
    named = search(search_state, query="count number grade 2", frameworkIds=[TREE])
    assert ids(named) == [
        item(TREE, "NBT.A.2"),  # grade 2, "count": only some terms, yet first
        item(TREE, "NBT.A.1"),  # grade 2, "number"
        item(TREE, "NBT"),  # a grouping of grades 1 and 2
        item(TREE, "NBT.1"),  # grade 1: every term, after every grade 2 match
        item(TREE, "NF.1"),  # grade 3, found through its domain's name alone: a statement, before ...
        item(TREE, "NF"),  # ... a grouping
    ]
    assert [hit.coverage for hit in named.hits] == ["some_terms"] * 3 + ["all_terms"] + ["some_terms"] * 2
    assert counts(named) == counts(plain) == (0, 1, 5)
    (reading,) = named.interpretation
    assert (reading.grades, reading.grades_as, reading.subjects, reading.subjects_as) == (
        ["2"],
        "preference",
        None,
        None,
    )
    # Filtered by grade, the named one is ignored: coverage leads again.
    filtered = search(search_state, query="count number grade 2", frameworkIds=[TREE], gradeLevels=["1", "2"])
    assert ids(filtered)[0] == item(TREE, "NBT.1")
    assert filtered.interpretation[0].grades_as == "ignored_grade_filter_given"


def test_each_page_of_a_named_grade_continues_the_one_ranking(search_state: AppState) -> None:
    whole = search(search_state, query="count number grade 2", frameworkIds=[TREE, DAG], limit=50)
    paged, cursor = [], None
    while True:
        page = search(
            search_state,
            query="count number grade 2",
            frameworkIds=[TREE, DAG],
            limit=2,
            **({"cursor": cursor} if cursor else {}),
        )
        paged += [(page.packages[(hit.package or 1) - 1].graph_package_id, hit.node_id) for hit in page.hits]
        assert (page.total, page.matched) == (whole.total, whole.matched)
        cursor = page.page.next_cursor
        if cursor is None:
            break
    assert paged == [(whole.packages[(hit.package or 1) - 1].graph_package_id, hit.node_id) for hit in whole.hits]


def test_the_heading_only_flag_is_what_the_page_says_was_matched(search_state: AppState) -> None:
    flags = []
    for framework_id, query in ((TREE, "count number"), (DAG, "number fractions"), (SOME, "place value")):
        package = search_state.catalog.resolve(framework_id)
        index = package.standards_index
        outcome = find_standards([index], query_words(query), "text", "exact", SearchFilters(), 50)
        (reading,) = outcome.interpretations
        for hit in outcome.hits:
            role = index.facets(hit.position).role
            explained = explain_match(package.store, hit.item, role, index.interpreter.analyzer, reading.query.terms)
            assert hit.heading_only == explained.heading_only, (framework_id, hit.item.description)
            flags.append(hit.heading_only)
    assert flags.count(True) >= 3 and flags.count(False) >= 6
