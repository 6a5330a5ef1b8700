"""Detailed copies of the delivery records: the framework, its items, hasChild and the bundle.

Each copy must hold the records the nodes deliver, and each record's fields as the nodes carry them.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from kgfegmcp.packages.checks.carried_fields import (
    ItemLineDigests,
    first_difference,
    item_details,
    record_digest,
    typed_difference,
)
from kgfegmcp.packages.checks.context import CheckContext
from kgfegmcp.packages.checks.detailed_artifact import (
    CARRIED_CODES,
    DOCUMENT_CODES,
    LINE_CODES,
    DetailedArtifactCheck,
)
from kgfegmcp.packages.collector import MAX_FINDINGS_PER_CODE, FindingCollector
from kgfegmcp.packages.encoder import relationship_wire
from kgfegmcp.packages.records import HAS_CHILD, ItemNode, RelationshipRecord


class FrameworkDocumentCheck(DetailedArtifactCheck):
    """Resources serve the framework document; it must carry the framework the nodes deliver, field for field."""

    codes = (*DOCUMENT_CODES, *CARRIED_CODES)

    def run(self) -> None:
        document = self.document("standardsFramework")
        framework = self.content.framework
        if document is None or framework is None:
            return
        copy = document.get("framework")
        if not isinstance(copy, dict) or copy.get("caseIdentifierUUID") != framework.case_identifier_uuid:
            self.mismatch("standardsFramework", "framework caseIdentifierUUID differs from the nodes artifact")
            return
        field = typed_difference(framework, copy, exact=True)
        if field is not None:
            self.differs(framework, field, "standardsFramework", "nodes")


class HasChildLinesCheck(DetailedArtifactCheck):
    """The detailed hasChild lines must be the delivered hasChild relationships, in order, each written
    exactly as the delivery writes it (its envelope, no more). The bundle's copy is compared where the
    bundle is read (:class:`ItemCopiesCheck`)."""

    codes = (*LINE_CODES, *DOCUMENT_CODES, *CARRIED_CODES)

    def run(self) -> None:
        lines = _RelationshipCopies(self, has_child(self.content.relationships), HAS_CHILD_LINES)
        if self.line_records(HAS_CHILD_LINES, "identifier", lambda _, record: lines.add(record)) and not lines.equal():
            self.mismatch(HAS_CHILD_LINES, "hasChild records differ from the relationships artifact")


def has_child(relationships: Iterable[RelationshipRecord]) -> list[RelationshipRecord]:
    """The delivered hasChild relationships, in delivery order: what each copy repeats."""
    return [rel for rel in relationships if rel.label == HAS_CHILD]


class _RelationshipCopies:
    """Compares a stream of copies with the delivered relationships they must repeat, position by position:
    each copy with the envelope of the relationship at its position, so nothing beyond the records is held."""

    def __init__(self, check: DetailedArtifactCheck, expected: list[RelationshipRecord], artifact: str) -> None:
        self.check, self.expected, self.artifact = check, expected, artifact
        self.count = 0
        self.same_ids = True

    def add(self, copy: Any) -> None:
        position, self.count = self.count, self.count + 1
        if position >= len(self.expected) or not isinstance(copy, dict):
            self.same_ids = False
            return
        rel = self.expected[position]
        if copy.get("identifier") != rel.identifier:
            self.same_ids = False
            return
        wire = relationship_wire(rel)
        if copy != wire:
            self.check.differs(rel, first_difference(copy, wire) or "(the record)", self.artifact, "relationships")

    def equal(self) -> bool:
        """Whether the copies were the delivered relationships' ids, in order (fields are reported apart)."""
        return self.same_ids and self.count == len(self.expected)


