"""StandardsService.search_standards called directly: code matches, ranking strata, counts, readings, pages.

Every expectation is derived from the fixture packages (tests/package_factory.py, tests/mcp/standards_worlds.py):
ids are the factory's deterministic UUIDs, texts and grades its records. The MCP suite checks the same tool
on the wire; here the result models are compared exactly, hit by hit.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.cursors import request_fingerprint
from kgfegmcp.core.errors import (
    AmbiguousFrameworkError,
    FrameworkNotFoundError,
    InvalidCursorError,
    InvalidRequestError,
    KgfegmcpError,
    UnsupportedSearchModeError,
)
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.services.requests import SearchStandardsRequest
from kgfegmcp.services.standards import SearchStandardsResult
from package_factory import DAG, LC, TREE
from standards_worlds import NOCODE, NOPREFIX, NOTEXT, SOME, TWIN

SNAPSHOT = "2026-01"


def request(**fields: Any) -> SearchStandardsRequest:
    return SearchStandardsRequest.model_validate(fields)


def search(state: AppState, **fields: Any) -> SearchStandardsResult:
    return state.standards.search_standards(request(**fields))


def item(framework_id: str, key: str) -> str:
    """The factory keys every item's id by its code (or its grouping key)."""
    return stable_uuid(framework_id, "item", key)


def package(framework_id: str) -> str:
    return f"{framework_id}@{SNAPSHOT}"


def ids(result: SearchStandardsResult) -> list[str]:
    return [hit.node_id for hit in result.hits]


def keyed(result: SearchStandardsResult) -> list[tuple[str, str]]:
    """(graph package id, node id) of each hit: ``package`` numbers this page's ``packages`` (None: the only one)."""
    return [(result.packages[(hit.package or 1) - 1].graph_package_id, hit.node_id) for hit in result.hits]


def warnings(result: SearchStandardsResult) -> list[tuple[str, str | None]]:
    return [(w.code, w.graph_package_id) for w in result.warnings]


def counts(result: SearchStandardsResult) -> tuple[int, int, int]:
    return (result.matched.code, result.matched.all_terms, result.matched.some_terms)


# -- code search -------------------------------------------------------------------------------------


def test_an_exact_code_is_matched_after_normalisation_and_reads_no_words(search_state: AppState) -> None:
    result = search(search_state, query="nbt.a.2", searchMode="code", frameworkIds=[TREE])
    (hit,) = result.hits
    assert hit.node_id == item(TREE, "NBT.A.2") and hit.statement_code == "NBT.A.2"
    assert (hit.rank, hit.match_type, hit.coverage, hit.score, hit.package) == (1, "code_exact", None, 0.0, None)
    assert counts(result) == (1, 0, 0) and result.total == 1
    # Code mode reads no words: no interpretation, nothing dropped, no grades taken out.
    assert result.interpretation == [] and result.warnings == []
    assert result.page.has_more is False and result.page.next_cursor is None
    assert [p.graph_package_id for p in result.packages] == [package(TREE)]


def test_exact_normalisation_is_the_profiles_choice(search_state: AppState) -> None:
    """fixture-noprefix normalises codes exactly: the casefolded code is not its code, nor is its parent."""
    assert ids(search(search_state, query="NBT.A.1", searchMode="code", frameworkIds=[NOPREFIX])) == [
        item(NOPREFIX, "NBT.A.1")
    ]
    folded = search(search_state, query="nbt.a.1", searchMode="code", frameworkIds=[NOPREFIX])
    assert folded.hits == [] and folded.total == 0
    (warning,) = folded.warnings
    assert (warning.code, warning.graph_package_id) == ("derived_parent_code_not_found", package(NOPREFIX))
    assert warning.message == "No item has the code 'nbt.a.1', nor its derived parent code 'nbt.a'."


