"""Package lifecycle: pending → passed | failed | quarantined, and nothing else.

Terminal packages are immutable: validating one again is a read-only check that reports
drift without writing. Only a pending package gets a terminal state written into it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Literal

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.package_lock import WaitNotice, package_lock
from kgfegmcp.packages.recording import Recovery, recording_for
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, ValidationOutcome
from kgfegmcp.packages.writer import PackageWriter

log = logging.getLogger(__name__)

LifecycleResult = Literal["passed", "failed", "quarantined", "drifted", "unreadable"]


@dataclass(frozen=True, slots=True)
class LifecycleOutcome:
    """What ``validate`` concluded, whether it wrote a terminal state, and what it found interrupted."""

    outcome: ValidationOutcome
    result: LifecycleResult
    recorded: bool
    recovered: Recovery | None = None
    #: The SHA-256 of the manifest bytes the recording wrote (``None`` when nothing was recorded).
    recorded_manifest_sha256: str | None = None

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
    """Moves pending packages to a terminal state through the one package writer.

    Each package is validated and recorded under its lock, after finishing or rolling back whatever
    recording a killed run left, so concurrent or interrupted runs never judge a half-written state.
    """

    def __init__(
        self,
        validator: PackageValidator,
        writer: PackageWriter,
        policy: InvalidPackagePolicy,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self._validator = validator
        self._writer = writer
        self._policy = policy
        self._on_wait = on_wait

    def validate(self, location: PackageLocation, prior_findings: tuple[Finding, ...] = ()) -> LifecycleOutcome:
        """Validate one package; record a terminal state only when it was pending."""
        with package_lock(location.path, on_wait=self._on_wait):
            recording = recording_for(location.path)
            recovered = recording.recover() if recording is not None else None
            if recovered is not None:
                log.warning("%s: an interrupted validation was %s", location.graph_package_id, recovered)
            return replace(self._validate(location, prior_findings), recovered=recovered)

    def _validate(self, location: PackageLocation, prior_findings: tuple[Finding, ...]) -> LifecycleOutcome:
        outcome = self._validator.validate(location, prior_findings)
        manifest = outcome.manifest
        if manifest is None:
            return LifecycleOutcome(outcome, "unreadable", recorded=False)
        status = manifest.validation.status
        if status == "pending" and manifest.shape != "1.0":
            # A supplied package is its pipeline's: recording a verdict would rewrite its bytes (and so its
            # snapshot identity). It is judged, served as pending when it passes, and never written to.
            return LifecycleOutcome(outcome, "passed" if outcome.passed else "failed", recorded=False)
        if status == "pending":
            terminal = terminal_status_for(outcome, self._policy)
            written = self._writer.record_validation(outcome, terminal)
            return LifecycleOutcome(outcome, terminal, recorded=True, recorded_manifest_sha256=written)
        if status == "passed" and not outcome.passed:
            return LifecycleOutcome(outcome, "drifted", recorded=False)
        return LifecycleOutcome(outcome, status, recorded=False)
