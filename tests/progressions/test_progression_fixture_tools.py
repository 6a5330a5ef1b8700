"""The evidence tools over fixture catalogs, through FastMCP's in-memory client.

Covers what real data cannot reach on demand: pages and paths stopped by the size ceiling,
oversized single links, component/standard separation, and every error code of the area.
"""

from __future__ import annotations

import json
from typing import Any

from fastmcp import Client
from progression_calls import (
    assert_canonical_within_ceiling,
    call,
    error_code,
    records,
    structured,
    texts,
    traversal_links,
)

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.records import HAS_CHILD, SUPPORTS
from package_factory import DAG, LC
from progression_worlds import HUGE, MESH, WIDE, WIDE_MIDDLES

SNAPSHOT = "2026-01"

PROGRESSION_TOOLS = [
    "get_standard_progressions",
    "search_learning_progressions",
    "get_learning_progression",
    "traverse_learning_progressions",
    "find_learning_progression_paths",
]


def std(framework_id: str, code: str) -> dict[str, str]:
    return {"frameworkId": framework_id, "statementCode": code}


def node_id(framework_id: str, code: str) -> str:
    return stable_uuid(framework_id, "item", code)


async def test_tools_are_registered_in_design_order(progression_client: Client[Any]) -> None:
    names = [tool.name for tool in await progression_client.list_tools()]
    start = names.index("get_standard_context")
    assert names[start + 1 : start + 11] == [
        "compare_framework_evidence",
        "search_learning_components",
        "get_learning_component",
        "get_learning_components_for_standard",
        "get_standards_for_learning_component",
        *PROGRESSION_TOOLS,
    ]


# -- size ceiling: pages, traversal and paths ---------------------------------------------------


async def test_page_stops_at_the_size_ceiling_and_continues_with_page_cursor(progression_client: Client[Any]) -> None:
    request: dict[str, Any] = {**std(WIDE, "WIDE.S"), "direction": "out", "limit": WIDE_MIDDLES}
    seen: list[str] = []
    stops: list[str] = []
    while True:
        content = assert_canonical_within_ceiling(await call(progression_client, "get_standard_progressions", request))
        page = content["page"]
        assert page["returned"] == len(content["links"]) <= WIDE_MIDDLES
        stops.append(page["stoppedBy"])
        seen += [link["relationshipId"] for link in content["links"]]
        if not page["hasMore"]:
            assert page["nextCursor"] is None
            break
        request = {**request, "cursor": page["nextCursor"]}
    assert stops[0] == "byte_limit" and stops[-1] == "exhausted"
    assert len(seen) == len(set(seen)) == WIDE_MIDDLES  # every link once, none lost at the cut


async def test_paths_stop_with_byte_limit_and_name_the_next_unreturned_path(progression_client: Client[Any]) -> None:
    request = {"from": std(WIDE, "WIDE.S"), "to": std(WIDE, "WIDE.T"), "maxPaths": 20}
    content = assert_canonical_within_ceiling(
        await call(progression_client, "find_learning_progression_paths", request)
    )
    paths = content["paths"]
    assert 1 <= len(paths) < WIDE_MIDDLES
    assert content["truncationReasons"] == ["byte_limit"]
    assert content["searchComplete"] is True and content["pathsComplete"] is False
    assert content["morePathsExist"] is True
    following = content["nextUnreturnedPath"]
    assert len(following["relationshipIds"]) == 2
    following_nodes = [step["nodeId"] for step in following["steps"]]
    assert following_nodes[0] == node_id(WIDE, "WIDE.S") and following_nodes[-1] == node_id(WIDE, "WIDE.T")
    returned = {tuple(p["relationshipIds"]) for p in paths}
    assert tuple(following["relationshipIds"]) not in returned
    # The next path is the one right after the returned ones in shortest-first, file order.
    middles = [p["steps"][1]["nodeId"] for p in paths]
    assert middles == [node_id(WIDE, f"WIDE.M{i}") for i in range(len(paths))]
    assert following_nodes[1] == node_id(WIDE, f"WIDE.M{len(paths)}")
    # Every standard and link a returned path names is listed once (links by node id; their resources
    # follow the package's URI rule, so no link repeats them).
    standards = [n["nodeId"] for n in content["standards"]]
    assert len(standards) == len(set(standards))
    stepped = {step["nodeId"] for p in paths for step in p["steps"]}
    assert set(standards) == stepped | {content["fromNodeId"], content["toNodeId"]}
    assert standards[:2] == [content["fromNodeId"], content["toNodeId"]]
    links = {link["relationshipId"]: link for link in content["links"]}
    assert set(links) == {r for p in paths for r in p["relationshipIds"]}
    ends = {"sourceNodeId", "sourceStatementCode", "targetNodeId", "targetStatementCode"}
    assert all(set(link) == {"relationshipId", "linkType", *ends} for link in links.values())