@pytest.mark.parametrize(
    ("fields", "expected_hits", "expected_warnings"),
    [
        pytest.param(
            {"query": "NBT", "codeMatch": "prefix", "frameworkIds": [TREE]},
            [(TREE, "NBT.1", "code_prefix"), (TREE, "NBT.A.1", "code_prefix"), (TREE, "NBT.A.2", "code_prefix")],
            [],
            id="prefix-ordered-by-code",
        ),
        pytest.param(
            {"query": "nbt", "codeMatch": "prefix", "frameworkIds": [TREE], "gradeLevels": ["2"]},
            [(TREE, "NBT.A.1", "code_prefix"), (TREE, "NBT.A.2", "code_prefix")],
            [],
            id="prefix-with-grade-filter",
        ),
        pytest.param(
            # Two items share NBT.A.1: by code, then by file position (the second one was written later).
            {"query": "NBT.A", "codeMatch": "prefix", "frameworkIds": [SOME]},
            [(SOME, "NBT.A.1", "code_prefix"), (SOME, "NBT.A.1-bis", "code_prefix"), (SOME, "NBT.A.2", "code_prefix")],
            [("partial_code_coverage", SOME)],
            id="prefix-over-repeated-codes",
        ),
        pytest.param(
            {"query": "NBT.A.1.b", "frameworkIds": [TREE]},
            [(TREE, "NBT.A.1", "derived_parent_code")],
            [],
            id="derived-parent",
        ),
        pytest.param(
            {"query": "NBT.A.1.c", "frameworkIds": [SOME]},
            [(SOME, "NBT.A.1", "derived_parent_code"), (SOME, "NBT.A.1-bis", "derived_parent_code")],
            [("derived_parent_code_multiple", SOME), ("partial_code_coverage", SOME)],
            id="derived-parent-matches-two",
        ),
        pytest.param(
            {"query": "NBT.Z.9", "frameworkIds": [TREE]},
            [],
            [("derived_parent_code_not_found", TREE)],
            id="derived-parent-missing",
        ),
        pytest.param(
            # No separator in the query: no parent to derive, so nothing to warn about.
            {"query": "ZZZ", "frameworkIds": [TREE]},
            [],
            [],
            id="no-separator",
        ),
        pytest.param(
            {"query": "NBT.A.1", "frameworkIds": [SOME]},
            [(SOME, "NBT.A.1", "code_exact"), (SOME, "NBT.A.1-bis", "code_exact")],
            [("multiple_code_matches", SOME), ("partial_code_coverage", SOME)],
            id="exact-matches-two",
        ),
    ],
)
def test_code_matches_and_their_warnings(
    search_state: AppState,
    fields: dict[str, Any],
    expected_hits: list[tuple[str, str, str]],
    expected_warnings: list[tuple[str, str]],
) -> None:
    result = search(search_state, searchMode="code", limit=100, **fields)
    assert [(hit.node_id, hit.match_type, hit.coverage) for hit in result.hits] == [
        (item(fw, key), match, None) for fw, key, match in expected_hits
    ]
    assert warnings(result) == [(code, package(fw)) for code, fw in expected_warnings]
    assert counts(result) == (len(expected_hits), 0, 0) == (result.total, 0, 0)
    assert [hit.rank for hit in result.hits] == list(range(1, len(expected_hits) + 1))


def test_warning_messages_name_what_matched(search_state: AppState) -> None:
    multiple = search(search_state, query="NBT.A.1", searchMode="code", frameworkIds=[SOME])
    assert [w.message for w in multiple.warnings] == [
        "The code matches 2 items in this package; select one by nodeId.",
        "Not every item in this package carries a code; code search cannot find the others.",
    ]
    derived = search(search_state, query="NBT.A.1.c", searchMode="code", frameworkIds=[SOME])
    assert derived.warnings[0].message == "The derived parent code 'NBT.A.1' matches 2 items."
    missing = search(search_state, query="NBT.Z.9", searchMode="code", frameworkIds=[TREE])
    assert missing.warnings[0].message == "No item has the code 'NBT.Z.9', nor its derived parent code 'NBT.Z'."


def test_code_hits_follow_package_order_and_warnings_are_sorted_by_package(search_state: AppState) -> None:
    result = search(search_state, query="NBT.A.1", searchMode="code", frameworkIds=[TREE, SOME, NOTEXT, NOCODE])
    # Packages are searched in (framework, snapshot) order whatever order the request names them in.
    assert keyed(result) == [
        (package(NOTEXT), item(NOTEXT, "NBT.A.1")),
        (package(SOME), item(SOME, "NBT.A.1")),
        (package(SOME), item(SOME, "NBT.A.1-bis")),
        (package(TREE), item(TREE, "NBT.A.1")),
    ]
    assert [p.graph_package_id for p in result.packages] == [package(NOTEXT), package(SOME), package(TREE)]
    assert [hit.package for hit in result.hits] == [1, 2, 2, 3]
    assert warnings(result) == [
        ("code_search_unavailable", package(NOCODE)),
        ("multiple_code_matches", package(SOME)),
        ("partial_code_coverage", package(SOME)),
    ]


