"""Validation findings and the validation report artifact."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import Field

from kgfegmcp.models import ContractModel
from kgfegmcp.packages.manifest import FindingSummary

Severity = Literal["error", "warning", "info"]
Stage = Literal["discovery", "build", "validation"]

#: Every finding code the validator emits, with what it means. Codes are stable.
FINDING_CODES: dict[str, str] = {
    "identity_mismatch": "Package, framework, snapshot or root identity disagrees.",
    "invalid_manifest": "The manifest is not valid JSON or breaks the manifest contract.",
    "missing_artifact": "A declared or required artifact is absent.",
    "undeclared_entry": "A file or directory in the package is not declared by the manifest.",
    "interrupted_recording": (
        "A killed `packages validate` left a state half-recorded; validating the package again finishes "
        "or rolls it back."
    ),
    "unsafe_path": "A path escapes the package, is absolute, uses backslashes, or is a symlink or special file.",
    "case_collision": "Two names differ only by letter case.",
    "checksum_mismatch": "An artifact's bytes differ from its declared SHA-256 or size.",
    "profile_binding_mismatch": "The bound interpretation profile is missing or its SHA-256 differs.",
    "count_mismatch": "A manifest count differs from the delivered records.",
    "capability_mismatch": "A declared capability is not supported by the package content or profile.",
    "duplicate_identifier": "An identifier occurs more than once.",
    "dangling_endpoint": "A relationship endpoint does not resolve to a node.",
    "endpoint_key_mismatch": "A relationship's endpoint keys or labels disagree with its endpoints.",
    "hierarchy_cycle": "The hasChild hierarchy contains a cycle.",
    "parent_cardinality": "An item has no parent, or more parents than the profile allows.",
    "hierarchy_edge_type": "A hasChild edge joins statement types the profile does not allow.",
    "depth_exceeded": "The hierarchy is deeper than the profile allows.",
    "component_in_hierarchy": "A learning component appears in the hasChild hierarchy.",
    "supports_direction": "A supports relationship does not run from a component to an item.",
    "unsupported_component": "A learning component is not reached by any supports relationship.",
    "progression_endpoint": "A progression link does not join two items of this package.",
    "code_policy_violation": "Statement codes break the profile's code policy.",
    "unknown_statement_type": "An item's statement type is not in the profile's vocabulary.",
    "unknown_grade_label": "An item's grade label is not in the profile's grade labels.",
    "invalid_rights_policy": "The manifest's rights policy is invalid or inconsistent.",
    "invalid_encoding": "A delivery property or line is not encoded as schema 1.1 requires.",
    "invalid_label": "A node or relationship label is missing, unknown or ambiguous.",
    "missing_property": "A delivery record lacks a required property.",
    "invalid_json_line": "A delivery line is not one JSON object of the expected envelope.",
    "unresolved_without_status": "Unresolved evidence carries no supported unresolved status.",
    "provenance_mismatch": "Entity provenance or its parts disagree with the package entities.",
    "detailed_artifact_mismatch": "A detailed artifact disagrees with the delivery records.",
    "validation_state_mismatch": "The recorded validation state does not match the package.",
    "source_text_difference": "A secondary source's text differs from the verified source.",
    "source_mapping_gap": "A source element could not be represented and was reported.",
}


class Finding(ContractModel):
    """One validation observation, locatable by artifact and line or entity."""

    code: str = Field(pattern=r"^[a-z]+(_[a-z]+)*$")
    severity: Severity
    artifact: str | None = None
    location: str | None = None
    message: str = Field(min_length=1, max_length=2000)
    stage: Stage = "validation"

    def sort_key(self) -> tuple[str, str, str, str, str]:
        """Stable order for reports: stage, artifact, location, code, message."""
        return (self.stage, self.artifact or "", self.location or "", self.code, self.message)


class ValidationReport(ContractModel):
    """The ``validationReport`` artifact."""

    report_schema_version: Literal["1.0"] = "1.0"
    graph_package_id: str
    status: Literal["pending", "passed", "failed", "quarantined"]
    validator_version: str | None = None
    profile_sha256: str | None = None
    findings: tuple[Finding, ...]
    omitted_findings: dict[str, int] = Field(default_factory=dict)


def summarize(findings: Iterable[Finding], omitted: dict[str, int] | None = None) -> FindingSummary:
    """Counts per severity and per code (omitted repeats included)."""
    severities: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    for finding in findings:
        severities[finding.severity] += 1
        codes[finding.code] += 1
    for code, count in (omitted or {}).items():
        codes[code] += count
        severities["error"] += count
    return FindingSummary(
        errors=severities["error"],
        warnings=severities["warning"],
        infos=severities["info"],
        by_code=dict(sorted(codes.items())),
    )
