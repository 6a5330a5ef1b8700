"""CFAssociations → package relationships, cross-framework references and mapping gaps.

``isChildOf`` → hasChild (parent = the association's destination), ``precedes`` → buildsTowards,
``isRelatedTo`` → relatesTo. An association that reaches outside the document and relates two
statements (see :data:`CROSS_FRAMEWORK_TYPES`) is kept as a source-asserted, unresolved
cross-framework reference: never followed, never merged, never made an edge. Any other association
the mapping cannot represent becomes a ``source_mapping_gap`` build finding. Nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgfegmcp.core.errors import echo
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, RelationshipLabel
from kgfegmcp.packages.unresolved import CROSS_FRAMEWORK_REFERENCE
from kgfegmcp.sources.case.dataset import CaseDataset
from kgfegmcp.sources.case.document import CaseAssociation, LinkUri, NodeLink, canonical_uuid, nonblank
from kgfegmcp.sources.graph_builder import PackageGraphBuilder

#: CASE association type → package relationship label.
ASSOCIATION_LABELS: dict[str, RelationshipLabel] = {
    "isChildOf": HAS_CHILD,
    "precedes": BUILDS_TOWARDS,
    "isRelatedTo": RELATES_TO,
}
#: CASE 1.0/1.1 association types that relate one statement (CFItem or CFDocument) to another, so an
#: endpoint outside this CFDocument is a statement of another framework. ``exemplar`` and
#: ``hasSkillLevel`` point at an example or a skill level, not a statement, and an ``ext:`` type's
#: meaning is unknown: those stay ``source_mapping_gap`` findings.
CROSS_FRAMEWORK_TYPES = frozenset(
    {"isChildOf", "isPeerOf", "isPartOf", "exactMatchOf", "precedes", "isRelatedTo", "replacedBy", "isTranslationOf"}
)
_GAP = FindingCode.SOURCE_MAPPING_GAP


@dataclass(slots=True)
class NodeResolver:
    """Maps CASE node references (identifier or URI) to package ids."""

    document_ids: set[str]
    root_id: str
    by_key: dict[str, str] = field(default_factory=dict)

    def add(self, item_id: str, *keys: str | None) -> None:
        """Make ``item_id`` the node each of ``keys`` (and its canonical UUID form) refers to."""
        for key in keys:
            if key:
                self.by_key[key] = item_id
                canonical = canonical_uuid(key)
                if canonical:
                    self.by_key[canonical] = item_id

    def resolve(self, reference: NodeLink | None) -> tuple[str, str | None]:
        """``("item", id)``, ``("document", root)`` or ``("outside", None)``."""
        if reference is None:
            return "outside", None
        for key in (nonblank(reference.identifier), nonblank(reference.uri)):
            if key is None:
                continue
            if key in self.document_ids or canonical_uuid(key) in self.document_ids:
                return "document", self.root_id
            found = self.by_key.get(key) or self.by_key.get(canonical_uuid(key) or "")
            if found:
                return "item", found
        return "outside", None


def _appending(member: str, value: str) -> Callable[[dict[str, Any]], object]:
    """A change to a provenance record: ``value`` appended to its list ``member``."""
    return lambda record: record.setdefault(member, []).append(value)


def _describe_reference(reference: NodeLink | None) -> str:
    if reference is not None:
        return str(nonblank(reference.uri) or nonblank(reference.identifier) or "(no identifier)")
    return "(no node reference)"


def _link_wire(link: LinkUri | None) -> dict[str, Any] | None:
    """A CASE link object as the source gave it (absent members left out)."""
    return None if link is None else link.model_dump(by_alias=True, exclude_none=True)


def map_associations(dataset: CaseDataset, builder: PackageGraphBuilder, resolver: NodeResolver) -> None:
    """One pass over the CFAssociations, after every item exists (``resolver`` knows them all)."""
    unmapped: dict[str, list[Any]] = {}  # association type → [count, the first five ids]
    for index, record in dataset.reader.associations():
        if record is None:
            continue  # of a type CASE does not allow: refused after the pass, with the others
        kind = nonblank(record.association_type)
        if kind is None:
            builder.add_finding(_GAP, "warning", f"CFAssociations[{index}] has no associationType; it was skipped.")
            continue
        assoc_id = nonblank(record.identifier) or f"CFAssociations[{index}]"
        label = ASSOCIATION_LABELS.get(kind)
        origin_kind, origin_id = resolver.resolve(record.origin)
        target_kind, target_id = resolver.resolve(record.destination)
        where = {"collection": "CFAssociations", "index": index, "identifier": assoc_id, "associationType": kind}
        if "outside" in (origin_kind, target_kind) and kind in CROSS_FRAMEWORK_TYPES:
            _cross_framework(dataset, builder, record, index, assoc_id, label, where, (origin_id, target_id))
            continue
        if label is None:
            seen = unmapped.setdefault(kind, [0, []])
            seen[0] += 1
            if len(seen[1]) < 5:
                seen[1].append(echo(assoc_id))
            continue
        # isChildOf runs child → parent; the package edge runs parent → child.
        source_kind, source_id, end_kind, end_id = (
            (target_kind, target_id, origin_kind, origin_id)
            if label == HAS_CHILD
            else (origin_kind, origin_id, target_kind, target_id)
        )
        if end_kind != "item" or source_id is None or end_id is None:
            builder.add_finding(
                _GAP,
                "warning",
                f"{echo(kind)} association {echo(assoc_id)} joins the CFDocument itself in a way a {label} edge "
                "cannot represent; it was not converted.",
                location=assoc_id,
            )
            continue
        if label != HAS_CHILD and source_kind != "item":
            builder.add_finding(
                _GAP,
                "warning",
                f"{echo(kind)} association {echo(assoc_id)} involves the CFDocument, not two items; it was not "
                "converted.",
                location=assoc_id,
            )
            continue
        if source_id == end_id:
            builder.add_finding(
                _GAP,
                "warning",
                f"{echo(kind)} association {echo(assoc_id)} joins an item to itself; it was not converted.",
                location=assoc_id,
            )
            continue
        provenance = dataset.provenance(**where, sequenceNumber=record.sequence_number)
        rel_id, created = builder.link(label, source_id, end_id, provenance)
        if not created:
            builder.update_provenance(rel_id, _appending("duplicateAssociations", assoc_id))
    for kind, (count, identifiers) in sorted(unmapped.items()):
        sample = ", ".join(identifiers) + (" …" if count > 5 else "")
        builder.add_finding(
            _GAP,
            "warning",
            f"{count} CFAssociations of type {echo(kind)!r} have no counterpart in the package "
            f"(only isChildOf, precedes and isRelatedTo are mapped; statement associations reaching outside "
            f"the document are kept as unresolved references); they were not converted: {sample}.",
            location=kind,
        )


def _cross_framework(
    dataset: CaseDataset,
    builder: PackageGraphBuilder,
    record: CaseAssociation,
    index: int,
    assoc_id: str,
    label: RelationshipLabel | None,
    where: dict[str, Any],
    ends: tuple[str | None, str | None],
) -> None:
    """Keep an association to a statement of another framework exactly as the source asserts it.

    It becomes one unresolved entry (status ``unresolvedExternalReference``, ``referenceKind``
    ``crossFrameworkAssociation``) with both CASE node links verbatim, and the package node it
    concerns lists the entry in its provenance. Nothing is followed, merged or linked: the other
    framework is not in this package, and the server never judges two statements equivalent.
    """
    origin_id, target_id = ends
    inside = origin_id if origin_id is not None else target_id
    outside_ref = record.destination if origin_id is not None else record.origin
    direction = (
        "reference → reference"
        if inside is None
        else ("package node → reference" if origin_id is not None else "reference → package node")
    )
    kind = str(record.association_type)
    entry: dict[str, Any] = {
        "status": "unresolvedExternalReference",
        "referenceKind": CROSS_FRAMEWORK_REFERENCE,
        "epistemicStatus": "source_asserted",
        "associationType": kind,
        "reference": _describe_reference(outside_ref),
        "sourceEntityId": inside if inside != builder.root_id else None,
        "sourceText": (outside_ref.title if outside_ref is not None else None) or "",
        "direction": direction,
        "originNode": _link_wire(record.origin),
        "destinationNode": _link_wire(record.destination),
        "reason": f"the source's {kind} association {assoc_id} reaches a node outside this CFDocument, in "
        "another framework; it is kept as stated, not followed and not merged",
        "locator": {**dataset.origin.where(), **where},
    }
    if label is not None:
        entry["relationshipLabel"] = label
    unresolved_id = builder.add_unresolved(f"association/{index}/{assoc_id}", entry)
    if inside is not None:
        builder.update_provenance(inside, _appending("crossFrameworkReferences", unresolved_id))
