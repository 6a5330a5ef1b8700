"""StandardsService.resolve_standard / get_standard / get_standard_context called directly.

The fixture hierarchies (tests/package_factory.py): a root with two domains; ``NBT`` holds the cluster
``NBT.A`` (with ``NBT.A.1`` and ``NBT.A.2``) and ``NBT.1``; ``NF`` holds ``NF.1``. The DAG and LC packages add
``NF.2`` under both domains. Expectations are written from that shape, and the walks are checked against an
independent breadth-first search over the package's store.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.errors import (
    AmbiguousFrameworkError,
    AmbiguousGraphNodeError,
    CapabilityUnavailableError,
    FrameworkNotFoundError,
    StandardNotFoundError,
)
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.resources import uris
from kgfegmcp.services.requests import GetStandardContextRequest, GetStandardRequest, StandardSelector
from kgfegmcp.services.standards import ContextRoot, ContextStandard, StandardContextResult, StandardDetail
from kgfegmcp.services.views import FrameworkRootRef, PackageRef, StandardRecord
from package_factory import DAG, LC, TREE
from standards_worlds import NOCODE, NOPREFIX, SOME, TWIN

SNAPSHOT = "2026-01"


def item(framework_id: str, key: str) -> str:
    return stable_uuid(framework_id, "item", key)


def root(framework_id: str) -> str:
    return stable_uuid(framework_id, "framework")


def selector(**fields: Any) -> StandardSelector:
    return StandardSelector.model_validate(fields)


def detail(state: AppState, **fields: Any) -> StandardDetail:
    return state.standards.get_standard(GetStandardRequest.model_validate(fields))


def context(state: AppState, **fields: Any) -> StandardContextResult:
    return state.standards.get_standard_context(GetStandardContextRequest.model_validate(fields))


def depths(entries: list[ContextStandard | ContextRoot] | list[ContextStandard]) -> list[tuple[str, int]]:
    return [(entry.node_id, entry.depth) for entry in entries]


def node_ids(entries: list[StandardRecord | FrameworkRootRef] | list[StandardRecord]) -> list[str]:
    return [entry.node_id for entry in entries]


# -- resolution ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        {"nodeId": item(DAG, "NF.2")},
        {"caseIdentifierUUID": item(DAG, "NF.2")},
        {"statementCode": "NF.2"},
        {"statementCode": "nf.2"},  # the profile casefolds codes
        {"statementCode": "NF.2", "snapshotId": SNAPSHOT},
    ],
)
def test_each_key_resolves_the_same_standard(search_state: AppState, key: dict[str, str]) -> None:
    package, found = search_state.standards.resolve_standard(selector(frameworkId=DAG, **key))
    assert package.graph_package_id == f"{DAG}@{SNAPSHOT}"
    assert (found.identifier, found.statement_code, found.grade_level) == (item(DAG, "NF.2"), "NF.2", ("2", "3"))


def test_an_explicit_snapshot_selects_a_non_current_package(search_state: AppState) -> None:
    package, found = search_state.standards.resolve_standard(
        selector(frameworkId=TREE, snapshotId="2025-01", statementCode="NF.1")
    )
    assert package.graph_package_id == f"{TREE}@2025-01" and package.manifest.is_current is False
    assert found.identifier == item(TREE, "NF.1")


@pytest.mark.parametrize(
    ("framework_id", "key", "described"),
    [
        (LC, {"nodeId": stable_uuid(LC, "component", "0")}, "nodeId"),  # a learning component
        (LC, {"caseIdentifierUUID": stable_uuid(LC, "component", "1")}, "caseIdentifierUUID"),
        (TREE, {"nodeId": root(TREE)}, "nodeId"),  # the framework root is not a standard
        (TREE, {"nodeId": "00000000-0000-0000-0000-000000000000"}, "nodeId"),
        (TREE, {"nodeId": item(DAG, "NF.2")}, "nodeId"),  # a standard of another package
        (TREE, {"statementCode": "NBT.Z.1"}, "statementCode"),
        (NOPREFIX, {"statementCode": "nbt.a.1"}, "statementCode"),  # exact normalisation: not its code
    ],
)
def test_what_is_not_a_standard_of_the_package_is_not_found(
    search_state: AppState, framework_id: str, key: dict[str, str], described: str
) -> None:
    with pytest.raises(StandardNotFoundError) as refused:
        search_state.standards.resolve_standard(selector(frameworkId=framework_id, **key))
    (value,) = key.values()
    assert refused.value.code == "standard_not_found"
    assert refused.value.message == f"No standard with {described} {value!r} in {framework_id}@{SNAPSHOT}."
    assert refused.value.hint == "Use search_standards to find the standard's nodeId."
    for call in (detail, context):  # both tools resolve the same way
        with pytest.raises(StandardNotFoundError):
            call(search_state, frameworkId=framework_id, **key)


def test_a_repeated_code_is_ambiguous_and_each_item_stays_reachable_by_id(search_state: AppState) -> None:
    with pytest.raises(AmbiguousGraphNodeError) as refused:
        search_state.standards.resolve_standard(selector(frameworkId=SOME, statementCode="nbt.a.1"))
    assert refused.value.code == "ambiguous_graph_node"
    assert refused.value.message == f"statementCode 'nbt.a.1' matches 2 items in {SOME}@{SNAPSHOT}."
    for key in ("NBT.A.1", "NBT.A.1-bis"):
        _, found = search_state.standards.resolve_standard(selector(frameworkId=SOME, nodeId=item(SOME, key)))
        assert found.statement_code == "NBT.A.1"


def test_code_lookup_needs_the_capability(search_state: AppState) -> None:
    with pytest.raises(CapabilityUnavailableError) as refused:
        search_state.standards.resolve_standard(selector(frameworkId=NOCODE, statementCode="NBT.1"))
    assert refused.value.code == "capability_unavailable"
    assert refused.value.message == f"{NOCODE}@{SNAPSHOT} does not support statement-code lookup."
    _, found = search_state.standards.resolve_standard(selector(frameworkId=NOCODE, nodeId=item(NOCODE, "NBT.1")))
    assert found.statement_code == "NBT.1"


def test_package_routing_errors(search_state: AppState) -> None:
    with pytest.raises(AmbiguousFrameworkError) as twin:
        search_state.standards.resolve_standard(selector(frameworkId=TWIN, statementCode="NBT.1"))
    assert twin.value.message == f"Framework {TWIN!r} has several current snapshots: 2026-01, 2026-02."
    with pytest.raises(FrameworkNotFoundError) as unknown:
        search_state.standards.resolve_standard(selector(frameworkId="no-such-framework", nodeId="x"))
    assert unknown.value.code == "framework_not_found"
    with pytest.raises(FrameworkNotFoundError):
        search_state.standards.resolve_standard(selector(frameworkId=TREE, snapshotId="1999-01", nodeId="x"))


# -- get_standard -------------------------------------------------------------------------------------


def test_get_standard_of_a_multi_parent_standard(search_state: AppState) -> None:
    result = detail(search_state, frameworkId=DAG, statementCode="NF.2")
    standard = result.standard
    assert (standard.node_id, standard.statement_code, standard.statement_type) == (
        item(DAG, "NF.2"),
        "NF.2",
        "Standard",
    )
    assert (
        standard.grade_levels == ["2", "3"] and standard.description == "Represent a fraction on a number line diagram."
    )
    assert (standard.academic_subject, standard.in_language, standard.notes) == ("Mathematics", "en", None)
    assert standard.uri == uris.standard_uri(DAG, SNAPSHOT, item(DAG, "NF.2"))
    assert standard.is_current is None  # only a retired item says isCurrent (false)
    # Both parents, in file order, as standards records.
    assert node_ids(result.parents) == [item(DAG, "NBT"), item(DAG, "NF")]
    assert all(type(parent) is StandardRecord for parent in result.parents)
    assert result.child_count == 0
    assert result.package == PackageRef.of(search_state.catalog.resolve(DAG))


def test_get_standard_of_a_domain_names_the_framework_root(search_state: AppState) -> None:
    result = detail(search_state, frameworkId=TREE, nodeId=item(TREE, "NBT"))
    assert result.parents == [FrameworkRootRef(node_id=root(TREE), name=f"Fixture framework {TREE}")]
    assert result.child_count == 2  # NBT.A and NBT.1
    assert result.standard.statement_code is None and result.standard.grade_levels == ["1", "2"]


# -- get_standard_context: walks ------------------------------------------------------------------------


def test_ancestors_are_listed_beyond_the_parents_with_their_depths(search_state: AppState) -> None:
    result = context(search_state, frameworkId=TREE, statementCode="NBT.A.1")
    assert node_ids(result.parents) == [item(TREE, "NBT.A")]
    assert depths(result.ancestors) == [(item(TREE, "NBT"), 2), (root(TREE), 3)]
    assert type(result.ancestors[0]) is ContextStandard and type(result.ancestors[1]) is ContextRoot
    assert result.ancestors[1].name == f"Fixture framework {TREE}"
    assert [p.node_ids for p in result.root_paths] == [
        [root(TREE), item(TREE, "NBT"), item(TREE, "NBT.A"), item(TREE, "NBT.A.1")]
    ]
    assert result.children == [] and result.descendants == []
    assert (result.ancestors_complete, result.descendants_complete, result.root_paths_complete) == (True, True, True)
    assert (result.truncated, result.truncation_reasons) == (False, [])
    assert result.standard.uri == uris.standard_uri(TREE, SNAPSHOT, item(TREE, "NBT.A.1"))


@pytest.mark.parametrize(
    ("ancestor_depth", "expected"),
    [(0, []), (1, []), (2, [("NBT", 2)]), (3, [("NBT", 2), ("root", 3)]), (64, [("NBT", 2), ("root", 3)])],
)
def test_ancestor_depth_bounds_the_walk_but_not_the_root_paths(
    search_state: AppState, ancestor_depth: int, expected: list[tuple[str, int]]
) -> None:
    result = context(search_state, frameworkId=TREE, statementCode="NBT.A.1", ancestorDepth=ancestor_depth)
    assert depths(result.ancestors) == [(root(TREE) if k == "root" else item(TREE, k), d) for k, d in expected]
    assert result.ancestors_complete is True  # everything within the requested depth is here
    assert node_ids(result.parents) == [item(TREE, "NBT.A")]  # parents are listed whatever the depth
    assert len(result.root_paths) == 1 and result.root_paths_complete is True


@pytest.mark.parametrize(
    ("child_depth", "expected"), [(0, []), (1, []), (2, ["NBT.A.1", "NBT.A.2"]), (64, ["NBT.A.1", "NBT.A.2"])]
)
def test_descendants_are_listed_beyond_the_children(
    search_state: AppState, child_depth: int, expected: list[str]
) -> None:
    result = context(search_state, frameworkId=DAG, nodeId=item(DAG, "NBT"), childDepth=child_depth)
    # NF.2 is a child of both domains; NBT lists it among its children in file order.
    assert node_ids(result.children) == [item(DAG, "NBT.A"), item(DAG, "NBT.1"), item(DAG, "NF.2")]
    assert depths(result.descendants) == [(item(DAG, key), 2) for key in expected]
    assert result.descendants_complete is True and result.truncated is False
    assert [p.node_ids for p in result.root_paths] == [[root(DAG), item(DAG, "NBT")]]


@pytest.mark.parametrize(
    ("max_nodes", "descendants", "truncated"),
    [(5, ["NBT.A.1", "NBT.A.2"], False), (4, ["NBT.A.1"], True), (3, [], True)],
)
def test_max_nodes_is_one_budget_for_both_walks(
    search_state: AppState, max_nodes: int, descendants: list[str], truncated: bool
) -> None:
    """NBT's walks meet 5 nodes: the root going up, then NBT.A, NBT.1, NBT.A.1 and NBT.A.2 going down."""
    result = context(search_state, frameworkId=TREE, nodeId=item(TREE, "NBT"), childDepth=2, maxNodes=max_nodes)
    assert depths(result.descendants) == [(item(TREE, key), 2) for key in descendants]
    assert result.ancestors_complete is True and result.descendants_complete is not truncated
    assert result.truncated is truncated
    assert result.truncation_reasons == (["max_nodes"] if truncated else [])
    assert node_ids(result.children) == [item(TREE, "NBT.A"), item(TREE, "NBT.1")]  # listed whatever the bound


