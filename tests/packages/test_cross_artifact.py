"""The re-check compares copies, not only hashes: a text changed in one artifact alone, re-sealed, is refused.

A package states each entity in several artifacts (nodes, item lines, bundle, framework document,
component bundle, dedup groups, provenance documents and their parts). A forger who edits one of
them, refreshes its checksum and size and recomputes the seal leaves bytes, tree and seal valid; only
comparing the copies tells. Each forgery below is one field of one entity in one artifact, applied to
a passed package, and must be refused by ``packages validate`` and by every start (no cache, a cold
cache, a cache warm with the genuine package) with ``cross_artifact_mismatch`` alone.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from corrupt import edit_document, edit_records, error_codes, rewrite_bytes
from test_cli import kgfegmcp
from test_startup_gate import reseal

from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.catalog import CatalogLoader
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.packages.artifact_roles import provenance_part_name
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import SUPPORTS, NodeRecord
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.prompts.repository import copy_generic_configs
from package_factory import LC, FixtureGraph, FixtureWorld, lc_graph, provenance_for, standard_world, state_for

CODE = "cross_artifact_mismatch"
SNAPSHOT = "2026-01"


def cross_graph() -> FixtureGraph:
    """The LC fixture with every text copy a package can hold: a framework description, two components
    with the same text (a dedup group), source details on the items."""
    graph = lc_graph(LC)
    graph.framework = replace(graph.framework, description="A fixture framework for the copy rule.")
    twin = replace(graph.components[0], identifier=stable_uuid(LC, "component", "twin"))
    graph.components.append(twin)
    target = next(i for i in graph.items if i.statement_code == "NBT.A.1")
    graph.link(SUPPORTS, twin.identifier, target.identifier, support_confidence=1.0)
    return graph


def cross_provenance(graph: FixtureGraph) -> dict[str, dict[str, Any]]:
    """Provenance quoting every node's text, as a source gives it (line wraps kept)."""
    provenance = provenance_for(graph)
    for node in [graph.framework, *graph.items, *graph.components]:
        assert node.description is not None
        provenance[node.identifier]["sourceText"] = node.description.replace(" ", "\n  ", 1)
    return provenance


def write_cross_package(world: FixtureWorld) -> PackageLocation:
    graph = cross_graph()
    details = {i.identifier: {"fixture": {"row": n, "note": f"row {n}"}} for n, i in enumerate(graph.items)}
    return world.write(graph, provenance=cross_provenance(graph), item_details=details)


@dataclass(frozen=True)
class Entities:
    """The entity of each kind a forgery edits."""

    standard: NodeRecord
    grouping: NodeRecord
    framework: NodeRecord
    component: NodeRecord

    @classmethod
    def of(cls, graph: FixtureGraph) -> Entities:
        return cls(
            standard=next(i for i in graph.items if i.statement_code == "NBT.A.2"),
            grouping=next(i for i in graph.items if i.statement_type == "Cluster"),
            framework=graph.framework,
            component=graph.components[0],
        )


ENTITIES = Entities.of(cross_graph())
Edit = Callable[[PackageLocation, NodeRecord], None]