async def test_traversal_cut_by_the_ceiling_says_so_and_keeps_a_truthful_frontier(
    progression_client: Client[Any],
) -> None:
    content = assert_canonical_within_ceiling(
        await call(progression_client, "traverse_learning_progressions", {**std(WIDE, "WIDE.S"), "direction": "out"})
    )
    assert "byte_limit" in content["truncationReasons"]
    assert content["scopeComplete"] is False and content["graphExhausted"] is False
    counters = content["counters"]
    assert counters["edgesReturned"] == len(traversal_links(content)) < counters["edgesFollowed"]
    assert content["frontier"]["notExpanded"][node_id(WIDE, "WIDE.S")] > 0
    assert "not evidence" in content["interpretation"]


async def test_complete_traversal_claims_exhaustion_only_when_true(progression_client: Client[Any]) -> None:
    content = assert_canonical_within_ceiling(
        await call(progression_client, "traverse_learning_progressions", {**std(LC, "NBT.1"), "direction": "out"})
    )
    codes = [n["statementCode"] for n in content["nodes"]]
    # NBT.1 → NBT.A.1 → NBT.A.2 (buildsTowards) → NF.1 (relatesTo) → NF.2 (buildsTowards).
    assert codes == ["NBT.1", "NBT.A.1", "NBT.A.2", "NF.1", "NF.2"]
    by_id = {n["nodeId"]: n["statementCode"] for n in content["nodes"]}
    # Each link is listed under the node it was followed from; an "out" traversal says no direction per link.
    assert [(by_id[e["from"]], e["linkType"], by_id[e["to"]]) for e in traversal_links(content)] == [
        ("NBT.1", "buildsTowards", "NBT.A.1"),
        ("NBT.A.1", "buildsTowards", "NBT.A.2"),
        ("NBT.A.2", "relatesTo", "NF.1"),
        ("NF.1", "buildsTowards", "NF.2"),
    ]
    assert not any("direction" in e for e in traversal_links(content))
    assert content["graphExhausted"] is True and content["scopeComplete"] is True
    assert content["truncationReasons"] == [] and content["frontier"] == {}
    shallow = assert_canonical_within_ceiling(
        await call(
            progression_client,
            "traverse_learning_progressions",
            {**std(LC, "NBT.1"), "direction": "out", "maxDepth": 2},
        )
    )
    assert shallow["scopeComplete"] is True and shallow["graphExhausted"] is False
    assert shallow["truncationReasons"] == ["max_depth"]
    assert list(shallow["frontier"]) == ["maxDepth"] and len(shallow["frontier"]["maxDepth"]) == 1


async def test_oversized_single_results_raise_progression_result_too_large(
    progression_client: Client[Any], progression_state: AppState
) -> None:
    store = progression_state.catalog.resolve(HUGE, SNAPSHOT).store
    huge = node_id(HUGE, "NBT.A.1")
    link = next(r for r in store.incoming(huge, "buildsTowards"))
    requests = {
        "get_learning_progression": {"frameworkId": HUGE, "progressionId": link.identifier},
        "get_standard_progressions": {**std(HUGE, "NBT.1"), "direction": "out"},
        "traverse_learning_progressions": {**std(HUGE, "NBT.1"), "direction": "out"},
        "find_learning_progression_paths": {"from": std(HUGE, "NBT.1"), "to": std(HUGE, "NBT.A.2")},
        "search_learning_progressions": {"frameworkId": HUGE, "linkTypes": ["buildsTowards"]},
    }
    for tool, request in requests.items():
        assert await error_code(progression_client, tool, request) == "progression_result_too_large", tool
    # Links that do not show the oversized standard are still served from the same package.
    content = assert_canonical_within_ceiling(
        await call(
            progression_client, "get_standard_progressions", {**std(HUGE, "NF.1"), "linkTypes": ["buildsTowards"]}
        )
    )
    named = records(content)
    assert [named[link["targetNodeId"]]["statementCode"] for link in content["links"]] == ["NF.2"]


