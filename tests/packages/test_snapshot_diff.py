"""``packages diff`` on generated snapshots: every kind of difference, exactly, and every refusal.

Two snapshots of one fixture framework are written through the real package writer and accepted by
``PackageLifecycle`` (as ``packages validate`` does); the second differs from the first in known ways.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from corrupt import artifact_path, edit_manifest, edit_records, error_codes, find_record

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import InvalidComparisonSelectionError, PackageValidationError
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, ItemNode
from kgfegmcp.packages.snapshot_diff import SnapshotDiff, diff_packages
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, seal_of
from kgfegmcp.packages.writer import PackageWriter
from package_factory import LC, FixtureGraph, FixtureWorld, lc_graph, profile_document, write_profile

FRAMEWORK = "fixture-diff"


def _profile(world: FixtureWorld) -> None:
    """The LC fixture profile, with codes that may repeat and statements nested in statements."""
    document = profile_document(FRAMEWORK, rule="multiParentDag", max_parents=2)
    document["codePolicy"]["unique"] = False
    document["hierarchy"]["allowedEdges"].append({"parentType": "Standard", "childType": "Standard"})
    write_profile(world.profiles_root, document)


def uid(key: str) -> str:
    return stable_uuid(FRAMEWORK, "item", key)


def _standard(key: str, code: str, text: str, grades: tuple[str, ...] = ("3",)) -> ItemNode:
    return ItemNode(
        identifier=uid(key),
        case_identifier_uuid=uid(key),
        description=text,
        statement_type="Standard",
        grade_level=grades,
        is_current=True,
        in_language="en",
        statement_code=code,
        academic_subject="Mathematics",
    )


def _by_code(graph: FixtureGraph, code: str) -> ItemNode:
    (item,) = [i for i in graph.items if i.statement_code == code]
    return item


def _keyed(graph: FixtureGraph, key: str) -> ItemNode:
    return next(i for i in graph.items if i.identifier == uid(key))


def old_graph() -> FixtureGraph:
    """The LC fixture (tree + multi-parent DAG + components + progression links) plus a few statements."""
    graph = lc_graph(FRAMEWORK)
    fractions = _keyed(graph, "NF")
    nf1 = _by_code(graph, "NF.1")
    extra = [
        (_standard("NF.1.a", "NF.1.a", "Partition a shape into halves."), nf1),
        (_standard("NF.9", "NF.9", "A statement the new snapshot drops."), fractions),
        (_standard("NF.5", "NF.5", "Compare fractions with the same numerator."), fractions),
        (_standard("NF.4-x", "NF.4", "First statement coded NF.4."), fractions),
        (_standard("NF.4-y", "NF.4", "Second statement coded NF.4."), fractions),
    ]
    for item, parent in extra:
        graph.items.append(item)
        graph.link(HAS_CHILD, parent.identifier, item.identifier)
    return graph


def _reidentify(graph: FixtureGraph, old: ItemNode, new: ItemNode) -> None:
    """Replace ``old`` by ``new`` everywhere: the item, and each relationship's endpoints and id."""
    graph.items[graph.items.index(old)] = new
    relationships = list(graph.relationships)
    graph.relationships.clear()
    for rel in relationships:
        source = new.identifier if rel.source_identifier == old.identifier else rel.source_identifier
        target = new.identifier if rel.target_identifier == old.identifier else rel.target_identifier
        extra = {"support_confidence": rel.support_confidence} if rel.support_confidence is not None else {}
        graph.link(rel.label, source, target, **extra)


