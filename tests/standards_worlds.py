"""Fixture catalogs for the standards tools: each arrangement a search warning or error needs.

Every package here is written by the real package writer and validated by the real lifecycle
(pending → passed) before a server is built over it; nothing is served that did not validate.

Frameworks (profile id = framework id):

* ``fixture-tree`` — tree, codes on every standard, exact + prefix search, derived-parent separator
  ``.``; a current snapshot ``2026-01`` and a superseded, non-current ``2025-01``.
* ``fixture-dag`` — the multi-parent DAG (``NF.2`` sits under both domains).
* ``fixture-lc`` — the DAG plus learning components and progression links.
* ``fixture-nocode`` — a profile that forbids code search (``code_search_unavailable``).
* ``fixture-noprefix`` — exact code search only, exact normalisation (``code_prefix_unavailable``).
* ``fixture-some`` — ``codesPresent: some`` and non-unique codes: one standard has no code and
  ``NBT.A.1`` is carried by two standards (``partial_code_coverage``, ``multiple_code_matches``,
  ``derived_parent_code_multiple``).
* ``fixture-notext`` — a package whose manifest declares ``textSearch: false`` (the validator accepts
  a package that opts out of text search; it only refuses ``true`` without items), so searching it
  gives ``text_search_unavailable``.
* ``fixture-twin`` — two current snapshots (``ambiguous_framework`` without a ``snapshotId``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import HAS_CHILD, ItemNode
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.writer import PackageWriter
from package_factory import (
    CODE_POLICY,
    DAG,
    LC,
    TREE,
    FixtureGraph,
    FixtureWorld,
    base_graph,
    content_for,
    dag_graph,
    lc_graph,
    standard_world,
    validate_all,
)

NOCODE = "fixture-nocode"
NOPREFIX = "fixture-noprefix"
SOME = "fixture-some"
NOTEXT = "fixture-notext"
TWIN = "fixture-twin"
NOTEXT_DISCLOSURE = "Fixture data written by tests; this package opts out of text search."


def code_policy(**changes: Any) -> dict[str, Any]:
    return {**CODE_POLICY, **changes}


def some_graph(framework_id: str) -> FixtureGraph:
    """The tree, plus a second standard coded ``NBT.A.1`` and one standard without a code."""
    graph = base_graph(framework_id)
    cluster = next(i for i in graph.items if i.statement_type == "Cluster")
    extra = [
        ItemNode(
            identifier=stable_uuid(framework_id, "item", "NBT.A.1-bis"),
            case_identifier_uuid=stable_uuid(framework_id, "item", "NBT.A.1-bis"),
            description="Compare two three-digit numbers based on meanings of the hundreds digits.",
            statement_type="Standard",
            grade_level=("2",),
            is_current=True,
            in_language="en",
            statement_code="NBT.A.1",
            academic_subject="Mathematics",
        ),
        ItemNode(
            identifier=stable_uuid(framework_id, "item", "uncoded"),
            case_identifier_uuid=stable_uuid(framework_id, "item", "uncoded"),
            description="Mentally add 10 or 100 to a given number between 100 and 900.",
            statement_type="Standard",
            grade_level=("2",),
            is_current=True,
            in_language="en",
            statement_code=None,
            academic_subject="Mathematics",
        ),
    ]
    graph.items += extra
    for item in extra:
        graph.link(HAS_CHILD, cluster.identifier, item.identifier)
    return graph


def _set_text_search_off(location: PackageLocation) -> None:
    path = location.path / MANIFEST_FILENAME
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["capabilities"]["textSearch"] = False
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def search_world(base: Path) -> FixtureWorld:
    """Every arrangement the standards tools' warnings and errors need, validated."""
    world = standard_world(base)
    world.add_profile(NOCODE, codePolicy=code_policy(exactSearch=False, prefixSearch=False))
    world.add_profile(NOPREFIX, codePolicy=code_policy(prefixSearch=False, normalization="exact"))
    world.add_profile(SOME, codePolicy=code_policy(codesPresent="some", unique=False))
    # The same disclosure id as every other fixture profile, with its own text: both must be shown.
    world.add_profile(NOTEXT, disclosures=[{"disclosureId": "fixture", "text": NOTEXT_DISCLOSURE}])
    world.add_profile(TWIN)
    locations = [
        world.write(base_graph(TREE)),
        PackageWriter().write_pending(
            replace(content_for(base_graph(TREE), world.profiles(), "2025-01"), is_current=False),
            world.packages,
        ),
        world.write(dag_graph(DAG)),
        world.write(lc_graph(LC)),
        world.write(base_graph(NOCODE)),
        world.write(base_graph(NOPREFIX)),
        world.write(some_graph(SOME)),
        world.write(base_graph(TWIN), "2026-01"),
        world.write(base_graph(TWIN), "2026-02"),
    ]
    notext = world.write(base_graph(NOTEXT))
    _set_text_search_off(notext)
    locations.append(notext)
    validate_all(world, locations)
    return world


def small_world(base: Path) -> FixtureWorld:
    """A different catalog (tree + DAG only): cursors of the search world must not work here."""
    world = standard_world(base)
    validate_all(world, [world.write(base_graph(TREE)), world.write(dag_graph(DAG))])
    return world
