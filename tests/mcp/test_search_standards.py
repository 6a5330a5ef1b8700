"""search_standards: lexical and code search, filters, selectors and every search warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.services.views import PackageRef
from package_factory import DAG, LC, TREE, base_graph, standard_world, state_for
from standards_worlds import NOCODE, NOPREFIX, NOTEXT, NOTEXT_DISCLOSURE, SOME, TWIN, code_policy, validate_all
from tool_calls import call, error, error_code, structured, texts

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def search(client: Client[Any], **request: Any) -> dict[str, Any]:
    return structured(await call(client, "search_standards", {"limit": 100, **request}))


def codes(body: dict[str, Any]) -> list[str | None]:
    return [hit.get("statementCode") for hit in body["hits"]]


def hit_packages(body: dict[str, Any]) -> list[str]:
    """The graph-package id of each hit: ``package`` is its entry's number (absent with one package)."""
    return [body["packages"][hit.get("package", 1) - 1]["graphPackageId"] for hit in body["hits"]]


def statement_roles(state: AppState) -> dict[str, str]:
    """Source statement type → role, from the served profiles (a hit carries the source type only)."""
    return {rule.source_type: rule.role for p in state.catalog.packages for rule in p.profile.profile.statement_types}


def warning_codes(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(w["code"], w["graphPackageId"]) for w in body["warnings"]]


# -- lexical search ----------------------------------------------------------------------------


async def test_accent_and_case_insensitive(default_client: Client[Any], default_state: AppState) -> None:
    plain = await search(default_client, query="fracoes")
    assert plain["total"] >= 5
    assert "fraç" in plain["hits"][0]["description"].casefold()
    assert sum("fraç" in hit["description"].casefold() for hit in plain["hits"]) >= 5
    for variant in ("frações", "FRAÇÕES", "Fracoes"):
        other = await search(default_client, query=variant)
        assert other["hits"] == plain["hits"] and other["total"] == plain["total"]
    first = plain["hits"][0]
    # A text hit says how much of the query it covered; matchType is given for code hits only.
    assert "matchType" not in first and first["coverage"] and first["rank"] == 1 and first["score"] > 0
    assert_ranked_by_strata(plain["hits"], statement_roles(default_state))


def assert_ranked_by_strata(
    hits: list[dict[str, Any]], roles: dict[str, str], grades: frozenset[str] = frozenset()
) -> None:
    """The named grades first, then every term before some, statements before groupings, a match in the
    standard's own text before a heading-only one, the phrase, then score."""

    def stratum(hit: dict[str, Any]) -> tuple[bool, bool, bool, bool, bool]:
        in_grade = any(g in grades for g in hit.get("gradeLevels", []))
        return (
            bool(grades) and not in_grade,
            hit["coverage"] == "some_terms",
            roles[hit["statementType"]] != "standard",
            hit["matchedIn"] == "heading",
            hit["coverage"] != "phrase",
        )

    keys = [(stratum(hit), -hit["score"]) for hit in hits]
    assert keys == sorted(keys), keys


async def test_fixture_accent_folding(fixture_client: Client[Any]) -> None:
    body = await search(fixture_client, query="fracoes", frameworkIds=[TREE])
    assert {hit["nodeId"] for hit in body["hits"]} == {
        stable_uuid(TREE, "item", "NF.1"),
        stable_uuid(TREE, "item", "NF"),
    }


async def test_query_token_and_length_bounds(default_client: Client[Any]) -> None:
    distinct = [f"palavra{i}" for i in range(33)]
    message = await error(default_client, "search_standards", {"query": " ".join(distinct)})
    assert message.startswith("invalid_request: ") and "32 normalised tokens" in message
    assert (await search(default_client, query=" ".join(distinct[:32])))["total"] == 0
    repeated = await search(default_client, query=" ".join(["fracoes"] * 40))
    assert repeated["total"] > 0
    assert await error_code(default_client, "search_standards", {"query": "a" * 513}) == "invalid_request"
    assert await error_code(default_client, "search_standards", {"query": ""}) == "invalid_request"
    assert await error_code(default_client, "search_standards", {"query": "   "}) == "invalid_request"
    code_query = {"query": "E" * 257, "searchMode": "code"}
    assert await error_code(default_client, "search_standards", code_query) == "invalid_request"
    assert (await search(default_client, query="E" * 256, searchMode="code"))["total"] == 0
    # Code queries are not tokenised: 40 distinct words are one (unmatched) code.
    assert (await search(default_client, query=" ".join(f"w{i}" for i in range(40)), searchMode="code"))["total"] == 0


