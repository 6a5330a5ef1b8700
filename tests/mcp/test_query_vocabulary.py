"""Query words a framework does not use: named in the interpretation, and a query per framework in a comparison.

On the default catalog, through the in-memory client, in both views.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from tool_calls import call, error, structured, texts

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def test_search_standards_names_the_words_found_nowhere(default_client: Client[Any]) -> None:
    result = await call(
        default_client, "search_standards", {"query": "frações equivalentes xyzzy", "frameworkIds": [EF, CCSS]}
    )
    readings = {r["analysis"]: r for r in structured(result)["interpretation"]}
    # The same analysis the search applies: folded, stemmed per language, looked up in each package's index.
    assert readings["pt-lemmas"]["unknownTerms"] == ["xyzzy"]
    assert readings["en-lemmas"]["unknownTerms"] == ["fracoes", "equivalentes", "xyzzy"]
    assert readings["en-lemmas"]["graphPackageIds"] == [f"{CCSS}@chiron-0-1-0"]
    (text, *_) = texts(result)
    assert "in brazil-bncc-ensino-fundamental: not found: xyzzy" in text
    # CCSS finds none of these Portuguese words while Ensino Fundamental finds two: no English hints for them.
    assert "in us-ccss-ela-literacy-grades-2-4: not found: fracoes, equivalentes, xyzzy" in text
    assert "nearestWords" not in readings["en-lemmas"]
    assert text.endswith("Words not found occur nowhere in that framework: rephrase them in its own vocabulary.")
    # A word the package holds in another inflection is known (stems match), and the field is left out.
    known = structured(
        await call(default_client, "search_standards", {"query": "fração equivalente", "frameworkIds": [EF]})
    )
    assert "unknownTerms" not in known["interpretation"][0]
    assert (
        "not found"
        not in texts(await call(default_client, "search_standards", {"query": "fração", "frameworkIds": [EF]}))[0]
    )


async def test_search_learning_components_names_the_words_found_nowhere(default_client: Client[Any]) -> None:
    result = await call(default_client, "search_learning_components", {"query": "fractions frações"})
    (reading,) = structured(result)["interpretation"]
    assert reading["unknownTerms"] == ["fractions"]
    assert "Query words not found: fractions." in texts(result)[0]


async def test_one_comparison_call_takes_a_query_per_framework(default_client: Client[Any]) -> None:
    # The case: "ideia principal" for Ensino Fundamental and "main idea" for CCSS, in one call.
    request = {"frameworkIds": [EF, CCSS], "queries": {EF: "ideia principal", CCSS: "main idea"}}
    result = await call(default_client, "compare_framework_evidence", request)
    content = structured(result)
    assert "query" not in content
    sections = {s["package"]["graphPackageId"].split("@")[0]: s for s in content["frameworks"]}
    assert sections[EF]["query"] == "ideia principal" and sections[CCSS]["query"] == "main idea"
    assert sections[EF]["candidates"] and sections[CCSS]["candidates"]
    assert sections[EF]["interpretation"]["searchedTerms"] == ["ideia", "principal"]
    assert sections[CCSS]["interpretation"]["searchedTerms"] == ["main", "idea"]
    assert "RI.3.2" in {c["standard"].get("statementCode") for c in sections[CCSS]["candidates"]}
    (text, *_) = texts(result)
    assert text.startswith("Comparison evidence for a query per framework")
    assert f"== Package 1, {EF}@dados-2026-07-1; query 'ideia principal':" in text
    assert f"== Package 2, {CCSS}@chiron-0-1-0; query 'main idea':" in text
    # Each framework is searched as it would be alone: the same candidates as a single-framework comparison
    # with that framework's query, under the same bound.
    alone = structured(
        await call(default_client, "compare_framework_evidence", {"frameworkIds": [EF, CCSS], "query": "main idea"})
    )
    assert [s["candidates"] for s in alone["frameworks"]][1] == sections[CCSS]["candidates"]
    # One shared query gives CCSS's words to Ensino Fundamental: "idea" occurs in its Língua Inglesa
    # habilidades, "main" nowhere, and its section says so.
    (ef_alone, _) = alone["frameworks"]
    assert ef_alone["interpretation"]["unknownTerms"] == ["main"]


async def test_queries_override_query_and_ambiguous_combinations_are_refused(default_client: Client[Any]) -> None:
    mixed = structured(
        await call(
            default_client,
            "compare_framework_evidence",
            {"frameworkIds": [EF, CCSS], "query": "main idea", "queries": {EF: "ideia principal"}},
        )
    )
    assert mixed["query"] == "main idea"
    assert [s.get("query") for s in mixed["frameworks"]] == ["ideia principal", None]
    base = {"frameworkIds": [EF, CCSS]}
    for request, reason in (
        ({**base, "queries": {EF: "ideia principal"}}, "Give query, or an entry in queries for every framework"),
        ({**base, "query": "x", "queries": {EF: "a", CCSS: "b"}}, "query is unused when queries names every"),
        ({**base, "queries": {EF: "a", CCSS: "b", "brazil-bncc-ensino-medio": "c"}}, "not in frameworkIds"),
        ({**base}, "Give query, or an entry in queries"),
        ({**base, "queries": {EF: " ", CCSS: "b"}}, "queries"),
    ):
        message = await error(default_client, "compare_framework_evidence", request)
        assert message.startswith("invalid_request:") and reason in message, message
