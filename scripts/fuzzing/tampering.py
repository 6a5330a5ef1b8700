"""The ``package-tampering`` class of ``scripts/fuzz.py``: damaged and forged packages against the three gates.

Each case copies one real, passed package of a catalog into a scratch root, tampers with it, and runs
what an operator runs, each as a real process under a deadline: ``kgfegmcp doctor --json``, the
start-up gate (``kgfegmcp serve --transport stdio`` with stdin closed: it builds the catalog, then
ends at end of input) over a derived-index cache that was warm for the genuine bytes, and
``kgfegmcp packages validate --json`` (last: it records its verdict in the package).

The invariants, for every case:

- every process ends within ``--case-timeout`` (a hang is a violation);
- no process writes a traceback, and a process that fails ends with one coded line (``code: message``);
- the three agree: the start-up gate serves the package exactly when ``validate`` passes it and
  ``doctor`` finds nothing to fail;
- a scenario that damages the package (every named one) is refused by all three.

Named scenarios always run first (the sweep), in a fixed order; seeded random tampering fills the
rest of the budget, so a seed always replays the same cases. Bounded by a count instead (``--package-cases``
of ``scripts/fuzz.py``), a run takes a seeded sample of that many named scenarios, in their order, and
tops it up with random tampering beyond the named ones. ``--matrix`` prints the sweep as the markdown table in
docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .classes import TAMPERING, seeded_sample
from .gates import Outcome, judge, run_gates, run_process
from .scenarios import COMPONENTS, SCENARIOS, SMALL, random_tamper
from .server import KGFEGMCP, server_environment


class Catalog:
    """Pristine copies of the packages the scenarios need, and a derived-index cache warm for them.

    A package is copied and warmed the first time a scenario asks for it (a short run may need one).
    """

    def __init__(self, source_root: Path, scratch: Path, timeout: float) -> None:
        self.source_root = source_root
        self.scratch = scratch
        self.timeout = timeout
        self.pristine: dict[str, Path] = {}
        self.cache = scratch / "warm-cache"

    def _pristine(self, framework: str) -> Path:
        """The pristine copy of ``framework``'s newest snapshot, served once so the cache is warm for it."""
        if framework in self.pristine:
            return self.pristine[framework]
        snapshots = sorted(p for p in (self.source_root / framework).iterdir() if p.is_dir())
        if not snapshots:
            raise SystemExit(f"fuzz: no {framework} package under {self.source_root}")
        root = self.scratch / f"pristine-{framework}"
        target = root / framework / snapshots[-1].name
        shutil.copytree(snapshots[-1], target)
        warm = run_process(
            "warm-up",
            [str(KGFEGMCP), "serve", "--transport", "stdio", "--root", str(root)],
            server_environment(root, self.cache),
            self.timeout * 4,
            [],
        )
        if warm.exit_code != 0:
            raise SystemExit(f"fuzz: the pristine {framework} package is not served:\n{warm.stderr[-2000:]}")
        self.pristine[framework] = target
        return target

    @contextlib.contextmanager
    def copy(self, framework: str) -> Iterator[tuple[Path, Path, Path]]:
        """(root, package, cache): a fresh copy of one package and of the warm cache, removed afterwards."""
        package = self._pristine(framework)
        work = Path(tempfile.mkdtemp(prefix="tamper-", dir=self.scratch))
        for directory in (self.scratch, work):  # an unprivileged gate must reach the copy
            directory.chmod(0o755)
        try:
            copied = work / "root" / framework / package.name
            shutil.copytree(package, copied)
            shutil.copytree(self.cache, work / "cache")
            yield work / "root", copied, work / "cache"
        finally:
            for path in work.rglob("*"):  # undo what an unreadable scenario did, so removal works
                if not path.is_symlink():
                    path.chmod(0o700)
            shutil.rmtree(work, ignore_errors=True)


def run_tampering(
    source_root: Path,
    *,
    budget_seconds: float,
    seed: int,
    case_timeout: float,
    log: Callable[[str], None],
    cases: int | None = None,
) -> list[Outcome]:
    """The sweep of named scenarios, then seeded random tampering until the budget is spent.

    With ``cases``, exactly that many packages instead, whatever the time: a seeded sample of the named
    scenarios (in their order), then random tampering for the rest.
    """
    rng = random.Random(seed)
    started = time.monotonic()
    outcomes: list[Outcome] = []
    named = seeded_sample(SCENARIOS, cases, f"sample-{seed}")

    def more() -> bool:
        if cases is None:
            return time.monotonic() - started < budget_seconds
        return len(outcomes) < cases

    with tempfile.TemporaryDirectory(prefix="kgfegmcp-tamper-") as scratch_name:
        catalog = Catalog(source_root, Path(scratch_name), case_timeout)
        for scenario in named:
            with catalog.copy(scenario.package) as (root, package, cache):
                scenario.tamper(package, rng)
                outcome = Outcome(scenario.name, scenario.what)
                outcome.gates = run_gates(root, package, cache, case_timeout, scenario.unprivileged)
                judge(outcome, must_refuse=True)
            outcomes.append(outcome)
            log(describe(outcome))
        number = 0
        while more():
            number += 1
            framework = COMPONENTS if rng.random() < 0.25 else SMALL  # now and then, the component collection
            with catalog.copy(framework) as (root, package, cache):
                what = random_tamper(package, rng)
                outcome = Outcome(f"random-{number}", what)
                outcome.gates = run_gates(root, package, cache, case_timeout, unprivileged=False)
                judge(outcome, must_refuse=False)
            outcomes.append(outcome)
            log(describe(outcome))
    return outcomes


def describe(outcome: Outcome) -> str:
    """One line per case: each gate's code and time, then any violation."""
    gates = "  ".join(f"{g.name} {g.code()} {g.seconds:.1f}s" for g in outcome.gates)
    what = f" ({outcome.what})" if outcome.name.startswith("random-") else ""
    verdict = f"validate {outcome.validate_status} {outcome.validate_codes}"
    line = f"{TAMPERING} {outcome.name}{what}: {verdict}  {gates}"
    return line + "".join(f"\n  VIOLATION {v}" for v in outcome.violations)


def matrix(outcomes: list[Outcome]) -> str:
    """The named scenarios as a markdown table (docs/reliability.md)."""
    rows = [
        "| scenario | what was done | `validate` | `doctor` | start-up (`serve`) |",
        "|---|---|---|---|---|",
    ]
    for outcome in outcomes:
        if outcome.name.startswith("random-"):
            continue
        doctor, serve, validate = outcome.gates
        codes = ", ".join(f"`{c}`" for c in outcome.validate_codes) or validate.code()
        rows.append(
            f"| `{outcome.name}` | {outcome.what} | {outcome.validate_status}: {codes} ({validate.seconds:.1f} s) "
            f"| {doctor.code()} ({doctor.seconds:.1f} s) | `{serve.code()}` ({serve.seconds:.1f} s) |"
        )
    return "\n".join(rows)