async def test_zero_results_are_explained(default_client: Client[Any]) -> None:
    result = await call(default_client, "search_standards", {"query": "zzyzxqv"})
    body = structured(result)
    assert body["hits"] == [] and body["total"] == 0 and body["page"]["hasMore"] is False
    summary = texts(result)[0]
    assert "A zero-result page means only that this lexical expression did not match" in summary


# -- code search -------------------------------------------------------------------------------


async def test_code_exact_and_prefix(default_client: Client[Any], default_state: AppState) -> None:
    exact = await search(default_client, query="ef05ma04", searchMode="code")
    assert codes(exact) == ["EF05MA04"] and exact["hits"][0]["matchType"] == "code_exact"
    auto = await search(default_client, query="EF05MA04")
    assert auto["hits"][0]["statementCode"] == "EF05MA04" and auto["hits"][0]["matchType"] == "code_exact"
    prefix = await search(default_client, query="EF05MA", searchMode="code", codeMatch="prefix")
    runtime = default_state.catalog.resolve(EF)
    expected = sorted(i.statement_code for i in runtime.items if (i.statement_code or "").startswith("EF05MA"))
    assert codes(prefix) == expected and len(expected) == 25
    assert {hit["matchType"] for hit in prefix["hits"]} == {"code_prefix"}
    assert prefix["warnings"] == []
    message = await error(default_client, "search_standards", {"query": "EF05", "codeMatch": "prefix"})
    assert message.startswith("invalid_request: ") and "codeMatch 'prefix' requires searchMode 'code'" in message


async def test_fixture_code_search(fixture_client: Client[Any]) -> None:
    assert codes(await search(fixture_client, query="nbt.a.2", searchMode="code", frameworkIds=[TREE])) == ["NBT.A.2"]
    prefix = await search(fixture_client, query="NBT.A", searchMode="code", codeMatch="prefix", frameworkIds=[TREE])
    assert codes(prefix) == ["NBT.A.1", "NBT.A.2"]
    derived = await search(fixture_client, query="NBT.A.1.b", searchMode="code", frameworkIds=[TREE])
    assert codes(derived) == ["NBT.A.1"] and derived["hits"][0]["matchType"] == "derived_parent_code"
    assert derived["warnings"] == []


# -- warnings ----------------------------------------------------------------------------------


async def test_text_search_unavailable(fixture_client: Client[Any]) -> None:
    package = f"{NOTEXT}@2026-01"
    text = await search(fixture_client, query="fraction", searchMode="text", frameworkIds=[NOTEXT, TREE])
    assert warning_codes(text) == [("text_search_unavailable", package)]
    assert set(hit_packages(text)) == {f"{TREE}@2026-01"}
    auto = await search(fixture_client, query="NF.1", frameworkIds=[NOTEXT, TREE])
    assert warning_codes(auto) == [("text_search_unavailable", package)]
    assert list(zip(hit_packages(auto), [h.get("matchType") for h in auto["hits"]], strict=True))[:2] == [
        (package, "code_exact"),
        (f"{TREE}@2026-01", "code_exact"),
    ]
    result = await call(fixture_client, "search_standards", {"query": "fraction", "frameworkIds": [NOTEXT, TREE]})
    summary = texts(result)[0]
    assert f"Warning text_search_unavailable ({package})" in summary
    # Only the package the hits come from is listed (the other is named by its warning); its disclosure ids
    # and link are given, the texts themselves stay out of the answer.
    body = structured(result)
    assert [(p["graphPackageId"], p["disclosureIds"]) for p in body["packages"]] == [(f"{TREE}@2026-01", ["fixture"])]
    (entry,) = body["packages"]
    assert f"Package 1: {entry['graphPackageId']} (licence {entry['license']}; standards source_asserted)" in summary
    assert f" at {entry['uri']} (manifest: add /manifest);" in summary and "; disclosures fixture." in summary
    assert "Read a package's disclosures at its link (or get_framework) before citing it." in summary
    assert NOTEXT_DISCLOSURE not in summary and "Fixture data written by tests." not in summary
    # Both profiles use the disclosure id "fixture" (with different texts): when hits come from both, each
    # package names its own ids and link, so neither is lost.
    both = await call(fixture_client, "search_standards", {"query": "NF.1", "frameworkIds": [NOTEXT, TREE]})
    assert [(p["graphPackageId"], p["disclosureIds"]) for p in structured(both)["packages"]] == [
        (package, ["fixture"]),
        (f"{TREE}@2026-01", ["fixture"]),
    ]
    for number, entry in enumerate(structured(both)["packages"], start=1):
        head = (
            f"Package {number}: {entry['graphPackageId']} (licence {entry['license']}; standards source_asserted) at "
        )
        line = next(line for line in texts(both)[0].splitlines() if line.startswith(head))
        assert f"{entry['uri']} (manifest: add /manifest)" in line and line.endswith("; disclosures fixture.")


