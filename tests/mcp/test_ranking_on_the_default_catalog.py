"""Ranking keys on the real default catalog, over the MCP client: a named grade or subject ranks its items first
whatever their coverage, and a hit found only through its heading ranks below the statements that hold the words.
Both views say so: the structured hits and interpretation, and the text block alone.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client
from test_search_standards import assert_ranked_by_strata, statement_roles

from kgfegmcp.bootstrap import AppState
from tool_calls import call, page_through, structured, texts

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def search(client: Client[Any], query: str, **request: Any) -> tuple[dict[str, Any], str]:
    result = await call(client, "search_standards", {"query": query, "limit": 10, **request})
    return structured(result), "\n".join(texts(result))


async def test_statements_holding_the_words_rank_above_hits_found_through_their_headings(
    default_client: Client[Any], default_state: AppState
) -> None:
    """CCSS grade 3, "main idea": the heading "Key Ideas and Details" sits above many standards that hold
    neither word; they come after every standard and grouping that does, within each coverage."""
    body, _ = await search(default_client, "main idea", frameworkIds=[CCSS], gradeLevels=["03"], limit=25)
    hits = body["hits"]
    assert_ranked_by_strata(hits, statement_roles(default_state))
    assert hits[0]["statementCode"] == "RI.3.2" and hits[0]["coverage"] == "phrase"
    where = [hit["matchedIn"] for hit in hits]
    assert where == sorted(where, key=lambda place: place == "heading")  # one coverage here: "some terms" after 2
    assert where.count("statement") >= 12 and where[-1] == "heading"


async def test_a_named_grade_ranks_its_items_first_across_coverage_and_pages_alike(
    default_client: Client[Any], default_state: AppState
) -> None:
    """ "ideia central" holds one phrase hit, of 3º-5º ano; naming 7º ano puts every 7º ano hit (each holds one
    of the words) above it, and paging through gives the one ranking with the same totals."""
    plain, _ = await search(default_client, "ideia central", frameworkIds=[EF])
    assert plain["hits"][0]["coverage"] == "phrase" and "7º ano" not in plain["hits"][0]["gradeLevels"]
    body, text = await search(default_client, "ideia central 7º ano", frameworkIds=[EF], limit=100)
    (reading,) = body["interpretation"]
    assert (reading["grades"], reading["gradesAs"], reading["searchedTerms"]) == (
        ["7º ano"],
        "preference",
        ["ideia", "central"],
    )
    assert "grades 7º ano preferred" in text
    in_grade = ["7º ano" in hit["gradeLevels"] for hit in body["hits"]]
    assert in_grade[0] and in_grade == sorted(in_grade, reverse=True) and not all(in_grade)
    assert [hit["coverage"] for hit in body["hits"] if hit["rank"] <= in_grade.count(True)].count("some_terms") > 1
    assert (body["total"], body["matched"]) == (plain["total"], plain["matched"])  # it orders, never filters
    assert_ranked_by_strata(body["hits"], statement_roles(default_state), frozenset({"7º ano"}))
    pages = await page_through(
        default_client, "search_standards", {"query": "ideia central 7º ano", "frameworkIds": [EF], "limit": 7}
    )
    assert [hit["nodeId"] for page in pages for hit in page["hits"]] == [hit["nodeId"] for hit in body["hits"]]
    assert {page["total"] for page in pages} == {body["total"]} and len(body["hits"]) == body["total"]


def subject_of(state: AppState, framework_id: str, node_id: str) -> str:
    """The academic subject a hit's item carries (its own, else its framework's), as subject filters read it."""
    package = state.catalog.resolve(framework_id)
    position = package.store.position(node_id)
    assert position is not None
    return package.standards_index.facets(position).subject


async def test_a_named_subject_ranks_its_items_first_unless_subjects_are_filtered(
    default_client: Client[Any], default_state: AppState
) -> None:
    body, text = await search(default_client, "educação física jogos", frameworkIds=[EF], limit=60)
    (reading,) = body["interpretation"]
    assert (reading["subjects"], reading["subjectsAs"]) == (["Educação Física"], "preference")
    assert "subjects Educação Física preferred" in text
    in_subject = [subject_of(default_state, EF, hit["nodeId"]) == "Educação Física" for hit in body["hits"]]
    assert in_subject[0] and in_subject == sorted(in_subject, reverse=True) and not all(in_subject)
    filtered, text = await search(
        default_client, "educação física jogos", frameworkIds=[EF], academicSubjects=["Educação Física"]
    )
    (reading,) = filtered["interpretation"]
    assert (reading["subjects"], reading["subjectsAs"]) == (["Educação Física"], "ignored_subject_filter_given")
    assert "subjects Educação Física ignored (a subject filter was given)" in text
