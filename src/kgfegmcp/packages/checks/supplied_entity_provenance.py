"""A supplied package's entity provenance: laid out as its pipeline lays it out, one record per entity."""

from __future__ import annotations

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.records import PROGRESSION_LABELS
from kgfegmcp.packages.supplied_provenance import record_maps

STANDARDS = "entityProvenance"
COMPONENTS = "lcEntityProvenance"


class SuppliedEntityProvenanceCheck(DetailedArtifactCheck):
    """Every standard (and the framework) has its record in ``entityProvenance``, every component in
    ``lcEntityProvenance``, and no record names what the package does not hold: the provenance resources
    then answer for any entity from the one record its id finds."""

    codes = (*DOCUMENT_CODES, FindingCode.PROVENANCE_MISMATCH)

    def run(self) -> None:
        content = self.content
        standards = [content.framework.identifier] if content.framework else []
        standards += [item.identifier for item in content.items]
        # The pipeline records its hierarchy's provenance beside the items' (progression links have shards).
        related = {rel.identifier for rel in content.relationships if rel.label not in PROGRESSION_LABELS}
        self._covers(STANDARDS, standards, related)
        if content.components:
            self._covers(COMPONENTS, [component.identifier for component in content.components], set())

    def _covers(self, logical_name: str, required: list[str], allowed: set[str]) -> None:
        document = self.document(logical_name)
        if document is None:
            return
        maps = record_maps(document)
        if maps is None:
            self.out.add(
                FindingCode.PROVENANCE_MISMATCH,
                "not laid out as a supplied provenance document (the framework's record and maps from id to record)",
                artifact=logical_name,
            )
            return
        known = set(required) | allowed
        # A map naming no entity of the package is the run's own metadata; one naming any holds records, all
        # of which must then be the package's.
        held = [records for records in maps.values() if known.intersection(records)]
        recorded = {entity for records in held for entity in records}
        missing = [entity for entity in required if entity not in recorded]
        strays = sorted(recorded - known)
        problems = (
            (missing, "entities of the package have no provenance record"),
            (strays, "records name no entity of the package"),
        )
        for found, what in problems:
            if found:
                self.out.add(
                    FindingCode.PROVENANCE_MISMATCH, f"{len(found)} {what}", artifact=logical_name, location=found[0]
                )