async def test_an_empty_page_names_every_package_searched(fixture_client: Client[Any]) -> None:
    body = await search(fixture_client, query="zzzunmatched", frameworkIds=[LC, TREE])
    assert body["hits"] == [] and [p["graphPackageId"] for p in body["packages"]] == [
        f"{LC}@2026-01",
        f"{TREE}@2026-01",
    ]


async def test_code_search_unavailable(fixture_client: Client[Any]) -> None:
    body = await search(fixture_client, query="NBT.1", searchMode="code", frameworkIds=[NOCODE, TREE])
    assert warning_codes(body) == [("code_search_unavailable", f"{NOCODE}@2026-01")]
    assert codes(body) == ["NBT.1"] and hit_packages(body) == [f"{TREE}@2026-01"]
    prefix = await search(
        fixture_client, query="NBT", searchMode="code", codeMatch="prefix", frameworkIds=[NOCODE, TREE]
    )
    assert warning_codes(prefix) == [("code_search_unavailable", f"{NOCODE}@2026-01")]
    # In auto mode the lexical index still answers (the code is part of the indexed text).
    auto = await search(fixture_client, query="count", frameworkIds=[NOCODE])
    assert auto["total"] > 0 and all("coverage" in h and "matchType" not in h for h in auto["hits"])


async def test_code_prefix_unavailable(fixture_client: Client[Any]) -> None:
    body = await search(
        fixture_client, query="NBT", searchMode="code", codeMatch="prefix", frameworkIds=[NOPREFIX, TREE]
    )
    assert warning_codes(body) == [("code_prefix_unavailable", f"{NOPREFIX}@2026-01")]
    assert set(hit_packages(body)) == {f"{TREE}@2026-01"}
    exact = await search(fixture_client, query="NBT.1", searchMode="code", frameworkIds=[NOPREFIX])
    assert codes(exact) == ["NBT.1"] and exact["warnings"] == []


@pytest.mark.parametrize(
    ("request_fields", "missing"),
    [
        ({"query": "fraction", "searchMode": "text", "frameworkIds": [NOTEXT]}, "lexical text search"),
        ({"query": "NBT.1", "searchMode": "code", "frameworkIds": [NOCODE]}, "statement-code search"),
        ({"query": "NBT", "searchMode": "code", "codeMatch": "prefix", "frameworkIds": [NOPREFIX]}, "prefix code"),
        ({"query": "NBT", "searchMode": "code", "codeMatch": "prefix", "frameworkIds": [NOCODE, NOPREFIX]}, "prefix"),
    ],
)
async def test_a_mode_no_selected_package_can_serve_is_unsupported(
    fixture_client: Client[Any], request_fields: dict[str, Any], missing: str
) -> None:
    """Not one selected package can answer: an explicit refusal, not an empty page that only warns."""
    message = await error(fixture_client, "search_standards", request_fields)
    assert message.startswith("unsupported_search_mode: ") and missing in message
    assert "Next action: Call get_capabilities" in message


async def test_comparison_refuses_a_mode_no_selected_framework_can_serve(tmp_path: Path) -> None:
    """Two frameworks without code search compared by code: refused; by text: answered."""
    world = standard_world(tmp_path)
    others = ("fixture-nocode-a", "fixture-nocode-b")
    for framework in others:
        world.add_profile(framework, codePolicy=code_policy(exactSearch=False, prefixSearch=False))
    validate_all(world, [world.write(base_graph(framework)) for framework in others])
    async with Client(create_app(state_for(world))) as client:
        by_code = {"query": "NBT.1", "searchMode": "code", "frameworkIds": list(others)}
        message = await error(client, "compare_framework_evidence", by_code)
        assert message.startswith("unsupported_search_mode: None of the 2 selected package(s) supports statement-code")
        by_text = await call(client, "compare_framework_evidence", {**by_code, "searchMode": "text", "query": "count"})
        assert len(structured(by_text)["frameworks"]) == 2