def new_graph() -> FixtureGraph:
    """The old graph with one of each kind of difference."""
    graph = old_graph()
    numbers, fractions = _keyed(graph, "NBT"), _keyed(graph, "NF")
    cluster = _keyed(graph, "NBT.A")

    def edit(code: str, **changes: Any) -> None:
        item = _by_code(graph, code)
        graph.items[graph.items.index(item)] = replace(item, **changes)

    edit("NBT.1", description="Count to 120, starting at any number less than 120.")  # text
    edit("NBT.A.1", grade_level=("2", "3"))  # grades
    edit("NBT.A.2", statement_code="NBT.A.2b")  # code
    edit("NF.5", statement_type="Cluster")  # statement type
    nf1 = _by_code(graph, "NF.1")  # re-identified: new CASE id, same unique code, links kept
    _reidentify(graph, nf1, replace(nf1, identifier=uid("NF.1-v2"), case_identifier_uuid=uid("NF.1-v2")))
    nf4y = _keyed(graph, "NF.4-y")  # re-identified, but NF.4 repeats
    _reidentify(graph, nf4y, replace(nf4y, identifier=uid("NF.4-z"), case_identifier_uuid=uid("NF.4-z")))
    nf9 = _by_code(graph, "NF.9")  # removed
    graph.items.remove(nf9)
    graph.relationships[:] = [
        r for r in graph.relationships if nf9.identifier not in (r.source_identifier, r.target_identifier)
    ]
    nf2 = _by_code(graph, "NF.2")  # moved: no longer under the numbers domain
    graph.relationships[:] = [
        r
        for r in graph.relationships
        if not (
            r.label == HAS_CHILD and (r.source_identifier, r.target_identifier) == (numbers.identifier, nf2.identifier)
        )
    ]
    added = _standard("NBT.A.3", "NBT.A.3", "Add and subtract within 1000.", ("2",))  # added
    graph.items.append(added)
    graph.link(HAS_CHILD, cluster.identifier, added.identifier)
    nbt1, nbta1, nbta2 = _by_code(graph, "NBT.1"), _by_code(graph, "NBT.A.1"), _by_code(graph, "NBT.A.2b")
    graph.relationships[:] = [  # link removed
        r
        for r in graph.relationships
        if not (
            r.label == BUILDS_TOWARDS
            and (r.source_identifier, r.target_identifier) == (nbt1.identifier, nbta1.identifier)
        )
    ]
    graph.link(RELATES_TO, nbta1.identifier, nf2.identifier)  # link added between kept statements
    graph.link(BUILDS_TOWARDS, nbta2.identifier, added.identifier)  # link added to an added statement
    assert fractions.identifier in {r.source_identifier for r in graph.relationships}
    graph.items.reverse()  # file order is no identity: nothing may be matched by position
    return graph


def accept(world: FixtureWorld, graph: FixtureGraph, snapshot: str) -> PackageLocation:
    """Write a pending package and record it passed, as `packages build` + `packages validate` do."""
    location = world.write(graph, snapshot)
    result = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL).validate(
        location
    )
    assert result.accepted, [f.code for f in result.outcome.findings if f.severity == "error"]
    return location


@pytest.fixture
def diff_world(world: FixtureWorld) -> FixtureWorld:
    _profile(world)
    return world


@pytest.fixture
def snapshots(diff_world: FixtureWorld) -> tuple[PackageLocation, PackageLocation]:
    return accept(diff_world, old_graph(), "2025-01"), accept(diff_world, new_graph(), "2026-01")


def run_diff(world: FixtureWorld, old: PackageLocation, new: PackageLocation) -> SnapshotDiff:
    return diff_packages(old, new, PackageValidator(world.profiles()))


def test_every_kind_of_difference_exactly(
    diff_world: FixtureWorld, snapshots: tuple[PackageLocation, PackageLocation]
) -> None:
    diff = run_diff(diff_world, *snapshots)
    assert diff.framework_id == FRAMEWORK
    assert (diff.old.graph_package_id, diff.new.graph_package_id) == (f"{FRAMEWORK}@2025-01", f"{FRAMEWORK}@2026-01")
    assert (diff.old.statements, diff.new.statements, diff.old.progression_links, diff.new.progression_links) == (
        13,
        13,
        4,
        5,
    )
    assert diff.summary.model_dump() == {
        "matched_by_identifier": 10,
        "matched_by_code": 1,
        "added": 2,
        "removed": 2,
        "changed": 5,
        "moved": 1,
        "links_added": 2,
        "links_removed": 1,
        "ambiguous_codes": 1,
    }
    assert [(s.statement_code, s.case_identifier_uuid) for s in diff.added] == [
        ("NBT.A.3", uid("NBT.A.3")),
        ("NF.4", uid("NF.4-z")),
    ]
    assert [(s.statement_code, s.case_identifier_uuid) for s in diff.removed] == [
        ("NF.4", uid("NF.4-y")),
        ("NF.9", uid("NF.9")),
    ]
    assert [
        (c.matched_by, c.new.statement_code, [(f.field, f.old, f.new) for f in c.changes]) for c in diff.changed
    ] == [
        (
            "caseIdentifierUUID",
            "NBT.1",
            [
                (
                    "description",
                    "Count to 120, starting at any number.",
                    "Count to 120, starting at any number less than 120.",
                )
            ],
        ),
        ("caseIdentifierUUID", "NBT.A.1", [("gradeLevel", ("2",), ("2", "3"))]),
        ("caseIdentifierUUID", "NBT.A.2b", [("statementCode", "NBT.A.2", "NBT.A.2b")]),
        ("statementCode", "NF.1", [("caseIdentifierUUID", uid("NF.1"), uid("NF.1-v2"))]),
        ("caseIdentifierUUID", "NF.5", [("statementType", "Standard", "Cluster")]),
    ]
    (moved,) = diff.moved
    assert (moved.matched_by, moved.old.case_identifier_uuid, moved.new.case_identifier_uuid) == (
        "caseIdentifierUUID",
        uid("NF.2"),
        uid("NF.2"),
    )
    assert [p.case_identifier_uuid for p in moved.old_parents] == [uid("NBT"), uid("NF")]
    assert [p.case_identifier_uuid for p in moved.new_parents] == [uid("NF")]

    def link(entry: Any) -> tuple[str, str | None, str | None]:
        return entry.label, entry.source.statement_code, entry.target.statement_code

    assert [link(e) for e in diff.links_added] == [
        ("buildsTowards", "NBT.A.2b", "NBT.A.3"),
        ("relatesTo", "NBT.A.1", "NF.2"),
    ]
    assert [link(e) for e in diff.links_removed] == [("buildsTowards", "NBT.1", "NBT.A.1")]
    (ambiguous,) = diff.ambiguous_codes
    assert (ambiguous.statement_code, ambiguous.old_statements, ambiguous.new_statements) == ("NF.4", 2, 2)
    assert [r.case_identifier_uuid for r in ambiguous.unmatched_old] == [uid("NF.4-y")]
    assert [r.case_identifier_uuid for r in ambiguous.unmatched_new] == [uid("NF.4-z")]
    assert diff.has_differences