async def test_progression_results_are_deterministic_and_canonical(progression_client: Client[Any]) -> None:
    request = {**std(MESH, "MESH.0"), "direction": "both", "maxDepth": 12, "maxNodes": 250}
    first = await call(progression_client, "traverse_learning_progressions", request)
    second = await call(progression_client, "traverse_learning_progressions", request)
    assert texts(first) == texts(second)
    content = assert_canonical_within_ceiling(first)
    assert json.loads(texts(first)[0]) == content
    # A traversal both ways says per link which way it was followed.
    assert {e["direction"] for e in traversal_links(content)} == {"out", "in"}


# -- notices ------------------------------------------------------------------------------------


async def test_unresolved_reference_kept_by_the_package_is_a_coverage_notice(progression_client: Client[Any]) -> None:
    content = assert_canonical_within_ceiling(
        await call(progression_client, "get_standard_progressions", std(LC, "NF.2"))
    )
    notices = content["warnings"]["items"]
    unresolved = [n for n in notices if n["code"] == "unresolved_reference"]
    assert [(n["reference"], n["status"], n["category"]) for n in unresolved] == [
        ("EM13MAT101", "unresolvedExternalReference", "coverage_notice")
    ]
    assert "uri" not in unresolved[0]  # the package's unresolved report: <package uri>/unresolved
    assert content["warnings"]["total"] == len(notices) + content["warnings"]["omitted"]
    assert any(n["code"] == "stored_link_judgement" and n["category"] == "judgement_warning" for n in notices)


async def test_empty_but_complete_evidence_is_success(progression_client: Client[Any]) -> None:
    content = assert_canonical_within_ceiling(
        await call(progression_client, "get_standard_progressions", std(DAG, "NF.1"))
    )
    assert content["links"] == [] and content["totalLinks"] == 0
    assert content["page"]["stoppedBy"] == "exhausted" and content["page"]["hasMore"] is False
    paths = assert_canonical_within_ceiling(
        await call(
            progression_client, "find_learning_progression_paths", {"from": std(LC, "NF.2"), "to": std(LC, "NBT.1")}
        )
    )
    assert paths["paths"] == [] and paths["searchComplete"] is True
    assert "not evidence that the standards are unrelated" in paths["interpretation"]


async def test_search_learning_progressions_filters_and_pages(progression_client: Client[Any]) -> None:
    request: dict[str, Any] = {"frameworkId": MESH, "gradeLevels": ["grade-2"], "query": "measurement", "limit": 7}
    seen: list[str] = []
    while True:
        content = assert_canonical_within_ceiling(
            await call(progression_client, "search_learning_progressions", request)
        )
        named = records(content)
        for link in content["links"]:
            ends = (named[link["sourceNodeId"]], named[link["targetNodeId"]])
            assert "2" in ends[0]["gradeLevels"] or "2" in ends[1]["gradeLevels"]
        seen += [link["relationshipId"] for link in content["links"]]
        kinds = [link["linkType"] for link in content["links"]]
        assert kinds == sorted(kinds, key=["buildsTowards", "relatesTo"].index)  # buildsTowards first
        if not content["page"]["hasMore"]:
            break
        request = {**request, "cursor": content["page"]["nextCursor"]}
    assert len(seen) == len(set(seen)) > 7


# -- learning components --------------------------------------------------------------------------


async def test_components_for_standard_print_every_citation_link(progression_client: Client[Any]) -> None:
    result = await call(progression_client, "get_learning_components_for_standard", std(LC, "NF.1"))
    content = structured(result)
    (support,) = content["supports"]
    assert support["supportConfidence"] == 1.0
    assert set(support) == {"relationshipId", "supportConfidence", "component"}
    base = content["package"]["uri"]
    text = texts(result)[0]
    for value in (
        support["relationshipId"],
        f"{base}/relationship/{support['relationshipId']}",
        f"{base}/learning-component/{support['component']['nodeId']}",
        content["standard"]["uri"],
    ):
        assert value in text
    assert "A component's provenance is its link + /provenance" in text
    assert "supportConfidence 1" in text


async def test_standards_for_component_carry_local_grades_and_types(
    progression_client: Client[Any], progression_state: AppState
) -> None:
    component = stable_uuid(LC, "component", "1")
    content = structured(
        await call(progression_client, "get_standards_for_learning_component", {"frameworkId": LC, "nodeId": component})
    )
    assert [s["standard"]["statementCode"] for s in content["standards"]] == ["NF.1", "NF.2"]
    for support in content["standards"]:
        assert support["standard"]["statementType"] == "Standard"
        assert support["standard"]["gradeLevels"][0] in {"2", "3"}
    detail = structured(
        await call(progression_client, "get_learning_component", {"frameworkId": LC, "nodeId": component})
    )
    store = progression_state.catalog.resolve(LC, SNAPSHOT).store
    assert [s["relationshipId"] for s in detail["supports"]] == [
        r.identifier for r in store.outgoing(component, SUPPORTS)
    ]
    assert "standard" not in detail