async def test_multiple_code_matches_and_partial_coverage(fixture_client: Client[Any]) -> None:
    package = f"{SOME}@2026-01"
    body = await search(fixture_client, query="NBT.A.1", searchMode="code", frameworkIds=[SOME])
    assert codes(body) == ["NBT.A.1", "NBT.A.1"]
    assert warning_codes(body) == [("multiple_code_matches", package), ("partial_code_coverage", package)]
    assert "matches 2 items" in body["warnings"][0]["message"]
    single = await search(fixture_client, query="NF.1", searchMode="code", frameworkIds=[SOME])
    assert codes(single) == ["NF.1"] and warning_codes(single) == [("partial_code_coverage", package)]


async def test_derived_parent_code_warnings(fixture_client: Client[Any]) -> None:
    package = f"{SOME}@2026-01"
    multiple = await search(fixture_client, query="NBT.A.1.c", searchMode="code", frameworkIds=[SOME])
    assert codes(multiple) == ["NBT.A.1", "NBT.A.1"]
    assert {h["matchType"] for h in multiple["hits"]} == {"derived_parent_code"}
    assert ("derived_parent_code_multiple", package) in warning_codes(multiple)
    missing = await search(fixture_client, query="NBT.Z.9", searchMode="code", frameworkIds=[TREE])
    assert missing["hits"] == []
    assert warning_codes(missing) == [("derived_parent_code_not_found", f"{TREE}@2026-01")]


async def test_warnings_on_the_real_ccss_anchor_codes(default_client: Client[Any]) -> None:
    package = structured(await call(default_client, "get_framework", {"frameworkId": CCSS}))["framework"][
        "graphPackageId"
    ]
    anchors = await search(default_client, query="CCR.R.1", searchMode="code", frameworkIds=[CCSS])
    assert codes(anchors) == ["CCR.R.1"] * 3
    assert warning_codes(anchors) == [("multiple_code_matches", package)]
    assert len({h["nodeId"] for h in anchors["hits"]}) == 3
    assert len({tuple(h["gradeLevels"]) for h in anchors["hits"]}) == 3
    derived = await search(default_client, query="CCR.R.1.a", searchMode="code", frameworkIds=[CCSS])
    assert codes(derived) == ["CCR.R.1"] * 3
    assert warning_codes(derived) == [("derived_parent_code_multiple", package)]
    missing = await search(default_client, query="RL.2.99.z", searchMode="code", frameworkIds=[CCSS])
    assert missing["total"] == 0 and warning_codes(missing) == [("derived_parent_code_not_found", package)]


# -- filters -----------------------------------------------------------------------------------


async def test_grade_filters_by_source_label_and_facet(default_client: Client[Any], default_state: AppState) -> None:
    by_label = await search(default_client, query="fracoes", gradeLevels=["5º ano"])
    by_facet = await search(default_client, query="fracoes", gradeLevels=["ef-ano-05"])
    assert by_label["hits"] == by_facet["hits"] and by_label["total"] == by_facet["total"] > 0
    profile = default_state.catalog.resolve(EF).profile.profile
    for hit in by_label["hits"]:
        assert "5º ano" in hit["gradeLevels"]  # the source label; its facet is the profile's
        assert any((label := profile.grade_label(g)) and label.facet == "ef-ano-05" for g in hit["gradeLevels"])
    everything = await search(default_client, query="fracoes")
    assert by_label["total"] < everything["total"]
    both = await search(default_client, query="fracoes", gradeLevels=["5º ano", "ef-ano-06"])
    assert both["total"] > by_label["total"]
    # A label no selected package uses is refused, never an empty page.
    refused = await error(default_client, "search_standards", {"query": "fracoes", "gradeLevels": ["Grade 5"]})
    assert (
        refused.startswith("invalid_request: gradeLevels: 'Grade 5' is not a grade label") and "Next action:" in refused
    )