def test_json_is_canonical_camel_case_and_deterministic(
    diff_world: FixtureWorld, snapshots: tuple[PackageLocation, PackageLocation]
) -> None:
    first = run_diff(diff_world, *snapshots).to_json_bytes()
    assert run_diff(diff_world, *snapshots).to_json_bytes() == first
    document = json.loads(first)
    text = _by_code(lc_graph(FRAMEWORK), "NF.1").description
    assert list(document) == sorted(document)
    assert set(document) == {
        "frameworkId",
        "old",
        "new",
        "summary",
        "added",
        "removed",
        "changed",
        "moved",
        "linksAdded",
        "linksRemoved",
        "ambiguousCodes",
    }
    assert document["changed"][3] == {
        "matchedBy": "statementCode",
        "old": {
            "caseIdentifierUUID": uid("NF.1"),
            "statementCode": "NF.1",
            "statementType": "Standard",
            "gradeLevel": ["3"],
            "description": text,
        },
        "new": {
            "caseIdentifierUUID": uid("NF.1-v2"),
            "statementCode": "NF.1",
            "statementType": "Standard",
            "gradeLevel": ["3"],
            "description": text,
        },
        "changes": [{"field": "caseIdentifierUUID", "old": uid("NF.1"), "new": uid("NF.1-v2")}],
    }
    assert document["moved"][0]["oldParents"][0]["kind"] == "item"
    assert SnapshotDiff.model_validate_json(first).to_json_bytes() == first


def test_reverse_diff_mirrors_the_forward_one(
    diff_world: FixtureWorld, snapshots: tuple[PackageLocation, PackageLocation]
) -> None:
    old, new = snapshots
    forward, backward = run_diff(diff_world, old, new), run_diff(diff_world, new, old)
    assert backward.added == forward.removed and backward.removed == forward.added
    assert [(c.old, c.new) for c in backward.changed] == [(c.new, c.old) for c in forward.changed]
    assert [(m.old_parents, m.new_parents) for m in backward.moved] == [
        (m.new_parents, m.old_parents) for m in forward.moved
    ]
    assert [(link.label, link.source, link.target) for link in backward.links_added] == [
        (link.label, link.source, link.target) for link in forward.links_removed
    ]


def test_identical_snapshots_have_an_empty_diff(diff_world: FixtureWorld) -> None:
    old, new = accept(diff_world, new_graph(), "2025-01"), accept(diff_world, new_graph(), "2026-01")
    diff = run_diff(diff_world, old, new)
    assert not diff.has_differences
    assert (diff.added, diff.removed, diff.changed, diff.moved, diff.links_added, diff.links_removed) == (
        (),
        (),
        (),
        (),
        (),
        (),
    )
    assert diff.ambiguous_codes == ()
    assert diff.summary.matched_by_identifier == diff.old.statements == diff.new.statements == 13


def test_a_parent_with_a_new_identifier_moves_none_of_its_children(diff_world: FixtureWorld) -> None:
    """NF.1 is re-identified in the new snapshot; its child NF.1.a keeps its (matched) parent."""
    diff = run_diff(diff_world, accept(diff_world, old_graph(), "2025-01"), accept(diff_world, new_graph(), "2026-01"))
    assert uid("NF.1.a") not in {m.new.case_identifier_uuid for m in diff.moved}
    assert not {"NF.1"} & {link.source.statement_code for link in [*diff.links_added, *diff.links_removed]}


