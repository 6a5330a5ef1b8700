"""A searched word found nowhere in a framework comes back with the framework's own nearest words, in both views.

The hints are shown beside the word, never searched: the answer is the one the same query gives without them.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from package_factory import DAG, LC, TREE
from tool_calls import call, structured, texts

CCSS = "us-ccss-ela-literacy-grades-2-4"
MEXT = "japan-mext-course-of-study-elementary"


async def answer(client: Client[Any], tool: str, **request: Any) -> tuple[dict[str, Any], str]:
    result = await call(client, tool, request)
    return structured(result), texts(result)[0]


async def test_a_misspelt_word_gets_the_framework_spelling_in_both_views(fixture_client: Client[Any]) -> None:
    body, text = await answer(fixture_client, "search_standards", query="fractons", frameworkIds=[TREE])
    (reading,) = body["interpretation"]
    assert reading["unknownTerms"] == ["fractons"]
    # One edit away first; then two edits away, the word more statements and headings hold first.
    assert reading["nearestWords"] == {"fractons": ["fractions", "fracoes", "fraction"]}
    assert "not found: fractons (the framework writes: fractions, fracoes, fraction)" in text
    assert body["total"] == 0 and not body["hits"]


async def test_hints_are_never_searched(fixture_client: Client[Any]) -> None:
    hinted, _ = await answer(fixture_client, "search_standards", query="fractons place", frameworkIds=[TREE])
    plain, _ = await answer(fixture_client, "search_standards", query="place", frameworkIds=[TREE])
    assert hinted["interpretation"][0]["nearestWords"] == {"fractons": ["fractions", "fracoes", "fraction"]}
    assert [h["nodeId"] for h in hinted["hits"]] == [h["nodeId"] for h in plain["hits"]]
    assert hinted["total"] == plain["total"]
    assert not any("fraction" in (hit["description"] or "").casefold() for hit in hinted["hits"])


async def test_words_without_any_near_word_are_listed_alone(fixture_client: Client[Any]) -> None:
    body, text = await answer(fixture_client, "search_standards", query="zyzzyva", frameworkIds=[TREE])
    (reading,) = body["interpretation"]
    assert reading["unknownTerms"] == ["zyzzyva"] and "nearestWords" not in reading
    assert "not found: zyzzyva." in text


async def test_each_framework_gives_its_own_words(fixture_client: Client[Any]) -> None:
    """Hints come from each package's own vocabulary: only the DAG fixture has a number line diagram."""
    body, text = await answer(fixture_client, "search_standards", query="diagramm", frameworkIds=[TREE, DAG])
    readings = {tuple(r["graphPackageIds"]): r for r in body["interpretation"]}
    assert {ids: r.get("nearestWords") for ids, r in readings.items()} == {
        (f"{DAG}@2026-01",): {"diagramm": ["diagram"]},
        (f"{TREE}@2026-01",): None,
    }
    assert all(r["unknownTerms"] == ["diagramm"] for r in readings.values())
    assert f"in {DAG}: not found: diagramm (the framework writes: diagram); in {TREE}: not found: diagramm." in text


async def test_component_search_names_the_components_words(fixture_client: Client[Any]) -> None:
    body, text = await answer(fixture_client, "search_learning_components", query="partiton", frameworkIds=[LC])
    (reading,) = body["interpretation"]
    assert reading["nearestWords"] == {"partiton": ["partition"]}
    assert "Query words not found: partiton (the framework writes: partition)." in text


async def test_a_misspelling_in_the_default_catalog(default_client: Client[Any]) -> None:
    body, text = await answer(default_client, "search_standards", query="agreemnt", frameworkIds=[CCSS])
    (reading,) = body["interpretation"]
    assert reading["nearestWords"]["agreemnt"][0] == "agreement"
    assert "not found: agreemnt (the framework writes: agreement" in text
    compared, compared_text = await answer(
        default_client, "compare_framework_evidence", query="agreemnt", frameworkIds=[CCSS, "brazil-bncc-computacao"]
    )
    ccss = next(f for f in compared["frameworks"] if f["package"]["graphPackageId"].startswith(CCSS))
    assert ccss["interpretation"]["nearestWords"]["agreemnt"][0] == "agreement"
    assert "query words not found: agreemnt (the framework writes: agreement" in compared_text


async def test_character_pairs_get_no_hints(default_client: Client[Any]) -> None:
    """A Japanese word is searched as overlapping character pairs: the pairs one edit away are other words."""
    body, text = await answer(default_client, "search_standards", query="魔法使い", frameworkIds=[MEXT])
    (reading,) = body["interpretation"]
    assert reading["unknownTerms"] and "nearestWords" not in reading
    assert "the framework writes" not in text
