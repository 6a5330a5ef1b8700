"""Fixture catalogs for the resource layer: one validated package per rights variant.

Every package is written by the real package writer with the rights under test, given a few
``additionalArtifacts`` (one per exposure contract, one without any), and moved to ``passed`` by the
real lifecycle before a server is built over it.

* ``fixture-lc`` — 25 snapshots, one per (review state, permission combination) the RightsPolicy
  contract admits: allowBulkResource requires allowFullText and allowStandardResources, so the
  flag combinations are (fullText, standardResources, bulk) ∈ {000, 100, 010, 110, 111}.
* ``fixture-tree`` — one ordinary package whose ids belong to another package.
* ``fixture-dag@derivatives-denied`` — every resource permission, but generated derivatives denied.

The profiles of ``fixture-lc`` and ``fixture-dag`` grant every right (:data:`EVERY_RIGHT`), so each variant's
manifest narrows its profile's rights, as a manifest may without any step (a wider one is refused).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.rights import REVIEW_STATUSES, RightsPolicy
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, SUPPORTS
from kgfegmcp.packages.tree import PackageLocation
from package_factory import (
    DAG,
    LC,
    RIGHTS,
    TREE,
    FixtureGraph,
    FixtureWorld,
    base_graph,
    dag_graph,
    lc_graph,
    standard_world,
    validate_all,
)

#: (allowFullText, allowStandardResources, allowBulkResource) combinations RightsPolicy accepts.
FLAG_COMBINATIONS: tuple[tuple[bool, bool, bool], ...] = (
    (False, False, False),
    (True, False, False),
    (False, True, False),
    (True, True, False),
    (True, True, True),
)

#: Multi-byte text (2-, 3- and 4-byte UTF-8 characters) so windows meet characters at every offset.
NOTES_TEXT = "".join(
    f"Nota {index:03d}: números e frações · 数学の記録 · 🧮🔢 · ação — “{index}”\n" for index in range(24)
)
#: Control characters escape to six JSON characters each, so a full window cannot fit the ceiling.
CONTROL_TEXT = "\x01" * 40_000
BINARY_BYTES = bytes(range(256)) * 8


@dataclass(frozen=True)
class Extra:
    """One additional artifact and the exposure contract it declares (``None``: no contract)."""

    logical_name: str
    path: str
    data: bytes
    media_type: str
    access_class: str | None


EXTRAS: tuple[Extra, ...] = (
    Extra("operatorNotes", "detailed/extra/operator_notes.txt", NOTES_TEXT.encode(), "text/plain", "public_metadata"),
    Extra(
        "teacherNotes", "detailed/extra/teacher_notes.txt", b"Teacher notes: full text.\n", "text/plain", "full_text"
    ),
    Extra(
        "sourceExtract",
        "detailed/extra/source_extract.json",
        b'{"extract": true}\n',
        "application/json",
        "bulk_content",
    ),
    Extra("operatorLog", "detailed/extra/operator_log.txt", b"internal operator log\n", "text/plain", None),
    Extra("binaryFigure", "detailed/extra/figure.bin", BINARY_BYTES, "application/octet-stream", "public_metadata"),
    Extra("controlNotes", "detailed/extra/control.txt", CONTROL_TEXT.encode(), "text/plain", "public_metadata"),
)


@dataclass(frozen=True)
class Variant:
    """One rights variant and the snapshot that carries it."""

    review_status: str
    allow_full_text: bool
    allow_standard_resources: bool
    allow_bulk_resource: bool

    @property
    def snapshot_id(self) -> str:
        flags = "".join("1" if f else "0" for f in self.flags)
        return f"{self.review_status.replace('_', '-')}-{flags}"

    @property
    def flags(self) -> tuple[bool, bool, bool]:
        return (self.allow_full_text, self.allow_standard_resources, self.allow_bulk_resource)

    @property
    def reviewed(self) -> bool:
        return self.review_status in ("approved", "provisional_operator_approved")

    def rights(self) -> RightsPolicy:
        return RightsPolicy(
            source_license="CC BY 4.0 (test fixture)",
            license_uri="https://creativecommons.org/licenses/by/4.0/",
            attribution_statement="Test fixture curriculum, written by the test suite.",
            review_status=self.review_status,  # type: ignore[arg-type]
            allow_standard_resources=self.allow_standard_resources,
            allow_full_text=self.allow_full_text,
            allow_bulk_resource=self.allow_bulk_resource,
            allow_generated_derivatives="allowed",
        )


VARIANTS: tuple[Variant, ...] = tuple(
    Variant(review, *flags) for review in REVIEW_STATUSES for flags in FLAG_COMBINATIONS
)


def add_extras(location: PackageLocation, extras: tuple[Extra, ...] = EXTRAS) -> None:
    """Declare additional artifacts in a pending manifest (a pending manifest carries no seal yet)."""
    manifest_path = location.path / MANIFEST_FILENAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    entries = []
    for extra in extras:
        target = location.path / extra.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(extra.data)
        entry: dict[str, Any] = {
            "logicalName": extra.logical_name,
            "path": extra.path,
            "sha256": hashlib.sha256(extra.data).hexdigest(),
            "bytes": len(extra.data),
            "mediaType": extra.media_type,
        }
        if extra.access_class is not None:
            entry["exposure"] = {"accessClass": extra.access_class, "description": f"Fixture {extra.logical_name}."}
        entries.append(entry)
    manifest["additionalArtifacts"] = entries
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


#: Default rights of a profile that grants all a manifest may narrow.
EVERY_RIGHT: dict[str, Any] = {
    **RIGHTS,
    "reviewStatus": "approved",
    "allowBulkResource": True,
    "allowFullText": True,
    "allowStandardResources": True,
    "allowGeneratedDerivatives": "allowed",
}


def rights_world(base: Path) -> FixtureWorld:
    """The 25 rights variants of the learning-component package, plus one other package."""
    world = standard_world(base)
    for framework in (LC, DAG):
        world.add_profile(framework, rule="multiParentDag", max_parents=2, defaultRights=EVERY_RIGHT)
    locations = []
    for variant in VARIANTS:
        location = world.write(lc_graph(LC), variant.snapshot_id, rights=variant.rights())
        add_extras(location)
        locations.append(location)
    locations.append(world.write(base_graph(TREE)))
    locations.append(world.write(dag_graph(DAG), DERIVATIVES_DENIED, rights=derivatives_denied_rights()))
    validate_all(world, locations)
    return world


#: A snapshot that may expose everything but denies generated derivatives (an independent policy).
DERIVATIVES_DENIED = "derivatives-denied"


def derivatives_denied_rights() -> RightsPolicy:
    """Every resource permission granted, generated derivatives denied."""
    return Variant("approved", True, True, True).rights().model_copy(update={"allow_generated_derivatives": "denied"})


def small_lc_world(base: Path) -> FixtureWorld:
    """One learning-component package (provisional approval, bulk denied): for tests that corrupt files."""
    world = standard_world(base)
    location = world.write(lc_graph(LC))
    add_extras(location)
    validate_all(world, [location])
    return world


@dataclass(frozen=True)
class Ids:
    """Deterministic ids inside every ``fixture-lc`` package (and one from ``fixture-tree``)."""

    standard: str
    other_standard: str
    component: str
    has_child: str
    supports: str
    builds_towards: str
    relates_to: str
    tree_standard: str


def lc_ids() -> Ids:
    """Ids of the fixture graph (the same in every snapshot of one framework)."""
    graph: FixtureGraph = lc_graph(LC)

    def rel(label: str) -> str:
        return next(r.identifier for r in graph.relationships if r.label == label)

    return Ids(
        standard=stable_uuid(LC, "item", "NBT.1"),
        other_standard=stable_uuid(LC, "item", "NF.2"),
        component=graph.components[0].identifier,
        has_child=rel(HAS_CHILD),
        supports=rel(SUPPORTS),
        builds_towards=rel(BUILDS_TOWARDS),
        relates_to=rel(RELATES_TO),
        tree_standard=stable_uuid(TREE, "item", "NBT.1"),
    )