class ItemCopiesCheck(DetailedArtifactCheck):
    """Item resources read the item lines and bulk readers the bundle: both must be the delivered items,
    in order, each carrying its fields as the nodes do and the same details (parents, source details).
    The bundle's hasChild array, read in the same pass, must be the delivered hasChild relationships.

    The lines are read first, each compared with its node and kept as a 16-byte digest; the bundle is
    then streamed item by item and compared with those digests, so neither copy is ever held whole.
    """

    codes = (*LINE_CODES, *DOCUMENT_CODES, *CARRIED_CODES)

    def __init__(self, context: CheckContext, out: FindingCollector) -> None:
        super().__init__(context, out)
        self.lines = ItemLineDigests(len(context.content.items))
        self.unlike_nodes: set[int] = set()  # positions of the lines whose fields differ from their node

    def run(self) -> None:
        items = self.content.items
        ids: list[str] = []
        read = self.line_records(ITEM_LINES, "caseIdentifierUUID", partial(self._line, ids))
        in_order = ids == [item.case_identifier_uuid for item in items]
        if read and not in_order:
            self.mismatch(ITEM_LINES, "items differ from the nodes artifact (ids or order)")
        if not (read and in_order):
            self.lines = ItemLineDigests(0)  # no line for each position: the bundle is compared with the nodes
        self._bundle()

    def _line(self, ids: list[str], position: int, record: dict[str, Any]) -> None:
        ids.append(str(record["caseIdentifierUUID"]))
        node = self.nodes.get(str(record.get("identifier")))
        if isinstance(node, ItemNode):
            field = typed_difference(node, record, exact=False)
            if field is not None:
                self.differs(node, field, ITEM_LINES, "nodes")
                self.unlike_nodes.add(position)
        self.lines.record(position, record)

    def _bundle(self) -> None:
        tally = _BundleItems(self, self.content.items)
        relationships = _RelationshipCopies(self, has_child(self.content.relationships), BUNDLE)
        streams = {"items": tally.add, "hasChild": lambda _, value: relationships.add(value)}
        document = self.streamed(BUNDLE, streams, whole=frozenset({"framework"}))
        if document is None:
            return
        if document.kinds.get("items") != "array" or not tally.equal():
            self.mismatch(BUNDLE, "bundle items differ from the nodes artifact")
        if document.kinds.get("hasChild") != "array" or not relationships.equal():
            self.mismatch(BUNDLE, "the bundle's hasChild relationships differ from the relationships artifact")
        self._compare_details(tally)
        framework = self.content.framework
        if framework is None:
            return
        copy = document.members.get("framework")
        if not isinstance(copy, dict):
            self.mismatch(BUNDLE, "the bundle's framework is not a JSON object")
            return
        field = typed_difference(framework, copy, exact=True)
        if field is not None:
            self.differs(framework, field, BUNDLE, "nodes")

    def _compare_details(self, tally: _BundleItems) -> None:
        """Compare what each bundle item written unlike its line carries beyond the typed fields.

        Only digests of the lines were kept, so the lines are read again, and only when some item is
        unlike its line: a cost paid by a package whose copies differ, never by one that passes.
        """
        if not tally.details or self.checksum_failed(ITEM_LINES):
            return
        items = self.content.items

        def compare(position: int, line: dict[str, Any]) -> None:
            expected = tally.details.get(position)
            if expected is None:
                return
            details = item_details(line)
            if record_digest(details) != expected:
                kept = tally.kept.get(position)
                field = first_difference(kept, details) if kept is not None else None
                self.differs(items[position], field or "the members beyond the typed fields", BUNDLE, ITEM_LINES)

        self.line_records(ITEM_LINES, "caseIdentifierUUID", compare)


ITEM_LINES = "standardsFrameworkItems"
HAS_CHILD_LINES = "relationshipsHasChild"
BUNDLE = "academicStandardsBundle"


class _BundleItems:
    """Compares streamed bundle items (the objects among them) with the delivered items, in order, and
    each with its item line (or its node, when the lines do not line up)."""

    def __init__(self, check: ItemCopiesCheck, expected: list[ItemNode]) -> None:
        self._check = check
        self._expected = expected
        self._matched = 0
        self._differs = False
        #: position → canonical digest of the details of each bundle item written unlike its line
        self.details: dict[int, bytes] = {}
        #: position → those details themselves, for the first 50 (to name the member that differs)
        self.kept: dict[int, dict[str, Any]] = {}

    def add(self, key: str | None, value: Any) -> None:
        if not isinstance(value, dict) or self._differs:
            return
        position = self._matched
        if (
            position < len(self._expected)
            and value.get("caseIdentifierUUID") == (node := self._expected[position]).case_identifier_uuid
        ):
            self._matched += 1
            self._compare(position, node, value)
        else:
            self._differs = True

    def _compare(self, position: int, node: ItemNode, value: dict[str, Any]) -> None:
        check = self._check
        same = check.lines.same(position, value)
        if same and position not in check.unlike_nodes:
            return  # what the line carries, and the line's fields are the node's
        field = typed_difference(node, value, exact=False)
        if field is not None:
            check.differs(node, field, BUNDLE, "nodes")
        if same is not False:
            return
        details = item_details(value)
        self.details[position] = record_digest(details)
        if len(self.kept) < MAX_FINDINGS_PER_CODE:
            self.kept[position] = details

    def equal(self) -> bool:
        return not self._differs and self._matched == len(self._expected)
