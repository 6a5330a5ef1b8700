"""A supplied package's learning-progression evidence: its link files, their provenance and its 64 shards
agree with the links the delivery holds, so each link's evidence can be read from one shard alone."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.artifact_roles import PROGRESSION_SHARDS, progression_shard_name
from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, LINE_CODES, DetailedArtifactCheck
from kgfegmcp.packages.records import BUILDS_TOWARDS, PROGRESSION_LABELS, RELATES_TO, RelationshipRecord
from kgfegmcp.packages.supplied_provenance import (
    INDEX,
    NORMALIZATION_RECEIPT,
    PROVENANCE,
    index_problems,
    judgement_of,
    progression_shard,
    receipt_problems,
    shard_records,
)

#: The link files, one per label.
LINK_FILES: dict[str, str] = {
    BUILDS_TOWARDS: "learningProgressionBuildsTowards",
    RELATES_TO: "learningProgressionRelatesTo",
}


class SuppliedProgressionCheck(DetailedArtifactCheck):
    """Every progression link has exactly one line in its link file and one provenance entry, in the shard
    its id names; the index pins each shard's bytes and size; judgement confidences lie in 0..1."""

    codes = (*DOCUMENT_CODES, *LINE_CODES, FindingCode.CROSS_ARTIFACT_MISMATCH)

    def run(self) -> None:
        if "LearningProgressions" not in self.manifest.graph_types.contains:
            return
        links = {rel.identifier: rel for rel in self.content.relationships if rel.label in PROGRESSION_LABELS}
        for label, logical_name in LINK_FILES.items():
            self._link_lines(label, logical_name, links)
        provenance = self.document(PROVENANCE)
        if provenance is not None:
            self._same_links(PROVENANCE, set(provenance), links)
            self._judgements(PROVENANCE, provenance)
        shards = {
            name: document
            for name in (progression_shard_name(shard) for shard in range(PROGRESSION_SHARDS))
            if (document := self.document(name)) is not None
        }
        self._index(shards)
        receipt = self.document(NORMALIZATION_RECEIPT)
        if receipt is not None:
            counts: Counter[str] = Counter(str(link.label) for link in links.values())
            for problem in receipt_problems(receipt, self.manifest, counts):
                self.mismatch(NORMALIZATION_RECEIPT, problem)
        held: dict[str, Any] = {}
        for shard in range(PROGRESSION_SHARDS):
            name = progression_shard_name(shard)
            document = shards.get(name)
            if document is None:
                continue
            if shard_records(document) is None:
                self.mismatch(name, "a shard maps each link id to its provenance record (an object)")
                continue
            strays = sorted(rid for rid in document if progression_shard(rid) != shard)
            if strays:
                self.mismatch(name, f"{len(strays)} entries belong in another shard", strays[0])
            held.update(document)
        if len(held) or provenance is not None:
            self._same_links("the shards", set(held), links)
            if provenance is not None and held != provenance:
                self.mismatch(PROVENANCE, "the shards together differ from the provenance map")

    def _link_lines(self, label: str, logical_name: str, links: dict[str, RelationshipRecord]) -> None:
        seen: set[str] = set()
        endpoints = {node.identifier: node.case_identifier_uuid for node in self.content.items}

        def on_record(_: int, record: dict[str, Any]) -> None:
            rid = str(record["identifier"])
            link = links.get(rid)
            if rid in seen or link is None or link.label != label or record.get("relationship_type") != label:
                self.mismatch(logical_name, f"line {rid} is not a {label} link of the delivery, once", rid)
                return
            seen.add(rid)
            ends = (endpoints.get(link.source_identifier), endpoints.get(link.target_identifier))
            if (record.get("source_entity_value"), record.get("target_entity_value")) != ends:
                self.differs(link, "endpoints", logical_name, "relationships")

        if self.line_records(logical_name, "identifier", on_record):
            missing = sorted(rid for rid, link in links.items() if link.label == label and rid not in seen)
            if missing:
                self.mismatch(logical_name, f"{len(missing)} {label} links of the delivery have no line", missing[0])

    def _same_links(self, where: str, ids: set[str], links: dict[str, RelationshipRecord]) -> None:
        missing, strays = sorted(set(links) - ids), sorted(ids - set(links))
        if missing:
            self.mismatch(PROVENANCE, f"{where}: {len(missing)} links have no provenance entry", missing[0])
        if strays:
            self.mismatch(PROVENANCE, f"{where}: {len(strays)} entries name no link of the delivery", strays[0])

    def _judgements(self, logical_name: str, provenance: dict[str, Any]) -> None:
        for rid, entry in sorted(provenance.items()):
            confidence = judgement_of(entry).get("confidence")
            if confidence is not None and not (
                isinstance(confidence, (int, float)) and not isinstance(confidence, bool) and 0 <= confidence <= 1
            ):
                self.mismatch(logical_name, "claim.judgment.confidence must be a number from 0 to 1", rid)

    def _index(self, shards: dict[str, dict[str, Any]]) -> None:
        index = self.document(INDEX)
        if index is None:
            return
        counts = {name: len(shard) for name, shard in shards.items()}
        for problem, where in index_problems(index, self.manifest, counts):
            self.mismatch(INDEX, problem, where)
