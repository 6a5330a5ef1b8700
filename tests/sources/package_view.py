"""Read a built package back (delivery records + detailed artifacts) for assertions."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgfegmcp.packages.artifact_roles import COMPONENT_ARTIFACTS
from kgfegmcp.packages.decoder import iter_nodes, iter_relationships
from kgfegmcp.packages.records import ComponentNode, FrameworkNode, ItemNode, RelationshipRecord


@dataclass
class PackageView:
    path: Path
    manifest: dict[str, Any]
    framework: FrameworkNode
    items: list[ItemNode]
    components: list[ComponentNode]
    relationships: list[RelationshipRecord]
    provenance: dict[str, dict[str, Any]]
    component_provenance: dict[str, dict[str, Any]]
    lc_documents: dict[str, Any]
    unresolved: list[dict[str, Any]]
    report: dict[str, Any]
    details: dict[str, dict[str, Any]]
    _parents: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        parents: dict[str, list[str]] = defaultdict(list)
        for rel in self.relationships:
            if rel.label == "hasChild":
                parents[rel.target_identifier].append(rel.source_identifier)
        self._parents = dict(parents)

    @property
    def nodes(self) -> dict[str, Any]:
        return {n.identifier: n for n in [self.framework, *self.items, *self.components]}

    def item_by_code(self) -> dict[str, ItemNode]:
        found: dict[str, ItemNode] = {}
        for item in self.items:
            if item.statement_code is not None:
                assert item.statement_code not in found, item.statement_code
                found[item.statement_code] = item
        return found

    def parents(self, item_id: str) -> list[str]:
        return self._parents.get(item_id, [])

    def edges(self, label: str) -> list[RelationshipRecord]:
        return [r for r in self.relationships if r.label == label]

    def depth(self, item_id: str) -> int:
        """Longest hasChild path from the framework root, in edges."""
        parents = self.parents(item_id)
        if parents == [self.framework.identifier]:
            return 1
        return 1 + max(self.depth(p) for p in parents if p != self.framework.identifier)


def artifact_path(package_dir: Path, manifest: dict[str, Any], logical_name: str) -> Path:
    for entry in manifest["artifacts"]:
        if entry["logicalName"] == logical_name:
            return package_dir / entry["path"]
    raise KeyError(logical_name)


def snapshot_dir(root: Path, framework_id: str) -> Path:
    snapshots = sorted(p for p in (root / framework_id).iterdir() if p.is_dir())
    assert len(snapshots) == 1, snapshots
    return snapshots[0]


def open_package(root: Path, framework_id: str) -> PackageView:
    path = snapshot_dir(root, framework_id)
    manifest = json.loads((path / "package_manifest.json").read_text(encoding="utf-8"))

    def document(name: str) -> Any:
        return json.loads(artifact_path(path, manifest, name).read_text(encoding="utf-8"))

    declared = {entry["logicalName"] for entry in manifest["artifacts"]}
    lc = {name: document(name) for name in COMPONENT_ARTIFACTS if name in declared}
    with artifact_path(path, manifest, "nodes").open("rb") as stream:
        nodes = list(iter_nodes(stream, "nodes"))
    with artifact_path(path, manifest, "relationships").open("rb") as stream:
        relationships = list(iter_relationships(stream, "relationships"))
    frameworks = [n for n in nodes if isinstance(n, FrameworkNode)]
    assert len(frameworks) == 1
    details = {}
    for line in artifact_path(path, manifest, "standardsFrameworkItems").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        details[record["identifier"]] = record
    return PackageView(
        path=path,
        manifest=manifest,
        framework=frameworks[0],
        items=[n for n in nodes if isinstance(n, ItemNode)],
        components=[n for n in nodes if isinstance(n, ComponentNode)],
        relationships=relationships,
        provenance=document("entityProvenance")["entities"],
        component_provenance=lc["lcEntityProvenance"]["entities"] if lc else {},
        lc_documents=lc,
        unresolved=document("unresolvedItems")["items"],
        report=document("validationReport"),
        details=details,
    )


def tree_digest(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