def test_auto_mode_puts_the_code_hit_first_and_counts_it_once(search_state: AppState) -> None:
    result = search(search_state, query="NBT.A.1", frameworkIds=[TREE], limit=100)
    first, *rest = result.hits
    assert (first.node_id, first.match_type, first.coverage) == (item(TREE, "NBT.A.1"), "code_exact", None)
    assert rest and all(hit.match_type is None and hit.coverage is not None for hit in rest)
    assert item(TREE, "NBT.A.1") not in {hit.node_id for hit in rest}  # its text matches too, counted once
    assert counts(result) == (1, 1, 2) and result.total == len(result.hits) == 4
    # "a" is an English stop word, so the words searched are "nbt" and "1".
    (reading,) = result.interpretation
    assert (reading.searched_terms, reading.dropped_words) == (["nbt", "1"], ["a"])


def test_auto_mode_does_not_derive_parent_codes(search_state: AppState) -> None:
    result = search(search_state, query="NBT.A.1.b", frameworkIds=[TREE], limit=100)
    assert result.matched.code == 0 and result.warnings == []
    assert all(hit.match_type is None and hit.coverage == "some_terms" for hit in result.hits)
    assert result.interpretation[0].searched_terms == ["nbt", "1", "b"]


# -- text ranking ------------------------------------------------------------------------------------


def test_every_term_before_some_terms_and_statements_before_groupings(search_state: AppState) -> None:
    result = search(search_state, query="count number", frameworkIds=[TREE])
    assert ids(result) == [
        item(TREE, "NBT.1"),  # "Count to 120, starting at any number.": both words
        item(TREE, "NBT.A.2"),  # the rest hold one of them: statements first, ...
        item(TREE, "NBT.A.1"),
        item(TREE, "NF.1"),  # (a statement holding neither word: "number" is only in its domain's name)
        item(TREE, "NBT"),  # ... then the groupings (two domains; the cluster "Understand place value" holds
        item(TREE, "NF"),  # neither word, and a grouping is found by its own text, never its domain's name)
    ]
    assert [hit.coverage for hit in result.hits] == ["all_terms"] + ["some_terms"] * 5
    assert [hit.matched_in for hit in result.hits] == ["statement"] * 3 + ["heading"] + ["statement"] * 2
    assert counts(result) == (0, 1, 5) and result.total == 6
    statements, groupings = result.hits[1:3], result.hits[4:6]
    for stratum in (statements, groupings):
        assert [h.score for h in stratum] == sorted((h.score for h in stratum), reverse=True)
    # The strata decide, not the score: a grouping outscores a statement ranked above it.
    assert max(h.score for h in groupings) > min(h.score for h in statements)


def test_a_statement_type_filter_lifts_the_statement_preference(search_state: AppState) -> None:
    every_type = ["Standard", "Domain", "Cluster"]
    result = search(search_state, query="count number", frameworkIds=[TREE], statementTypes=every_type)
    assert ids(result) == [
        item(TREE, "NBT.1"),
        item(TREE, "NBT.A.2"),
        item(TREE, "NBT"),
        item(TREE, "NBT.A.1"),
        item(TREE, "NF"),
        item(TREE, "NF.1"),
    ]
    some = result.hits[1:]
    assert [h.score for h in some] == sorted((h.score for h in some), reverse=True)
    # "grouping" is a role, not a statement type of this profile: refused with the types it has.
    with pytest.raises(InvalidRequestError) as refused:
        search(search_state, query="count number", frameworkIds=[TREE], statementTypes=["grouping"])
    assert "statementTypes: 'grouping' is not a statement type" in refused.value.message
    assert "Domain (domain), Cluster (cluster), Standard (standard)" in refused.value.message
    domains = search(search_state, query="count number", frameworkIds=[TREE], statementTypes=["domain"])
    assert ids(domains) == [item(TREE, "NBT"), item(TREE, "NF")]  # the normalised type filters too


