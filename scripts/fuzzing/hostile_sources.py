"""The ``hostile-sources`` class of ``scripts/fuzz.py``: hostile source files and provider answers against the builds.

Each case writes the inputs of one scenario (``source_inputs.py``) into a scratch directory and runs what an
operator runs, each a real process under a deadline: ``kgfegmcp packages build --source case FILE`` or
``kgfegmcp packages fetch`` from a provider on 127.0.0.1 that answers with the scenario's bytes, then, when the
last step built something, ``kgfegmcp packages validate --json`` on the root.

The invariants, for every case:

- every process ends within ``--case-timeout`` (a fetch within its ``--deadline`` and a start-up's slack);
- its peak memory stays under :data:`MEMORY_CEILING` and under :data:`MEMORY_PER_INPUT_BYTE` times its input
  above what building a tiny package takes;
- no traceback, and a refusal is one coded last line (``code: message``);
- nothing it prints holds a raw control or bidirectional-formatting character, nor does any record it wrote;
- what a build wrote validates: a value that would make an unservable package is refused at build;
- the scenario's expectation holds (refused, built, or either).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .classes import SOURCES, seeded_sample
from .gates import CODED_LINE
from .server import KGFEGMCP, measured_run, server_environment
from .source_inputs import SOURCE_SCENARIOS, BuildStep, SourceScenario, Step, cf_package

#: No build may take more, whatever its input under the caps.
MEMORY_CEILING = 1 << 30
#: Peak resident memory allowed per byte of input (decoded), above a tiny package's build and a fixed slack for
#: the modules one command imports and another does not.
MEMORY_PER_INPUT_BYTE = 4
MEMORY_SLACK = 64 << 20
#: What a process may take beyond its fetch deadline: its own start, and writing what it refuses.
START_SLACK_SECONDS = 15.0
#: Characters nothing may print or write: C0 controls but TAB, LF and CR; DEL and C1; bidi embeddings, overrides
#: and isolates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@dataclass
class Run:
    """One process of a case: how it ended, in what time and memory, and what it printed."""

    name: str
    exit_code: int | None  # None: stopped at the deadline
    seconds: float
    peak_bytes: int
    stdout: str
    stderr: str

    def code(self) -> str:
        if self.exit_code is None:
            return "HANG"
        if self.exit_code == 0:
            return "ok"
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        match = re.match(r"^([a-z_]+): ", lines[-1] if lines else "")
        return match.group(1) if match else f"exit {self.exit_code}"


@dataclass
class SourceOutcome:
    """What one hostile input did."""

    name: str
    what: str
    input_bytes: int = 0
    runs: list[Run] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


def run_measured(name: str, command: list[str], env: dict[str, str], timeout: float) -> Run:
    """Run ``command`` under ``timeout`` seconds, its peak resident memory its own (``tests/peak_memory.py``)."""
    measured = measured_run(command, env, timeout)
    return Run(name, measured.exit_code, measured.seconds, measured.peak_bytes, measured.stdout, measured.stderr)


@contextlib.contextmanager
def provider(body: bytes, headers: tuple[tuple[str, str], ...]) -> Iterator[str]:
    """A CASE provider on 127.0.0.1 answering every GET with ``body``; yields a CFPackage address."""

    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        yield f"http://127.0.0.1:{port}/ims/case/v1p0/CFPackages/00000000-0000-4000-8000-000000000000"
    finally:
        server.shutdown()
        server.server_close()


def _step(step: Step, root: Path, env: dict[str, str], timeout: float) -> tuple[Run, int]:
    """One step as a real process, and the bytes of input it was given."""
    if isinstance(step, BuildStep):
        command = [str(KGFEGMCP), "packages", "build", "--source", "case", str(step.path), "--out", str(root)]
        return run_measured("build", command, env, timeout), step.path.stat().st_size
    with provider(step.body, step.headers) as url:
        command = [str(KGFEGMCP), "packages", "fetch", "--case-url", url, "--out", str(root)]
        command += ["--deadline", str(step.deadline_seconds)]
        return run_measured("fetch", command, env, min(timeout, step.deadline_seconds + START_SLACK_SECONDS)), (
            step.decoded_size
        )


def _raw_in_records(root: Path) -> list[str]:
    """Package files under ``root`` holding a raw control character (what a package carries to every answer)."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in {".json", ".jsonl", ".ndjson"}:
            with path.open(encoding="utf-8", errors="replace") as handle:
                if any(RAW_CONTROL.search(line) for line in handle):
                    found.append(path.relative_to(root).as_posix())
    return found


