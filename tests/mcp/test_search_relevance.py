"""Search on the real default catalog the way a teacher types: inflections, grades, stop words, strata, totals."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from test_search_standards import assert_ranked_by_strata, statement_roles

from kgfegmcp.bootstrap import AppState
from tool_calls import call, structured

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def search(client: Client[Any], query: str, **request: Any) -> dict[str, Any]:
    return structured(await call(client, "search_standards", {"query": query, "limit": 10, **request}))


def codes(body: dict[str, Any]) -> list[str]:
    return [hit.get("statementCode") or "" for hit in body["hits"]]


@pytest.mark.parametrize(
    ("singular", "plural", "expected"),
    [("cadeia alimentar", "cadeias alimentares", "EF04CI04"), ("porcentagem", "porcentagens", "EF07MA02")],
)
async def test_inflections_find_the_same_standards(
    default_client: Client[Any], singular: str, plural: str, expected: str
) -> None:
    one = await search(default_client, singular, frameworkIds=[EF])
    other = await search(default_client, plural, frameworkIds=[EF])
    assert expected in codes(one)[:5] and expected in codes(other)[:5]
    every_one = await search(default_client, singular, frameworkIds=[EF], limit=100)
    every_other = await search(default_client, plural, frameworkIds=[EF], limit=100)
    assert one["total"] == other["total"] <= 100
    assert sorted(codes(every_one)) == sorted(codes(every_other))  # the same matches; exact forms order them


async def test_statements_rank_above_groupings_and_groupings_stay_findable(
    default_client: Client[Any], default_state: AppState
) -> None:
    body = await search(default_client, "frações", frameworkIds=[EF])
    role_of = statement_roles(default_state)
    roles = [role_of[hit["statementType"]] for hit in body["hits"]]
    assert roles == sorted(roles, key=lambda role: role != "standard") and roles[0] == "standard"
    assert_ranked_by_strata(body["hits"], role_of)
    groupings = await search(default_client, "frações", frameworkIds=[EF], statementTypes=["objeto-de-conhecimento"])
    profile = default_state.catalog.resolve(EF).profile.profile
    assert groupings["hits"] and all(
        (rule := profile.statement_type(hit["statementType"])) and rule.normalized == "objeto-de-conhecimento"
        for hit in groupings["hits"]
    )


async def test_a_grade_in_the_query_is_a_visible_preference(
    default_client: Client[Any], default_state: AppState
) -> None:
    body = await search(default_client, "frações 5º ano", frameworkIds=[EF])
    (reading,) = body["interpretation"]
    assert reading["grades"] == ["5º ano"] and reading["gradesAs"] == "preference"
    assert reading["searchedTerms"] == ["fracoes"] and reading["analysis"] == "pt-lemmas"
    first = body["hits"][0]
    assert first["gradeLevels"] == ["5º ano"]
    assert_ranked_by_strata(body["hits"], statement_roles(default_state), frozenset({"5º ano"}))
    assert {"EF05MA03", "EF05MA04"} <= set(codes(body)[:3])


async def test_a_grade_filter_governs_and_the_named_grade_is_reported(default_client: Client[Any]) -> None:
    body = await search(default_client, "frações 5º ano", frameworkIds=[EF], gradeLevels=["6º ano"])
    assert body["interpretation"][0]["gradesAs"] == "ignored_grade_filter_given"
    assert body["hits"] and all("6º ano" in hit["gradeLevels"] for hit in body["hits"])


async def test_english_grade_words_prefer_that_grade(default_client: Client[Any]) -> None:
    body = await search(default_client, "main idea 3rd grade", frameworkIds=[CCSS])
    assert body["interpretation"][0]["grades"] == ["03"]
    assert codes(body)[0] == "RI.3.2"


async def test_totals_say_how_many_matched_every_term(default_client: Client[Any]) -> None:
    body = await search(default_client, "ciclo da água", frameworkIds=[EF])
    matched = body["matched"]
    assert body["total"] == matched["code"] + matched["allTerms"] + matched["someTerms"]
    assert 0 < matched["allTerms"] < 20 and body["interpretation"][0]["droppedWords"] == ["da"]
    assert {hit["coverage"] for hit in body["hits"][: matched["allTerms"]]} <= {"phrase", "all_terms"}
    assert "EF06GE04" in codes(body)[:3]


async def test_stop_words_lift_nothing(default_client: Client[Any]) -> None:
    plain = await search(default_client, "leitura mapas", frameworkIds=[EF])
    padded = await search(default_client, "uma leitura com os mapas", frameworkIds=[EF])
    assert codes(padded) == codes(plain) and padded["total"] == plain["total"]


async def test_components_comparison_and_progressions_share_the_analysis(default_client: Client[Any]) -> None:
    def component_ids(body: dict[str, Any]) -> list[str]:
        return [hit["nodeId"] for hit in body["hits"]]

    singular = structured(await call(default_client, "search_learning_components", {"query": "fração", "limit": 50}))
    plural = structured(await call(default_client, "search_learning_components", {"query": "frações", "limit": 50}))
    assert singular["total"] <= 50 and singular["interpretation"][0]["searchedTerms"] == ["fracao"]
    assert singular["total"] == singular["matched"]["allTerms"] + singular["matched"]["someTerms"]
    assert singular["total"] == plural["total"] > 0 and sorted(component_ids(singular)) == sorted(component_ids(plural))

    def candidates(body: dict[str, Any]) -> list[str]:
        # A grouping whose own name holds the words (an objeto de conhecimento) has no code.
        return [c["standard"].get("statementCode") for f in body["frameworks"] for c in f["candidates"]]

    request = {"frameworkIds": [EF, "brazil-bncc-ensino-medio"], "maxMatchesPerFramework": 5}
    one = structured(await call(default_client, "compare_framework_evidence", {**request, "query": "cadeia alimentar"}))
    other = structured(
        await call(default_client, "compare_framework_evidence", {**request, "query": "cadeias alimentares"})
    )
    assert "EF04CI04" in candidates(one) and "EF04CI04" in candidates(other)
    graded = structured(
        await call(default_client, "compare_framework_evidence", {**request, "query": "frações 5º ano"})
    )
    readings = {f["package"]["graphPackageId"].split("@")[0]: f["interpretation"] for f in graded["frameworks"]}
    # Each framework reads the query with its own profile: "5º ano" is a grade only where it is one.
    assert readings[EF]["grades"] == ["5º ano"] and readings[EF]["searchedTerms"] == ["fracoes"]
    assert "grades" not in readings["brazil-bncc-ensino-medio"]
    assert readings["brazil-bncc-ensino-medio"]["searchedTerms"] == ["fracoes", "5o", "ano"]

    def links(query: str) -> Any:
        return call(default_client, "search_learning_progressions", {"frameworkId": EF, "query": query, "limit": 50})

    first, second = structured(await links("fração")), structured(await links("fracoes"))
    assert first["links"] and first["links"] == second["links"]
