"""Seeded fuzzing of the whole MCP surface over real stateless Streamable HTTP.

Run: scripts/fuzz.sh [--budget-seconds 30 | --cases N [--package-cases M]] [--seed 1]
     [--graph-packages-dir data/graph_packages]

Starts ``kgfegmcp serve --transport http`` on a free 127.0.0.1 port (log level INFO, the default),
discovers the tools, resource templates and prompts it lists, and replays hostile requests as raw
JSON-RPC POSTs: huge names, deep nesting in every JSON input, forged cursors, prompt-argument abuse,
hostile resource addresses and hostile field values. The server gets a ``KGFEGMCP_CURSOR_SECRET`` the
fuzzer generates, so cursors are forged two ways: checksummed with the public catalog fingerprint (all
refused) and sealed with the server's own key, carrying extreme and random positions. One full sweep
(every class against every tool, template and prompt) always runs; seeded random cases then fill the
rest of the budget, so a seed always replays the same cases.

``--cases N`` bounds the run by a count instead of a clock: exactly N cases of each request class (a
seeded sample of the class's sweep cases, spread over its tools, templates and prompts, then seeded
random cases of the class if N exceeds its sweep) and ``--package-cases`` (default N) tampered
packages. The same seed and counts always run the same cases, however loaded the machine is.

Every response must hold these invariants (any breach is printed and makes the exit status 1):

- never ``internal_error``, never an HTTP 5xx, an answer within ``--case-timeout`` seconds;
- every error text of a tool, resource or prompt matches ``^[a-z_]+: `` and is at most
  ``--max-error-chars`` characters; protocol-level refusals by the MCP SDK (parse errors, malformed
  params) are counted apart and must be bounded too;
- no local path (``/work``, ``/home``, ``/tmp``, the repository root, the package root) and no
  ``Traceback`` in any error, and neither the repository root nor ``Traceback`` in any result;
- after each case a cheap call answers within ``--probe-timeout`` seconds, and a background client
  polling throughout is never kept waiting longer than that (one bad call must not freeze the rest);
- the server's stderr never contains a traceback and grows by a bounded amount per request.

The class ``package-tampering`` fuzzes the packages instead of the requests: after the surface classes it
damages and forges copies of real packages of the same catalog and runs ``doctor``, the start-up gate and
``packages validate`` on each (``fuzzing/tampering.py``: its invariants and matrix; ``fuzzing/scenarios.py``:
its scenarios). The class ``hostile-sources`` then builds and fetches hostile CASE inputs (a 120 MB code, long
CJK statements, control characters, repeated members, colliding framework ids, gzip bodies with more than one
member) as real processes, each held to a deadline and a memory bound (``fuzzing/hostile_sources.py``;
``--source-scale`` writes them smaller). The class ``slow-clients`` holds connections instead of asking (unread
answers, trickled heads, stalled bodies, idle floods, malformed requests) against a server of its own with short
limits, while a well-behaved client must be served throughout (``fuzzing/slow_clients.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fuzzing.checks import Limits
from fuzzing.classes import CLASSES, REQUEST_CLASSES, SLOW, SOURCES, TAMPERING
from fuzzing.report import Tally, report
from fuzzing.runner import run_hostile_sources, run_package_tampering, run_slow, run_surface
from fuzzing.server import REPOSITORY_ROOT


def run(args: argparse.Namespace) -> int:
    """The chosen classes (request classes first, then package tampering) and the report; 1 on any violation."""
    classes = set(args.classes.split(",")) if args.classes else set(CLASSES)
    if classes - set(CLASSES):
        raise SystemExit(f"fuzz: unknown classes {sorted(classes - set(CLASSES))}; known: {', '.join(CLASSES)}")
    limits = Limits(args.max_error_chars, args.case_timeout, args.probe_timeout)
    packages = Path(args.graph_packages_dir).resolve()
    tallies: dict[str, Tally] = {cls: Tally() for cls in CLASSES}
    violations: list[str] = []
    started = time.monotonic()
    log_size, longest_wait = 0, 0.0
    if classes & set(REQUEST_CLASSES):
        log_size, longest_wait = run_surface(args, classes, limits, packages, tallies, violations, started)
    if SLOW in classes:
        run_slow(args, packages, tallies[SLOW], violations)
    if TAMPERING in classes:
        run_package_tampering(args, packages, tallies[TAMPERING], violations, started)
    if SOURCES in classes:
        run_hostile_sources(args, tallies[SOURCES], violations, started)
    elapsed = time.monotonic() - started
    report(tallies, violations, elapsed, args, log_size, longest_wait)
    return 1 if violations else 0


def main(argv: list[str] | None = None) -> int:
    """Parse the options (a run is bounded by a clock or by a count) and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--budget-seconds", type=float, default=None, help="random cases after the sweep until then (default 30)"
    )
    parser.add_argument(
        "--cases", type=int, default=None, help="instead of a budget: exactly this many cases of each request class"
    )
    parser.add_argument(
        "--package-cases", type=int, default=None, help="with --cases: this many tampered packages (default: --cases)"
    )
    parser.add_argument(
        "--slow-cases", type=int, default=None, help="with --cases: this many slow-client attacks (default: all five)"
    )
    parser.add_argument(
        "--source-cases",
        type=int,
        default=None,
        help="with --cases: this many hostile source inputs (default: --cases)",
    )
    parser.add_argument(
        "--source-scale",
        type=float,
        default=1.0,
        help="hostile source inputs at this fraction of the size that was found to hurt (1.0: 120 MB codes)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--classes", default="", help=f"comma-separated subset of: {', '.join(CLASSES)}")
    parser.add_argument("--graph-packages-dir", default=str(REPOSITORY_ROOT / "data" / "graph_packages"))
    parser.add_argument("--max-error-chars", type=int, default=2000)
    parser.add_argument("--case-timeout", type=float, default=30.0, help="generous: the machine may be shared")
    parser.add_argument("--probe-timeout", type=float, default=10.0)
    parser.add_argument("--start-timeout", type=float, default=120.0)
    parser.add_argument("--matrix", action="store_true", help="print the tampering scenarios as a markdown table")
    args = parser.parse_args(argv)
    if args.cases is not None and args.budget_seconds is not None:
        parser.error("--cases and --budget-seconds exclude each other: a run is bounded by a count or by a clock")
    counts = (args.package_cases, args.source_cases, args.slow_cases)
    if any(count is not None for count in counts) and args.cases is None:
        parser.error("--package-cases, --source-cases and --slow-cases go with --cases")
    if any(count is not None and count < 0 for count in (args.cases, *counts)):
        parser.error("--cases, --package-cases, --source-cases and --slow-cases count cases: 0 or more")
    if not 0 < args.source_scale <= 1:
        parser.error("--source-scale is a fraction: more than 0, at most 1")
    if args.cases is not None and args.package_cases is None:
        args.package_cases = args.cases
    if args.cases is not None and args.source_cases is None:
        args.source_cases = args.cases
    if args.budget_seconds is None:
        args.budget_seconds = 0.0 if args.cases is not None else 30.0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
