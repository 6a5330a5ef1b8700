"""Entity provenance: one record per entity of the package, split into parts exactly as assigned.

Standards-side entities are in ``entityProvenance``, learning components in ``lcEntityProvenance``;
the 64 parts index both (a per-entity read needs no knowledge of which document holds the entity)."""

from __future__ import annotations

import hashlib
from typing import Any

from kgfegmcp.models import canonical_bytes
from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.finding_codes import FindingCode
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PART_ARTIFACTS
from kgfegmcp.packages.provenance import provenance_part_of


class ProvenanceCheck(DetailedArtifactCheck):
    """Evidence answers cite provenance by entity and read one part per entity, so both must line up.

    The document grows with the package (several entries per item), so it is streamed: each entry is
    ticked off the package's entities and folded into its part's digest list, never held.
    """

    codes = (*DOCUMENT_CODES, FindingCode.PROVENANCE_MISMATCH, FindingCode.COUNT_MISMATCH)

    def run(self) -> None:
        content = self.content
        known = [content.framework.identifier] if content.framework else []
        known += [n.identifier for n in content.items]
        known += [r.identifier for r in content.relationships]
        components = [n.identifier for n in content.components]
        tally = _EntityTally(known)
        if not self._streamed_into("entityProvenance", tally):
            return
        entities = self._tallied("entityProvenance", known, tally)
        if components:  # component provenance lives in the learning-component collection
            component_tally = _EntityTally(components, tally.parts)
            if not self._streamed_into("lcEntityProvenance", component_tally):
                return
            entities += self._tallied("lcEntityProvenance", components, component_tally)
        if entities != self.manifest.counts.provenance_entities:
            self.out.add(
                FindingCode.COUNT_MISMATCH,
                f"counts.provenanceEntities declares {self.manifest.counts.provenance_entities}, "
                f"the artifact has {entities}",
                location=MANIFEST_FILENAME,
            )
        self._check_parts(tally.parts)

    def _streamed_into(self, logical_name: str, tally: _EntityTally) -> bool:
        """Stream ``logical_name``'s entities into ``tally``; ``False`` when the document is unusable."""
        document = self.streamed(logical_name, "entities", tally.add)
        if document is None:
            return False
        if document.member_kind != "object":
            self.out.add(FindingCode.PROVENANCE_MISMATCH, "entities must be a JSON object", artifact=logical_name)
            return False
        return True

    def _tallied(self, logical_name: str, known: list[str], tally: _EntityTally) -> int:
        """Report ``logical_name``'s missing, repeated and stray entities; how many distinct ids it held."""
        unknown, repeated = tally.strangers()
        self._listed(logical_name, repeated, "entity ids repeat within entities")
        if self.manifest.capabilities.has_detailed_provenance:
            self._listed(logical_name, [e for e in known if e in tally.remaining], "entities have no provenance")
        self._listed(logical_name, unknown, "provenance entries name no entity of this document")
        return tally.distinct(len(unknown))

    def _listed(self, logical_name: str, ids: list[str], what: str) -> None:
        """One finding for ids that break a rule: how many, and the first as its location."""
        if ids:
            self.out.add(FindingCode.PROVENANCE_MISMATCH, f"{len(ids)} {what}", artifact=logical_name, location=ids[0])

    def _check_parts(self, expected: list[bytearray]) -> None:
        """Each part holds exactly the entities ``provenance_part_of`` assigns it (compared by digest)."""
        for index, logical_name in enumerate(PART_ARTIFACTS):
            part = self.document(logical_name)
            if part is None:
                continue
            entities = part.get("entities")
            if (
                part.get("part") != index
                or not isinstance(entities, dict)
                or sorted(_entry_digest(k, v) for k, v in entities.items()) != _sorted_digests(expected[index])
            ):
                self.out.add(
                    FindingCode.PROVENANCE_MISMATCH,
                    "part differs from the entities the provenance documents assign it",
                    artifact=logical_name,
                )


def _entry_digest(entity_id: str, record: Any) -> bytes:
    """SHA-256 of one entry's canonical JSON: equal digests, equal entries."""
    return hashlib.sha256(canonical_bytes([entity_id, record])).digest()


def _sorted_digests(digests: bytearray) -> list[bytes]:
    return sorted(bytes(digests[i : i + _DIGEST]) for i in range(0, len(digests), _DIGEST))


_DIGEST = 32


class _EntityTally:
    """Ticks streamed entity ids off the package's entities; keeps a 32-byte digest per entry, by part."""

    def __init__(self, known: list[str], parts: list[bytearray] | None = None) -> None:
        self._known = known
        self.remaining = set(known)
        self._initial = len(self.remaining)
        self._others: dict[str, int] = {}  # ids not ticked off (unknown, or seen before): how often
        self.parts = parts if parts is not None else [bytearray() for _ in PART_ARTIFACTS]

    def add(self, key: str | None, value: Any) -> None:
        assert key is not None  # entities is an object
        if key in self.remaining:
            self.remaining.discard(key)
        else:
            self._others[key] = self._others.get(key, 0) + 1
        self.parts[provenance_part_of(key)] += _entry_digest(key, value)

    def strangers(self) -> tuple[list[str], list[str]]:
        """Ids that name no entity (sorted), and ids that appear more than once (sorted)."""
        if not self._others:
            return [], []
        known_ids = set(self._known)
        unknown = sorted(k for k in self._others if k not in known_ids)
        repeated = sorted(k for k, n in self._others.items() if k in known_ids or n > 1)
        return unknown, repeated

    def distinct(self, unknown: int) -> int:
        """How many different ids the entities held."""
        return self._initial - len(self.remaining) + unknown
