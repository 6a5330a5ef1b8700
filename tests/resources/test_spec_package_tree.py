"""The package tree as the spec draws it: no entity-provenance parts, which this server's builder adds as an index.

A package that declares none of the 64 parts validates, and every per-entity provenance read comes from the
provenance documents themselves (checked by their SHA-256 like any artifact); a package that declares some
parts must declare all of them; and the gate is as strict on such a package as on one with parts.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from resource_calls import read

from kgfegmcp.app import create_app
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.artifact_roles import PROVENANCE_PART_ARTIFACTS, provenance_part_name
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import BUILDS_TOWARDS, SUPPORTS
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.resources import uris
from package_factory import LC, TREE, FixtureWorld, base_graph, lc_graph, standard_world, state_for, validate_all
from tool_calls import call, structured

PARTS_DIR = "detailed/entity_provenance_parts"


def without_parts(location: PackageLocation, keep: frozenset[str] = frozenset()) -> None:
    """Undeclare the provenance parts (all but ``keep``) and remove their files, as the spec's tree has none."""
    manifest_path = location.path / MANIFEST_FILENAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    dropped = set(PROVENANCE_PART_ARTIFACTS) - keep
    gone = [a["path"] for a in manifest["artifacts"] if a["logicalName"] in dropped]
    manifest["artifacts"] = [a for a in manifest["artifacts"] if a["logicalName"] not in dropped]
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n", "utf-8")
    for path in gone:
        (location.path / path).unlink()
    if not keep:
        shutil.rmtree(location.path / PARTS_DIR)


def errors(world: FixtureWorld, location: PackageLocation) -> dict[str, set[str | None]]:
    """Error codes of a validation, each with the artifacts it names."""
    outcome = PackageValidator(world.profiles()).validate(location)
    found: dict[str, set[str | None]] = {}
    for finding in outcome.findings:
        if finding.severity == "error":
            found.setdefault(finding.code, set()).add(finding.artifact)
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> FixtureWorld:
    """The tree and learning-component fixture packages, both without parts, validated."""
    world = standard_world(tmp_path_factory.mktemp("spec-tree"))
    locations = [world.write(base_graph(TREE)), world.write(lc_graph(LC))]
    for location in locations:
        without_parts(location)
    validate_all(world, locations)
    return world


@pytest.fixture(scope="module")
def state(world: FixtureWorld) -> Any:
    return state_for(world)


def test_a_package_without_parts_validates(world: FixtureWorld) -> None:
    for framework in (TREE, LC):
        (manifest_path,) = (world.packages / framework).glob(f"*/{MANIFEST_FILENAME}")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        assert manifest["validation"]["status"] == "passed"
        assert not {a["logicalName"] for a in manifest["artifacts"]} & set(PROVENANCE_PART_ARTIFACTS)
        assert not (manifest_path.parent / PARTS_DIR).exists()


def test_some_parts_without_the_others_is_refused(tmp_path: Path) -> None:
    world = standard_world(tmp_path)
    location = world.write(base_graph(TREE))
    without_parts(location, keep=frozenset({provenance_part_name(0), provenance_part_name(5)}))
    found = errors(world, location)
    expected = set(PROVENANCE_PART_ARTIFACTS) - {provenance_part_name(0), provenance_part_name(5)}
    assert set(found) == {"missing_artifact"}
    # The report keeps a bounded number of findings per code: those it names are the undeclared parts.
    assert provenance_part_name(1) in found["missing_artifact"] and found["missing_artifact"] <= expected


def test_the_provenance_documents_are_checked_without_parts(tmp_path: Path) -> None:
    world = standard_world(tmp_path)
    location = world.write(base_graph(TREE))
    without_parts(location)
    path = location.path / "detailed" / "as_entity_provenance.json"
    path.write_bytes(path.read_bytes().replace(b"source_asserted", b"source_assertex", 1))
    assert "checksum_mismatch" in errors(world, location)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert lifecycle.validate(location).result != "passed"


async def test_entity_provenance_is_read_from_the_documents(world: FixtureWorld, state: Any) -> None:
    async with Client(create_app(state)) as client:
        for runtime in state.catalog.packages:
            fid, sid = runtime.framework_id, runtime.snapshot_id
            item = runtime.items[len(runtime.items) // 2]
            data, meta = await read(client, uris.standard_provenance_uri(fid, sid, item.identifier))
            document = json.loads(data)
            assert document["provenance"]["epistemicStatus"] == "source_asserted"
            assert document["provenancePart"] is None and document["provenancePartUri"] is None
            assert meta["sourceArtifacts"][0]["logicalArtifact"] == "entityProvenance"
        lc = next(r for r in state.catalog.packages if r.framework_id == LC)
        support = next(r for r in lc.relationships if r.label == SUPPORTS)
        component_uri = uris.learning_component_uri(lc.framework_id, lc.snapshot_id, support.source_identifier)
        data, meta = await read(client, component_uri + "/provenance")
        assert json.loads(data)["provenance"] is not None
        assert meta["sourceArtifacts"][0]["logicalArtifact"] == "lcEntityProvenance"
        link = next(r for r in lc.relationships if r.label == BUILDS_TOWARDS)
        data, _meta = await read(
            client, uris.learning_progression_uri(lc.framework_id, lc.snapshot_id, link.identifier)
        )
        assert json.loads(data)["provenance"]["record"] is not None


async def test_tools_answer_and_cite_no_part(state: Any) -> None:
    async with Client(create_app(state)) as client:
        lc = next(r for r in state.catalog.packages if r.framework_id == LC)
        link = next(r for r in lc.relationships if r.label == BUILDS_TOWARDS)
        answer = structured(
            await call(client, "get_learning_progression", {"frameworkId": LC, "progressionId": link.identifier})
        )
        assert "provenancePartUri" not in answer
        tree = next(r for r in state.catalog.packages if r.framework_id == TREE)
        item = tree.items[0]
        standard = structured(await call(client, "get_standard", {"frameworkId": TREE, "nodeId": item.identifier}))
        assert standard["standard"]["nodeId"] == item.identifier
