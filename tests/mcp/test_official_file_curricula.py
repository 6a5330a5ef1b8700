"""MEXT's Courses of Study and ACARA Mathematics in the default catalog, searched as their teachers search.

Japanese statements are found by words inside them (character pairs: 分数 inside 分数の加法); grades are read
as each curriculum writes them (第3学年 for 第３学年, Year 3, Foundation); ACARA's codes resolve exactly; and
one comparison puts BNCC, CCSS, ACARA and MEXT side by side, each searched in its own language.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from tool_calls import call, structured

ELEMENTARY = "japan-mext-course-of-study-elementary"
LOWER = "japan-mext-course-of-study-lower-secondary"
ACARA = "australia-acara-v9-mathematics"
EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def search(client: Client[Any], query: str, *frameworks: str, limit: int = 10) -> dict[str, Any]:
    return structured(
        await call(client, "search_standards", {"query": query, "frameworkIds": list(frameworks), "limit": limit})
    )


@pytest.mark.parametrize("word", ["分数", "比例", "読むこと"])
async def test_a_japanese_word_finds_the_statements_that_hold_it(default_client: Client[Any], word: str) -> None:
    body = await search(default_client, word, ELEMENTARY, LOWER)
    assert body["total"] > 0
    assert body["hits"] and all(hit["coverage"] in ("phrase", "all_terms") for hit in body["hits"])
    assert all(word in hit["description"] for hit in body["hits"][:5])


async def test_a_grade_as_a_japanese_teacher_writes_it_is_read_as_that_grade(default_client: Client[Any]) -> None:
    body = await search(default_client, "第3学年 分数", ELEMENTARY)
    (interpretation,) = body["interpretation"]
    assert interpretation["grades"] == ["第３学年"] and interpretation["searchedTerms"] == ["分数"]
    first = body["hits"][0]
    assert first["gradeLevels"] == ["第３学年"] and "分数" in first["description"]
    for query in ("3年生 分数", "小3 分数"):
        (seen,) = (await search(default_client, query, ELEMENTARY))["interpretation"]
        assert seen["grades"] == ["第３学年"], query


@pytest.mark.parametrize(
    ("query", "grade", "code"),
    [("Year 3 fractions", "Year 3", "AC9M3N02"), ("counting in Foundation", "Foundation Year", "AC9MFN03")],
)
async def test_an_australian_teachers_query_finds_the_content_description_first(
    default_client: Client[Any], query: str, grade: str, code: str
) -> None:
    body = await search(default_client, query, ACARA)
    (interpretation,) = body["interpretation"]
    assert interpretation["grades"] == [grade]
    first = body["hits"][0]
    assert (first["statementCode"], first["statementType"], first["gradeLevels"]) == (
        code,
        "Content Description",
        [grade],
    )


async def test_acara_codes_resolve_exactly_with_their_elaborations_as_notes(default_client: Client[Any]) -> None:
    body = await search(default_client, "AC9M5N010", ACARA)
    assert [hit["statementCode"] for hit in body["hits"]] == ["AC9M5N010"]  # the code as ACARA published it
    standard = structured(
        await call(default_client, "get_standard", {"frameworkId": ACARA, "statementCode": "AC9M3N02"})
    )["standard"]
    assert standard["statementType"] == "Content Description" and standard["gradeLevels"] == ["Year 3"]
    assert standard["notes"].startswith("AC9M3N02_E1: ")


async def test_one_comparison_across_four_curricula_each_in_its_own_language(default_client: Client[Any]) -> None:
    queries = {EF: "frações", CCSS: "fractions", ACARA: "fractions", ELEMENTARY: "分数"}
    body = structured(
        await call(
            default_client,
            "compare_framework_evidence",
            {"frameworkIds": list(queries), "queries": queries, "maxMatchesPerFramework": 3},
        )
    )
    by_framework = {entry["package"]["graphPackageId"].split("@")[0]: entry for entry in body["frameworks"]}
    assert set(by_framework) == set(queries)
    for framework_id, query in queries.items():
        assert by_framework[framework_id]["query"] == query
    assert all(c["standard"]["statementType"] == "Content Description" for c in by_framework[ACARA]["candidates"])
    assert all("分数" in c["standard"]["description"] for c in by_framework[ELEMENTARY]["candidates"])
    assert by_framework[EF]["candidates"] and by_framework[CCSS]["candidates"] == []  # CCSS ELA has no fractions
    assert body["alignmentAsserted"] is False