async def test_component_search_pages_and_never_returns_standards(progression_client: Client[Any]) -> None:
    request: dict[str, Any] = {"query": "hundreds partition", "frameworkIds": [LC], "limit": 1}
    found = []
    while True:
        result = await call(progression_client, "search_learning_components", request)
        content = structured(result)
        found += content["hits"]
        if not content["page"]["hasMore"]:
            break
        block = next(t for t in texts(result) if t.startswith("Continue with:\n"))
        request = json.loads(block.removeprefix("Continue with:\n"))["nextRequest"]["request"]
    assert len(found) == 2 and all("statementType" not in c and "gradeLevels" not in c for c in found)
    assert {c["nodeId"] for c in found} == {stable_uuid(LC, "component", "0"), stable_uuid(LC, "component", "1")}
    standards = structured(
        await call(progression_client, "search_standards", {"query": "hundreds", "frameworkIds": [LC]})
    )
    component_ids = {c["nodeId"] for c in found}
    assert not component_ids & {hit["nodeId"] for hit in standards["hits"]}


# -- error codes ---------------------------------------------------------------------------------


async def test_wrong_kind_ids_give_the_matching_not_found(progression_client: Client[Any]) -> None:
    standard = node_id(LC, "NF.1")
    component = stable_uuid(LC, "component", "0")
    assert await error_code(progression_client, "get_learning_component", {"frameworkId": LC, "nodeId": standard}) == (
        "graph_node_not_found"
    )
    assert await error_code(
        progression_client, "get_standards_for_learning_component", {"frameworkId": LC, "nodeId": standard}
    ) == ("graph_node_not_found")
    assert await error_code(
        progression_client, "get_learning_components_for_standard", {"frameworkId": LC, "nodeId": component}
    ) == ("standard_not_found")
    assert await error_code(
        progression_client, "get_standard_progressions", {"frameworkId": LC, "nodeId": component}
    ) == ("standard_not_found")


async def test_learning_progression_not_found_for_missing_or_non_progression_ids(
    progression_client: Client[Any], progression_state: AppState
) -> None:
    store = progression_state.catalog.resolve(LC, SNAPSHOT).store
    has_child = store.relationships_with_label(HAS_CHILD)[0].identifier
    supports = store.relationships_with_label(SUPPORTS)[0].identifier
    for progression_id in (has_child, supports, node_id(LC, "NF.1"), "no-such-link"):
        request = {"frameworkId": LC, "progressionId": progression_id}
        assert (
            await error_code(progression_client, "get_learning_progression", request)
            == "learning_progression_not_found"
        )
    link = store.relationships_with_label("buildsTowards")[0]
    content = assert_canonical_within_ceiling(
        await call(
            progression_client, "get_learning_progression", {"frameworkId": LC, "progressionId": link.identifier}
        )
    )
    assert content["link"]["relationshipId"] == link.identifier
    assert [s["nodeId"] for s in content["standards"]] == [link.source_identifier, link.target_identifier]
    assert (content["link"]["sourceNodeId"], content["link"]["targetNodeId"]) == (
        link.source_identifier,
        link.target_identifier,
    )
    # The fixture's rights deny bulk content, so the provenance part (a piece of the bulk provenance
    # file) is not cited; the link's own resource carries its provenance record.
    assert "provenancePartUri" not in content
    assert content["package"]["graphPackageId"] == f"{LC}@{SNAPSHOT}"
    assert content["package"]["uri"] == f"kgfegmcp://framework/{LC}/snapshot/{SNAPSHOT}"  # + /learning-progression/<id>


async def test_invalid_progression_request_for_inconsistent_selections(progression_client: Client[Any]) -> None:
    cases = [
        ("find_learning_progression_paths", {"from": std(LC, "NBT.1"), "to": std(WIDE, "WIDE.T")}),
        (
            "find_learning_progression_paths",
            {"from": std(LC, "NBT.1"), "to": {"frameworkId": LC, "nodeId": node_id(LC, "NBT.1")}},
        ),
        ("search_learning_progressions", {"frameworkId": LC, "gradeLevels": ["grade-99"]}),
        ("search_learning_progressions", {"frameworkId": LC, "academicSubjects": ["Astronomy"]}),
        ("get_standard_progressions", {**std(LC, "NBT.1"), "linkTypes": ["relatesTo", "relatesTo"]}),
        ("traverse_learning_progressions", {**std(LC, "NBT.1"), "linkTypes": ["buildsTowards", "buildsTowards"]}),
    ]
    for tool, request in cases:
        assert await error_code(progression_client, tool, request) == "invalid_progression_request", (tool, request)


