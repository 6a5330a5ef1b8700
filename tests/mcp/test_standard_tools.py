"""get_standard and get_standard_context through the in-memory client (real catalog and fixtures)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from mcp.types import ResourceLink

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.resources import uris
from kgfegmcp.services.views import PackageRef
from package_factory import DAG, LC, TREE
from standards_worlds import NOCODE, NOPREFIX, SOME, TWIN
from tool_calls import call, error, error_code, structured, texts

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


def item_id(framework_id: str, key: str) -> str:
    """Fixture item ids are deterministic (package_factory keys them by code)."""
    return stable_uuid(framework_id, "item", key)


def root_id(framework_id: str) -> str:
    return stable_uuid(framework_id, "framework")


def node_ids(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["nodeId"] for entry in entries]


# -- get_standard ------------------------------------------------------------------------------


async def test_get_standard_by_each_key_on_default_catalog(
    default_client: Client[Any], default_state: AppState
) -> None:
    by_code = structured(await call(default_client, "get_standard", {"frameworkId": EF, "statementCode": "EF05MA04"}))
    standard = by_code["standard"]
    assert standard["statementCode"] == "EF05MA04"
    # Source terms only: facets, displays and roles are the profile's (get_framework_statistics, …/profile).
    assert standard["gradeLevels"] == ["5º ano"]
    assert standard["statementType"] == "Habilidade"
    assert standard["academicSubject"] == "Matemática" and standard["inLanguage"] == "pt-BR"
    assert "caseIdentifierUUID" not in standard  # validation makes it equal to nodeId
    casefolded = structured(
        await call(default_client, "get_standard", {"frameworkId": EF, "statementCode": "ef05ma04"})
    )
    by_node = structured(await call(default_client, "get_standard", {"frameworkId": EF, "nodeId": standard["nodeId"]}))
    by_uuid = structured(
        await call(default_client, "get_standard", {"frameworkId": EF, "caseIdentifierUUID": standard["nodeId"]})
    )
    snapshot = default_state.catalog.resolve(EF).snapshot_id
    explicit = structured(
        await call(
            default_client, "get_standard", {"frameworkId": EF, "snapshotId": snapshot, "nodeId": standard["nodeId"]}
        )
    )
    assert by_code == casefolded == by_node == by_uuid == explicit
    runtime = default_state.catalog.resolve(EF)
    assert by_code["package"] == PackageRef.of(runtime).to_wire()
    assert by_code["package"]["disclosureIds"] == [d.disclosure_id for d in runtime.profile.profile.disclosures]
    assert "disclosures" not in by_code  # one short line in the text; in full in get_framework
    assert [p["statementType"] for p in by_code["parents"]] == ["Objeto de conhecimento"]
    assert by_code["childCount"] == 0


async def test_get_standard_result_blocks(default_client: Client[Any]) -> None:
    result = await call(default_client, "get_standard", {"frameworkId": CCSS, "statementCode": "RL.2.1"})
    body = structured(result)
    standard = body["standard"]
    fid, sid = CCSS, body["package"]["graphPackageId"].split("@")[1]
    links = [block for block in result.content if isinstance(block, ResourceLink)]
    assert [str(link.uri) for link in links] == [standard["uri"]] == [uris.standard_uri(fid, sid, standard["nodeId"])]
    assert standard["caseIdentifierURI"].startswith("http")  # CCSS items keep their CASE URI
    summary = texts(result)[0]
    assert summary.startswith("[RL.2.1] ")
    assert standard["nodeId"] in summary and standard["gradeLevels"][0] in summary
    # The provenance link follows the one rule, stated where the resource link is printed.
    assert f"Resource: {standard['uri']} (provenance: add /provenance)" in summary
    package = body["package"]
    assert f"; disclosures {', '.join(package['disclosureIds'])}.\n" in summary
    assert f" at {package['uri']} (manifest: add /manifest)" in summary


async def test_get_standard_errors(default_client: Client[Any], default_state: AppState) -> None:
    component = default_state.catalog.resolve(EF).components[0].identifier
    root = default_state.catalog.resolve(EF).framework.identifier
    for tool in ("get_standard", "get_standard_context"):
        for selector in (
            {"nodeId": component},
            {"caseIdentifierUUID": component},
            {"nodeId": root},
            {"nodeId": "00000000-0000-0000-0000-000000000000"},
            {"statementCode": "EF99ZZ99"},
        ):
            message = await error(default_client, tool, {"frameworkId": EF, **selector})
            assert message.startswith("standard_not_found: "), message
            assert "Next action:" in message
        message = await error(default_client, tool, {"frameworkId": CCSS, "statementCode": "CCR.R.1"})
        assert message.startswith("ambiguous_graph_node: ")
        assert "matches 3 items" in message
        assert "nodeId" in message
        assert await error_code(default_client, tool, {"frameworkId": "nope-nope"}) == "invalid_request"
        assert await error_code(default_client, tool, {"frameworkId": "nope-nope", "nodeId": "x"}) == (
            "framework_not_found"
        )


@pytest.mark.parametrize(
    "selector",
    [{}, {"nodeId": "a", "statementCode": "b"}, {"nodeId": "a", "caseIdentifierUUID": "b"}],
)
async def test_exactly_one_standard_key(default_client: Client[Any], selector: dict[str, str]) -> None:
    for tool in ("get_standard", "get_standard_context"):
        message = await error(default_client, tool, {"frameworkId": EF, **selector})
        assert message.startswith("invalid_request: ") and "exactly one of" in message


async def test_get_standard_on_fixtures(fixture_client: Client[Any]) -> None:
    message = await error(fixture_client, "get_standard", {"frameworkId": SOME, "statementCode": "nbt.a.1"})
    assert message.startswith("ambiguous_graph_node: ")
    # fixture-noprefix normalises codes exactly: the casefolded code is not the code.
    assert await error_code(fixture_client, "get_standard", {"frameworkId": NOPREFIX, "statementCode": "nbt.a.1"}) == (
        "standard_not_found"
    )
    exact = structured(
        await call(fixture_client, "get_standard", {"frameworkId": NOPREFIX, "statementCode": "NBT.A.1"})
    )
    assert exact["standard"]["nodeId"] == item_id(NOPREFIX, "NBT.A.1")
    for component in (stable_uuid(LC, "component", "0"), stable_uuid(LC, "component", "1")):
        for tool in ("get_standard", "get_standard_context"):
            assert await error_code(fixture_client, tool, {"frameworkId": LC, "nodeId": component}) == (
                "standard_not_found"
            )
    shared = structured(await call(fixture_client, "get_standard", {"frameworkId": DAG, "statementCode": "NF.2"}))
    assert [p["nodeId"] for p in shared["parents"]] == [item_id(DAG, "NBT"), item_id(DAG, "NF")]
    assert shared["standard"]["gradeLevels"] == ["2", "3"]
    top = structured(await call(fixture_client, "get_standard", {"frameworkId": TREE, "nodeId": item_id(TREE, "NBT")}))
    assert top["parents"] == [{"nodeId": root_id(TREE), "name": f"Fixture framework {TREE}", "kind": "framework"}]
    assert top["package"]["uri"] == uris.snapshot_uri(TREE, "2026-01")  # the root's resource
    assert top["childCount"] == 2


async def test_standard_tools_route_packages_like_every_tool(fixture_client: Client[Any]) -> None:
    for tool in ("get_standard", "get_standard_context"):
        message = await error(fixture_client, tool, {"frameworkId": TWIN, "statementCode": "NBT.1"})
        assert message.startswith("ambiguous_framework: ") and "2026-01" in message and "2026-02" in message
        chosen = structured(
            await call(fixture_client, tool, {"frameworkId": TWIN, "snapshotId": "2026-02", "statementCode": "NBT.1"})
        )
        assert chosen["package"]["graphPackageId"] == f"{TWIN}@2026-02"
        assert await error_code(
            fixture_client, tool, {"frameworkId": TREE, "snapshotId": "1999-01", "nodeId": "x"}
        ) == ("framework_not_found")
        old = structured(
            await call(fixture_client, tool, {"frameworkId": TREE, "snapshotId": "2025-01", "statementCode": "NF.1"})
        )
        # isCurrent appears only as false (an item the source retires); this one is current.
        assert old["package"]["graphPackageId"] == f"{TREE}@2025-01" and "isCurrent" not in old["standard"]


async def test_statement_code_lookup_needs_the_capability(fixture_client: Client[Any]) -> None:
    """A profile that forbids code search: the code exists, so the answer is not 'not found'."""
    for tool in ("get_standard", "get_standard_context"):
        message = await error(fixture_client, tool, {"frameworkId": NOCODE, "statementCode": "NBT.1"})
        assert message.startswith("capability_unavailable: ") and "nodeId" in message
        by_node = structured(
            await call(fixture_client, tool, {"frameworkId": NOCODE, "nodeId": item_id(NOCODE, "NBT.1")})
        )
        assert by_node["standard"]["statementCode"] == "NBT.1"


# -- get_standard_context ----------------------------------------------------------------------


async def test_context_of_a_multi_parent_standard(fixture_client: Client[Any], fixture_state: AppState) -> None:
    result = await call(fixture_client, "get_standard_context", {"frameworkId": DAG, "statementCode": "NF.2"})
    body = structured(result)
    nbt, nf, shared, root = item_id(DAG, "NBT"), item_id(DAG, "NF"), item_id(DAG, "NF.2"), root_id(DAG)
    assert node_ids(body["parents"]) == [nbt, nf]
    assert body["children"] == []
    # Each node once: the parents (depth 1) are not repeated among the ancestors.
    assert [(a["depth"], a["nodeId"]) for a in body["ancestors"]] == [(2, root)]
    assert body["ancestors"][0]["kind"] == "framework"
    assert body["rootPaths"] == [{"nodeIds": [root, nbt, shared]}, {"nodeIds": [root, nf, shared]}]
    assert body["ancestorsComplete"] and body["descendantsComplete"] and body["rootPathsComplete"]
    assert body["truncated"] is False and body["truncationReasons"] == []
    # The package block of an answer the curriculum map draws: the identity, the answer's grades, what it holds.
    package = dict(body["package"])
    grades, holds = package.pop("grades"), package.pop("holds")
    assert package == PackageRef.of(fixture_state.catalog.resolve(DAG)).to_wire()
    assert grades == [{"label": label, "display": f"Grade {label}"} for label in ("1", "2", "3")]
    assert holds == {"progressionLinks": False, "learningComponents": False}
    assert body["package"]["disclosureIds"] == ["fixture"]
    summary = texts(result)[0]
    assert "Root paths: 2 (complete: yes), by nodeId, root first:" in summary
    assert f"Path 1: {root} > {nbt} > {shared}" in summary
    assert "Truncated" not in summary


async def test_context_depth_bounds(fixture_client: Client[Any]) -> None:
    nbt = item_id(DAG, "NBT")
    request = {"frameworkId": DAG, "nodeId": nbt}
    one = structured(await call(fixture_client, "get_standard_context", request))
    assert [c.get("statementCode", c["nodeId"]) for c in one["children"]] == [item_id(DAG, "NBT.A"), "NBT.1", "NF.2"]
    assert one["descendants"] == []  # depth 1 is the children, listed once
    two = structured(await call(fixture_client, "get_standard_context", {**request, "childDepth": 2}))
    assert two["children"] == one["children"]
    assert [d["depth"] for d in two["descendants"]] == [2, 2]
    none = structured(
        await call(fixture_client, "get_standard_context", {**request, "childDepth": 0, "ancestorDepth": 0})
    )
    assert none["ancestors"] == [] and none["descendants"] == []
    assert none["ancestorsComplete"] and none["descendantsComplete"]
    assert none["rootPaths"] == [{"nodeIds": [root_id(DAG), nbt]}]
    assert none["children"] == one["children"]


async def test_context_truncation_reasons_on_the_dag(fixture_client: Client[Any]) -> None:
    request = {"frameworkId": DAG, "statementCode": "NF.2"}
    first_path = [root_id(DAG), item_id(DAG, "NBT"), item_id(DAG, "NF.2")]

    paths = structured(await call(fixture_client, "get_standard_context", {**request, "maxPaths": 1}))
    assert paths["truncationReasons"] == ["max_paths"] and paths["truncated"] is True
    assert paths["rootPaths"] == [{"nodeIds": first_path}] and paths["rootPathsComplete"] is False
    assert paths["ancestorsComplete"] is True

    occurrences = structured(
        await call(fixture_client, "get_standard_context", {**request, "maxPathNodeOccurrences": 5})
    )
    assert occurrences["truncationReasons"] == ["max_path_node_occurrences"]
    assert occurrences["rootPaths"] == [{"nodeIds": first_path}] and occurrences["rootPathsComplete"] is False
    exact = structured(await call(fixture_client, "get_standard_context", {**request, "maxPathNodeOccurrences": 6}))
    assert exact["truncated"] is False and len(exact["rootPaths"]) == 2
    nothing = structured(await call(fixture_client, "get_standard_context", {**request, "maxPathNodeOccurrences": 2}))
    assert nothing["rootPaths"] == [] and nothing["truncationReasons"] == ["max_path_node_occurrences"]

    nodes = structured(await call(fixture_client, "get_standard_context", {**request, "maxNodes": 2}))
    assert nodes["truncationReasons"] == ["max_nodes"]
    # The walk met the two parents (listed as parents) and stopped before the root.
    assert len(nodes["parents"]) == 2 and nodes["ancestors"] == [] and nodes["ancestorsComplete"] is False
    assert nodes["rootPathsComplete"] is True
    fits = structured(await call(fixture_client, "get_standard_context", {**request, "maxNodes": 3}))
    assert fits["truncated"] is False and len(fits["ancestors"]) == 1

    result = await call(fixture_client, "get_standard_context", {**request, "maxNodes": 1, "maxPaths": 1})
    both = structured(result)
    assert both["truncationReasons"] == ["max_nodes", "max_paths"]
    assert "Truncated by max_nodes, max_paths: do not treat this as complete hierarchy evidence." in texts(result)[0]


async def test_context_truncation_on_a_bncc_habilidade_with_six_parents(default_client: Client[Any]) -> None:
    request = {"frameworkId": EF, "statementCode": "EF07CI12"}
    full = structured(await call(default_client, "get_standard_context", request))
    assert len(full["parents"]) == 6
    assert len(full["rootPaths"]) == 6 and full["rootPathsComplete"] is True and full["truncated"] is False
    target = full["standard"]["nodeId"]
    for path in full["rootPaths"]:
        assert path["nodeIds"][-1] == target and len(path["nodeIds"]) == 5
    assert len({tuple(p["nodeIds"]) for p in full["rootPaths"]}) == 6
    assert [p["nodeIds"][-2] for p in full["rootPaths"]] == [p["nodeId"] for p in full["parents"]]
    assert full["directRelationships"]["learningComponentsSupporting"] == 4

    paths = structured(await call(default_client, "get_standard_context", {**request, "maxPaths": 2}))
    assert paths["truncationReasons"] == ["max_paths"] and paths["rootPaths"] == full["rootPaths"][:2]
    occurrences = structured(
        await call(default_client, "get_standard_context", {**request, "maxPathNodeOccurrences": 12})
    )
    assert occurrences["truncationReasons"] == ["max_path_node_occurrences"]
    assert occurrences["rootPaths"] == full["rootPaths"][:2]
    nodes = structured(await call(default_client, "get_standard_context", {**request, "maxNodes": 8}))
    # The walk's first 6 nodes are the parents; the next 2 are the first ancestors beyond them.
    assert nodes["truncationReasons"] == ["max_nodes"] and nodes["ancestors"] == full["ancestors"][:2]


def context_ids(body: dict[str, Any]) -> set[str]:
    return {
        body["standard"]["nodeId"],
        *node_ids(body["parents"]),
        *node_ids(body["children"]),
        *node_ids(body["ancestors"]),
        *node_ids(body["descendants"]),
        *(n for p in body["rootPaths"] for n in p["nodeIds"]),
    }


async def test_context_never_contains_learning_components(
    fixture_client: Client[Any], default_client: Client[Any], default_state: AppState
) -> None:
    components = {stable_uuid(LC, "component", "0"), stable_uuid(LC, "component", "1")}
    for key in ("NF.1", "NF.2", "NBT.A.1"):
        request = {"frameworkId": LC, "statementCode": key, "childDepth": 64}
        body = structured(await call(fixture_client, "get_standard_context", request))
        assert not context_ids(body) & components
        assert body["directRelationships"]["learningComponentsSupporting"] >= 1
    ef_components = {c.identifier for c in default_state.catalog.resolve(EF).components}
    for code in ("EF07CI12", "EF05MA04"):
        request = {"frameworkId": EF, "statementCode": code, "childDepth": 64}
        body = structured(await call(default_client, "get_standard_context", request))
        assert not context_ids(body) & ef_components
    grouping = structured(await call(default_client, "get_standard", {"frameworkId": EF, "statementCode": "EF07CI12"}))
    parent = grouping["parents"][0]["nodeId"]
    below = structured(
        await call(default_client, "get_standard_context", {"frameworkId": EF, "nodeId": parent, "childDepth": 64})
    )
    assert below["children"] and not context_ids(below) & ef_components


async def test_text_blocks_say_yes_or_no_not_python_booleans(fixture_client: Client[Any]) -> None:
    """Issue 44: a flag in a text block reads as a word a model would quote, never Python's True/False."""
    context = await call(fixture_client, "get_standard_context", {"frameworkId": DAG, "statementCode": "NF.2"})
    listing = await call(fixture_client, "list_frameworks", {"limit": 1})
    for result in (context, listing):
        summary = texts(result)[0]
        assert "True" not in summary and "False" not in summary, summary
    assert "(complete: yes)" in texts(context)[0]
    assert texts(listing)[0].startswith("1 of ") and "(more: yes)." in texts(listing)[0]
