"""Corruption matrix: every finding code is produced by at least one targeted corruption.

Each corruption keeps the rest of the package consistent (semantic corruptions are written by
the real package writer; byte corruptions refresh the declared checksum), so the validator must
report exactly the one code, and the package is never accepted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from corrupt import (
    artifact_path,
    edit_document,
    edit_lines,
    edit_manifest,
    edit_records,
    error_codes,
    find_record,
    read_manifest,
    rewrite_bytes,
)

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.package_files import MAX_LINE_BYTES
from kgfegmcp.packages.artifact_roles import provenance_part_name
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, SUPPORTS, ComponentNode
from kgfegmcp.packages.tree import PackageLocation, discover_packages
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import BUILD_FINDING_CODES, PackageWriter
from package_factory import (
    DAG,
    LC,
    TREE,
    FixtureGraph,
    FixtureWorld,
    base_graph,
    dag_graph,
    lc_graph,
    provenance_for,
)

FREE = "fixture-free"


def _items_by_code(graph: FixtureGraph) -> dict[str, Any]:
    return {i.statement_code: i for i in graph.items if i.statement_code}


def _domain(graph: FixtureGraph, name: str) -> Any:
    return next(i for i in graph.items if i.statement_type == "Domain" and name in i.description)


# -- semantic corruptions: a modified graph written by the real writer -------------------------


def cycle(world: FixtureWorld) -> PackageLocation:
    world.add_profile(
        FREE,
        rule="multiParentDag",
        max_parents=3,
        hierarchy={"rule": "multiParentDag", "maxDepth": 10, "maxParents": 3},
    )
    graph = base_graph(FREE)
    graph.link(HAS_CHILD, _items_by_code(graph)["NBT.A.1"].identifier, _domain(graph, "base ten").identifier)
    return world.write(graph)


def second_parent_in_tree(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.link(HAS_CHILD, _domain(graph, "frações").identifier, _items_by_code(graph)["NBT.1"].identifier)
    return world.write(graph)


def orphan_item(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    target = _items_by_code(graph)["NF.1"].identifier
    graph.relationships = [r for r in graph.relationships if r.target_identifier != target]
    return world.write(graph)


def disallowed_edge(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    target = _items_by_code(graph)["NBT.1"].identifier
    graph.relationships = [r for r in graph.relationships if r.target_identifier != target]
    graph.link(HAS_CHILD, graph.framework.identifier, target)
    return world.write(graph)


def too_deep(world: FixtureWorld) -> PackageLocation:
    world.add_profile(FREE, hierarchy={"rule": "tree", "maxDepth": 2, "maxParents": 1})
    return world.write(base_graph(FREE))


def component_in_hierarchy(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    graph.link(HAS_CHILD, _domain(graph, "frações").identifier, graph.components[1].identifier)
    return world.write(graph)


def supports_reversed(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    graph.link(
        SUPPORTS, _items_by_code(graph)["NBT.1"].identifier, graph.components[1].identifier, support_confidence=0.5
    )
    return world.write(graph)


def component_without_support(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    graph.components.append(
        ComponentNode(
            identifier=stable_uuid(LC, "component", "lonely"), description="Lonely component", in_language="en"
        )
    )
    return world.write(graph)


def progression_from_root(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    graph.link(BUILDS_TOWARDS, graph.framework.identifier, _items_by_code(graph)["NBT.1"].identifier)
    return world.write(graph)


def duplicate_code(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.items = [replace(i, statement_code="NBT.A.1") if i.statement_code == "NBT.A.2" else i for i in graph.items]
    return world.write(graph)


def code_against_pattern(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.items = [replace(i, statement_code="nbt one") if i.statement_code == "NBT.1" else i for i in graph.items]
    return world.write(graph)


def standard_without_code(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.items = [replace(i, statement_code=None) if i.statement_code == "NF.1" else i for i in graph.items]
    return world.write(graph)


def unknown_grade(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.items = [replace(i, grade_level=("13",)) if i.statement_code == "NF.1" else i for i in graph.items]
    return world.write(graph)


def unknown_type(world: FixtureWorld) -> PackageLocation:
    world.add_profile(FREE, hierarchy={"rule": "tree", "maxDepth": 5, "maxParents": 1})
    graph = base_graph(FREE)
    graph.items = [replace(i, statement_type="Benchmark") if i.statement_code == "NF.1" else i for i in graph.items]
    return world.write(graph)


def control_characters_in_served_text(world: FixtureWorld) -> PackageLocation:
    """Written by hand (the writer alone, no build gate): an ESC colour, a NUL and an OSC 8 link in served text."""
    graph = base_graph(TREE)
    graph.framework = replace(graph.framework, name="Fixture \x00framework")
    graph.items = [
        replace(item, description=f"\x1b[31m{item.description}\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\")
        for item in graph.items
    ]
    return world.write(graph)


def bidi_override_in_provenance(world: FixtureWorld) -> PackageLocation:
    """A right-to-left override in a provenance record, which the resources serve as it stands."""
    graph = base_graph(TREE)
    provenance = provenance_for(graph)
    provenance[graph.items[0].identifier]["locator"]["file"] = "fixture\u202e.json"
    return world.write(graph, provenance=provenance)


def unresolved_entry_without_status(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    graph.unresolved[0]["status"] = "maybe"
    return world.write(graph)


def relationship_with_unknown_status(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.relationships[0] = replace(graph.relationships[0], unresolved_status="somewhereElse")
    return world.write(graph)


def missing_provenance(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    provenance = provenance_for(graph)
    provenance.pop(graph.items[0].identifier)
    return world.write(graph, provenance=provenance)


def duplicate_unresolved_id(world: FixtureWorld) -> PackageLocation:
    graph = lc_graph(LC)
    graph.unresolved.append(dict(graph.unresolved[0]))
    return world.write(graph)


# -- manifest and byte corruptions (declared checksums refreshed) ------------------------------


def _built(world: FixtureWorld, name: str = LC) -> PackageLocation:
    graph = {TREE: base_graph, DAG: dag_graph, LC: lc_graph}[name](name)
    return world.write(graph)


def wrong_package_id(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m.update(snapshotId="2027-01", graphPackageId=f"{LC}@2027-01"))
    return location


def manifest_without_counts(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m.pop("counts"))
    return location


def deleted_part(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    artifact_path(location, "entityProvenancePart07").unlink()
    return location


def extra_file(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    (location.path / "detailed" / "notes.txt").write_text("sidecar")
    return location


def extra_directory(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    (location.path / "detailed" / "cache").mkdir()
    return location


def symlinked_file(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    os.symlink("/etc/hostname", location.path / "detailed" / "hostname.json")
    return location


def changed_bytes(world: FixtureWorld) -> PackageLocation:
    """A text changed alike in every artifact that carries it (so the copies agree), checksums left stale."""
    location = _built(world)
    for logical_name in ("nodes", "standardsFrameworkItems", "academicStandardsBundle"):
        path = artifact_path(location, logical_name)
        path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 121"))
    return location


def foreign_profile_hash(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m["profile"].update(sha256="0" * 64))
    return location


def wrong_item_count(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m["counts"]["standards"].update(items=99))
    return location


def dangling_target(world: FixtureWorld) -> PackageLocation:
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        find_record(records, label="relatesTo")["target_identifier"] = stable_uuid("nowhere")
        return records

    edit_records(location, "relationships", edit)
    return location


def wrong_entity_key(world: FixtureWorld) -> PackageLocation:
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        find_record(records, label="buildsTowards")["properties"]["targetEntityKey"] = "identifier"
        return records

    edit_records(location, "relationships", edit)
    return location


def wrong_rights(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m["rights"].update(reviewStatus="fine-by-me"))
    return location


def bulk_without_full_text(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m["rights"].update(allowBulkResource=True, allowFullText=False))
    return location


def rights_widened(name: str, **changes: Any) -> Callable[[FixtureWorld], PackageLocation]:
    """A corruption, named ``name``, that gives the manifest rights its profile does not grant."""

    def corruption(world: FixtureWorld) -> PackageLocation:
        location = _built(world)
        edit_manifest(location, lambda m: m["rights"].update(changes))
        return location

    corruption.__name__ = name
    return corruption


def capitalised_boolean(world: FixtureWorld) -> PackageLocation:
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        find_record(records, statementCode="NBT.1")["properties"]["isCurrent"] = "True"
        return records

    edit_records(location, "nodes", edit)
    return location


def unknown_label(world: FixtureWorld) -> PackageLocation:
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        find_record(records, statementCode="NBT.1")["labels"] = ["Standard"]
        return records

    edit_records(location, "nodes", edit)
    return location


def truncated_line(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_lines(location, "relationships", lambda lines: [*lines[:-1], lines[-1][:-5]])
    return location


def missing_description(world: FixtureWorld) -> PackageLocation:
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        del find_record(records, statementCode="NF.1")["properties"]["description"]
        return records

    edit_records(location, "nodes", edit)
    return location


def dropped_detailed_item(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_lines(location, "standardsFrameworkItems", lambda lines: lines[1:])
    return location


def lc_artifact_undeclared(world: FixtureWorld) -> PackageLocation:
    """A package with components whose manifest drops the generation summary (file and entry)."""
    location = _built(world)
    path = artifact_path(location, "lcGenerationSummary")
    edit_manifest(
        location, lambda m: m.update(artifacts=[a for a in m["artifacts"] if a["logicalName"] != "lcGenerationSummary"])
    )
    path.unlink()
    return location


def dedup_group_with_a_stranger(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    stranger = stable_uuid(LC, "component", "not-in-package")
    edit_document(
        location,
        "lcDedupGroups",
        lambda d: d["groups"].append({"normalizedText": "x", "componentIdentifiers": [stranger, stranger + "0"]}),
    )
    edit_document(
        location,
        "lcGenerationSummary",
        lambda d: d["counts"].update(dedupGroups=1, componentsInDedupGroups=2),
    )
    return location


def component_in_two_dedup_groups(world: FixtureWorld) -> PackageLocation:
    """Two components with the same text form one group; a second group lists them again."""
    graph = lc_graph(LC)
    first = graph.components[0]
    twin = replace(first, identifier=stable_uuid(LC, "component", "twin"))
    graph.components.append(twin)
    graph.link(SUPPORTS, twin.identifier, _items_by_code(graph)["NBT.A.1"].identifier, support_confidence=1.0)
    location = world.write(graph)

    def overlap(document: dict[str, Any]) -> None:
        document["groups"] = [document["groups"][0], dict(document["groups"][0])]

    edit_document(location, "lcDedupGroups", overlap)
    edit_document(
        location,
        "lcGenerationSummary",
        lambda d: d["counts"].update(dedupGroups=2, componentsInDedupGroups=4),
    )
    return location


def component_report_ahead_of_the_package(world: FixtureWorld) -> PackageLocation:
    """A pending package whose component report already claims a pass."""
    location = _built(world)
    edit_document(location, "lcValidationReport", lambda d: d.update(status="passed"))
    return location


def provenance_mislabels_a_link(world: FixtureWorld) -> PackageLocation:
    """A progression link whose provenance (document and part alike) says it was extracted, not asserted."""
    location = _built(world)
    link = next(r for r in lc_graph(LC).relationships if r.label == BUILDS_TOWARDS)

    def relabel(document: dict[str, Any]) -> None:
        entities = document["entities"]
        if link.identifier in entities:
            entities[link.identifier]["epistemicStatus"] = "source_extracted"

    edit_document(location, "entityProvenance", relabel)
    edit_document(location, provenance_part_name(provenance_part_of(link.identifier)), relabel)
    return location


def generation_summary_miscounts(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_document(
        location, "lcGenerationSummary", lambda d: d["counts"].update(components=d["counts"]["components"] + 1)
    )
    return location


def false_capability(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_manifest(location, lambda m: m["capabilities"].update(learningComponents=False))
    return location


def moved_provenance_entry(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    moved: dict[str, Any] = {}

    def take(document: dict[str, Any]) -> None:
        key = sorted(document["entities"])[0]
        moved[key] = document["entities"].pop(key)

    edit_document(location, "entityProvenancePart01", take)
    edit_document(location, "entityProvenancePart02", lambda d: d["entities"].update(moved))
    return location


def statement_text_in_the_bundle_alone(world: FixtureWorld) -> PackageLocation:
    """One standard's description changed in the bundle only: nodes and item lines still say the old text."""
    location = _built(world)

    def edit(document: dict[str, Any]) -> None:
        item = next(i for i in document["items"] if i.get("statementCode") == "NBT.1")
        item["description"] = "Count to 121, starting at any number."

    edit_document(location, "academicStandardsBundle", edit)
    return location


