"""Package writer determinism, lifecycle states, invalid-package policy and the accepted catalog."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from corrupt import artifact_path, edit_manifest, error_codes, read_manifest

from kgfegmcp.catalog import CatalogLoader
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import AmbiguousFrameworkError, CatalogError, FrameworkNotFoundError, ManifestBuildError
from kgfegmcp.packages.artifact_roles import PROVENANCE_PARTS
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import PackageManifest
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import DAG, LC, TREE, FixtureWorld, base_graph, lc_graph


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def lifecycle(world: FixtureWorld, policy: InvalidPackagePolicy = InvalidPackagePolicy.FAIL) -> PackageLifecycle:
    return PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), policy)


def loader(world: FixtureWorld, policy: InvalidPackagePolicy = InvalidPackagePolicy.FAIL) -> CatalogLoader:
    return CatalogLoader(world.packages, world.profiles(), policy)


def test_two_builds_are_byte_identical(world: FixtureWorld, tmp_path: Path) -> None:
    first = world.write(lc_graph(LC))
    before = tree_digest(first.path)
    second = world.write(lc_graph(LC))
    assert tree_digest(second.path) == before
    lifecycle(world).validate(second)
    validated = tree_digest(second.path)
    world.write(lc_graph(LC))
    lifecycle(world).validate(second)
    assert tree_digest(second.path) == validated


def test_pending_package_shape(built: dict[str, PackageLocation]) -> None:
    location = built[LC]
    manifest = PackageManifest.model_validate_json((location.path / "package_manifest.json").read_bytes())
    assert manifest.validation.status == "pending"
    assert manifest.graph_package_id == f"{LC}@2026-01"
    assert manifest.counts.learning_components.components == 2
    assert manifest.counts.relationships.supports == 3
    assert manifest.counts.relationships.builds_towards == 3 and manifest.counts.relationships.relates_to == 1
    assert list(manifest.graph_types.contains) == ["AcademicStandards", "LearningComponents", "LearningProgressions"]
    assert manifest.capabilities.exact_code_search and manifest.capabilities.prefix_code_search
    parts = [a for a in manifest.artifacts if a.logical_name.startswith("entityProvenancePart")]
    assert len(parts) == PROVENANCE_PARTS
    provenance = json.loads(artifact_path(location, "entityProvenance").read_text())["entities"]
    for entity_id in provenance:
        part = json.loads(
            artifact_path(location, f"entityProvenancePart{provenance_part_of(entity_id):02d}").read_text()
        )
        assert part["entities"][entity_id] == provenance[entity_id]
    for path in location.path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"\r\n" not in data and data.endswith(b"\n")


def test_writer_refuses_unsafe_identity(world: FixtureWorld) -> None:
    graph = base_graph(TREE)
    with pytest.raises(ManifestBuildError):
        world.write(graph, snapshot_id="2026_01")
    with pytest.raises(ManifestBuildError):
        world.write(graph, subject_slug="../up")


def test_a_refused_document_names_supplied_snapshots_by_their_package_id(world: FixtureWorld) -> None:
    """A supplied snapshot id already names its framework: the package it names is that id, never
    ``<framework>@<framework>@…``."""
    graph = base_graph(TREE)
    world.write(graph, snapshot_id=f"{TREE}@2026+abcdef")
    other = replace(graph, framework=replace(graph.framework, identifier="another-document"))
    with pytest.raises(ManifestBuildError) as refused:
        world.write(other, snapshot_id=f"{TREE}@2027+abcdef")
    assert refused.value.public_message.startswith(
        f"manifest_build_error: Cannot write {TREE}@2027+abcdef: the framework id {TREE} already belongs to "
        f"{TREE}@2026+abcdef in the graph-package root"
    )


def test_validate_moves_pending_to_passed_and_then_only_checks(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    first = lifecycle(world).validate(built[TREE])
    assert (first.result, first.recorded) == ("passed", True)
    manifest = read_manifest(built[TREE])
    report_bytes = artifact_path(built[TREE], "validationReport").read_bytes()
    assert manifest["validation"]["status"] == "passed"
    assert manifest["validation"]["reportSha256"] == hashlib.sha256(report_bytes).hexdigest()
    assert manifest["validation"]["validatorVersion"]
    again = lifecycle(world).validate(built[TREE])
    assert (again.result, again.recorded) == ("passed", False)
    assert read_manifest(built[TREE]) == manifest


def test_modified_passed_package_is_drift_and_fails_publication(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    for location in built.values():
        lifecycle(world).validate(location)
    assert len(loader(world).load().packages) == 3
    edit_manifest(built[DAG], lambda m: m["rights"].update(allowBulkResource=True))
    result = lifecycle(world).validate(built[DAG])
    assert result.result == "drifted" and not result.recorded
    # Not re-sealed, so the seal tells; bulk access its profile denies is refused in its own right too.
    assert error_codes(result.outcome.findings) == {"validation_state_mismatch", "rights_exceed_profile"}
    with pytest.raises(CatalogError) as caught:
        loader(world).load()
    assert f"{DAG}@2026-01" in caught.value.public_message
    with pytest.raises(CatalogError):  # the policy does not excuse a drifted passed package
        loader(world, InvalidPackagePolicy.QUARANTINE).load()


def test_modified_bytes_of_a_passed_package_fail_publication(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    for location in built.values():
        lifecycle(world).validate(location)
    path = artifact_path(built[TREE], "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    with pytest.raises(CatalogError, match="no longer validates"):
        loader(world).load()


def test_changed_profile_fails_publication(built: dict[str, PackageLocation], world: FixtureWorld) -> None:
    for location in built.values():
        lifecycle(world).validate(location)
    profile = world.profiles_root / TREE / "1.0.json"
    profile.write_text(profile.read_text().replace("Fixture profile", "Edited profile"))
    with pytest.raises(CatalogError, match="profile_binding_mismatch"):
        loader(world).load()


def _break(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.items = [replace(i, grade_level=("99",)) for i in graph.items]
    return world.write(graph, snapshot_id="2026-02", is_current=False)


def test_invalid_pending_package_with_fail_policy_aborts(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    _break(world)
    with pytest.raises(CatalogError, match="unknown_grade_label"):
        loader(world).load()


def test_invalid_pending_package_with_quarantine_policy_is_excluded(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    broken = _break(world)
    catalog = loader(world, InvalidPackagePolicy.QUARANTINE).load()
    assert f"{TREE}@2026-02" not in {p.graph_package_id for p in catalog.packages}
    assert [(e.graph_package_id, e.status) for e in catalog.excluded] == [(f"{TREE}@2026-02", "quarantined")]
    assert read_manifest(broken)["validation"]["status"] == "pending"  # the runtime never writes


def test_validate_with_quarantine_policy_records_quarantined(world: FixtureWorld) -> None:
    broken = _break(world)
    result = lifecycle(world, InvalidPackagePolicy.QUARANTINE).validate(broken)
    assert result.result == "quarantined" and result.recorded
    assert read_manifest(broken)["validation"]["status"] == "quarantined"


def test_failed_and_quarantined_packages_are_never_served(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    lifecycle(world).validate(_break(world))
    catalog = loader(world).load()
    assert f"{TREE}@2026-02" not in {p.graph_package_id for p in catalog.packages}
    assert catalog.excluded[0].status == "failed"


def test_zero_accepted_packages_is_an_error(world: FixtureWorld) -> None:
    with pytest.raises(CatalogError, match="No accepted graph package"):
        loader(world).load()
    lifecycle(world).validate(_break(world))
    with pytest.raises(CatalogError, match="empty catalog"):
        loader(world).load()


def test_selectors(built: dict[str, PackageLocation], world: FixtureWorld) -> None:
    world.write(base_graph(TREE), snapshot_id="2025-01", is_current=False)
    catalog = loader(world).load()
    assert catalog.resolve(TREE).snapshot_id == "2026-01"
    assert catalog.resolve(TREE, "2025-01").snapshot_id == "2025-01"
    with pytest.raises(FrameworkNotFoundError):
        catalog.resolve(TREE, "2024-01")
    with pytest.raises(FrameworkNotFoundError):
        catalog.resolve("fixture-none")
    assert catalog.framework_ids() == (DAG, LC, TREE)


def test_several_current_snapshots_are_ambiguous(built: dict[str, PackageLocation], world: FixtureWorld) -> None:
    world.write(base_graph(TREE), snapshot_id="2027-01")
    catalog = loader(world).load()
    with pytest.raises(AmbiguousFrameworkError) as caught:
        catalog.resolve(TREE)
    assert "Next action: Pass snapshotId" in caught.value.public_message
    assert catalog.resolve(TREE, "2027-01").snapshot_id == "2027-01"


def test_no_current_snapshot_is_not_found(world: FixtureWorld) -> None:
    world.write(base_graph(TREE), is_current=False)
    catalog = loader(world).load()
    with pytest.raises(FrameworkNotFoundError, match="No current snapshot"):
        catalog.resolve(TREE)


def test_catalog_fingerprint_tracks_content(built: dict[str, PackageLocation], world: FixtureWorld) -> None:
    first = loader(world).load().fingerprint
    assert loader(world).load().fingerprint == first
    world.write(base_graph(TREE), snapshot_id="2025-01", is_current=False)
    assert loader(world).load().fingerprint != first
