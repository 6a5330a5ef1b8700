"""Package lifecycle: pending → passed | failed | quarantined, and nothing else.

Terminal packages are immutable: validating one again is a read-only check that reports
drift without writing. Only a pending package gets a terminal state written into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kgfegmcp.config import InvalidPackagePolicy
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, ValidationOutcome
from kgfegmcp.packages.writer import PackageWriter

LifecycleResult = Literal["passed", "failed", "quarantined", "drifted", "unreadable"]


@dataclass(frozen=True, slots=True)
class LifecycleOutcome:
    """What ``validate`` concluded and whether it wrote a terminal state."""

    outcome: ValidationOutcome
    result: LifecycleResult
    recorded: bool

    @property
    def accepted(self) -> bool:
        """Only a package that is (or stays) passed counts as accepted."""
        return self.result == "passed"


def terminal_status_for(
    outcome: ValidationOutcome, policy: InvalidPackagePolicy
) -> Literal["passed", "failed", "quarantined"]:
    """The terminal state a pending package earns under ``policy``."""
    if outcome.passed:
        return "passed"
    return "quarantined" if policy == InvalidPackagePolicy.QUARANTINE else "failed"


class PackageLifecycle:
    """Moves pending packages to a terminal state through the one package writer."""

    def __init__(self, validator: PackageValidator, writer: PackageWriter, policy: InvalidPackagePolicy) -> None:
        self._validator = validator
        self._writer = writer
        self._policy = policy

    def validate(self, location: PackageLocation, prior_findings: tuple[Finding, ...] = ()) -> LifecycleOutcome:
        """Validate one package; record a terminal state only when it was pending."""
        outcome = self._validator.validate(location, prior_findings)
        manifest = outcome.manifest
        if manifest is None:
            return LifecycleOutcome(outcome, "unreadable", recorded=False)
        status = manifest.validation.status
        if status == "pending":
            terminal = terminal_status_for(outcome, self._policy)
            self._writer.record_validation(outcome, terminal)
            return LifecycleOutcome(outcome, terminal, recorded=True)
        if status == "passed" and not outcome.passed:
            return LifecycleOutcome(outcome, "drifted", recorded=False)
        return LifecycleOutcome(outcome, status, recorded=False)