async def test_statement_type_and_subject_filters(default_client: Client[Any], default_state: AppState) -> None:
    source = await search(default_client, query="fracoes", statementTypes=["Objeto de conhecimento"])
    normal = await search(default_client, query="fracoes", statementTypes=["objeto-de-conhecimento"])
    assert source["hits"] == normal["hits"] and source["total"] > 0
    assert {h["statementType"] for h in source["hits"]} == {"Objeto de conhecimento"}
    maths = await search(default_client, query="leitura", academicSubjects=["Matemática"])
    subjects = set()
    for hit, package in zip(maths["hits"], hit_packages(maths), strict=True):
        runtime = default_state.catalog.by_graph_package_id(package)
        assert runtime is not None
        item = next(i for i in runtime.items if i.identifier == hit["nodeId"])  # get_standard says the subject
        subjects.add(item.academic_subject or runtime.framework.academic_subject)
    assert maths["total"] > 0 and subjects == {"Matemática"}
    english = await search(default_client, query="reading", academicSubjects=["Matemática"])
    assert english["total"] == 0


async def test_fixture_filters(fixture_client: Client[Any]) -> None:
    body = await search(fixture_client, query="count", frameworkIds=[TREE], gradeLevels=["grade-2"])
    assert codes(body) == ["NBT.A.2"]
    body = await search(fixture_client, query="count", frameworkIds=[TREE], gradeLevels=["1"])
    assert codes(body) == ["NBT.1"]
    groupings = await search(fixture_client, query="number", frameworkIds=[TREE], statementTypes=["Domain"])
    assert {h["statementType"] for h in groupings["hits"]} == {"Domain"}
    standards = await search(fixture_client, query="number", frameworkIds=[TREE], statementTypes=["standard"])
    assert {h["statementType"] for h in standards["hits"]} == {"Standard"}
    coded = await search(
        fixture_client, query="NBT", searchMode="code", codeMatch="prefix", frameworkIds=[TREE], gradeLevels=["2"]
    )
    assert codes(coded) == ["NBT.A.1", "NBT.A.2"]


# -- selectors and identity --------------------------------------------------------------------


async def test_selectors(fixture_client: Client[Any]) -> None:
    default = await search(fixture_client, query="count")
    packages = {p["graphPackageId"] for p in default["packages"]}
    assert f"{TREE}@2026-01" in packages and f"{TREE}@2025-01" not in packages
    old = await search(fixture_client, query="count", snapshotIds=["2025-01"])
    assert [p["graphPackageId"] for p in old["packages"]] == [f"{TREE}@2025-01"]
    twin = await search(fixture_client, query="count", frameworkIds=[TWIN], snapshotIds=["2026-02"])
    assert [p["graphPackageId"] for p in twin["packages"]] == [f"{TWIN}@2026-02"]
    assert await error_code(fixture_client, "search_standards", {"query": "count", "frameworkIds": [TWIN]}) == (
        "ambiguous_framework"
    )
    for request in (
        {"frameworkIds": ["no-such-framework"]},
        {"snapshotIds": ["1999-01"]},
        {"frameworkIds": [TREE], "snapshotIds": ["1999-01"]},
    ):
        assert await error_code(fixture_client, "search_standards", {"query": "count", **request}) == (
            "framework_not_found"
        )
    assert await error_code(fixture_client, "search_standards", {"query": "x", "frameworkIds": [TREE, TREE]}) == (
        "invalid_request"
    )