def in_nodes(wire: str) -> Edit:
    def edit(location: PackageLocation, node: NodeRecord) -> None:
        def change(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
            record = next(r for r in records if r.get("identifier") == node.identifier)
            record["properties"][wire] += " (forged)"
            return records

        edit_records(location, "nodes", change)

    return edit


def in_item_lines(member: str, value: Callable[[Any], Any] = lambda old: old + " (forged)") -> Edit:
    def edit(location: PackageLocation, node: NodeRecord) -> None:
        def change(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
            record = next(r for r in records if r["identifier"] == node.identifier)
            record[member] = value(record.get(member))
            return records

        edit_records(location, "standardsFrameworkItems", change)

    return edit


def in_document(
    logical_name: str,
    find: Callable[[Any, NodeRecord], dict[str, Any]],
    member: str,
    value: Callable[[Any], Any] = lambda old: forged(old),
) -> Edit:
    def edit(location: PackageLocation, node: NodeRecord) -> None:
        def change(document: Any) -> None:
            record = find(document, node)
            record[member] = value(record.get(member))

        edit_document(location, logical_name, change)

    return edit


def forged(value: Any) -> Any:
    if isinstance(value, str):
        return value + " (forged)"
    if isinstance(value, list):
        return [*value, "forged"]
    assert isinstance(value, dict)
    return {**value, "forged": True}


def bundle_item(document: Any, node: NodeRecord) -> dict[str, Any]:
    return next(i for i in document["items"] if i["identifier"] == node.identifier)


def framework_copy(document: Any, node: NodeRecord) -> dict[str, Any]:
    framework: dict[str, Any] = document["framework"]
    return framework


def component_copy(document: Any, node: NodeRecord) -> dict[str, Any]:
    return next(c for c in document["components"] if c["identifier"] == node.identifier)


def dedup_group(document: Any, node: NodeRecord) -> dict[str, Any]:
    return next(g for g in document["groups"] if node.identifier in g["componentIdentifiers"])


def provenance_entry(document: Any, node: NodeRecord) -> dict[str, Any]:
    entry: dict[str, Any] = document["entities"][node.identifier]
    return entry


def in_part(member: str) -> Edit:
    def edit(location: PackageLocation, node: NodeRecord) -> None:
        part = provenance_part_name(provenance_part_of(node.identifier))
        in_document(part, provenance_entry, member)(location, node)

    return edit


STANDARD_SIDE: dict[str, tuple[str, Edit]] = {  # artifact → (the field, how to change it there)
    "nodes": ("description", in_nodes("description")),
    "standardsFrameworkItems": ("description", in_item_lines("description")),
    "academicStandardsBundle": ("description", in_document("academicStandardsBundle", bundle_item, "description")),
    "entityProvenance": ("sourceText", in_document("entityProvenance", provenance_entry, "sourceText")),
    "part": ("sourceText", in_part("sourceText")),
}
FORGERIES: dict[str, tuple[NodeRecord, str, str, Edit]] = {
    **{f"standard-{a}": (ENTITIES.standard, a, f, e) for a, (f, e) in STANDARD_SIDE.items()},
    **{f"grouping-{a}": (ENTITIES.grouping, a, f, e) for a, (f, e) in STANDARD_SIDE.items()},
    "framework-nodes": (ENTITIES.framework, "nodes", "name", in_nodes("name")),
    "framework-standardsFramework": (
        ENTITIES.framework,
        "standardsFramework",
        "name",
        in_document("standardsFramework", framework_copy, "name"),
    ),
    "framework-academicStandardsBundle": (
        ENTITIES.framework,
        "academicStandardsBundle",
        "name",
        in_document("academicStandardsBundle", framework_copy, "name"),
    ),
    "framework-entityProvenance": (
        ENTITIES.framework,
        "entityProvenance",
        "sourceText",
        in_document("entityProvenance", provenance_entry, "sourceText"),
    ),
    "framework-part": (ENTITIES.framework, "part", "sourceText", in_part("sourceText")),
    "component-nodes": (ENTITIES.component, "nodes", "description", in_nodes("description")),
    "component-learningComponentBundle": (
        ENTITIES.component,
        "learningComponentBundle",
        "description",
        in_document("learningComponentBundle", component_copy, "description"),
    ),
    "component-lcEntityProvenance": (
        ENTITIES.component,
        "lcEntityProvenance",
        "sourceText",
        in_document("lcEntityProvenance", provenance_entry, "sourceText"),
    ),
    "component-part": (ENTITIES.component, "part", "sourceText", in_part("sourceText")),
    "component-lcDedupGroups": (
        ENTITIES.component,
        "lcDedupGroups",
        "normalizedText",
        in_document("lcDedupGroups", dedup_group, "normalizedText"),
    ),
    # other fields than the text: the code, the grade list, and the details only the two item copies carry
    "standard-code-bundle": (
        ENTITIES.standard,
        "academicStandardsBundle",
        "statementCode",
        in_document("academicStandardsBundle", bundle_item, "statementCode"),
    ),
    "standard-grades-items": (
        ENTITIES.standard,
        "standardsFrameworkItems",
        "gradeLevel",
        in_item_lines("gradeLevel", lambda old: [*old, "3"]),
    ),
    "standard-details-bundle": (
        ENTITIES.standard,
        "academicStandardsBundle",
        "sourceDetails",
        in_document("academicStandardsBundle", bundle_item, "sourceDetails"),
    ),
    "grouping-parents-items": (
        ENTITIES.grouping,
        "standardsFrameworkItems",
        "parentIdentifiers",
        in_item_lines("parentIdentifiers", lambda old: [*old, old[0]]),
    ),
    "standard-current-as-1-bundle": (  # JSON `1` is not `true`
        ENTITIES.standard,
        "academicStandardsBundle",
        "isCurrent",
        in_document("academicStandardsBundle", bundle_item, "isCurrent", lambda old: 1),
    ),
    "grouping-null-notes-items": (  # a null the node does not have is not an absent field
        ENTITIES.grouping,
        "standardsFrameworkItems",
        "notes",
        in_item_lines("notes", lambda old: None),
    ),
    "component-tags-bundle": (
        ENTITIES.component,
        "learningComponentBundle",
        "tags",
        in_document("learningComponentBundle", component_copy, "tags"),
    ),
}


@dataclass(frozen=True)
class Sealed:
    """A passed cross package (the template every forgery copies) and a cache warm with its genuine bytes."""

    world: FixtureWorld
    location: PackageLocation
    warm_cache: Path


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Sealed:
    world = standard_world(tmp_path_factory.mktemp("cross"))
    location = write_cross_package(world)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    outcome = lifecycle.validate(location)
    assert outcome.accepted, [f.to_wire() for f in outcome.outcome.findings]
    warm = world.base / "warm-cache"
    state_for(world, cache_dir=warm)
    assert list(warm.rglob("ledger.json"))
    return Sealed(world, location, warm)


def forge(sealed: Sealed, base: Path, name: str) -> tuple[Path, PackageLocation]:
    """A copy of the sealed package under ``base`` with forgery ``name`` applied, re-checksummed and re-sealed."""
    root = base / "graph_packages"
    location = PackageLocation(LC, SNAPSHOT, root / LC / SNAPSHOT)
    shutil.copytree(sealed.location.path, location.path)
    node, _, _, edit = FORGERIES[name]
    edit(location, node)
    reseal(location)
    return root, location


def load(sealed: Sealed, root: Path, cache: Path | None) -> None:
    CatalogLoader(
        root, sealed.world.profiles(), InvalidPackagePolicy.FAIL, DerivedIndexCache(cache) if cache else None
    ).load()


def test_the_template_passes_with_every_copy_in_place(sealed: Sealed) -> None:
    """The premise: the copies carry each text (line-wrapped quotes, a dedup group, item details) and agree."""
    outcome = PackageValidator(sealed.world.profiles()).validate(sealed.location)
    assert outcome.passed, [f.to_wire() for f in outcome.findings]
    groups = json.loads((sealed.location.path / "detailed" / "lc_dedup_groups.json").read_text())["groups"]
    assert len(groups) == 1
    provenance = json.loads((sealed.location.path / "detailed" / "as_entity_provenance.json").read_text())
    assert "\n" in provenance["entities"][ENTITIES.standard.identifier]["sourceText"]


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_field_changed_in_one_artifact_is_refused_everywhere(sealed: Sealed, tmp_path: Path, name: str) -> None:
    node, artifact, field, _ = FORGERIES[name]
    root, location = forge(sealed, tmp_path, name)
    outcome = PackageLifecycle(
        PackageValidator(sealed.world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL
    ).validate(location)
    assert outcome.result == "drifted" and not outcome.recorded
    assert error_codes(outcome.outcome.findings) == {CODE}, [f.to_wire() for f in outcome.outcome.findings]
    findings = [f for f in outcome.outcome.findings if f.code == CODE]
    twin = stable_uuid(LC, "component", "twin")  # a dedup group's text speaks for both its components
    located = {node.identifier, twin} if artifact == "lcDedupGroups" else {node.identifier}
    assert {f.location for f in findings} == located
    if artifact == "nodes":  # the delivered text now differs from every copy
        assert all(f.artifact != "nodes" and f.message.endswith("nodes") for f in findings)
    else:
        named = artifact if artifact != "part" else provenance_part_name(provenance_part_of(node.identifier))
        # the copy changed is named with its field; for the details only the two item copies carry, the
        # one read later (the bundle) is named against the other
        reported = named if field != "parentIdentifiers" else "academicStandardsBundle"
        # (a member of a nested detail is named by its path, sourceDetails.forged)
        assert any(f.artifact == reported and f": {field}" in f.message for f in findings)
        assert any(f" in {reported} differs from " in f.message for f in findings)
        assert all(named in f.message for f in findings)
        # a provenance document changed alone also leaves its part differing from it: two findings
        twice = artifact.endswith("Provenance") or artifact == "lcDedupGroups"
        assert len(findings) == (2 if twice else 1), [f.to_wire() for f in findings]
    for cache in (None, tmp_path / "cold-cache", sealed.warm_cache):
        with pytest.raises(CatalogError, match=f"no longer validates \\({CODE}\\)"):
            load(sealed, root, cache)


def test_a_warm_cache_never_spares_the_rules_for_a_resealed_text(
    sealed: Sealed, tmp_path: Path, validator_gates: list[str]
) -> None:
    """The cache is keyed by the exact manifest bytes, which a re-sealed change alters: every rule runs."""
    gates = validator_gates
    load(sealed, sealed.world.packages, sealed.warm_cache)
    assert gates == ["cached_verdict"]  # the genuine bytes: the cached verdict is used
    gates.clear()
    root, _ = forge(sealed, tmp_path, "standard-academicStandardsBundle")
    with pytest.raises(CatalogError, match=CODE):
        load(sealed, root, sealed.warm_cache)
    assert gates == ["every_rule"]


def test_packages_validate_refuses_every_forgery(sealed: Sealed, tmp_path: Path) -> None:
    """The CLI as an operator runs it, over all the forgeries at once: each drifted, with the code."""
    paths = []
    for index, name in enumerate(FORGERIES):
        _, location = forge(sealed, tmp_path / f"forgery-{index:02d}", name)
        paths.append(str(location.path))
    result = kgfegmcp("packages", "validate", *paths, "--json", world=sealed.world)
    assert result.returncode == 1, result.stderr
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(reports) == len(FORGERIES)
    for name, report in zip(FORGERIES, reports, strict=True):
        assert report["status"] == "drifted", name
        assert {f["code"] for f in report["findings"] if f["severity"] == "error"} == {CODE}, name


# -- relationship copies: each written exactly as the delivery writes it -----------------------


def _rename_a_member_of_a_has_child_line(location: PackageLocation) -> str:
    """The random tamperer's find: ``"properties"`` renamed in one detailed hasChild line (still valid JSON)."""
    changed: list[str] = []

    def change(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        record = lines[1]
        record["properti{es"] = record.pop("properties")
        changed.append(record["identifier"])
        return lines

    edit_records(location, "relationshipsHasChild", change)
    return changed[0]


def _move_a_has_child_in_the_bundle(location: PackageLocation) -> str:
    changed: list[str] = []

    def change(document: Any) -> None:
        record = document["hasChild"][2]
        record["target_identifier"] = document["hasChild"][3]["target_identifier"]
        changed.append(record["identifier"])

    edit_document(location, "academicStandardsBundle", change)
    return changed[0]


def _note_on_a_support_in_the_component_bundle(location: PackageLocation) -> str:
    changed: list[str] = []

    def change(document: Any) -> None:
        record = document["supports"][0]
        record["properties"]["note"] = "an extra claim the delivery does not make"
        changed.append(record["identifier"])

    edit_document(location, "learningComponentBundle", change)
    return changed[0]


RELATIONSHIP_FORGERIES: dict[str, tuple[str, Callable[[PackageLocation], str]]] = {
    "hasChild-line-renamed-member": ("relationshipsHasChild", _rename_a_member_of_a_has_child_line),
    "hasChild-in-the-bundle-moved": ("academicStandardsBundle", _move_a_has_child_in_the_bundle),
    "support-in-the-component-bundle": ("learningComponentBundle", _note_on_a_support_in_the_component_bundle),
}


@pytest.mark.parametrize("name", list(RELATIONSHIP_FORGERIES))
def test_a_relationship_changed_in_one_copy_is_refused(sealed: Sealed, tmp_path: Path, name: str) -> None:
    """The hasChild lines, the bundle's hasChild array and the component bundle's supports repeat delivered
    relationships: a copy that differs in anything but its id is named, by id, field and both artifacts."""
    artifact, edit = RELATIONSHIP_FORGERIES[name]
    root = tmp_path / "graph_packages"
    location = PackageLocation(LC, SNAPSHOT, root / LC / SNAPSHOT)
    shutil.copytree(sealed.location.path, location.path)
    identifier = edit(location)
    reseal(location)
    outcome = PackageLifecycle(
        PackageValidator(sealed.world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL
    ).validate(location)
    assert outcome.result == "drifted"
    assert error_codes(outcome.outcome.findings) == {CODE}, [f.to_wire() for f in outcome.outcome.findings]
    (finding,) = [f for f in outcome.outcome.findings if f.code == CODE]
    assert finding.location == identifier and finding.artifact == artifact
    assert finding.message.endswith(f"in {artifact} differs from relationships"), finding.message
    for cache in (None, sealed.warm_cache):
        with pytest.raises(CatalogError, match=CODE):
            load(sealed, root, cache)


# -- the real default catalog ------------------------------------------------------------------

ENSINO_FUNDAMENTAL = "brazil-bncc-ensino-fundamental"


def _nodes_text(habilidade: str) -> Edit:
    def edit(location: PackageLocation, node: NodeRecord) -> None:
        def change(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
            record = next(r for r in records if r["properties"].get("statementCode") == habilidade)
            record["properties"]["description"] = record["properties"]["description"].replace("a", "o", 1)
            return records

        edit_records(location, "nodes", change)

    return edit


def _component_quote(location: PackageLocation, node: NodeRecord) -> None:
    def change(document: Any) -> None:
        key = sorted(document["entities"])[0]
        document["entities"][key]["sourceText"] = "Reconhecer outra coisa."

    edit_document(location, "lcEntityProvenance", change)


@pytest.mark.slow  # a sweep over the real Ensino Fundamental package: each forgery validates it whole, twice
@pytest.mark.parametrize(
    "edit", [_nodes_text("EF01LP01"), _component_quote], ids=["habilidade-in-nodes", "component-quote"]
)
def test_ensino_fundamental_refuses_a_resealed_text_change(
    default_catalog_root: Path, tmp_path: Path, edit: Edit
) -> None:
    """The audit's reproduction on the real package: one text in one artifact, checksum and seal refreshed."""
    source = next((default_catalog_root / ENSINO_FUNDAMENTAL).iterdir())
    root = tmp_path / "graph_packages"
    location = PackageLocation(ENSINO_FUNDAMENTAL, source.name, root / ENSINO_FUNDAMENTAL / source.name)
    shutil.copytree(source, location.path)
    prompts = tmp_path / "prompts"
    copy_generic_configs(SHIPPED_PROMPTS_DIR, prompts)
    settings = {"graph_packages_dir": root, "profiles_dir": SHIPPED_PROFILES_DIR, "prompts_dir": prompts}
    edit(location, ENTITIES.framework)
    reseal(location)
    for cache in (None, tmp_path / "cold-cache"):
        with pytest.raises(CatalogError, match=f"no longer validates \\({CODE}\\)"):
            build_app_state(load_settings({**settings, "cache_dir": cache}))


def _reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


@pytest.mark.parametrize("change_a_detail", [False, True], ids=["equal", "one-detail-changed"])
def test_copies_written_in_another_member_order_are_compared_by_content(
    sealed: Sealed, tmp_path: Path, change_a_detail: bool
) -> None:
    """Two copies are compared by what they say, not by how they are written: a bundle whose every object
    lists its members in reverse (so no item is written as its line) still equals the item lines, and a
    detail changed in it is still named."""
    root = tmp_path / "graph_packages"
    location = PackageLocation(LC, SNAPSHOT, root / LC / SNAPSHOT)
    shutil.copytree(sealed.location.path, location.path)
    standard = ENTITIES.standard

    def rewrite(data: bytes) -> bytes:
        document = json.loads(data)
        if change_a_detail:
            bundle_item(document, standard)["sourceDetails"]["fixture"]["note"] = "another note"
        return (json.dumps(_reversed_keys(document), ensure_ascii=False) + "\n").encode()

    rewrite_bytes(location, "academicStandardsBundle", rewrite)
    reseal(location)
    outcome = PackageValidator(sealed.world.profiles()).validate(location)
    if not change_a_detail:
        assert outcome.passed, [f.to_wire() for f in outcome.findings]
        return
    (finding,) = outcome.findings
    assert finding.code == CODE and finding.location == standard.identifier
    assert finding.message.endswith(
        ": sourceDetails.fixture.note in academicStandardsBundle differs from standardsFrameworkItems"
    )