def test_refuses_a_pending_package(diff_world: FixtureWorld) -> None:
    old = accept(diff_world, old_graph(), "2025-01")
    pending = diff_world.write(new_graph(), "2026-01")
    with pytest.raises(PackageValidationError) as caught:
        run_diff(diff_world, old, pending)
    assert caught.value.public_message.startswith(f"package_validation_error: {FRAMEWORK}@2026-01 (")
    assert "is pending" in caught.value.message
    assert "kgfegmcp packages validate" in (caught.value.hint or "")


def test_refuses_a_failed_package(diff_world: FixtureWorld) -> None:
    old = accept(diff_world, old_graph(), "2025-01")
    broken = diff_world.write(new_graph(), "2026-01")
    path = artifact_path(broken, "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    lifecycle = PackageLifecycle(PackageValidator(diff_world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert lifecycle.validate(broken).result == "failed"
    with pytest.raises(PackageValidationError, match="is failed: a package that failed validation is never compared"):
        run_diff(diff_world, old, broken)


def test_refuses_a_passed_package_whose_bytes_changed(
    diff_world: FixtureWorld, snapshots: tuple[PackageLocation, PackageLocation]
) -> None:
    old, new = snapshots
    path = artifact_path(new, "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    with pytest.raises(PackageValidationError, match=r"recorded passed but no longer validates \(checksum_mismatch\)"):
        run_diff(diff_world, old, new)


def test_refuses_two_frameworks_and_non_packages(diff_world: FixtureWorld, tmp_path: Path) -> None:
    old = accept(diff_world, old_graph(), "2025-01")
    other = accept(diff_world, lc_graph(LC), "2025-01")
    with pytest.raises(InvalidComparisonSelectionError) as caught:
        run_diff(diff_world, old, other)
    assert caught.value.public_message.startswith(
        f"invalid_comparison_selection: {FRAMEWORK}@2025-01 and {LC}@2025-01 are snapshots of different frameworks"
    )
    nowhere = PackageLocation(FRAMEWORK, "2026-01", tmp_path / "nowhere")
    with pytest.raises(PackageValidationError, match="is not a graph package"):
        run_diff(diff_world, old, nowhere)


# -- the gate a snapshot passes before it is compared ---------------------------------------------


def test_a_recorded_pass_spares_the_rules_only_for_this_validator_version(diff_world: FixtureWorld) -> None:
    location = accept(diff_world, old_graph(), "2025-01")
    validator = PackageValidator(diff_world.profiles())
    outcome = validator.verify_recorded_pass(location)
    assert (outcome.passed, outcome.gate) == (True, "recorded_verdict")
    assert outcome.content is not None and len(outcome.content.items) == 13

    edit_manifest(location, lambda manifest: manifest["validation"].update(validatorVersion="0.9.0"))
    outcome = validator.verify_recorded_pass(location)
    assert (outcome.passed, outcome.gate) == (True, "every_rule")

    pending = diff_world.write(new_graph(), "2026-01")
    assert validator.verify_recorded_pass(pending).gate == "every_rule"


def test_a_manifest_edited_after_validation_is_refused(
    diff_world: FixtureWorld, snapshots: tuple[PackageLocation, PackageLocation]
) -> None:
    old, new = snapshots
    edit_manifest(new, lambda manifest: manifest.update(title="Edited after validation"))
    with pytest.raises(PackageValidationError, match=r"no longer validates \(validation_state_mismatch\)"):
        run_diff(diff_world, old, new)


def test_a_resealed_package_with_a_dangling_link_is_refused_not_misread(
    diff_world: FixtureWorld, snapshots: tuple[PackageLocation, PackageLocation]
) -> None:
    """Bytes, checksums and seal all made consistent by hand: the rules a pass vouches for were not run."""
    old, new = snapshots

    def dangling(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        link = copy.deepcopy(find_record(records, label=BUILDS_TOWARDS))
        link["identifier"] = stable_uuid(FRAMEWORK, "forged")
        link["target_identifier"] = stable_uuid(FRAMEWORK, "nowhere")
        return [*records, link]

    edit_records(new, "relationships", dangling)
    manifest = PackageManifest.model_validate_json((new.path / MANIFEST_FILENAME).read_bytes())
    edit_manifest(new, lambda document: document["validation"].update(sealSha256=seal_of(manifest)))
    with pytest.raises(PackageValidationError, match="does not join statements of the package"):
        run_diff(diff_world, old, new)
    assert "dangling_endpoint" in error_codes(PackageValidator(diff_world.profiles()).validate(new).findings)