async def test_every_result_carries_identity_disclosures_and_source_terms(
    default_client: Client[Any], default_state: AppState
) -> None:
    result = await call(default_client, "search_standards", {"query": "leitura reading", "limit": 100})
    body = structured(result)
    current = [p for p in default_state.catalog.packages if p.manifest.is_current]
    # Each package a hit comes from once, compactly: id, link, the four files (SHA-256 prefixes) and its
    # disclosure ids; the interpretation names every package searched.
    listed = [p for p in current if p.graph_package_id in set(hit_packages(body))]
    numbered = [PackageRef.of(p, number).to_wire() for number, p in enumerate(listed, start=1)]
    assert len(listed) >= 2 and body["packages"] == numbered
    assert [p["disclosureIds"] for p in body["packages"]] == [
        [d.disclosure_id for d in p.profile.profile.disclosures] for p in listed
    ]
    searched = [package for reading in body["interpretation"] for package in reading["graphPackageIds"]]
    assert sorted(searched) == sorted(p.graph_package_id for p in current)
    assert "disclosures" not in body
    english = structured(await call(default_client, "search_standards", {"query": "reading", "limit": 100}))
    pairs = [
        *zip(body["hits"], hit_packages(body), strict=True),
        *zip(english["hits"], hit_packages(english), strict=True),
    ]
    assert {package.split("@")[0] for _, package in pairs} >= {EF, CCSS}
    for hit, package in pairs:
        runtime = default_state.catalog.by_graph_package_id(package)
        assert runtime is not None
        item = next(i for i in runtime.items if i.identifier == hit["nodeId"])
        profile = runtime.profile.profile
        # What a citation needs, in the package's own terms: code, text, source type, source grade labels.
        assert hit["description"] == item.description and hit.get("statementCode") == item.statement_code
        assert hit["gradeLevels"] == list(item.grade_level) and hit["gradeLevels"], hit
        assert all(profile.grade_label(g) is not None for g in hit["gradeLevels"])  # facets: the profile
        assert hit["statementType"] == item.statement_type and profile.statement_type(item.statement_type)
        assert not {"uri", "provenanceUri", "graphPackageId", "caseIdentifierUUID"} & set(hit)
    for entry in body["packages"]:
        assert entry["uri"] == f"kgfegmcp://framework/{entry['graphPackageId'].replace('@', '/snapshot/')}"
        assert entry["manifestUri"] == entry["uri"] + "/manifest"  # the spec: every package block links it
    summary = texts(result)[0]
    for number, entry in enumerate(body["packages"], start=1):
        ids = ", ".join(entry["disclosureIds"])
        label = entry["labels"]["standards"]
        head = f"Package {number}: {entry['graphPackageId']} (licence {entry['license']}; standards {label}) at "
        line = next(line for line in summary.splitlines() if line.startswith(head))
        assert f"{entry['uri']} (manifest: add /manifest)" in line and line.endswith(f"; disclosures {ids}.")
    # Hit lines name their package by that number.
    first = body["hits"][0]
    assert f"1. [{first['statementCode']}] {first['description']} (" in summary
    # Cited by its code, which selects it alone in its package; the package by its number.
    assert "codeSelects" not in first
    assert f"1. [{first['statementCode']}] {first['description']} ({first['statementType']}; " in summary
    assert (
        f"; package {first['package']})"
        in summary.splitlines()[next(i for i, line in enumerate(summary.splitlines()) if line.startswith("1. "))]
    )


@pytest.mark.parametrize("framework_id", [LC, EF])
async def test_search_never_returns_learning_components(
    framework_id: str,
    fixture_client: Client[Any],
    default_client: Client[Any],
    default_state: AppState,
    fixture_state: AppState,
) -> None:
    client = fixture_client if framework_id == LC else default_client
    if framework_id == LC:
        components = {stable_uuid(LC, "component", "0"): "Partition a whole into equal parts"}
        components[stable_uuid(LC, "component", "1")] = "Identify hundreds, tens and ones in a three-digit number"
    else:
        components = {c.identifier: c.description for c in default_state.catalog.resolve(EF).components[:5]}
    for description in components.values():
        query = " ".join(description.split()[:12])
        body = await search(client, query=query, frameworkIds=[framework_id])
        found = {hit["nodeId"] for hit in body["hits"]}
        assert not found & set(components)
        roles = statement_roles(default_state if framework_id == EF else fixture_state)
        assert all(roles[hit["statementType"]] in ("standard", "grouping") for hit in body["hits"])


async def test_dag_standard_is_returned_once(fixture_client: Client[Any]) -> None:
    body = await search(fixture_client, query="fraction number line", frameworkIds=[DAG])
    ids = [hit["nodeId"] for hit in body["hits"]]
    assert len(ids) == len(set(ids)) == body["total"]
    assert ids[0] == stable_uuid(DAG, "item", "NF.2")


async def test_a_grouping_is_found_by_its_own_text_never_by_the_heading_above_it(default_client: Client[Any]) -> None:
    """ACARA's achievement standard components sit under the year's paragraph: a word of the paragraph must not
    make every component of that year a hit (a grouping's text is its name; only standards take context)."""
    body = structured(
        await call(
            default_client,
            "search_standards",
            {"query": "percentage", "frameworkIds": ["australia-acara-v9-mathematics"], "limit": 100},
        )
    )
    hits = body["hits"]
    assert hits
    for hit in hits:
        if hit["statementType"] == "Achievement Standard Component":
            assert "percentage" in hit["description"].casefold(), hit["statementCode"]
    # A content description still matches through its own text.
    assert "AC9M6N07" in {hit.get("statementCode") for hit in hits}
