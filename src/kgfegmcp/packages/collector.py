"""Bounded collection of validation findings: the first of each code kept, the rest counted.

Every emitter writes through its own :class:`FindingCollector`, which accepts only the codes that
emitter declared; all of one validation's collectors share one :class:`BoundedFindings`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kgfegmcp.core.finding_codes import FindingCode, UndeclaredFindingCodeError, require_declared
from kgfegmcp.packages.findings import Finding, Severity

MAX_FINDINGS_PER_CODE = 50


class BoundedFindings:
    """Keeps the first findings of each code and counts the rest, so reports stay bounded."""

    def __init__(self, limit: int = MAX_FINDINGS_PER_CODE) -> None:
        self._limit = limit
        self.findings: list[Finding] = []
        self.omitted: Counter[str] = Counter()
        self._per_code: Counter[str] = Counter()

    def keep(self, finding: Finding) -> None:
        """Keep ``finding``, or only count it once its code's limit is reached."""
        self._per_code[finding.code] += 1
        if self._per_code[finding.code] > self._limit:
            self.omitted[finding.code] += 1
        else:
            self.findings.append(finding)


class FindingCollector:
    """Where one emitter records findings; a code the emitter did not declare is a programming error."""

    def __init__(self, declared: Iterable[FindingCode], emitter: str, store: BoundedFindings | None = None) -> None:
        self._declared = frozenset(str(code) for code in declared)
        self._emitter = emitter
        self._store = store if store is not None else BoundedFindings()

    @property
    def declared(self) -> frozenset[str]:
        """The codes this collector accepts."""
        return self._declared

    @property
    def findings(self) -> list[Finding]:
        """Findings kept so far, by every collector sharing this one's store."""
        return self._store.findings

    @property
    def omitted(self) -> Counter[str]:
        """Findings counted but not kept, per code."""
        return self._store.omitted

    def restricted_to(self, codes: Iterable[FindingCode], emitter: str) -> FindingCollector:
        """A collector onto the same findings that accepts only ``codes``, the ones ``emitter`` declared."""
        narrowed = tuple(codes)
        beyond = sorted(str(code) for code in narrowed if code not in self._declared)
        if beyond:
            raise UndeclaredFindingCodeError(f"{emitter} declares {beyond}, which {self._emitter} does not")
        return FindingCollector(narrowed, emitter, self._store)

    def add(
        self,
        code: FindingCode,
        message: str,
        *,
        artifact: str | None = None,
        location: str | None = None,
        severity: Severity = "error",
    ) -> None:
        """Record one finding (or count it once the code's limit is reached)."""
        require_declared(code, self._declared, self._emitter)
        self._store.keep(
            Finding(code=str(code), severity=severity, artifact=artifact, location=location, message=message)
        )

    def extend(self, findings: Iterable[Finding]) -> None:
        """Adopt findings produced elsewhere (tree scan, discovery)."""
        for finding in findings:
            require_declared(finding.code, self._declared, self._emitter)
            self._store.keep(finding)


def line_location(number: int) -> str:
    """The location of a finding on one line of a JSONL artifact."""
    return f"line {number}"
