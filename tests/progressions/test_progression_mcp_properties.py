"""Properties of the progression tools through the MCP client on a generated package (``fixture-mesh``).

The mesh is a validated package of 240 standards with forward ``buildsTowards`` links and random
``relatesTo`` cycles. Every drawn request must give a canonical result within the size ceiling and
the caps, whose content is exactly a prefix of the bounded graph run, judged as the graph layer judges it.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from progression_calls import assert_canonical_within_ceiling, traversal_links

from kgfegmcp.bootstrap import AppState
from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.graph.progressions import ProgressionTraversal, TraversalLimits, ordered_labels
from kgfegmcp.packages.records import BUILDS_TOWARDS
from kgfegmcp.packages.unresolved import load_unresolved
from package_factory import FixtureWorld
from progression_worlds import MESH
from served_apps import SERVED

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
MESH_SIZE = 240


def _mesh(i: int) -> dict[str, str]:
    return {"frameworkId": MESH, "statementCode": f"MESH.{i}"}


async def _call(state: AppState, tool: str, request: dict[str, Any]) -> Any:
    async with SERVED.client(state) as client:
        result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
        assert not result.is_error, result.content
        return result


@pytest.mark.slow  # a property sweep
@SETTINGS
@given(
    start=st.integers(min_value=0, max_value=MESH_SIZE - 1),
    direction=st.sampled_from(["in", "out", "both"]),
    kinds=st.lists(st.sampled_from(["buildsTowards", "relatesTo"]), min_size=1, max_size=2, unique=True),
    max_depth=st.integers(min_value=1, max_value=12),
    max_nodes=st.integers(min_value=1, max_value=250),
    max_edges=st.integers(min_value=1, max_value=100),
)
def test_traversal_through_mcp_is_a_truthful_prefix_within_every_bound(
    progression_state: AppState,
    start: int,
    direction: str,
    kinds: list[str],
    max_depth: int,
    max_nodes: int,
    max_edges: int,
) -> None:
    request = {
        **_mesh(start),
        "direction": direction,
        "linkTypes": kinds,
        "maxDepth": max_depth,
        "maxNodes": max_nodes,
        "maxEdges": max_edges,
    }
    content = assert_canonical_within_ceiling(
        asyncio.run(_call(progression_state, "traverse_learning_progressions", request))
    )
    links = traversal_links(content)
    assert len(content["nodes"]) <= max_nodes and len(links) <= max_edges
    assert content["counters"]["workAdmissions"] <= 5000
    store = next(p.store for p in progression_state.catalog.packages if p.framework_id == MESH)
    traversal = ProgressionTraversal(store)
    run = traversal.run(
        stable_uuid(MESH, "item", f"MESH.{start}"),
        ordered_labels(kinds),
        direction,  # type: ignore[arg-type]
        TraversalLimits(max_depth, max_nodes, max_edges),
    )
    view = traversal.view(run, len(links))
    assert [e["relationshipId"] for e in links] == [e.relationship.identifier for e in view.edges]
    assert [e["from"] for e in links] == [e.from_node for e in view.edges]
    assert [n["nodeId"] for n in content["nodes"]] == [n.node_id for n in view.nodes]
    assert content["scopeComplete"] == view.scope_complete
    assert content["graphExhausted"] == view.graph_exhausted == (not content["frontier"])
    wire_reason = {"not_expanded": "notExpanded", "max_depth": "maxDepth"}
    assert {(why, node, n) for why, nodes in content["frontier"].items() for node, n in nodes.items()} == {
        (wire_reason[f.reason], f.node_id, f.unreturned_links) for f in view.frontier
    }
    assert content["truncationReasons"] == list(view.truncation_reasons)
    if len(links) < len(run.edges):
        assert "byte_limit" in content["truncationReasons"]


@pytest.mark.slow  # a property sweep
@SETTINGS
@given(
    ends=st.tuples(st.integers(min_value=0, max_value=60), st.integers(min_value=0, max_value=MESH_SIZE - 1)),
    max_depth=st.integers(min_value=1, max_value=12),
    max_paths=st.integers(min_value=1, max_value=20),
)
def test_paths_through_mcp_are_valid_and_within_the_ceiling(
    progression_state: AppState, ends: tuple[int, int], max_depth: int, max_paths: int
) -> None:
    if ends[0] == ends[1]:
        return
    request = {"from": _mesh(ends[0]), "to": _mesh(ends[1]), "maxDepth": max_depth, "maxPaths": max_paths}
    content = assert_canonical_within_ceiling(
        asyncio.run(_call(progression_state, "find_learning_progression_paths", request))
    )
    links = {link["relationshipId"]: link for link in content["links"]}
    seen = set()
    lengths = []
    for path in content["paths"]:
        nodes, rels = [step["nodeId"] for step in path["steps"]], path["relationshipIds"]
        assert nodes[0] == content["fromNodeId"] and nodes[-1] == content["toNodeId"]
        assert len(set(nodes)) == len(nodes) and 1 <= len(rels) == len(nodes) - 1 <= max_depth
        for i, rel_id in enumerate(rels):
            link = links[rel_id]
            assert link["linkType"] == BUILDS_TOWARDS
            assert (link["sourceNodeId"], link["targetNodeId"]) == (nodes[i], nodes[i + 1])
        assert tuple(rels) not in seen
        seen.add(tuple(rels))
        lengths.append(len(rels))
    assert lengths == sorted(lengths) and len(lengths) <= max_paths
    if "nextUnreturnedPath" in content:
        assert "byte_limit" in content["truncationReasons"]


def test_unresolved_artifact_is_verified_against_the_manifest(
    progression_fixture_world: FixtureWorld, tmp_path: Path
) -> None:
    """Bytes that changed after validation are a catalog_error, never evidence."""
    root = tmp_path / "graph_packages"
    shutil.copytree(progression_fixture_world.packages, root)
    catalog = CatalogLoader(root, progression_fixture_world.profiles(), InvalidPackagePolicy.FAIL).load()
    lc = next(p for p in catalog.packages if p.framework_id == "fixture-lc")
    assert lc.unresolved.total == 1 and load_unresolved(lc.runtime).total == 1
    entry = lc.manifest.artifact("unresolvedItems")
    assert entry is not None
    path = lc.runtime.path / entry.path
    data = path.read_bytes().replace(b"EM13MAT101", b"EM13MAT102")
    assert hashlib.sha256(data).hexdigest() != entry.sha256
    path.write_bytes(data)
    with pytest.raises(CatalogError):
        load_unresolved(lc.runtime)
    with pytest.raises(CatalogError):
        CatalogLoader(root, progression_fixture_world.profiles(), InvalidPackagePolicy.FAIL).load()
