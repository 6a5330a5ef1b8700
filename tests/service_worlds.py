"""The evidence world of the service-level tests: tests/progressions' world and two packages storing fewer link kinds.

The service tests also read the search world (standards_worlds) and the rights world (resource_worlds); all of
them are built once per run by ``worlds``.
"""

from __future__ import annotations

from pathlib import Path

from package_factory import FixtureWorld, dag_graph
from progression_worlds import progression_world, validate_all

#: A package whose profile declares no progression link kinds (``no_progression_links``).
NOLINKS = "fixture-nolinks"
#: A package whose profile declares buildsTowards only (``link_type_not_stored`` for relatesTo).
BUILDS_ONLY = "fixture-builds-only"


def evidence_world(base: Path) -> FixtureWorld:
    """tests/progressions' world (LC, DAG, huge, wide, mesh) plus two DAG packages storing fewer link kinds."""
    world = progression_world(base)
    world.add_profile(NOLINKS, rule="multiParentDag", max_parents=2, progressionLabels=[])
    world.add_profile(BUILDS_ONLY, rule="multiParentDag", max_parents=2, progressionLabels=["buildsTowards"])
    validate_all(world, [world.write(dag_graph(NOLINKS)), world.write(dag_graph(BUILDS_ONLY))])
    return world
