"""Validation findings and the validation report artifact."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final, Literal, get_args

from pydantic import Field

from kgfegmcp.core.models import ContractModel
from kgfegmcp.packages.manifest import FindingSummary

Severity = Literal["error", "warning", "info"]
Stage = Literal["discovery", "build", "validation"]
#: The schema version of the reports this version writes and reads.
ReportSchemaVersion = Literal["1.0"]
REPORT_SCHEMA_VERSION: Final[ReportSchemaVersion] = get_args(ReportSchemaVersion)[0]


class Finding(ContractModel):
    """One validation observation, locatable by artifact and line or entity.

    ``code`` is a :class:`~kgfegmcp.core.finding_codes.FindingCode` value; it stays a plain string
    here because reports read from disk may carry codes this version does not know.
    """

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

    report_schema_version: ReportSchemaVersion = REPORT_SCHEMA_VERSION
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