def test_a_named_grade_is_preferred_unless_grades_are_filtered(search_state: AppState) -> None:
    plain = search(search_state, query="count", frameworkIds=[TREE])
    assert ids(plain) == [item(TREE, "NBT.A.2"), item(TREE, "NBT.1")]  # "count" twice in NBT.A.2
    assert plain.hits[0].score > plain.hits[1].score
    assert (plain.interpretation[0].grades, plain.interpretation[0].grades_as) == (None, "none")

    preferred = search(search_state, query="count grade 1", frameworkIds=[TREE])
    assert ids(preferred) == [item(TREE, "NBT.1"), item(TREE, "NBT.A.2")]  # grade 1 first despite its score
    assert preferred.hits[0].score < preferred.hits[1].score
    (reading,) = preferred.interpretation
    assert (reading.searched_terms, reading.grades, reading.grades_as) == (["count"], ["1"], "preference")

    filtered = search(search_state, query="count grade 1", frameworkIds=[TREE], gradeLevels=["2"])
    assert ids(filtered) == [item(TREE, "NBT.A.2")]
    (reading,) = filtered.interpretation
    assert (reading.grades, reading.grades_as) == (["1"], "ignored_grade_filter_given")


def test_grade_filters_take_source_labels_and_facets(search_state: AppState) -> None:
    by_label = search(search_state, query="count", frameworkIds=[TREE], gradeLevels=["1"])
    by_facet = search(search_state, query="count", frameworkIds=[TREE], gradeLevels=["grade-1"])
    assert by_label.hits == by_facet.hits and ids(by_label) == [item(TREE, "NBT.1")]
    both = search(search_state, query="count", frameworkIds=[TREE], gradeLevels=["grade-1", "2"])
    assert set(ids(both)) == {item(TREE, "NBT.1"), item(TREE, "NBT.A.2")}
    # "Grade 1" is the label's display name, which a query may use; a filter takes the label or facet.
    with pytest.raises(InvalidRequestError) as refused:
        search(search_state, query="count", frameworkIds=[TREE], gradeLevels=["Grade 1"])
    assert "'Grade 1' is how a query writes '1'" in refused.value.message
    assert "accepts 1 (grade-1), 2 (grade-2), 3 (grade-3)" in refused.value.message


# -- how the query was read ----------------------------------------------------------------------------


def test_the_interpretation_lists_terms_grades_and_dropped_words(search_state: AppState) -> None:
    (reading,) = search(search_state, query="the count grade 2", frameworkIds=[TREE]).interpretation
    assert reading.to_wire() == {
        "analysis": "en-lemmas",
        "searchedTerms": ["count"],
        "grades": ["2"],
        "gradesAs": "preference",
        "droppedWords": ["the"],
    }


def test_a_query_of_stop_words_only_searches_them(search_state: AppState) -> None:
    result = search(search_state, query="the", frameworkIds=[TREE])
    (reading,) = result.interpretation
    assert (reading.searched_terms, reading.dropped_words) == (["the"], None)
    assert set(ids(result)) == {item(TREE, "NBT.A.1"), item(TREE, "NF.1")}  # the two texts holding "the"


def test_one_reading_names_every_package_searched_by_text(search_state: AppState) -> None:
    several = search(search_state, query="number", frameworkIds=[TREE, NOTEXT, LC])
    (reading,) = several.interpretation  # same analysis everywhere: one reading
    assert reading.graph_package_ids == [package(LC), package(TREE)]  # not the package without text search
    assert warnings(several) == [("text_search_unavailable", package(NOTEXT))]
    single = search(search_state, query="number", frameworkIds=[TREE])
    assert single.interpretation[0].graph_package_ids is None  # one package: left out