def grouping_text_in_the_item_lines_alone(world: FixtureWorld) -> PackageLocation:
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        next(r for r in records if r["statementType"] == "Cluster")["description"] = "Understand place value well"
        return records

    edit_records(location, "standardsFrameworkItems", edit)
    return location


def framework_name_in_its_document_alone(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_document(location, "standardsFramework", lambda d: d["framework"].update(name="Another framework"))
    return location


def component_text_in_the_component_bundle_alone(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_document(
        location, "learningComponentBundle", lambda d: d["components"][0].update(description="Something else")
    )
    return location


def provenance_part_entry_altered(world: FixtureWorld) -> PackageLocation:
    """A part's copy of an item's provenance names another file than the provenance document does."""
    location = _built(world)
    item = _items_by_code(lc_graph(LC))["NF.1"]
    part = provenance_part_name(provenance_part_of(item.identifier))
    edit_document(location, part, lambda d: d["entities"][item.identifier]["locator"].update(file="other.json"))
    return location


# -- strict package files: a repeated key is refused (json.loads would keep the last), bounds hold --

_FIRST_MEMBER = re.compile(rb'"[^"\\]+":("[^"\\]*"|true|false|[0-9]+),')


def _repeat_first_member(*after: bytes) -> Callable[[bytes], bytes]:
    """Repeat, same key and same value, the first member of the object that starts after each of ``after``
    in turn: a reader that keeps the last of two equal keys sees no change at all."""

    def transform(data: bytes) -> bytes:
        start = 0
        for mark in after:
            start = data.index(mark, start) + len(mark)
        member = _FIRST_MEMBER.match(data, start)
        assert member is not None, data[start : start + 80]
        return data[:start] + member.group() + data[start:]

    return transform


def manifest_repeating_rights(world: FixtureWorld) -> PackageLocation:
    """A second ``rights`` object that turns bulk resources on: keeping the last would seal and serve it."""
    location = _built(world)
    manifest = read_manifest(location)
    bulk = json.dumps({**manifest["rights"], "allowBulkResource": True})
    text = json.dumps(manifest, indent=2, sort_keys=True)
    (location.path / MANIFEST_FILENAME).write_text(text[: text.rindex("}")] + f',"rights": {bulk}}}\n')
    return location


def report_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    rewrite_bytes(location, "validationReport", lambda data: data.replace(b"{", b'{"status": "pending",', 1))
    return location


def bundle_entry_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    """A repeated key inside one streamed entry of the bundle's ``items``."""
    location = _built(world)
    rewrite_bytes(location, "academicStandardsBundle", _repeat_first_member(b'"items":[{'))
    return location


def bundle_repeating_a_top_level_key(world: FixtureWorld) -> PackageLocation:
    """Another package's id first, this package's last: keeping the last would hide the first."""
    location = _built(world)
    rewrite_bytes(location, "academicStandardsBundle", lambda data: data.replace(b"{", b'{"graphPackageId":"x@y",', 1))
    return location


def provenance_entry_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    rewrite_bytes(location, "entityProvenance", _repeat_first_member(b'"entities":{', b":{"))
    return location


def provenance_entry_nested_too_deeply(world: FixtureWorld) -> PackageLocation:
    """One streamed entry nested 5,000 deep: serialising it for the part comparison would recurse (and
    ijson's path prefixes for the entry grow with the square of its depth: 24 GB at 100,000)."""
    location = _built(world)
    depth = 5_000
    rewrite_bytes(
        location,
        "entityProvenance",
        lambda data: data.replace(b'"locator":{', b'"locator":{"deep":' + b"[" * depth + b"]" * depth + b",", 1),
    )
    return location


def delivery_record_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_lines(location, "nodes", lambda lines: [_repeat_first_member(b"{")(lines[0]), *lines[1:]])
    return location


def detailed_record_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    edit_lines(location, "standardsFrameworkItems", lambda lines: [_repeat_first_member(b"{")(lines[0]), *lines[1:]])
    return location


def generation_summary_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    location = _built(world)
    rewrite_bytes(location, "lcGenerationSummary", lambda data: data.replace(b"{", b'{"humanReviewed": false,', 1))
    return location


def profile_repeating_a_key(world: FixtureWorld) -> PackageLocation:
    """The bound profile repeats a key, and the manifest binds exactly those bytes."""
    location = _built(world)
    path = world.profiles_root / LC / "1.0.json"
    data = path.read_bytes().replace(b"{", b'{"version": "1.0",', 1)
    path.write_bytes(data)
    edit_manifest(location, lambda m: m["profile"].update(sha256=hashlib.sha256(data).hexdigest()))
    return location


def line_over_the_bound(world: FixtureWorld) -> PackageLocation:
    """A delivery line longer than the line bound (a statement of 2 MiB), in a file of its declared size."""
    location = _built(world)

    def edit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        find_record(records, statementCode="NBT.1")["properties"]["description"] = "x" * (2 * MAX_LINE_BYTES)
        return records

    edit_records(location, "nodes", edit)
    return location


CORRUPTIONS: dict[str, list[Callable[[FixtureWorld], PackageLocation]]] = {
    "identity_mismatch": [wrong_package_id],
    "invalid_manifest": [manifest_without_counts, manifest_repeating_rights],
    "missing_artifact": [deleted_part, lc_artifact_undeclared],
    "undeclared_entry": [extra_file, extra_directory],
    "unsafe_path": [symlinked_file],
    "checksum_mismatch": [changed_bytes],
    "profile_binding_mismatch": [foreign_profile_hash, profile_repeating_a_key],
    "count_mismatch": [wrong_item_count],
    "capability_mismatch": [false_capability],
    "duplicate_identifier": [duplicate_unresolved_id],
    "dangling_endpoint": [dangling_target],
    "endpoint_key_mismatch": [wrong_entity_key],
    "hierarchy_cycle": [cycle],
    "parent_cardinality": [second_parent_in_tree, orphan_item],
    "hierarchy_edge_type": [disallowed_edge],
    "depth_exceeded": [too_deep],
    "component_in_hierarchy": [component_in_hierarchy],
    "supports_direction": [supports_reversed],
    "unsupported_component": [component_without_support],
    "progression_endpoint": [progression_from_root],
    "code_policy_violation": [duplicate_code, code_against_pattern, standard_without_code],
    "unknown_statement_type": [unknown_type],
    "unknown_grade_label": [unknown_grade],
    "invalid_rights_policy": [wrong_rights, bulk_without_full_text],
    "rights_exceed_profile": [
        rights_widened("bulk_access_granted", allowBulkResource=True),  # text and standard resources it grants
        rights_widened("review_raised_to_approved", reviewStatus="approved"),
        rights_widened("licence_replaced", sourceLicense="Public domain", licenseUri=None),
        rights_widened("attribution_replaced", attributionStatement="No attribution required."),
    ],
    "invalid_encoding": [
        capitalised_boolean,
        report_repeating_a_key,
        bundle_entry_repeating_a_key,
        bundle_repeating_a_top_level_key,
        provenance_entry_repeating_a_key,
        provenance_entry_nested_too_deeply,
        generation_summary_repeating_a_key,
    ],
    "invalid_label": [unknown_label],
    "missing_property": [missing_description],
    "invalid_json_line": [
        truncated_line,
        delivery_record_repeating_a_key,
        detailed_record_repeating_a_key,
        line_over_the_bound,
    ],
    "unresolved_without_status": [unresolved_entry_without_status, relationship_with_unknown_status],
    "provenance_mismatch": [missing_provenance, moved_provenance_entry],
    "detailed_artifact_mismatch": [dropped_detailed_item],
    "cross_artifact_mismatch": [
        statement_text_in_the_bundle_alone,
        grouping_text_in_the_item_lines_alone,
        framework_name_in_its_document_alone,
        component_text_in_the_component_bundle_alone,
        provenance_part_entry_altered,
    ],
    "lc_artifact_mismatch": [dedup_group_with_a_stranger, component_report_ahead_of_the_package],
    "lc_dedup_overlap": [component_in_two_dedup_groups],
    "lc_generation_count_mismatch": [generation_summary_miscounts],
    "epistemic_label_mismatch": [provenance_mislabels_a_link],
    "unsafe_text": [control_characters_in_served_text, bidi_override_in_provenance],
}

CASES = [(code, corruption) for code, corruptions in CORRUPTIONS.items() for corruption in corruptions]


@pytest.mark.parametrize(("code", "corruption"), CASES, ids=[c.__name__ for _, c in CASES])
def test_corruption_yields_exactly_its_code(world: FixtureWorld, code: str, corruption: Callable[..., Any]) -> None:
    location = corruption(world)
    outcome = PackageValidator(world.profiles()).validate(location)
    assert error_codes(outcome.findings) == {code}, [f.to_wire() for f in outcome.findings]
    assert not outcome.passed
    result = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL).validate(
        location
    )
    assert not result.accepted


def test_case_collision_during_discovery(world: FixtureWorld) -> None:
    location = _built(world, TREE)
    (world.packages / TREE.upper()).mkdir()
    discovery = discover_packages(world.packages)
    prior = discovery.package_findings[location.graph_package_id]
    outcome = PackageValidator(world.profiles()).validate(location, prior)
    assert error_codes(outcome.findings) == {"case_collision"}
    assert {f.code for f in discovery.root_findings} == {"identity_mismatch"}


def test_case_collision_inside_a_package(world: FixtureWorld) -> None:
    location = _built(world)
    original = artifact_path(location, "unresolvedItems")
    (original.parent / original.name.upper()).write_bytes(original.read_bytes())
    outcome = PackageValidator(world.profiles()).validate(location)
    assert "case_collision" in error_codes(outcome.findings)
    assert not outcome.passed


@pytest.mark.parametrize(
    "bad_path", ["../outside.json", "/etc/passwd", "detailed\\as_unresolved_items.json", "detailed//x.json"]
)
def test_declared_path_escaping_the_package_is_unsafe(world: FixtureWorld, bad_path: str) -> None:
    location = _built(world)
    edit_manifest(
        location,
        lambda m: next(a for a in m["artifacts"] if a["logicalName"] == "unresolvedItems").update(path=bad_path),
    )
    outcome = PackageValidator(world.profiles()).validate(location)
    assert "unsafe_path" in error_codes(outcome.findings)
    assert not outcome.passed


def test_duplicate_node_line_is_a_duplicate_identifier(world: FixtureWorld) -> None:
    location = _built(world)
    edit_lines(location, "nodes", lambda lines: [*lines, lines[3]])
    outcome = PackageValidator(world.profiles()).validate(location)
    assert "duplicate_identifier" in error_codes(outcome.findings)


def test_invalid_utf8_in_delivery_is_an_encoding_finding(world: FixtureWorld) -> None:
    location = _built(world)
    rewrite_bytes(location, "nodes", lambda data: data.replace(b"Count to 120", b"Count to \xff\xfe"))
    outcome = PackageValidator(world.profiles()).validate(location)
    assert error_codes(outcome.findings) == {"invalid_encoding"}
    finding = next(f for f in outcome.findings if f.code == "invalid_encoding")
    assert finding.artifact == "nodes" and finding.location and finding.location.startswith("line ")


def test_every_listed_finding_code_is_covered() -> None:
    covered = set(CORRUPTIONS) | {"case_collision"}
    # Build findings come from the source importers, not from validating a corrupted package: tests/sources has them.
    expected = (
        {code.value for code in FindingCode}
        - {code.value for code in BUILD_FINDING_CODES}
        - {
            "validation_state_mismatch",
            "interrupted_recording",  # the lifecycle resolves it: test_interrupted_validation.py covers it
            "unreadable_file",  # root reads any file: test_strict_files.py denies it to a real reader process
            "directional_mark_in_code",  # a warning, never a refusal: test_directional_marks.py covers it
        }
    )
    assert expected <= covered, sorted(expected - covered)


def test_findings_are_bounded_per_code(world: FixtureWorld) -> None:
    graph = base_graph(TREE)
    graph.items = [replace(i, grade_level=("99",)) for i in graph.items]
    location = world.write(graph)
    outcome = PackageValidator(world.profiles(), max_findings_per_code=3).validate(location)
    assert sum(1 for f in outcome.findings if f.code == "unknown_grade_label") == 3
    assert outcome.omitted == {"unknown_grade_label": len(graph.items) - 3}
    assert not outcome.passed


def test_report_of_a_failed_package_lists_findings(world: FixtureWorld) -> None:
    location = duplicate_code(world)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    result = lifecycle.validate(location)
    assert result.result == "failed" and result.recorded
    report = json.loads(artifact_path(location, "validationReport").read_text())
    assert report["status"] == "failed"
    assert [f["code"] for f in report["findings"]] == ["code_policy_violation"]
    manifest = json.loads((location.path / "package_manifest.json").read_text())
    assert manifest["validation"]["status"] == "failed"
    assert manifest["validation"]["findings"]["byCode"] == {"code_policy_violation": 1}


def test_unreadable_manifest_is_reported(world: FixtureWorld, tmp_path: Path) -> None:
    location = _built(world)
    (location.path / "package_manifest.json").write_text("{not json")
    outcome = PackageValidator(world.profiles()).validate(location)
    assert error_codes(outcome.findings) == {"invalid_manifest"}


def test_a_root_fallback_passes_in_this_servers_shape_too(world: FixtureWorld) -> None:
    graph = base_graph(TREE)
    target = _items_by_code(graph)["NBT.1"].identifier
    graph.relationships = [r for r in graph.relationships if r.target_identifier != target]
    graph.link(HAS_CHILD, graph.framework.identifier, target, unresolved_status="unresolvedRootFallback")
    outcome = PackageValidator(world.profiles()).validate(world.write(graph))
    assert outcome.passed, [f.to_wire() for f in outcome.findings]
