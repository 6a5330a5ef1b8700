"""Property-based tests of the progression algorithms on generated graphs (real GraphStores).

Graphs: ``buildsTowards`` only from lower to higher index (a DAG), ``relatesTo`` between any two
standards (so cycles are common). Each property is checked against a plain reference computed
without bounds: caps are never exceeded, completeness claims are exactly true, paths are valid,
simple, directed, unique and in order, and the same input always gives the same output.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.graph.progressions import (
    LABEL_ORDER,
    Direction,
    ProgressionPaths,
    ProgressionTraversal,
    TraversalLimits,
    incident_links,
    ordered_labels,
)
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import BUILDS_TOWARDS, RelationshipLabel
from kgfegmcp.packages.runtime import PackageRuntime
from package_factory import LC, lc_graph, standard_world
from progression_worlds import generated_store, validate_all

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def base_runtime(tmp_path_factory: pytest.TempPathFactory) -> PackageRuntime:
    """An accepted runtime whose identity the generated graphs borrow."""
    world = standard_world(tmp_path_factory.mktemp("graph-properties"))
    validate_all(world, [world.write(lc_graph(LC))])
    catalog = CatalogLoader(world.packages, world.profiles(), InvalidPackagePolicy.FAIL).load()
    return catalog.packages[0].runtime


@st.composite
def graphs(draw: st.DrawFn, cyclic_builds: bool = False) -> dict[str, Any]:
    """A generated graph: size, forward buildsTowards pairs, arbitrary relatesTo pairs (cycles).

    With ``cyclic_builds`` the buildsTowards pairs are arbitrary too (packages may store such cycles),
    so path simplicity is really exercised.
    """
    size = draw(st.integers(min_value=2, max_value=8 if cyclic_builds else 28))
    index = st.integers(min_value=0, max_value=size - 1)
    pairs = draw(st.lists(st.tuples(index, index), min_size=2 * size if cyclic_builds else 0, max_size=70))
    builds = [(a, b) if cyclic_builds or a < b else (b, a) for a, b in pairs if a != b]
    relates = draw(st.lists(st.tuples(index, index), max_size=40))
    return {"size": size, "builds": builds, "relates": relates}


def _eligible(store: GraphStore, node: str, labels: tuple[RelationshipLabel, ...], direction: Direction) -> list[Any]:
    return list(incident_links(store, node, labels, direction))


def _reference(
    store: GraphStore, start: str, labels: tuple[RelationshipLabel, ...], direction: Direction, max_depth: int | None
) -> tuple[dict[str, int], set[str]]:
    """Unbounded BFS distances within ``max_depth`` and the links leaving nodes below it."""
    distance = {start: 0}
    links: set[str] = set()
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if max_depth is not None and distance[node] >= max_depth:
            continue
        for step in _eligible(store, node, labels, direction):
            links.add(step.relationship.identifier)
            if step.neighbour not in distance:
                distance[step.neighbour] = distance[node] + 1
                queue.append(step.neighbour)
    return distance, links


@SETTINGS
@given(
    graph=graphs(),
    start_index=st.integers(min_value=0, max_value=27),
    direction=st.sampled_from(["in", "out", "both"]),
    kinds=st.lists(st.sampled_from(LABEL_ORDER), min_size=1, max_size=2, unique=True),
    max_depth=st.integers(min_value=1, max_value=12),
    max_nodes=st.integers(min_value=1, max_value=40),
    max_edges=st.integers(min_value=1, max_value=60),
    max_admissions=st.integers(min_value=1, max_value=200),
    cut=st.floats(min_value=0.0, max_value=1.0),
)
def test_traversal_respects_caps_and_reports_completeness_truthfully(
    base_runtime: PackageRuntime,
    graph: dict[str, Any],
    start_index: int,
    direction: Direction,
    kinds: list[RelationshipLabel],
    max_depth: int,
    max_nodes: int,
    max_edges: int,
    max_admissions: int,
    cut: float,
) -> None:
    store, ids = generated_store(base_runtime, graph["size"], graph["builds"], graph["relates"])
    start = ids[start_index % graph["size"]]
    labels = ordered_labels(kinds)
    limits = TraversalLimits(max_depth, max_nodes, max_edges, max_admissions)
    traversal = ProgressionTraversal(store)
    run = traversal.run(start, labels, direction, limits)
    assert run == traversal.run(start, labels, direction, limits)  # deterministic

    # Caps are never exceeded.
    assert len(run.nodes) <= max_nodes
    assert len(run.edges) <= max_edges
    assert run.admissions <= max_admissions

    scope_distance, scope_links = _reference(store, start, labels, direction, max_depth)
    closure_distance, closure_links = _reference(store, start, labels, direction, None)
    # Views of every prefix (the size ceiling cuts a run to a prefix) stay truthful.
    for count in sorted({len(run.edges), int(cut * len(run.edges))}):
        view = traversal.view(run, count)
        nodes = {n.node_id: n.depth for n in view.nodes}
        links = [e.relationship.identifier for e in view.edges]
        assert len(nodes) == len(view.nodes) and len(set(links)) == len(links)  # no duplicates
        assert view.nodes[0].node_id == start and view.nodes[0].depth == 0
        for node_id, depth in nodes.items():
            assert scope_distance[node_id] == depth  # shortest distances, never past max_depth
        for edge in view.edges:
            rel = edge.relationship
            assert rel.label in labels
            assert edge.from_node in nodes
            assert {rel.source_identifier, rel.target_identifier} <= set(nodes)
            assert edge.from_node == (rel.source_identifier if edge.direction == "out" else rel.target_identifier)
            assert direction == "both" or (direction == "out") == (edge.direction == "out")
            assert nodes[edge.from_node] < max_depth
        in_scope = set(nodes) == set(scope_distance) and set(links) == scope_links
        assert view.scope_complete == in_scope
        exhausted = set(nodes) == set(closure_distance) and set(links) == closure_links
        assert view.graph_exhausted == exhausted
        assert view.graph_exhausted == (not view.frontier)
        if count < len(run.edges):
            assert "byte_limit" in view.truncation_reasons
        if view.scope_complete and not view.graph_exhausted:
            assert "max_depth" in view.truncation_reasons
        for frontier in view.frontier:
            missing = [
                s
                for s in _eligible(store, frontier.node_id, labels, direction)
                if s.relationship.identifier not in set(links)
            ]
            assert frontier.unreturned_links == len(missing) > 0
    if run.stopped_by is None:
        assert traversal.view(run).scope_complete  # nothing stopped it: the whole scope is there


def _all_paths(store: GraphStore, source: str, target: str, max_depth: int) -> list[tuple[Any, ...]]:
    """Every simple directed buildsTowards path of at most ``max_depth`` links (reference, DFS)."""
    found: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[str, ...], tuple[Any, ...]]] = [((source,), ())]
    while stack:
        nodes, rels = stack.pop()
        if len(rels) >= max_depth:
            continue
        for rel in store.outgoing(nodes[-1], BUILDS_TOWARDS):
            nxt = rel.target_identifier
            if nxt in nodes:
                continue
            if nxt == target:
                found.append((*rels, rel))
            else:
                stack.append(((*nodes, nxt), (*rels, rel)))
    return found


@SETTINGS
@given(
    graph=st.one_of(graphs(), graphs(cyclic_builds=True)),
    ends=st.tuples(st.integers(min_value=0, max_value=27), st.integers(min_value=0, max_value=27)),
    max_depth=st.integers(min_value=1, max_value=12),
    max_paths=st.integers(min_value=1, max_value=20),
    max_admissions=st.integers(min_value=1, max_value=300),
)
def test_paths_are_valid_simple_directed_unique_and_ordered(
    base_runtime: PackageRuntime,
    graph: dict[str, Any],
    ends: tuple[int, int],
    max_depth: int,
    max_paths: int,
    max_admissions: int,
) -> None:
    store, ids = generated_store(base_runtime, graph["size"], graph["builds"], graph["relates"])
    source, target = ids[ends[0] % graph["size"]], ids[ends[1] % graph["size"]]
    if source == target:
        return
    finder = ProgressionPaths(store)
    search = finder.find(source, target, max_depth, max_paths, max_admissions)
    assert search == finder.find(source, target, max_depth, max_paths, max_admissions)  # deterministic
    assert len(search.paths) <= max_paths
    assert search.admissions <= max_admissions
    position = {rel.identifier: i for i, rel in enumerate(store.runtime.relationships)}
    for path in search.paths:
        assert path.node_ids[0] == source and path.node_ids[-1] == target
        assert len(set(path.node_ids)) == len(path.node_ids)  # simple
        assert 1 <= path.length <= max_depth
        for i, rel in enumerate(path.relationships):
            assert rel.label == BUILDS_TOWARDS
            assert (rel.source_identifier, rel.target_identifier) == (path.node_ids[i], path.node_ids[i + 1])
    keys = [tuple(position[r.identifier] for r in p.relationships) for p in search.paths]
    assert len(set(keys)) == len(keys)  # unique
    reference = sorted(
        (tuple(position[r.identifier] for r in rels) for rels in _all_paths(store, source, target, max_depth)),
        key=lambda k: (len(k), k),
    )
    # Shortest first, then file order of the links: the result is always a prefix of the full order.
    assert keys == reference[: len(keys)]
    if search.search_complete:
        assert keys == reference and len(reference) <= max_paths
    if search.more_paths_exist:
        assert len(reference) > max_paths and keys == reference[:max_paths]
    if "admission_limit" not in search.truncation_reasons:
        assert keys == reference[:max_paths]
        assert search.more_paths_exist == (len(reference) > max_paths)


def test_generated_graphs_have_relates_to_cycles(base_runtime: PackageRuntime) -> None:
    """The generator really produces relatesTo cycles, so the properties above cover them."""
    store, ids = generated_store(base_runtime, 3, [(0, 1)], [(0, 1), (1, 2), (2, 0)])
    run = ProgressionTraversal(store).run(ids[0], LABEL_ORDER, "out", TraversalLimits(12, 250, 100))
    view = ProgressionTraversal(store).view(run)
    assert {n.node_id for n in view.nodes} == set(ids)
    assert len(view.edges) == 4 and view.graph_exhausted and view.scope_complete


def test_paths_stay_simple_on_builds_towards_cycles(base_runtime: PackageRuntime) -> None:
    """A stored buildsTowards cycle (0 → 1 → 2 → 1, 1 → 0) never makes a path revisit a standard."""
    store, ids = generated_store(base_runtime, 4, [(0, 1), (1, 2), (2, 1), (2, 3), (1, 0)], [])
    search = ProgressionPaths(store).find(ids[0], ids[3], 12, 20)
    assert [[ids.index(n) for n in p.node_ids] for p in search.paths] == [[0, 1, 2, 3]]
    assert search.search_complete and not search.more_paths_exist
