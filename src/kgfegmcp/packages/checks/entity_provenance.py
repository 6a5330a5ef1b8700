"""Entity provenance: one record per entity of the package, split into parts exactly as assigned.

Standards-side entities are in ``entityProvenance``, learning components in ``lcEntityProvenance``;
the 64 parts index both (a per-entity read needs no knowledge of which document holds the entity).
A part's entry is a copy of its document's, and a node's ``sourceText`` quotes the node's description."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection
from typing import Any

from kgfegmcp.core.epistemic import component_label
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.models import canonical_bytes
from kgfegmcp.packages.artifact_roles import PROVENANCE_PART_ARTIFACTS
from kgfegmcp.packages.checks.carried_fields import collapsed, first_difference
from kgfegmcp.packages.checks.detailed_artifact import CARRIED_CODES, DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.collector import MAX_FINDINGS_PER_CODE
from kgfegmcp.packages.lc_artifacts import GenerationSummary
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import COMPONENT, PROGRESSION_LABELS, SUPPORTS


class ProvenanceCheck(DetailedArtifactCheck):
    """Evidence answers cite provenance by entity and read one part per entity, so both must line up.

    The document grows with the package (several entries per item), so it is streamed: each entry is
    ticked off the package's entities and folded into its part's digest list, never held.
    """

    codes = (
        *DOCUMENT_CODES,
        *CARRIED_CODES,
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
        tally = _EntityTally(known, declared=declared, quoted=self._quotes("entityProvenance"))
        if not self._streamed_into("entityProvenance", tally):
            return
        entities = self._tallied("entityProvenance", known, tally)
        tallies = [tally]
        if components:  # component provenance lives in the learning-component collection
            component_tally = _EntityTally(
                components, tally.parts, declared=declared, quoted=self._quotes("lcEntityProvenance")
            )
            if not self._streamed_into("lcEntityProvenance", component_tally):
                return
            entities += self._tallied("lcEntityProvenance", components, component_tally)
            tallies.append(component_tally)
        if entities != self.own_counts.provenance_entities:
            self.out.add(
                FindingCode.COUNT_MISMATCH,
                f"counts.provenanceEntities declares {self.own_counts.provenance_entities}, "
                f"the artifact has {entities}",
                location=MANIFEST_FILENAME,
            )
        self._check_parts(tally.parts, lambda key: any(t.holds(key) for t in tallies))

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

    def _quotes(self, logical_name: str) -> Callable[[str, Any], None]:
        """What checks a ``sourceText`` of ``logical_name``: a node's must quote the node's description.

        The source's wording is kept verbatim, line wraps and all; the description is that wording with
        each run of whitespace made one space, so the two are compared in that form. A relationship's
        ``sourceText`` is the evidence it was read from, not a copy of any text, and is not compared.
        """

        def quoted(key: str, text: Any) -> None:
            node = self.nodes.get(key)
            if node is None:
                return
            description = node.description
            if description is None or not isinstance(text, str) or collapsed(text) != description:
                self.differs(node, "sourceText", logical_name, "nodes", "the description")

        return quoted

    def _streamed_into(self, logical_name: str, tally: _EntityTally) -> bool:
        """Stream ``logical_name``'s entities into ``tally``; ``False`` when the document is unusable."""
        document = self.streamed(logical_name, {"entities": tally.add})
        if document is None:
            return False
        if document.kinds.get("entities") != "object":
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

    def _check_parts(self, expected: list[bytearray], held: Callable[[str], bool]) -> None:
        """Each part holds exactly the entries ``provenance_part_of`` assigns it (compared by digest).

        An entry missing, extra or in the wrong part is a ``provenance_mismatch`` of the part; an entry
        the documents hold for the same entity, in its own part, that says something else is that
        entity's ``cross_artifact_mismatch``, named by the first member that differs.
        """
        altered: list[tuple[str, str, Any]] = []  # (part, entity id, the part's entry) to name
        for index, logical_name in enumerate(PROVENANCE_PART_ARTIFACTS):
            part = self.document(logical_name)
            if part is None:
                continue
            entities = part.get("entities")
            if part.get("part") != index or not isinstance(entities, dict):
                self._part_differs(logical_name)
                continue
            digests = {key: _entry_digest(key, value) for key, value in entities.items()}
            want = _sorted_digests(expected[index])
            if sorted(digests.values()) == want:
                continue
            unmatched = Counter(want)
            strangers = []
            for key, digest in digests.items():
                if unmatched[digest]:
                    unmatched[digest] -= 1
                else:
                    strangers.append(key)
            missing = sum(unmatched.values())
            changed = [key for key in strangers if provenance_part_of(key) == index and held(key)][:missing]
            if len(strangers) > len(changed) or missing > len(changed):
                self._part_differs(logical_name)
            for key in changed:
                if len(altered) < MAX_FINDINGS_PER_CODE:
                    altered.append((logical_name, key, entities[key]))
                else:  # beyond what a report keeps: counted, not named
                    self.differs(key, "the entry", logical_name, self._document_of(key))
        self._name_alterations(altered)

    def _part_differs(self, logical_name: str) -> None:
        self.out.add(
            FindingCode.PROVENANCE_MISMATCH,
            "part differs from the entities the provenance documents assign it",
            artifact=logical_name,
        )

    def _document_of(self, key: str) -> str:
        node = self.nodes.get(key)
        return "lcEntityProvenance" if node is not None and node.label == COMPONENT else "entityProvenance"

    def _name_alterations(self, altered: list[tuple[str, str, Any]]) -> None:
        """Report each altered part entry with the first member in which it differs from its document.

        Only digests were kept while the documents streamed, so the (at most 50) entries are read again
        from their documents: a cost paid by a package that fails, never by one that passes.
        """
        by_document: dict[str, set[str]] = {}
        for _, key, _ in altered:
            by_document.setdefault(self._document_of(key), set()).add(key)
        originals = {key: entry for name, keys in by_document.items() for key, entry in self._entries(name, keys)}
        for part, key, entry in altered:
            field = first_difference(originals[key], entry) if key in originals else None
            self.differs(self.nodes.get(key) or key, field or "the entry", part, self._document_of(key))

    def _entries(self, logical_name: str, keys: Collection[str]) -> list[tuple[str, Any]]:
        """The entries of ``keys`` in a provenance document, streamed again (none when its bytes were
        already found to differ from the manifest: reading them again would only report that twice)."""
        if self.checksum_failed(logical_name):
            return []
        found: list[tuple[str, Any]] = []

        def pick(key: str | None, value: Any) -> None:
            if key is not None and key in keys:
                found.append((key, value))

        self.context.reader.streamed_document(logical_name, {"entities": pick})
        return found