async def test_bounds_are_enforced_at_the_boundary(progression_client: Client[Any]) -> None:
    cases = [
        ("traverse_learning_progressions", {**std(LC, "NBT.1"), "maxDepth": 13}),
        ("traverse_learning_progressions", {**std(LC, "NBT.1"), "maxNodes": 251}),
        ("traverse_learning_progressions", {**std(LC, "NBT.1"), "maxEdges": 101}),
        ("find_learning_progression_paths", {"from": std(LC, "NBT.1"), "to": std(LC, "NF.2"), "maxPaths": 21}),
        ("find_learning_progression_paths", {"from": std(LC, "NBT.1"), "to": std(LC, "NF.2"), "maxDepth": 13}),
        ("get_standard_progressions", {**std(LC, "NBT.1"), "limit": 101}),
        ("search_learning_progressions", {"frameworkId": LC, "limit": 0}),
        ("traverse_learning_progressions", {**std(LC, "NBT.1"), "maxNodes": "25"}),
        ("compare_framework_evidence", {"query": "x", "frameworkIds": [LC]}),
        ("compare_framework_evidence", {"query": "x", "frameworkIds": [LC, DAG], "maxMatchesPerFramework": 11}),
    ]
    for tool, request in cases:
        assert await error_code(progression_client, tool, request) == "invalid_request", (tool, request)


async def test_progression_cursor_is_bound_to_its_request(progression_client: Client[Any]) -> None:
    request: dict[str, Any] = {**std(WIDE, "WIDE.S"), "direction": "out", "limit": 3}
    cursor = structured(await call(progression_client, "get_standard_progressions", request))["page"]["nextCursor"]
    changed = {**request, "limit": 4, "cursor": cursor}
    assert await error_code(progression_client, "get_standard_progressions", changed) == "invalid_cursor"
    other_tool = {"frameworkId": WIDE, "limit": 3, "cursor": cursor}
    assert await error_code(progression_client, "search_learning_progressions", other_tool) == "invalid_cursor"


async def test_invalid_comparison_selection(progression_client: Client[Any]) -> None:
    cases = [
        {"query": "fractions", "frameworkIds": [LC, LC]},
        {"query": "fractions", "frameworkIds": [LC, DAG], "snapshotIds": ["1999-01"]},
        {
            "query": "fractions",
            "frameworkIds": [LC, DAG],
            "frameworkGradeLevels": [{"frameworkId": WIDE, "gradeLevels": ["2"]}],
        },
        {"query": "fractions", "frameworkIds": [LC, DAG], "gradeLevels": ["2", "2"]},
    ]
    for request in cases:
        assert await error_code(progression_client, "compare_framework_evidence", request) == (
            "invalid_comparison_selection"
        ), request


async def test_comparison_on_fixtures_is_independent_per_framework(progression_client: Client[Any]) -> None:
    request = {
        "query": "fractions",
        "frameworkIds": [LC, DAG],
        "maxMatchesPerFramework": 1,
        "frameworkGradeLevels": [{"frameworkId": DAG, "gradeLevels": ["grade-3"]}],
    }
    content = structured(await call(progression_client, "compare_framework_evidence", request))
    sections = {s["package"]["graphPackageId"].split("@")[0]: s for s in content["frameworks"]}
    assert set(sections) == {LC, DAG}
    assert all(len(s["candidates"]) <= 1 for s in sections.values())
    assert sections[DAG]["gradeLevels"] == ["grade-3"] and sections[LC].get("gradeLevels") is None
    assert content["alignmentAsserted"] is False
    multi = [c for s in sections.values() for c in s["candidates"] if not c["contextComplete"]]
    for candidate in multi:  # NF.2 sits under two domains in these DAGs
        assert candidate["otherParentChains"] >= 1
    for section in sections.values():  # each context node described once, candidates refer to it by id
        described = [n["nodeId"] for n in section["contextNodes"]]
        assert len(described) == len(set(described))
        assert {n for c in section["candidates"] for n in c["context"]} == set(described)
    codes = {w["code"] for s in sections.values() for w in s["warnings"]}
    assert ("context_incomplete" in codes) == bool(multi)
    assert (
        await error_code(
            progression_client, "search_learning_components", {"query": "fractions", "frameworkIds": [DAG]}
        )
        == "capability_unavailable"
    )
