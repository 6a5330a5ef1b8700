"""Where a supplied package records each entity's provenance, read as its pipeline lays it out.

The standards side (``entityProvenance``) holds the framework's record under ``framework`` and one map per
kind of entity (``items``, and the relationships') from id to record; the component side
(``lcEntityProvenance``) holds ``learning_components``; a progression link's record is in the shard its id
names (``supplied_progressions.progression_shard``). Validation checks this layout, so serving reads one
entity's record without knowing more of the pipeline's format than this.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kgfegmcp.packages.artifact_roles import PROGRESSION_SHARDS, progression_shard_name
from kgfegmcp.packages.manifest import PackageManifest

#: How much of a link's rationale an answer carries (the whole is in the link's provenance resource).
RATIONALE_EXCERPT: Final = 512

#: The member holding the framework's own record.
FRAMEWORK_MEMBER = "framework"


def progression_shard(relationship_id: str) -> int:
    """The shard holding a link's provenance: the first byte of the SHA-256 of its id, mod 64."""
    return hashlib.sha256(relationship_id.encode("utf-8")).digest()[0] % PROGRESSION_SHARDS


def shard_records(document: object) -> dict[str, dict[str, Any]] | None:
    """A progression shard's records by link id, or ``None`` when it is not a map from id to record."""
    if not isinstance(document, dict) or not all(isinstance(record, dict) for record in document.values()):
        return None
    return document


def record_maps(document: object) -> dict[str, dict[str, dict[str, Any]]] | None:
    """A provenance document's maps from id to record, by member (the framework's record as a map of one), or
    ``None`` when it is not an object or names no framework record. Members that are no such map (a document
    key, a file name, a run's own summary) say what the records were made from; they hold no record."""
    if not isinstance(document, dict):
        return None
    maps: dict[str, dict[str, dict[str, Any]]] = {}
    for member, value in document.items():
        if not isinstance(value, dict):
            continue
        if member == FRAMEWORK_MEMBER:
            framework_id = value.get("case_identifier_uuid")
            if not isinstance(framework_id, str):
                return None
            maps[member] = {framework_id: value}
        elif all(isinstance(record, dict) for record in value.values()):
            maps[member] = value
    return maps


def entity_records(document: object) -> dict[str, dict[str, Any]] | None:
    """A provenance document's records by entity id (every map's, merged: ids do not repeat across kinds), or
    ``None`` when it is not laid out as the pipeline lays provenance out (see :func:`record_maps`)."""
    maps = record_maps(document)
    if maps is None:
        return None
    return {entity: record for records in maps.values() for entity, record in records.items()}


@dataclass(frozen=True, slots=True)
class LinkJudgement:
    """What the model that made a progression link said of it: its confidence and (the start of) its reason."""

    confidence: float | None
    rationale: str | None
    rationale_excerpted: bool


def judgement_of(record: object) -> dict[str, Any]:
    """A link's provenance record's model judgement (``claim.judgment``), or an empty one."""
    claim = record.get("claim") if isinstance(record, dict) else None
    judgment = claim.get("judgment") if isinstance(claim, dict) else None
    return judgment if isinstance(judgment, dict) else {}


def link_judgements(provenance: object) -> Mapping[str, LinkJudgement]:
    """Each link's judgement (``claim.judgment``) from a supplied package's progression provenance map."""
    judgements: dict[str, LinkJudgement] = {}
    for rid, record in (shard_records(provenance) or {}).items():
        judgment = judgement_of(record)
        if not judgment:
            continue
        confidence = judgment.get("confidence")
        rationale = judgment.get("rationale")
        text = rationale if isinstance(rationale, str) and rationale else None
        judgements[rid] = LinkJudgement(
            confidence=float(confidence)
            if isinstance(confidence, (int, float)) and not isinstance(confidence, bool)
            else None,
            rationale=text[:RATIONALE_EXCERPT] if text else None,
            rationale_excerpted=bool(text and len(text) > RATIONALE_EXCERPT),
        )
    return judgements


#: The logical names of a supplied package's progression provenance: the map, its index, the receipt.
PROVENANCE = "learningProgressionProvenance"
INDEX = "learningProgressionProvenanceIndex"
NORMALIZATION_RECEIPT = "learningProgressionNormalization"
PARTITION_ALGORITHM = "SHA256(UTF8(relationship_id))[0] modulo 64"


def index_problems(
    index: Mapping[str, Any], manifest: PackageManifest, entries: Mapping[str, int]
) -> list[tuple[str, str | None]]:
    """What a provenance index says otherwise than the manifest: its format, algorithm and count, the map's
    checksum, and for each of the 64 shards its path and checksum (and its entry count, for the shards in
    ``entries``), each problem with the shard it concerns."""
    problems: list[tuple[str, str | None]] = []
    expected: dict[str, Any] = {
        "formatVersion": "1.0",
        "originalProvenanceLogicalName": PROVENANCE,
        "partitionAlgorithm": PARTITION_ALGORITHM,
        "partitionCount": PROGRESSION_SHARDS,
    }
    provenance = manifest.artifact(PROVENANCE)
    if provenance is not None:
        expected["originalProvenanceSha256"] = f"sha256:{provenance.sha256}"
    problems += [(f"{key} must be {value!r}", None) for key, value in expected.items() if index.get(key) != value]
    partitions = index.get("partitions")
    names = [progression_shard_name(shard) for shard in range(PROGRESSION_SHARDS)]
    if not isinstance(partitions, dict) or sorted(partitions) != names:
        return [*problems, (f"partitions must name exactly the {PROGRESSION_SHARDS} shards", None)]
    for name in names:
        entry, declared = partitions[name], manifest.artifact(name)
        if declared is None or not isinstance(entry, dict):
            continue
        if (entry.get("artifactPath"), entry.get("sha256")) != (declared.path, f"sha256:{declared.sha256}"):
            problems.append((f"{name}: artifactPath and sha256 must be the manifest's", name))
        if name in entries and entry.get("entryCount") != entries[name]:
            problems.append((f"{name}: entryCount {entry.get('entryCount')} but the shard holds {entries[name]}", name))
    return problems


def receipt_problems(receipt: object, manifest: PackageManifest, links: Mapping[str, int]) -> list[str]:
    """What a supplied package's normalization receipt says otherwise than its manifest and its delivery: it
    names the framework, pins every other declared file by the manifest's checksum, and counts the links by
    label (``links``: the delivery's count of each)."""
    if not isinstance(receipt, dict):
        return ["the receipt is not a JSON object"]
    problems = []
    if receipt.get("frameworkId") != manifest.framework_id:
        problems.append(f"frameworkId is {receipt.get('frameworkId')!r}, not the manifest's")
    declared = {
        entry.path: f"sha256:{entry.sha256}"
        for entry in manifest.all_artifacts()
        if entry.logical_name != NORMALIZATION_RECEIPT
    }
    if receipt.get("outputSha256") != declared:
        problems.append("outputSha256 does not pin exactly the manifest's other files by their checksums")
    for key, label in (("buildsTowardsRelationships", "buildsTowards"), ("relatesToRelationships", "relatesTo")):
        if key in receipt and receipt[key] != links.get(label, 0):
            problems.append(f"{key} is {receipt[key]!r}, the delivery holds {links.get(label, 0)}")
    return problems