def _entry_digest(entity_id: str, record: Any) -> bytes:
    """SHA-256 of one entry's canonical JSON: equal digests, equal entries."""
    return hashlib.sha256(canonical_bytes([entity_id, record])).digest()


def _sorted_digests(digests: bytearray) -> list[bytes]:
    return sorted(bytes(digests[i : i + _DIGEST]) for i in range(0, len(digests), _DIGEST))


_DIGEST = 32


class _EntityTally:
    """Ticks streamed entity ids off the package's entities; keeps a 32-byte digest per entry, by part."""

    def __init__(
        self,
        known: list[str],
        parts: list[bytearray] | None = None,
        *,
        declared: dict[str, str] | None = None,
        quoted: Callable[[str, Any], None] | None = None,
    ) -> None:
        self._known = known
        self._known_ids: set[str] | None = None
        self._quoted = quoted
        self.declared = declared if declared is not None else {}
        self.mislabelled = 0
        self.first_mislabelled = ("", "")  # (entity id, stated status) of the first, in document order
        self.remaining = set(known)
        self._initial = len(self.remaining)
        self._others: dict[str, int] = {}  # ids not ticked off (unknown, or seen before): how often
        self.parts = parts if parts is not None else [bytearray() for _ in PROVENANCE_PART_ARTIFACTS]

    def add(self, key: str | None, value: Any) -> None:
        assert key is not None  # entities is an object
        if key in self.remaining:
            self.remaining.discard(key)
        else:
            self._others[key] = self._others.get(key, 0) + 1
        self.parts[provenance_part_of(key)] += _entry_digest(key, value)
        if not isinstance(value, dict):
            return
        if self._quoted is not None and "sourceText" in value:
            self._quoted(key, value["sourceText"])
        stated = value.get("epistemicStatus")
        if stated is not None and key in self.declared and stated != self.declared[key]:
            if not self.mislabelled:
                self.first_mislabelled = (key, str(stated))
            self.mislabelled += 1

    def strangers(self) -> tuple[list[str], list[str]]:
        """Ids that name no entity (sorted), and ids that appear more than once (sorted)."""
        if not self._others:
            return [], []
        known_ids = self._ids()
        unknown = sorted(k for k in self._others if k not in known_ids)
        repeated = sorted(k for k, n in self._others.items() if k in known_ids or n > 1)
        return unknown, repeated

    def holds(self, key: str) -> bool:
        """Whether the streamed document has an entry for ``key``."""
        return key in self._others or (key not in self.remaining and key in self._ids())

    def _ids(self) -> set[str]:
        if self._known_ids is None:
            self._known_ids = set(self._known)
        return self._known_ids

    def distinct(self, unknown: int) -> int:
        """How many different ids the entities held."""
        return self._initial - len(self.remaining) + unknown
