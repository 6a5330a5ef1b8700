"""Entity provenance: one record per entity of the package, split into parts exactly as assigned.

Standards-side entities are in ``entityProvenance``, learning components in ``lcEntityProvenance``;
the 64 parts index both (a per-entity read needs no knowledge of which document holds the entity)."""

from __future__ import annotations

import hashlib
from typing import Any

from kgfegmcp.epistemic import component_label
from kgfegmcp.models import canonical_bytes
from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.finding_codes import FindingCode
from kgfegmcp.packages.lc_artifacts import GenerationSummary
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PART_ARTIFACTS
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import PROGRESSION_LABELS, SUPPORTS


class ProvenanceCheck(DetailedArtifactCheck):
    """Evidence answers cite provenance by entity and read one part per entity, so both must line up.

    The document grows with the package (several entries per item), so it is streamed: each entry is
    ticked off the package's entities and folded into its part's digest list, never held.
    """

    codes = (
        *DOCUMENT_CODES,
        FindingCode.PROVENANCE_MISMATCH,
        FindingCode.COUNT_MISMATCH,
        FindingCode.EPISTEMIC_LABEL_MISMATCH,
    )

    def run(self) -> None:
        content = self.content
        known = [content.framework.identifier] if content.framework else []
        known += [n.identifier for n in content.items]
        known += [r.identifier for r in content.relationships]
        components = [n.identifier for n in content.components]
        declared = self._declared_labels()
        tally = _EntityTally(known, declared=declared)
        if not self._streamed_into("entityProvenance", tally):
            return
        entities = self._tallied("entityProvenance", known, tally)
        if components:  # component provenance lives in the learning-component collection
            component_tally = _EntityTally(components, tally.parts, declared=declared)
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

    def _declared_labels(self) -> dict[str, str]:
        """entity id → the epistemic status answers give it, for every entity a declaration covers.

        Answers state these labels once per package, so each entity's provenance is held to them:
        standards and hierarchy to the profile's ``standards``, resolved progression links to its
        ``progressionLinks``, components and their supports to the generation summary (when it reads).
        Links the source left unresolved keep whatever status their provenance gives them.
        """
        content = self.content
        if self.profile is None:
            return {}  # profile binding reports it
        labels = self.profile.claim_labels
        declared: dict[str, str] = {
            n.identifier: labels.standards for n in (content.framework, *content.items) if n is not None
        }
        component = self._component_label()
        for rel in content.relationships:
            if rel.unresolved_status is not None:
                continue
            if rel.label in PROGRESSION_LABELS:
                declared[rel.identifier] = labels.progression_links
            elif rel.label == SUPPORTS:
                if component is not None:
                    declared[rel.identifier] = component
            else:
                declared[rel.identifier] = labels.standards
        if component is not None:
            declared.update((c.identifier, component) for c in content.components)
        return declared

    def _component_label(self) -> str | None:
        summary = self.model_document("lcGenerationSummary", GenerationSummary) if self.content.components else None
        if not isinstance(summary, GenerationSummary):
            return None  # absent or malformed: the learning-component check reports it
        return component_label(summary.production, summary.human_reviewed)

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
        if tally.mislabelled:
            first, stated = tally.first_mislabelled
            self.out.add(
                FindingCode.EPISTEMIC_LABEL_MISMATCH,
                f"{tally.mislabelled} entities state another epistemic status than declared (first states "
                f"{stated!r}, declared {tally.declared[first]!r})",
                artifact=logical_name,
                location=first,
            )
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

    def __init__(
        self, known: list[str], parts: list[bytearray] | None = None, *, declared: dict[str, str] | None = None
    ) -> None:
        self._known = known
        self.declared = declared if declared is not None else {}
        self.mislabelled = 0
        self.first_mislabelled = ("", "")  # (entity id, stated status) of the first, in document order
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
        stated = value.get("epistemicStatus") if isinstance(value, dict) else None
        if stated is not None and key in self.declared and stated != self.declared[key]:
            if not self.mislabelled:
                self.first_mislabelled = (key, str(stated))
            self.mislabelled += 1

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