# -- counts -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"query": "count number", "frameworkIds": [TREE]},
        {"query": "NBT.A.1", "frameworkIds": [TREE, DAG, LC, SOME]},
        {"query": "NF.1"},
        {"query": "understand fraction", "frameworkIds": [DAG, LC]},
        {"query": "NBT", "searchMode": "code", "codeMatch": "prefix"},
        {"query": "fraction number line", "gradeLevels": ["3"]},
    ],
    ids=["text", "auto-several", "auto-catalog", "two-terms", "prefix-catalog", "grade-filtered"],
)
def test_matched_counts_add_up_to_total_and_describe_the_hits(search_state: AppState, fields: dict[str, Any]) -> None:
    result = search(search_state, limit=100, **fields)
    assert result.total == sum(counts(result)) == len(result.hits) > 0
    code = [h for h in result.hits if h.match_type is not None]
    assert len(code) == result.matched.code and all(h.coverage is None for h in code)
    assert result.hits[: len(code)] == code  # code matches come first
    coverage = [h.coverage for h in result.hits[len(code) :]]
    assert sum(c in ("phrase", "all_terms") for c in coverage) == result.matched.all_terms
    assert coverage.count("some_terms") == result.matched.some_terms
    assert coverage == sorted(coverage, key=lambda c: c == "some_terms")  # every term before some
    assert len(set(keyed(result))) == len(result.hits)  # each item once


# -- pages --------------------------------------------------------------------------------------------


def pages(state: AppState, limit: int, **fields: Any) -> list[SearchStandardsResult]:
    """Every page of one request, following page.nextCursor."""
    found = [search(state, limit=limit, **fields)]
    while found[-1].page.has_more:
        assert found[-1].page.next_cursor is not None
        found.append(search(state, limit=limit, cursor=found[-1].page.next_cursor, **fields))
    return found


def test_pages_give_the_sequence_of_one_big_page(search_state: AppState) -> None:
    whole = search(search_state, query="number", limit=100)
    assert whole.total == len(whole.hits) == 44 and whole.page.has_more is False
    paged = pages(search_state, 7, query="number")
    assert len(paged) == 7  # ceil(44 / 7)
    assert [len(p.hits) for p in paged] == [7] * 6 + [2]
    assert [k for p in paged for k in keyed(p)] == keyed(whole)
    assert [(h.rank, h.score, h.coverage) for p in paged for h in p.hits] == [
        (h.rank, h.score, h.coverage) for h in whole.hits
    ]
    for page in paged:
        assert page.total == whole.total and page.matched == whole.matched
        assert page.interpretation == whole.interpretation and page.warnings == whole.warnings
        # A page names only the packages its own hits come from, each once, in package order.
        named = [p.graph_package_id for p in page.packages]
        assert named == sorted({k[0] for k in keyed(page)})
    assert paged[-1].page.next_cursor is None


def test_a_cursor_at_or_past_the_end_is_refused(search_state: AppState) -> None:
    asked = request(query="number", limit=7)
    fingerprint = request_fingerprint(asked)
    assert search(search_state, query="number", limit=7).total == 44
    # The last page issues no cursor, so none ever points at the end: offset 44 is as foreign as 45.
    last = search_state.cursors.encode(ToolName.SEARCH_STANDARDS, fingerprint, {"offset": 43})
    final = search(search_state, query="number", limit=7, cursor=last)
    assert len(final.hits) == 1 and final.hits[0].rank == 44 and final.page.has_more is False
    for offset in (44, 45, 2**31 - 1, 2**63):
        at_or_past = search_state.cursors.encode(ToolName.SEARCH_STANDARDS, fingerprint, {"offset": offset})
        with pytest.raises(InvalidCursorError) as refused:
            search(search_state, query="number", limit=7, cursor=at_or_past)
        assert refused.value.code == "invalid_cursor"
        assert refused.value.message == "The cursor points outside this result sequence."


def test_a_cursor_continues_only_its_own_request(search_state: AppState) -> None:
    cursor = search(search_state, query="number", limit=7).page.next_cursor
    assert cursor is not None
    for changed in ({"limit": 8}, {"query": "numbers"}, {"frameworkIds": [TREE]}):
        fields = {"query": "number", "limit": 7, **changed}
        with pytest.raises(InvalidCursorError, match="belongs to a different request"):
            search(search_state, cursor=cursor, **fields)
    other_tool = search_state.cursors.encode("list_frameworks", request_fingerprint(request(query="number")), {})
    with pytest.raises(InvalidCursorError, match="does not continue search_standards"):
        search(search_state, query="number", cursor=other_tool)


# -- determinism --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"query": "number", "limit": 100},
        {"query": "NBT.A.1", "frameworkIds": [TREE, SOME, NOCODE], "limit": 3},
        {"query": "the count grade 2", "gradeLevels": ["grade-2"]},
    ],
)
def test_the_same_request_gives_the_same_answer(search_state: AppState, fields: dict[str, Any]) -> None:
    first, second = search(search_state, **fields), search(search_state, **fields)
    assert first.to_wire() == second.to_wire()
    assert first.model_dump_json() == second.model_dump_json()  # byte for byte, cursor included


