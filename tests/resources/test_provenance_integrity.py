"""Provenance comes from one checked part; retained bytes are re-verified before every read.

File access is observed with a Python audit hook on ``open`` events (both ``open()`` and ``os.open``
raise them), filtered to the package directory, so the assertion is about what the process really
opened, not about how the service is written.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from resource_calls import evidence, evidence_code, read, read_code, read_error

from kgfegmcp.app import create_app
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.resources import uris
from package_factory import LC, FixtureWorld, state_for
from resource_worlds import VARIANTS, lc_ids, small_lc_world

IDS = lc_ids()
SID = next(v.snapshot_id for v in VARIANTS if v.review_status == "approved" and all(v.flags))
PART_DIR = "detailed/entity_provenance_parts"

_lock = threading.Lock()
_recording: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _recording is not None and args and isinstance(args[0], (str, bytes, os.PathLike)):
        with _lock:
            if _recording is not None:
                _recording.append(os.path.realpath(os.fsdecode(args[0])))


sys.addaudithook(_audit)  # hooks cannot be removed; it records only inside ``opened_files``


@contextmanager
def opened_files(root: Path) -> Iterator[list[str]]:
    """Every file under ``root`` the process opens inside the block (relative paths, in order)."""
    global _recording
    seen: list[str] = []
    with _lock:
        _recording = seen
    found: list[str] = []
    try:
        yield found
    finally:
        with _lock:
            _recording = None
        base = os.path.realpath(root)
        found.extend(os.path.relpath(path, base) for path in seen if path.startswith(base + os.sep))


def part_path(entity_id: str) -> str:
    return f"{PART_DIR}/as_entity_provenance_part_{provenance_part_of(entity_id):02d}.json"


@pytest.mark.parametrize(
    ("name", "uri", "entity"),
    [
        ("hasChild relationship", uris.relationship_uri(LC, SID, IDS.has_child), IDS.has_child),
        ("supports relationship", uris.relationship_uri(LC, SID, IDS.supports), IDS.supports),
        ("buildsTowards progression", uris.learning_progression_uri(LC, SID, IDS.builds_towards), IDS.builds_towards),
        ("relatesTo progression", uris.learning_progression_uri(LC, SID, IDS.relates_to), IDS.relates_to),
        ("standard provenance", uris.standard_provenance_uri(LC, SID, IDS.standard), IDS.standard),
        (
            "component provenance",
            uris.learning_component_provenance_uri(LC, SID, IDS.component),
            IDS.component,
        ),
    ],
)
async def test_one_entity_provenance_opens_exactly_its_part(
    matrix_client: Client[Any], matrix_world: FixtureWorld, name: str, uri: str, entity: str
) -> None:
    package = matrix_world.packages / LC / SID
    with opened_files(package) as files:
        data, meta = await read(matrix_client, uri)
    assert files == [part_path(entity)], name
    document = json.loads(data)
    record = document["provenance"]["record"] if "record" in document["provenance"] else document["provenance"]
    model_output = entity == IDS.component or "supports" in name  # the fixture's components are model-generated
    stated = "llm_inferred" if model_output else "source_asserted"
    assert record == {"epistemicStatus": stated, "locator": record["locator"]}
    part = provenance_part_of(entity)
    assert [s["logicalArtifact"] for s in meta["sourceArtifacts"]][-1] == f"entityProvenancePart{part:02d}"
    assert stated in meta["epistemicStatus"] and "deterministic_derived" in meta["epistemicStatus"]
    with opened_files(package) as again:  # read_evidence goes through exactly the same read
        await evidence(matrix_client, {"uri": uri})
    assert again == [part_path(entity)]


async def test_derived_views_open_no_file(matrix_client: Client[Any], matrix_world: FixtureWorld) -> None:
    with opened_files(matrix_world.packages) as files:
        await read(matrix_client, uris.standard_uri(LC, SID, IDS.standard))
        await read(matrix_client, uris.learning_component_uri(LC, SID, IDS.component))
    assert files == []


async def test_part_resource_opens_only_that_part(matrix_client: Client[Any], matrix_world: FixtureWorld) -> None:
    with opened_files(matrix_world.packages) as files:
        data, meta = await read(matrix_client, uris.provenance_part_uri(LC, SID, 7))
    assert files == [f"{LC}/{SID}/{PART_DIR}/as_entity_provenance_part_07.json"]
    assert data == (matrix_world.packages / LC / SID / PART_DIR / "as_entity_provenance_part_07.json").read_bytes()
    assert meta["representation"] == "raw_source"


# -- corruption ---------------------------------------------------------------------------------


@pytest.fixture
def corruptible(tmp_path: Path) -> FixtureWorld:
    """A private, validated world this test may damage after the server has started."""
    return small_lc_world(tmp_path)


def _flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    index = data.index(b"source_asserted")
    data[index] = ord("S")  # same size, different bytes
    path.write_bytes(bytes(data))


async def test_corrupted_part_is_refused(corruptible: FixtureWorld, caplog: pytest.LogCaptureFixture) -> None:
    state = state_for(corruptible)  # validated and accepted first; then the part is damaged on disk
    package = corruptible.packages / LC / "2026-01"
    entity = IDS.builds_towards
    _flip_one_byte(package / part_path(entity))
    sid = "2026-01"
    candidates = [
        (IDS.standard, uris.standard_provenance_uri(LC, sid, IDS.standard)),
        (IDS.other_standard, uris.standard_provenance_uri(LC, sid, IDS.other_standard)),
        (IDS.component, uris.learning_component_provenance_uri(LC, sid, IDS.component)),
    ]
    other_uri = next(uri for node_id, uri in candidates if provenance_part_of(node_id) != provenance_part_of(entity))
    same_part = uris.provenance_part_uri(LC, sid, provenance_part_of(entity))
    async with Client(create_app(state)) as client:
        with caplog.at_level(logging.WARNING, logger="kgfegmcp.services.resources"):
            message = await read_error(client, uris.learning_progression_uri(LC, sid, entity))
        assert message.startswith("resource_access_denied: ")
        assert "SHA-256" in message and str(corruptible.base) not in message and PART_DIR not in message
        assert any("integrity check failed" in record.getMessage() for record in caplog.records)
        assert await read_code(client, uris.relationship_uri(LC, sid, entity)) == "resource_access_denied"
        assert await read_code(client, same_part) == "resource_access_denied"
        assert await evidence_code(client, {"uri": same_part}) == "resource_access_denied"
        # Evidence in every other part is still served: the refusal is exactly as wide as the damage.
        await read(client, other_uri)


async def test_every_raw_read_reverifies_the_retained_bytes(corruptible: FixtureWorld) -> None:
    state = state_for(corruptible)
    sid = "2026-01"
    package = corruptible.packages / LC / sid
    async with Client(create_app(state)) as client:
        before, _ = await read(client, uris.validation_uri(LC, sid))
        report = package / "detailed/as_validation_report.json"
        report.write_bytes(report.read_bytes().replace(b'"passed"', b'"PASSED"'))
        assert await read_code(client, uris.validation_uri(LC, sid)) == "resource_access_denied"
        assert await read_code(client, uris.artifact_uri(LC, sid, "validationReport")) == "resource_access_denied"
        notes = package / "detailed/extra/operator_notes.txt"
        notes.write_bytes(notes.read_bytes() + b"appended after validation\n")
        assert await read_code(client, uris.artifact_uri(LC, sid, "operatorNotes")) == "resource_access_denied"
        (package / "detailed/as_unresolved_items.json").unlink()
        assert await read_code(client, uris.unresolved_uri(LC, sid)) == "resource_access_denied"
        assert before  # the intact report was served before the damage


async def test_changed_manifest_or_profile_is_refused(corruptible: FixtureWorld) -> None:
    state = state_for(corruptible)
    sid = "2026-01"
    package = corruptible.packages / LC / sid
    async with Client(create_app(state)) as client:
        await read(client, uris.manifest_uri(LC, sid))
        await read(client, uris.profile_uri(LC, sid))
        manifest = package / MANIFEST_FILENAME
        document = json.loads(manifest.read_text(encoding="utf-8"))
        document["title"] = "Edited after validation"
        manifest.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        assert await read_code(client, uris.manifest_uri(LC, sid)) == "resource_access_denied"
        profile = corruptible.profiles_root / LC / "1.0.json"
        profile.write_bytes(profile.read_bytes() + b"\n")
        assert await read_code(client, uris.profile_uri(LC, sid)) == "resource_access_denied"


async def test_symlinked_artifact_is_not_followed(corruptible: FixtureWorld, tmp_path: Path) -> None:
    """A file swapped for a symlink after validation is refused, even to identical bytes elsewhere."""
    state = state_for(corruptible)
    sid = "2026-01"
    notes = corruptible.packages / LC / sid / "detailed/extra/operator_notes.txt"
    outside = tmp_path / "outside.txt"
    outside.write_bytes(notes.read_bytes())
    notes.unlink()
    notes.symlink_to(outside)
    async with Client(create_app(state)) as client:
        assert await read_code(client, uris.artifact_uri(LC, sid, "operatorNotes")) == "resource_access_denied"


async def test_non_regular_file_is_refused_without_blocking(corruptible: FixtureWorld) -> None:
    """A FIFO swapped in for an artifact after validation is refused at once (opening it never blocks)."""
    state = state_for(corruptible)
    sid = "2026-01"
    notes = corruptible.packages / LC / sid / "detailed/extra/operator_notes.txt"
    notes.unlink()
    os.mkfifo(notes)
    async with Client(create_app(state)) as client:
        assert await read_code(client, uris.artifact_uri(LC, sid, "operatorNotes")) == "resource_access_denied"
