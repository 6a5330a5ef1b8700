"""The fixture worlds the service-level tests call into, reused from the suites that own them.

The worlds live beside those suites (tests/mcp, tests/progressions, tests/resources); pytest puts those
folders on sys.path only when it collects them, so importing this module adds them, the way
``tests/regression/regression_calls.py`` does. The conftest imports it first, so the test modules can
import those worlds directly.
"""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[1]
for _folder in (_TESTS / "mcp", _TESTS / "progressions", _TESTS / "resources"):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))

from progression_worlds import progression_world, validate_all  # noqa: E402
from resource_worlds import rights_world  # noqa: E402
from standards_worlds import search_world  # noqa: E402

from package_factory import FixtureWorld, dag_graph  # noqa: E402

__all__ = ["BUILDS_ONLY", "NOLINKS", "evidence_world", "rights_world", "search_world"]

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
