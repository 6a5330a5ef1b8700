"""Entity provenance: one record per entity of the package, split into parts exactly as assigned."""

from __future__ import annotations

from typing import Any

from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.finding_codes import FindingCode
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PART_ARTIFACTS
from kgfegmcp.packages.provenance import provenance_part_of


class ProvenanceCheck(DetailedArtifactCheck):
    """Evidence answers cite provenance by entity and read one part per entity, so both must line up."""

    codes = (*DOCUMENT_CODES, FindingCode.PROVENANCE_MISMATCH, FindingCode.COUNT_MISMATCH)

    def run(self) -> None:
        document = self.document("entityProvenance")
        if document is None:
            return
        entities = document.get("entities")
        if not isinstance(entities, dict):
            self.out.add(FindingCode.PROVENANCE_MISMATCH, "entities must be a JSON object", artifact="entityProvenance")
            return
        known = [self.content.framework.identifier] if self.content.framework else []
        known += [n.identifier for n in self.content.items]
        known += [n.identifier for n in self.content.components]
        known += [r.identifier for r in self.content.relationships]
        if self.manifest.capabilities.has_detailed_provenance:
            missing = [entity for entity in known if entity not in entities]
            if missing:
                self.out.add(
                    FindingCode.PROVENANCE_MISMATCH,
                    f"{len(missing)} entities have no provenance",
                    artifact="entityProvenance",
                    location=missing[0],
                )
        unknown = sorted(set(entities) - set(known))
        if unknown:
            self.out.add(
                FindingCode.PROVENANCE_MISMATCH,
                f"{len(unknown)} provenance entries name no entity",
                artifact="entityProvenance",
                location=unknown[0],
            )
        if len(entities) != self.manifest.counts.provenance_entities:
            self.out.add(
                FindingCode.COUNT_MISMATCH,
                f"counts.provenanceEntities declares {self.manifest.counts.provenance_entities}, "
                f"the artifact has {len(entities)}",
                location=MANIFEST_FILENAME,
            )
        self._check_parts(entities)

    def _check_parts(self, entities: dict[str, Any]) -> None:
        """Each part holds exactly the entities ``provenance_part_of`` assigns it."""
        expected_parts: list[dict[str, Any]] = [{} for _ in PART_ARTIFACTS]
        for entity_id, record in entities.items():
            expected_parts[provenance_part_of(entity_id)][entity_id] = record
        for index, logical_name in enumerate(PART_ARTIFACTS):
            part = self.document(logical_name)
            if part is None:
                continue
            if part.get("part") != index or part.get("entities") != expected_parts[index]:
                self.out.add(
                    FindingCode.PROVENANCE_MISMATCH,
                    "part differs from the entities entityProvenance assigns it",
                    artifact=logical_name,
                )
