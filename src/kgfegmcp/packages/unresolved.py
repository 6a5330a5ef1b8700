"""Unresolved evidence kept by each package (its ``unresolvedItems`` artifact), read once at start-up.

References a source makes that the package could not turn into a link (codes in another package,
codes that match nothing, CASE associations to statements of another framework) are evidence too:
progression and comparison results surface the ones that concern the standards they return, so a
missing link is never mistaken for no relationship.
The artifact's bytes are checked against the manifest's SHA-256 before they are trusted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgfegmcp.core.errors import CatalogError
from kgfegmcp.core.package_files import PackageFileError, parse_package_json, read_package_file
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE
from kgfegmcp.packages.runtime import PackageRuntime

UNRESOLVED_ARTIFACT = ARTIFACT_ROLE["unresolvedItems"].logical_name
#: ``referenceKind`` of a source-asserted association to a statement of another framework (CASE).
CROSS_FRAMEWORK_REFERENCE = "crossFrameworkAssociation"


@dataclass(frozen=True, slots=True)
class UnresolvedReference:
    """One unresolved reference, as the package records it."""

    unresolved_id: str
    status: str
    reference: str | None
    relationship_label: str | None
    source_entity_id: str | None
    direction: str | None
    reason: str | None
    source_text: str | None
    target_framework_id: str | None
    reference_kind: str | None = None
    association_type: str | None = None

    @property
    def cross_framework(self) -> bool:
        """A source-asserted association to a statement of another framework (kept, never linked)."""
        return self.reference_kind == CROSS_FRAMEWORK_REFERENCE


def _text(entry: dict[str, Any], key: str) -> str | None:
    value = entry.get(key)
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class PackageUnresolved:
    """The unresolved references of one package, indexed by the package entity they concern."""

    total: int
    by_entity: dict[str, tuple[UnresolvedReference, ...]]

    def concerning(self, entity_ids: Iterable[str], labels: Iterable[str] | None = None) -> list[UnresolvedReference]:
        """References about these entities (in the order given, then file order), optionally per link label."""
        wanted = None if labels is None else set(labels)
        found: list[UnresolvedReference] = []
        seen: set[str] = set()
        for entity_id in entity_ids:
            for reference in self.by_entity.get(entity_id, ()):
                if reference.unresolved_id in seen:
                    continue
                label = reference.relationship_label
                if wanted is not None and label is not None and label not in wanted:
                    continue  # a reference without a label may concern any link kind, so it stays …
                if wanted is not None and label is None and reference.cross_framework:
                    continue  # … except an association to another framework, which no link kind stands for
                seen.add(reference.unresolved_id)
                found.append(reference)
        return found


def load_unresolved(runtime: PackageRuntime) -> PackageUnresolved:
    """Read the package's artifact once; ``catalog_error`` when its bytes no longer match the manifest."""
    entry = runtime.manifest.artifact(UNRESOLVED_ARTIFACT)
    if entry is None:
        raise CatalogError(f"Package {runtime.graph_package_id} declares no {UNRESOLVED_ARTIFACT} artifact.")
    path = runtime.path / entry.path
    try:
        data = read_package_file(runtime.path, entry.path, expected_bytes=entry.bytes)
    except PackageFileError as exc:
        data = None
        problem = exc.reason
    else:
        problem = "no longer matches the checksum in its manifest"
    if data is None or hashlib.sha256(data).hexdigest() != entry.sha256:
        # Start-up only (this runs once, after the gate): the message is for the operator, so it names the file.
        raise CatalogError(
            f"The {UNRESOLVED_ARTIFACT} artifact of {runtime.graph_package_id} ({path}) {problem}; it changed "
            "after start-up validated the package.",
            hint=f"Restore the validated files of {runtime.graph_package_id}, or rebuild it and run "
            "`kgfegmcp packages validate` on it, then start again.",
        )
    document = parse_package_json(data)  # the bytes the gate decoded strictly, so this cannot fail
    entries = document.get("items", []) if isinstance(document, dict) else []
    by_entity: dict[str, list[UnresolvedReference]] = {}
    total = 0
    for raw in entries:
        if not isinstance(raw, dict) or not isinstance(raw.get("unresolvedId"), str):
            continue  # the validator rejects these; nothing unreadable is ever reported as evidence
        total += 1
        reference = UnresolvedReference(
            unresolved_id=raw["unresolvedId"],
            status=_text(raw, "status") or "unresolved",
            reference=_text(raw, "reference"),
            relationship_label=_text(raw, "relationshipLabel"),
            source_entity_id=_text(raw, "sourceEntityId"),
            direction=_text(raw, "direction"),
            reason=_text(raw, "reason"),
            source_text=_text(raw, "sourceText"),
            target_framework_id=_text(raw, "targetFrameworkId"),
            reference_kind=_text(raw, "referenceKind"),
            association_type=_text(raw, "associationType"),
        )
        if reference.source_entity_id is not None:
            by_entity.setdefault(reference.source_entity_id, []).append(reference)
    return PackageUnresolved(total=total, by_entity={k: tuple(v) for k, v in by_entity.items()})
