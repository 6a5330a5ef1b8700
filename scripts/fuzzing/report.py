"""What a run prints at its end: a row per class (cases, outcomes, violations, slowest), the summary line
tests/e2e/test_fuzz.py reads, and the first violations."""

from __future__ import annotations

import argparse
import collections
from dataclasses import dataclass, field


@dataclass
class Tally:
    """What one class did: cases, outcomes by code, cases with a violation, the slowest answer."""

    cases: int = 0
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    violations: int = 0
    slowest: float = 0.0

    def add(self, outcome: str, seconds: float, violated: bool) -> None:
        """Count one case: its outcome, its time, and whether it broke an invariant."""
        self.cases += 1
        self.outcomes[outcome] += 1
        self.slowest = max(self.slowest, seconds)
        self.violations += violated


def report(
    tallies: dict[str, Tally],
    violations: list[str],
    elapsed: float,
    args: argparse.Namespace,
    log_size: int,
    wait: float,
) -> None:
    """The table of classes, the summary line, and the first 25 violations."""
    total = sum(t.cases for t in tallies.values())
    print(
        f"{'class':<20}{'cases':>8}{'ok':>7}{'refused':>9}{'protocol':>10}{'violations':>12}{'slowest s':>11}  outcomes"
    )
    for cls, tally in tallies.items():
        ok = tally.outcomes["ok"]
        protocol = tally.outcomes["protocol_rejected"] + tally.outcomes["transport_rejected"]
        refused = tally.cases - ok - protocol
        codes = ", ".join(f"{code} {n}" for code, n in sorted(tally.outcomes.items()))
        counts = f"{tally.cases:>8}{ok:>7}{refused:>9}{protocol:>10}{tally.violations:>12}"
        print(f"{cls:<20}{counts}{tally.slowest:>11.2f}  {codes}")
    print(
        f"fuzz: {total} cases in {elapsed:.0f}s, seed {args.seed}, server log {log_size} bytes, "
        f"longest background wait {wait:.2f}s, {len(violations)} violations"
    )
    for line in violations[:25]:
        print("VIOLATION " + line)