def judge(outcome: SourceOutcome, scenario: SourceScenario, root: Path, baseline: int, validate: Run | None) -> None:
    """The invariants of one case (see the module docstring)."""
    allowed = min(MEMORY_CEILING, baseline + MEMORY_SLACK + MEMORY_PER_INPUT_BYTE * outcome.input_bytes)
    for run in outcome.runs:
        if run.exit_code is None:
            outcome.violations.append(f"{run.name}: no end within the deadline ({run.seconds:.0f} s)")
        if "Traceback" in run.stderr or "Traceback" in run.stdout:
            outcome.violations.append(f"{run.name}: wrote a traceback")
        if run.exit_code not in (0, None):
            last = [line for line in run.stderr.splitlines() if line.strip()]
            if not last or not CODED_LINE.match(last[-1]):
                outcome.violations.append(f"{run.name}: refused without a coded line: {(last or [''])[-1][:200]!r}")
        if run.peak_bytes > allowed:
            outcome.violations.append(
                f"{run.name}: peak memory {run.peak_bytes >> 20} MiB over {allowed >> 20} MiB "
                f"(input {outcome.input_bytes >> 10} KiB)"
            )
        for stream, text in (("stdout", run.stdout), ("stderr", run.stderr)):
            if match := RAW_CONTROL.search(text):
                outcome.violations.append(f"{run.name}: printed a raw U+{ord(match.group()):04X} on {stream}")
    last = outcome.runs[-1]
    if scenario.expect == "refused" and last.exit_code == 0:
        outcome.violations.append(f"{last.name}: built what must be refused")
    if scenario.expect == "built" and last.exit_code != 0:
        outcome.violations.append(f"{last.name}: refused what must build ({last.code()})")
    if raw := _raw_in_records(root):
        outcome.violations.append(f"raw control characters written to {', '.join(raw[:3])}")
    if validate is not None:
        outcome.runs.append(validate)
        try:
            status = json.loads(validate.stdout.splitlines()[0]).get("status") if validate.stdout.strip() else None
        except ValueError:
            status = None
        if validate.exit_code != 0 or status != "passed":
            outcome.violations.append(f"a package was built that does not validate ({validate.code()}, {status})")


def run_sources(
    *,
    budget_seconds: float,
    seed: int,
    case_timeout: float,
    scale: float,
    log: Callable[[str], None],
    cases: int | None = None,
) -> list[SourceOutcome]:
    """The named scenarios, then seeded random ones (a scenario at a random smaller scale) until the budget is
    spent; with ``cases``, exactly that many: a seeded sample of the named ones, then random ones."""
    rng = random.Random(seed)
    started = time.monotonic()
    named = seeded_sample(SOURCE_SCENARIOS, cases, f"sources-{seed}")
    outcomes: list[SourceOutcome] = []
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-sources-") as scratch_name:
        scratch = Path(scratch_name)
        baseline = _baseline(scratch, case_timeout)
        log(f"{SOURCES}: a tiny package's build peaks at {baseline >> 20} MiB")

        def one(name: str, scenario: SourceScenario, case_scale: float) -> None:
            work = Path(tempfile.mkdtemp(prefix="case-", dir=scratch))
            env = server_environment(work / "root", work / "cache")
            env["KGFEGMCP_DERIVED_PROFILES_DIR"] = str(work / "profiles")  # derived profiles are written there
            outcome = SourceOutcome(name, scenario.what)
            for step in scenario.make(case_scale, rng, work):
                run, size = _step(step, work / "root", env, case_timeout)
                outcome.runs.append(run)
                outcome.input_bytes = max(outcome.input_bytes, size)
            validate = None
            if outcome.runs[-1].exit_code == 0:
                command = [str(KGFEGMCP), "packages", "validate", "--json", str(work / "root")]
                validate = run_measured("validate", command, env, case_timeout)
            judge(outcome, scenario, work / "root", baseline, validate)
            outcomes.append(outcome)
            log(describe(outcome))
            _remove(work)

        for scenario in named:
            one(scenario.name, scenario, scale)
        number = 0
        while (time.monotonic() - started < budget_seconds) if cases is None else len(outcomes) < cases:
            number += 1
            scenario = rng.choice(SOURCE_SCENARIOS)
            one(f"random-{number} {scenario.name}", scenario, scale * rng.choice((0.01, 0.05, 0.2, 0.5)))
    return outcomes


def _baseline(scratch: Path, timeout: float) -> int:
    """What building a tiny ordinary package peaks at: the fixed cost every case's allowance starts from."""
    work = scratch / "baseline"
    work.mkdir()
    path = work / "package.json"
    package = cf_package(random.Random(0), [{"fullStatement": "Count to ten.", "humanCodingScheme": "B.1"}])
    path.write_text(json.dumps(package), encoding="utf-8")
    env = server_environment(work / "root", work / "cache")
    env["KGFEGMCP_DERIVED_PROFILES_DIR"] = str(work / "profiles")
    run, _ = _step(BuildStep(path), work / "root", env, timeout)
    if run.exit_code != 0:
        raise SystemExit(f"fuzz: a tiny CFPackage does not build:\n{run.stderr[-2000:]}")
    return run.peak_bytes


def _remove(work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)


def describe(outcome: SourceOutcome) -> str:
    """One line per case: each process's code, time and peak memory, then any violation."""
    runs = "  ".join(f"{r.name} {r.code()} {r.seconds:.1f}s {r.peak_bytes >> 20}MiB" for r in outcome.runs)
    line = f"{SOURCES} {outcome.name} (input {outcome.input_bytes >> 10} KiB): {runs}"
    return line + "".join(f"\n  VIOLATION {v}" for v in outcome.violations)


def table(outcomes: list[SourceOutcome]) -> str:
    """The named scenarios as a markdown table (docs/reliability.md)."""
    rows = ["| scenario | what was sent | input | outcome | seconds | peak memory |", "|---|---|---|---|---|---|"]
    for outcome in outcomes:
        if outcome.name.startswith("random-"):
            continue
        codes = ", then ".join(f"{r.name} `{r.code()}`" for r in outcome.runs)
        seconds = max(r.seconds for r in outcome.runs)
        peak = max(r.peak_bytes for r in outcome.runs)
        rows.append(
            f"| `{outcome.name}` | {outcome.what} | {outcome.input_bytes / 1e6:.1f} MB | {codes} | {seconds:.1f} "
            f"| {peak >> 20} MiB |"
        )
    return "\n".join(rows)
