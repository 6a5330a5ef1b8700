"""What each search hit matched: the searched terms in its own text, those only in its headings, in both views.

A standard is found through its own text or the names of the groupings above it. A hit that holds no
searched term itself says so (``matchedIn: heading``, and "matched only in its heading" in its text line),
so a host can tell it from a hit that says what was asked.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.bootstrap import AppState
from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.normalize import query_words
from kgfegmcp.search.service import SearchFilters, SearchHit, find_standards
from kgfegmcp.services.standards import explain_hits
from package_factory import TREE
from tool_calls import call, structured, texts

CCSS = "us-ccss-ela-literacy-grades-2-4"
EF = "brazil-bncc-ensino-fundamental"


async def search(client: Client[Any], **request: Any) -> tuple[dict[str, Any], str]:
    result = await call(client, "search_standards", {"limit": 25, **request})
    return structured(result), texts(result)[0]


def hit_line(text: str, rank: int) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(f"{rank}. ")]
    return line


async def test_a_standard_found_through_its_heading_says_so_in_both_views(fixture_client: Client[Any]) -> None:
    # "Understand place value" is the cluster above NBT.A.1 and NBT.A.2, whose own texts say neither word.
    body, text = await search(fixture_client, query="place value", frameworkIds=[TREE])
    by_code = {hit.get("statementCode") or hit["description"]: hit for hit in body["hits"]}
    cluster = by_code["Understand place value"]
    # Its own text holds every searched term: matchedTerms is left out, as there is nothing more to say.
    assert cluster["matchedIn"] == "statement" and not {"matchedTerms", "headingTerms"} & set(cluster)
    for code in ("NBT.A.1", "NBT.A.2"):
        hit = by_code[code]
        assert (hit["matchedIn"], hit["headingTerms"], "matchedTerms" in hit) == ("heading", ["place", "value"], False)
        assert hit_line(text, hit["rank"]).endswith("(matched only in its heading: place, value)")
    # A hit whose own text holds every term adds nothing to its line: its run's heading says it.
    assert "matched" not in hit_line(text, cluster["rank"])


async def test_some_terms_and_heading_terms_are_named(fixture_client: Client[Any]) -> None:
    # NBT.A.1 says "hundreds" itself and "place" only through its cluster; NBT.1 says "count" only.
    body, text = await search(fixture_client, query="hundreds place count", frameworkIds=[TREE])
    by_code = {hit.get("statementCode"): hit for hit in body["hits"]}
    first = by_code["NBT.A.1"]
    assert (first["matchedIn"], first["matchedTerms"], first["headingTerms"]) == ("statement", ["hundreds"], ["place"])
    assert hit_line(text, first["rank"]).endswith("(matched: hundreds; only in its heading: place)")
    count = by_code["NBT.1"]
    assert (count["coverage"], count["matchedTerms"], "headingTerms" in count) == ("some_terms", ["count"], False)
    assert hit_line(text, count["rank"]).endswith("(matched: count)")


async def test_code_hits_carry_no_match_fields(fixture_client: Client[Any]) -> None:
    body, text = await search(fixture_client, query="NBT.A.1", frameworkIds=[TREE], searchMode="code")
    assert body["hits"] and all(not {"matchedIn", "matchedTerms", "headingTerms"} & set(hit) for hit in body["hits"])
    assert "matched" not in text


async def test_main_idea_in_grade_3_labels_every_hit_that_holds_neither_word(default_client: Client[Any]) -> None:
    """Many grade 3 reading standards sit under "Key Ideas and Details": found through it, they must say so."""
    body, text = await search(default_client, query="main idea", frameworkIds=[CCSS], gradeLevels=["03"])
    english = analyzer_for("en")
    heading_only = 0
    for hit in body["hits"]:
        own = {t.stem for t in english.terms(hit["description"])}
        holds = [w for w in ("main", "idea") if english.stem(w) in own]
        assert hit.get("matchedTerms", ["main", "idea"] if hit["matchedIn"] == "statement" else []) == holds, hit
        if not holds:
            heading_only += 1
            assert hit["matchedIn"] == "heading" and hit["headingTerms"], hit
            assert "matched only in its heading: " in hit_line(text, hit["rank"])
        else:
            assert hit["matchedIn"] == "statement"
            assert "matched only in its heading" not in hit_line(text, hit["rank"])
    assert heading_only >= 5, "the page should hold standards found through their headings"


async def test_every_text_hit_matched_what_its_coverage_says(default_client: Client[Any]) -> None:
    """Found again in its text and headings, a hit holds every searched term exactly when its coverage says so."""
    for request in (
        {"query": "main idea", "frameworkIds": [CCSS]},
        {"query": "frações equivalentes", "frameworkIds": [EF]},
        {"query": "leitura de textos narrativos"},
    ):
        body, _ = await search(default_client, **request, limit=50)
        packages = [package["graphPackageId"] for package in body["packages"]]
        searched = {
            package: set(reading["searchedTerms"])
            for reading in body["interpretation"]
            for package in reading.get("graphPackageIds", packages)
        }
        assert body["hits"]
        for hit in body["hits"]:
            terms = searched[packages[hit.get("package", 1) - 1]]
            heading = hit.get("headingTerms", [])
            own = hit.get("matchedTerms", [] if hit["matchedIn"] == "heading" else sorted(terms - set(heading)))
            matched = own + heading
            assert matched and set(matched) <= terms, (request, hit)
            assert (set(matched) == terms) == (hit["coverage"] != "some_terms"), (request, hit)


def test_matched_in_agrees_with_the_rankings_heading_only_flag(default_state: AppState) -> None:
    """The ranking marks heading-only hits itself (``SearchHit.heading_only``); both must say the same."""
    if "heading_only" not in SearchHit.__dataclass_fields__:
        pytest.skip("the ranking does not mark heading-only hits yet")
    packages = default_state.catalog.select(None, None)
    indexes = [package.standards_index for package in packages]
    for query in ("main idea", "ideia central", "frações", "key details", "leitura", "place value", "数学"):
        outcome = find_standards(indexes, query_words(query), "text", "exact", SearchFilters(), 60)
        explained = explain_hits(packages, outcome.interpretations, outcome.hits)
        for hit, explanation in zip(outcome.hits, explained, strict=True):
            assert explanation is not None
            flag = getattr(hit, "heading_only")  # noqa: B009 - set by the ranking once it marks them
            assert explanation.heading_only == flag, (query, hit.item.statement_code)