# -- refusals -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "what"),
    [
        ({"searchMode": "text", "frameworkIds": [NOTEXT]}, "lexical text search"),
        ({"searchMode": "code", "frameworkIds": [NOCODE]}, "statement-code search"),
        ({"searchMode": "code", "codeMatch": "prefix", "frameworkIds": [NOPREFIX]}, "prefix code search"),
        ({"searchMode": "code", "codeMatch": "prefix", "frameworkIds": [NOCODE, NOPREFIX]}, "prefix code search"),
    ],
)
def test_a_mode_no_selected_package_serves_is_unsupported(
    search_state: AppState, fields: dict[str, Any], what: str
) -> None:
    with pytest.raises(UnsupportedSearchModeError) as refused:
        search(search_state, query="NBT.1", **fields)
    count = len(fields["frameworkIds"])
    assert refused.value.code == "unsupported_search_mode"
    assert refused.value.message == f"None of the {count} selected package(s) supports {what}."
    assert refused.value.hint is not None and refused.value.hint.startswith("Call get_capabilities")


def test_one_serving_package_is_enough_and_the_others_warn(search_state: AppState) -> None:
    result = search(search_state, query="NBT", searchMode="code", codeMatch="prefix", frameworkIds=[NOPREFIX, TREE])
    assert warnings(result) == [("code_prefix_unavailable", package(NOPREFIX))]
    assert {k[0] for k in keyed(result)} == {package(TREE)} and result.total == 3


@pytest.mark.parametrize(
    ("fields", "error", "code"),
    [
        ({"frameworkIds": [TWIN]}, AmbiguousFrameworkError, "ambiguous_framework"),
        ({"frameworkIds": ["no-such-framework"]}, FrameworkNotFoundError, "framework_not_found"),
        ({"snapshotIds": ["1999-01"]}, FrameworkNotFoundError, "framework_not_found"),
        ({"frameworkIds": [TREE], "snapshotIds": ["1999-01"]}, FrameworkNotFoundError, "framework_not_found"),
    ],
)
def test_selection_errors(
    search_state: AppState, fields: dict[str, Any], error: type[KgfegmcpError], code: str
) -> None:
    with pytest.raises(error) as refused:
        search(search_state, query="count", **fields)
    assert refused.value.code == code


def test_snapshot_selection(search_state: AppState) -> None:
    old = search(search_state, query="count", snapshotIds=["2025-01"])
    assert [p.graph_package_id for p in old.packages] == [f"{TREE}@2025-01"]
    twin = search(search_state, query="count", frameworkIds=[TWIN], snapshotIds=["2026-02"])
    assert {k[0] for k in keyed(twin)} == {f"{TWIN}@2026-02"}


@pytest.mark.parametrize(
    "fields",
    [
        {"query": "NBT", "codeMatch": "prefix"},  # prefix needs searchMode code
        {"query": "NBT", "search_mode": "code"},  # camelCase only
        {"query": "   "},
        {"query": "count", "limit": 101},
        {"query": "count", "frameworkIds": [TREE, TREE]},
        {"query": " ".join(f"word{i}" for i in range(33))},
    ],
)
def test_the_request_model_refuses_what_the_schema_publishes(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        SearchStandardsRequest.model_validate(fields)


def test_a_refused_cjk_query_says_how_its_tokens_are_counted() -> None:
    """A pasted Chinese sentence is counted in character pairs: the refusal says so, and what to do."""
    chinese = "理解分数的意义并能用图表和模型说明分数的大小关系以及分数与除法之间的联系进行比较和排序"
    with pytest.raises(ValidationError) as refused:
        SearchStandardsRequest.model_validate({"query": chinese})
    assert "one token per pair of adjacent characters" in str(refused.value)
    with pytest.raises(ValidationError) as latin:
        SearchStandardsRequest.model_validate({"query": " ".join(f"word{i}" for i in range(33))})
    assert "pair of adjacent characters" not in str(latin.value)
    SearchStandardsRequest.model_validate({"query": chinese[:20]})  # 19 pairs: within the bound
