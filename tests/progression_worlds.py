"""Fixture catalogs and generated graphs for the evidence tools (components, progressions, comparison).

Packages are written by the real writer and moved to ``passed`` by the real lifecycle. Frameworks:

* ``fixture-dag`` — the package factory's multi-parent DAG, without components or progression links.
* ``fixture-lc`` — the package factory's DAG with learning components, progression links and one
  unresolved reference (on ``NF.2``).
* ``fixture-huge`` — ``fixture-lc`` whose standard ``NBT.A.1`` has a description larger than a whole
  tool result, so any link, edge or path that shows it cannot fit (``progression_result_too_large``).
* ``fixture-wide`` — ``WIDE.S`` builds towards twenty 3,000-character standards ``WIDE.M<i>``, each of
  which builds towards ``WIDE.T``: pages and paths reach the size ceiling (``byte_limit``) before
  their item limits.
* ``fixture-mesh`` — a generated graph (seeded, deterministic) of 240 standards: ``buildsTowards``
  only from lower to higher positions (a DAG), ``relatesTo`` at random with cycles.

Generated graphs for property tests are served by replacing the records of an accepted runtime, so
the algorithms run on real :class:`GraphStore` objects without writing a package per example.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    HAS_CHILD,
    RELATES_TO,
    FrameworkNode,
    ItemNode,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.runtime import PackageRuntime
from package_factory import DAG, LC, FixtureGraph, FixtureWorld, dag_graph, lc_graph, standard_world, validate_all

HUGE = "fixture-huge"
WIDE = "fixture-wide"
MESH = "fixture-mesh"
WIDE_MIDDLES = 20
HUGE_DESCRIPTION_CHARS = 120_000


def _standard(framework_id: str, code: str, text: str, grade: str = "2") -> ItemNode:
    uid = stable_uuid(framework_id, "item", code)
    return ItemNode(
        identifier=uid,
        case_identifier_uuid=uid,
        description=text,
        statement_type="Standard",
        grade_level=(grade,),
        is_current=True,
        in_language="en",
        statement_code=code,
        academic_subject="Mathematics",
    )


def huge_graph() -> FixtureGraph:
    """``fixture-lc`` with one oversized standard (``NBT.A.1``)."""
    graph = lc_graph(HUGE)
    graph.items = [
        replace(item, description="Understand place value. " * (HUGE_DESCRIPTION_CHARS // 24))
        if item.statement_code == "NBT.A.1"
        else item
        for item in graph.items
    ]
    return graph


def _domain(graph: FixtureGraph) -> ItemNode:
    return next(i for i in graph.items if i.statement_type == "Domain")


def wide_graph() -> FixtureGraph:
    """``WIDE.S`` → twenty ``WIDE.M<i>`` (3,000 characters each) → ``WIDE.T``, on top of ``fixture-lc``."""
    graph = lc_graph(WIDE)
    domain = _domain(graph)
    start = _standard(WIDE, "WIDE.S", "Start: compare quantities.", "1")
    end = _standard(WIDE, "WIDE.T", "Target: reason about quantities.", "3")
    middles = [
        _standard(WIDE, f"WIDE.M{i}", f"Middle step {i}: " + "describe and compare quantities; " * 90, "2")
        for i in range(WIDE_MIDDLES)
    ]
    graph.items += [start, *middles, end]
    for item in [start, *middles, end]:
        graph.link(HAS_CHILD, domain.identifier, item.identifier)
    for middle in middles:
        graph.link(BUILDS_TOWARDS, start.identifier, middle.identifier)
        graph.link(BUILDS_TOWARDS, middle.identifier, end.identifier)
    return graph


def mesh_graph(size: int = 240, seed: int = 7) -> FixtureGraph:
    """A seeded random graph: buildsTowards forward only (a DAG), relatesTo anywhere (cycles)."""
    graph = lc_graph(MESH)
    domain = _domain(graph)
    rng = random.Random(seed)
    nodes = [
        _standard(MESH, f"MESH.{i}", f"Generated mesh standard {i} about measurement and data.") for i in range(size)
    ]
    graph.items += nodes
    for node in nodes:
        graph.link(HAS_CHILD, domain.identifier, node.identifier)
    seen: set[tuple[str, int, int]] = set()
    for i in range(size):
        for _ in range(rng.randint(0, 4)):
            j = rng.randint(i + 1, min(size - 1, i + 12)) if i < size - 1 else None
            if j is not None and (BUILDS_TOWARDS, i, j) not in seen:
                seen.add((BUILDS_TOWARDS, i, j))
                graph.link(BUILDS_TOWARDS, nodes[i].identifier, nodes[j].identifier)
        for _ in range(rng.randint(0, 2)):
            j = rng.randrange(size)
            if j != i and (RELATES_TO, i, j) not in seen:
                seen.add((RELATES_TO, i, j))
                graph.link(RELATES_TO, nodes[i].identifier, nodes[j].identifier)
    return graph


def progression_world(base: Path) -> FixtureWorld:
    """``fixture-lc``, ``fixture-dag`` (no components, no links), ``fixture-huge``, ``-wide`` and ``-mesh``."""
    world = standard_world(base)
    for framework_id in (HUGE, WIDE, MESH):
        world.add_profile(framework_id, rule="multiParentDag", max_parents=2)
    locations = [world.write(lc_graph(LC)), world.write(dag_graph(DAG))]
    locations += [world.write(huge_graph()), world.write(wide_graph())]
    locations.append(world.write(mesh_graph()))
    validate_all(world, locations)
    return world


# -- generated graphs on real stores (property tests) -------------------------------------------


def generated_store(
    base: PackageRuntime, size: int, builds: list[tuple[int, int]], relates: list[tuple[int, int]]
) -> tuple[GraphStore, list[str]]:
    """A GraphStore over ``size`` generated standards and the given links (indices into them).

    The accepted runtime ``base`` provides the package identity; its records are replaced.
    """
    framework: FrameworkNode = base.framework
    items = [_standard("generated", f"G.{i}", f"Generated standard {i}") for i in range(size)]
    relationships: list[RelationshipRecord] = []
    seen: set[tuple[str, int, int]] = set()
    for label, pairs in ((BUILDS_TOWARDS, builds), (RELATES_TO, relates)):
        for source, target in pairs:
            if source == target or (label, source, target) in seen:
                continue
            seen.add((label, source, target))
            relationships.append(
                RelationshipRecord(
                    identifier=stable_uuid("generated", label, str(source), str(target)),
                    label=label,
                    source_identifier=items[source].identifier,
                    target_identifier=items[target].identifier,
                    source_label=items[source].label,
                    target_label=items[target].label,
                    source_entity_key=entity_key_for(items[source].label),
                    target_entity_key=entity_key_for(items[target].label),
                )
            )
    table = RelationshipTable.from_records(relationships, [framework.identifier, *(item.identifier for item in items)])
    runtime = replace(base, framework=framework, items=tuple(items), components=(), relationships=table)
    return GraphStore(runtime), [item.identifier for item in items]
