"""Unresolved evidence: identified once each, with a supported status, and counted in the manifest."""

from __future__ import annotations

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import UNRESOLVED_STATUSES


class UnresolvedItemsCheck(DetailedArtifactCheck):
    """Answers disclose unresolved references by id and status; an entry without them cannot be disclosed."""

    codes = (
        *DOCUMENT_CODES,
        FindingCode.DUPLICATE_IDENTIFIER,
        FindingCode.UNRESOLVED_WITHOUT_STATUS,
        FindingCode.COUNT_MISMATCH,
    )

    def run(self) -> None:
        document = self.document("unresolvedItems")
        if document is None:
            return
        entries = document.get("items")
        if not isinstance(entries, list):
            self.mismatch("unresolvedItems", "items must be a JSON array")
            return
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            where = f"items[{index}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("unresolvedId"), str):
                self.mismatch("unresolvedItems", "each entry is an object with an unresolvedId", where)
                continue
            if entry["unresolvedId"] in seen:
                self.out.add(
                    FindingCode.DUPLICATE_IDENTIFIER,
                    "unresolvedId repeats",
                    artifact="unresolvedItems",
                    location=where,
                )
            seen.add(entry["unresolvedId"])
            if entry.get("status") not in UNRESOLVED_STATUSES:
                self.out.add(
                    FindingCode.UNRESOLVED_WITHOUT_STATUS,
                    "unresolved entry lacks a supported status",
                    artifact="unresolvedItems",
                    location=entry["unresolvedId"],
                )
        if len(entries) != self.own_counts.unresolved_items:
            self.out.add(
                FindingCode.COUNT_MISMATCH,
                f"counts.unresolvedItems declares {self.own_counts.unresolved_items}, the artifact has {len(entries)}",
                location=MANIFEST_FILENAME,
            )
