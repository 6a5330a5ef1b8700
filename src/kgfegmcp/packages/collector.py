"""Bounded collection of validation findings: the first of each code kept, the rest counted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kgfegmcp.packages.findings import Finding, Severity

MAX_FINDINGS_PER_CODE = 50


class FindingCollector:
    """Keeps the first findings of each code and counts the rest, so reports stay bounded."""

    def __init__(self, limit: int = MAX_FINDINGS_PER_CODE) -> None:
        self._limit = limit
        self.findings: list[Finding] = []
        self.omitted: Counter[str] = Counter()
        self._per_code: Counter[str] = Counter()

    def add(
        self,
        code: str,
        message: str,
        *,
        artifact: str | None = None,
        location: str | None = None,
        severity: Severity = "error",
    ) -> None:
        """Record one finding (or count it once the code's limit is reached)."""
        self._per_code[code] += 1
        if self._per_code[code] > self._limit:
            self.omitted[code] += 1
            return
        self.findings.append(
            Finding(code=code, severity=severity, artifact=artifact, location=location, message=message)
        )

    def extend(self, findings: Iterable[Finding]) -> None:
        """Adopt findings produced elsewhere (tree scan, discovery)."""
        for finding in findings:
            self._per_code[finding.code] += 1
            if self._per_code[finding.code] > self._limit:
                self.omitted[finding.code] += 1
            else:
                self.findings.append(finding)

    @property
    def error_count(self) -> int:
        """Errors kept plus errors omitted."""
        return sum(1 for f in self.findings if f.severity == "error") + sum(self.omitted.values())


def line_location(number: int) -> str:
    return f"line {number}"