# -- get_standard_context: the multi-parent DAG ----------------------------------------------------------


def test_a_multi_parent_standard_has_one_root_path_per_parent(search_state: AppState) -> None:
    result = context(search_state, frameworkId=LC, statementCode="NF.2")
    assert node_ids(result.parents) == [item(LC, "NBT"), item(LC, "NF")]
    assert depths(result.ancestors) == [(root(LC), 2)]  # reached through both parents, listed once
    assert [p.node_ids for p in result.root_paths] == [
        [root(LC), item(LC, "NBT"), item(LC, "NF.2")],
        [root(LC), item(LC, "NF"), item(LC, "NF.2")],
    ]


@pytest.mark.parametrize(
    ("bounds", "paths", "reasons"),
    [
        ({"maxPaths": 2}, 2, []),
        ({"maxPaths": 1}, 1, ["max_paths"]),
        ({"maxPathNodeOccurrences": 6}, 2, []),  # two paths of three nodes
        ({"maxPathNodeOccurrences": 5}, 1, ["max_path_node_occurrences"]),
        ({"maxPathNodeOccurrences": 2}, 0, ["max_path_node_occurrences"]),
        ({"maxNodes": 2, "maxPaths": 1}, 1, ["max_nodes", "max_paths"]),
    ],
)
def test_root_path_bounds_name_their_reason(
    search_state: AppState, bounds: dict[str, int], paths: int, reasons: list[str]
) -> None:
    full = context(search_state, frameworkId=DAG, statementCode="NF.2")
    result = context(search_state, frameworkId=DAG, statementCode="NF.2", **bounds)
    assert result.root_paths == full.root_paths[:paths]  # a prefix, in the same order
    assert result.root_paths_complete is (paths == 2)
    assert result.truncation_reasons == reasons and result.truncated is bool(reasons)


