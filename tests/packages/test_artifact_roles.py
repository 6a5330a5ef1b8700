"""Each artifact role is declared once (``packages.artifact_roles``), and the writer, the manifest contract and
the validator agree with that declaration (the resource layer's agreement: tests/resources/test_documents.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, get_args

import pytest
from corrupt import edit_manifest
from pydantic import ValidationError

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.artifact_roles import (
    ARTIFACT_ROLE,
    ARTIFACT_ROLES,
    COMPONENT_ARTIFACTS,
    PROVENANCE_PART_ARTIFACTS,
    PROVENANCE_PARTS,
    SUPPLIED_ROLE,
    AccessClass,
    declared_roles,
    required_roles,
    role_at,
)
from kgfegmcp.packages.findings import REPORT_SCHEMA_VERSION, Finding
from kgfegmcp.packages.manifest import (
    DELIVERY_SCHEMA_VERSION,
    MANIFEST_FILENAME,
    MANIFEST_SCHEMA_VERSION,
    ExposureContract,
    PackageManifest,
)
from kgfegmcp.packages.manifest_reader import read_manifest
from kgfegmcp.packages.tree import path_problem
from kgfegmcp.packages.validator import PackageValidator, concerns_components
from kgfegmcp.resources.families import FAMILIES
from package_factory import LC, TREE, FixtureGraph, FixtureWorld, base_graph, lc_graph

#: The subject slug of the fixture packages (``package_factory.content_for``).
SUBJECT = "mathematics"
GRAPHS: dict[str, Callable[[], FixtureGraph]] = {
    "without components": lambda: base_graph(TREE),
    "with": lambda: lc_graph(LC),
}


def test_no_role_is_declared_twice() -> None:
    names = [role.logical_name for role in ARTIFACT_ROLES]
    assert len(set(names)) == len(names) == len(ARTIFACT_ROLE)
    for subject in (SUBJECT, "x"):
        paths = [role.path_for(subject) for role in ARTIFACT_ROLES]
        assert len({path.casefold() for path in paths}) == len(paths)
    for role in ARTIFACT_ROLES:
        assert ARTIFACT_ROLE[role.logical_name] is role
        assert role_at(role.path_for(SUBJECT)) is role
        assert path_problem(role.path_for(SUBJECT)) is None
    assert role_at("detailed/extra/operator_notes.txt") is None


def test_the_parts_and_the_component_collection_are_rows_of_the_table() -> None:
    assert tuple(r.logical_name for r in ARTIFACT_ROLES if not r.by_logical_name) == PROVENANCE_PART_ARTIFACTS
    assert len(PROVENANCE_PART_ARTIFACTS) == PROVENANCE_PARTS
    whole = ARTIFACT_ROLE["entityProvenance"]
    for name in PROVENANCE_PART_ARTIFACTS:  # a part is served and labelled as the file it is part of
        part = ARTIFACT_ROLE[name]
        # ... and is declared with the other 63 or not at all (the spec's package tree draws none).
        assert (part.access_class, part.labels, part.requirement) == (whole.access_class, whole.labels, "all_or_none")
    assert tuple(r.logical_name for r in ARTIFACT_ROLES if r.requirement == "with_components") == COMPONENT_ARTIFACTS
    ours = tuple(r for r in ARTIFACT_ROLES if "1.0" in r.shapes)
    assert declared_roles(0) == tuple(r for r in ours if r.logical_name not in COMPONENT_ARTIFACTS)
    assert declared_roles(3) == ours
    parts = set(PROVENANCE_PART_ARTIFACTS)
    assert {r.logical_name for r in required_roles("1.0", 3, ())} == {r.logical_name for r in ours} - parts
    assert required_roles("1.0", 3, {PROVENANCE_PART_ARTIFACTS[7]}) == ours
    assert required_roles("1.0", 0, parts) == declared_roles(0)


def test_the_supplied_shape_names_its_roles_and_requires_progressions_only_where_included() -> None:
    supplied = set(SUPPLIED_ROLE)
    # Every key of the reference manifests' artifact maps is a role of the table, under the pipeline's name.
    assert {"learningComponentsBundle", "learningComponentProvenance", "learningProgressionProvenanceIndex"} <= supplied
    assert not any(r.requirement == "all_or_none" for r in ARTIFACT_ROLES if "1.1" in r.shapes)
    without = {r.logical_name for r in required_roles("1.1", 0, ())}
    with_links = {r.logical_name for r in required_roles("1.1", 0, (), progressions=True)}
    assert len(with_links - without) == 9 + 64
    assert "lcValidationReport" not in {r.logical_name for r in required_roles("1.1", 5, ())}


@pytest.mark.parametrize("graph", GRAPHS.values(), ids=GRAPHS.keys())
def test_the_writer_writes_each_role_where_the_table_says(
    world: FixtureWorld, graph: Callable[[], FixtureGraph]
) -> None:
    location = world.write(graph())
    manifest, _ = read_manifest(location.path)
    components = manifest.counts.learning_components.components
    roles = declared_roles(components)
    assert [entry.logical_name for entry in manifest.artifacts] == [role.logical_name for role in roles]
    assert manifest.additional_artifacts == ()
    for entry, role in zip(manifest.artifacts, roles, strict=True):
        assert (entry.path, entry.media_type) == (role.path_for(SUBJECT), role.media_type)
        assert role_at(entry.path) is role
    files = sorted(p.relative_to(location.path).as_posix() for p in location.path.rglob("*") if p.is_file())
    assert files == sorted([MANIFEST_FILENAME, *(entry.path for entry in manifest.artifacts)])
    assert (manifest.manifest_schema_version, manifest.delivery_schema_version) == (
        MANIFEST_SCHEMA_VERSION,
        DELIVERY_SCHEMA_VERSION,
    )
    report = json.loads((location.path / ARTIFACT_ROLE["validationReport"].path).read_bytes())
    assert report["reportSchemaVersion"] == REPORT_SCHEMA_VERSION


def _entry(logical_name: str, path: str) -> dict[str, Any]:
    return {"logicalName": logical_name, "path": path, "sha256": "0" * 64, "bytes": 0, "mediaType": "application/json"}


def test_the_manifest_contract_takes_its_logical_names_from_the_table(world: FixtureWorld) -> None:
    wire = read_manifest(world.write(lc_graph(LC)).path)[0].to_wire()
    PackageManifest.model_validate_json(json.dumps(wire))
    stranger = {**wire, "artifacts": [*wire["artifacts"], _entry("operatorNotes", "detailed/notes.json")]}
    with pytest.raises(ValidationError, match="non-core logical names"):
        PackageManifest.model_validate_json(json.dumps(stranger))
    for name in (ARTIFACT_ROLES[0].logical_name, PROVENANCE_PART_ARTIFACTS[-1], COMPONENT_ARTIFACTS[-1]):
        kept = [entry for entry in wire["artifacts"] if entry["logicalName"] != name]
        reused = {**wire, "artifacts": kept, "additionalArtifacts": [_entry(name, "detailed/extra.json")]}
        with pytest.raises(ValidationError, match="reuses core logical names"):
            PackageManifest.model_validate_json(json.dumps(reused))
    beyond = f"entityProvenancePart{PROVENANCE_PARTS}"  # no role: an operator's artifact may take the name
    PackageManifest.model_validate_json(
        json.dumps({**wire, "additionalArtifacts": [_entry(beyond, "detailed/x.json")]})
    )


@pytest.mark.parametrize("graph", GRAPHS.values(), ids=GRAPHS.keys())
def test_the_validator_requires_exactly_the_declared_roles(
    world: FixtureWorld, graph: Callable[[], FixtureGraph]
) -> None:
    location = world.write(graph())
    components = read_manifest(location.path)[0].counts.components
    edit_manifest(location, lambda manifest: manifest.update(artifacts=[]))
    outcome = PackageValidator(world.profiles(), max_findings_per_code=len(ARTIFACT_ROLES)).validate(location)
    undeclared = {
        f.artifact
        for f in outcome.findings
        if f.code == FindingCode.MISSING_ARTIFACT and f.message == "required logical artifact is not declared"
    }
    # Declaring nothing, the package needs every role but the provenance parts (all 64 or none).
    assert undeclared == {role.logical_name for role in required_roles("1.0", components, ())}
    assert undeclared == {role.logical_name for role in declared_roles(components)} - set(PROVENANCE_PART_ARTIFACTS)


def test_the_validator_refuses_the_component_collection_without_components(
    world: FixtureWorld, validator: PackageValidator
) -> None:
    location = world.write(base_graph(TREE))
    edit_manifest(
        location,
        lambda manifest: manifest["artifacts"].extend(
            _entry(name, ARTIFACT_ROLE[name].path_for(SUBJECT)) for name in COMPONENT_ARTIFACTS
        ),
    )
    outcome = validator.validate(location)
    strays = {f.artifact for f in outcome.findings if f.code == FindingCode.LC_ARTIFACT_MISMATCH}
    assert strays == set(COMPONENT_ARTIFACTS)


def test_the_component_report_takes_its_artifacts_from_the_table() -> None:
    for role in ARTIFACT_ROLES:
        for located in (role.logical_name, role.path_for(SUBJECT)):
            finding = Finding(code="checksum_mismatch", severity="error", artifact=located, message="m")
            assert concerns_components(finding) == (role.requirement == "with_components"), located


def test_one_access_class_type_for_roles_exposures_and_families() -> None:
    """The roles use the artifact classes; an additional artifact's exposure may name any class the rights
    policy gates (``standard_resource`` too, gated like the per-entity families), and nothing else."""
    classes = get_args(AccessClass)
    assert classes == ("public_metadata", "full_text", "standard_resource", "bulk_content")
    assert {role.access_class for role in ARTIFACT_ROLES} == {"public_metadata", "full_text", "bulk_content"}
    assert {family.access for family in FAMILIES} - {None} <= set(classes)
    for access in classes:
        assert ExposureContract.model_validate({"accessClass": access, "description": "x"}).access_class == access
    with pytest.raises(ValidationError):
        ExposureContract.model_validate({"accessClass": "everything", "description": "x"})