def _bfs(start: str, neighbours: Callable[[str], tuple[str, ...]]) -> dict[str, int]:
    """Shortest distances from ``start`` (excluded), written independently of the service's walk."""
    found: dict[str, int] = {}
    queue = deque([(start, 0)])
    seen = {start}
    while queue:
        node, depth = queue.popleft()
        for other in neighbours(node):
            if other not in seen:
                seen.add(other)
                found[other] = depth + 1
                queue.append((other, depth + 1))
    return found


def _paths_to_root(store: GraphStore, node: str) -> list[tuple[str, ...]]:
    if node == store.framework.identifier:
        return [(node,)]
    return [(*path, node) for parent in store.parents(node) for path in _paths_to_root(store, parent)]


@pytest.mark.parametrize("framework_id", [TREE, DAG, LC])
def test_every_standards_context_agrees_with_the_store(search_state: AppState, framework_id: str) -> None:
    """For every item: each node once, at its shortest distance, and every root path a real chain of parents."""
    store = search_state.catalog.resolve(framework_id).store
    for standard in store.items:
        identifier = standard.identifier
        result = context(search_state, frameworkId=framework_id, nodeId=identifier, childDepth=64)
        up, down = _bfs(identifier, store.parents), _bfs(identifier, store.children)
        assert node_ids(result.parents) == list(store.parents(identifier))
        assert node_ids(result.children) == list(store.children(identifier))
        assert dict(depths(result.ancestors)) == {n: d for n, d in up.items() if d > 1}
        assert dict(depths(result.descendants)) == {n: d for n, d in down.items() if d > 1}
        assert len(result.ancestors) == len({a.node_id for a in result.ancestors})
        assert len(result.descendants) == len({d.node_id for d in result.descendants})
        assert sorted(tuple(p.node_ids) for p in result.root_paths) == sorted(_paths_to_root(store, identifier))
        assert result.truncated is False


# -- get_standard_context: other relationships ----------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "counts"),
    [
        # (components supporting, buildsTowards out, buildsTowards in, relatesTo out, relatesTo in), from lc_graph.
        ("NBT.1", (0, 1, 0, 0, 0)),
        ("NBT.A.1", (1, 1, 1, 0, 0)),
        ("NBT.A.2", (0, 0, 1, 1, 0)),
        ("NF.1", (1, 1, 0, 0, 1)),
        ("NF.2", (1, 0, 1, 0, 0)),
    ],
)
def test_direct_relationships_are_counted_not_listed(
    search_state: AppState, code: str, counts: tuple[int, int, int, int, int]
) -> None:
    result = context(search_state, frameworkId=LC, statementCode=code)
    relationships = result.direct_relationships
    assert (
        relationships.learning_components_supporting,
        relationships.builds_towards_outgoing,
        relationships.builds_towards_incoming,
        relationships.relates_to_outgoing,
        relationships.relates_to_incoming,
    ) == counts
    components = {stable_uuid(LC, "component", "0"), stable_uuid(LC, "component", "1")}
    listed = {
        *node_ids(result.parents),
        *node_ids(result.children),
        *(a.node_id for a in result.ancestors),
        *(d.node_id for d in result.descendants),
    }
    assert not listed & components  # hierarchy only: components are never hierarchy nodes
