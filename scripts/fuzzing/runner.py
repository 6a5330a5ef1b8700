"""Running the classes: the request classes against one server (each reply checked, a cheap call after each
case, a background client polling throughout, the server's stderr watched), then package tampering."""

from __future__ import annotations

import argparse
import random
import secrets
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .cases import Case
from .checks import Limits, check
from .classes import SLOW, SOURCES, TAMPERING
from .hostile_sources import run_sources
from .hostile_sources import table as sources_table
from .report import Tally
from .rpc import post, tool_call
from .server import REPOSITORY_ROOT, serve
from .slow_clients import run_slow_clients
from .slow_clients import table as slow_table
from .strategies import budgeted, counted
from .surface import discover
from .tampering import describe, matrix, run_tampering

#: Allowed stderr growth: a fixed slack per case plus this much per request sent meanwhile.
LOG_SLACK_BYTES = 8192
LOG_BYTES_PER_REQUEST = 1024


class BackgroundProbe:
    """A second client polling a cheap call throughout: its longest wait shows any stall of the server."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url, self.timeout = url, timeout
        self.longest = 0.0
        self.failures: list[str] = []
        self.requests = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> BackgroundProbe:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.timeout + 10)

    def _run(self) -> None:
        body = tool_call("get_capabilities", {"request": {}})
        while not self._stop.wait(0.25):
            self.requests += 1
            try:
                reply = post(self.url, body, self.timeout)
            except TimeoutError as exc:
                self.failures.append(str(exc))
                continue
            self.longest = max(self.longest, reply.seconds)
            if reply.seconds > self.timeout or reply.message is None or "result" not in reply.message:
                self.failures.append(f"background call answered in {reply.seconds:.1f}s: {reply.text[:160]!r}")


def run_surface(
    args: argparse.Namespace,
    classes: set[str],
    limits: Limits,
    packages: Path,
    tallies: dict[str, Tally],
    violations: list[str],
    started: float,
) -> tuple[int, float]:
    """The request classes against one server; returns its log size and the longest background wait."""
    rng = random.Random(args.seed)
    leaks = ("Traceback", "/work", "/home", "/tmp", tempfile.gettempdir(), str(REPOSITORY_ROOT), str(packages))
    strict_leaks = ("Traceback", str(REPOSITORY_ROOT), str(packages))
    cursor_secret = secrets.token_urlsafe(48)  # the fuzzer's server keys cursors by it, so it can seal them
    with serve(packages, args.start_timeout, cursor_secret) as server:
        surface = discover(server.url, cursor_secret)
        print(f"forged-cursors targets: {', '.join(sorted(surface.cursor_targets)) or 'none'}")
        probe_body = tool_call("get_capabilities", {"request": {}})
        with BackgroundProbe(server.url, limits.probe_timeout) as background:
            if args.cases is None:
                cases: Iterator[Case] = budgeted(surface, rng, args.budget_seconds, started)
            else:
                cases = iter(counted(surface, rng, classes, args.cases, args.seed))
            for case in cases:
                if case.cls not in classes:
                    continue
                log_start, requests_before = server.log_size(), background.requests
                try:
                    reply = post(server.url, case.body, max(limits.case_timeout, 60.0))
                    outcome, problems = check(case, reply, limits, leaks, strict_leaks)
                    seconds = reply.seconds
                except TimeoutError as exc:
                    outcome, problems, seconds = "timeout", [str(exc)], limits.case_timeout
                try:
                    after = post(server.url, probe_body, limits.probe_timeout + 30)
                    if after.seconds > limits.probe_timeout or after.message is None or "result" not in after.message:
                        problems.append(f"the next cheap call answered in {after.seconds:.1f}s: {after.text[:160]!r}")
                except TimeoutError as exc:
                    problems.append(f"the next cheap call: {exc}")
                if server.process.poll() is not None:
                    problems.append(f"the server exited with {server.process.returncode}")
                grown = server.log_bytes(log_start)
                allowance = LOG_SLACK_BYTES + LOG_BYTES_PER_REQUEST * (2 + background.requests - requests_before)
                if b"Traceback" in grown:
                    problems.append("the server logged a traceback: " + grown.decode(errors="replace")[:300])
                if len(grown) > allowance:
                    problems.append(f"the server log grew {len(grown)} bytes (allowance {allowance})")
                problems.extend(background.failures)
                background.failures.clear()
                tally = tallies[case.cls]
                tally.add(outcome, seconds, bool(problems))
                if problems:
                    violations.append(f"[{case.cls}] {case.label[:120]!r}: {'; '.join(problems)[:600]}")
                if server.process.poll() is not None or any("the next cheap call" in p for p in problems):
                    violations.append("stopped early: the server no longer answers")
                    break
        return server.log_size(), background.longest


def run_package_tampering(
    args: argparse.Namespace, packages: Path, tally: Tally, violations: list[str], started: float
) -> None:
    """The named tampering scenarios, then random ones until the budget is spent or the count is reached
    (``tampering.py``)."""
    remaining = max(0.0, args.budget_seconds - (time.monotonic() - started))
    outcomes = run_tampering(
        packages,
        budget_seconds=remaining,
        cases=args.package_cases,
        seed=args.seed,
        case_timeout=args.case_timeout,
        log=print,
    )
    for outcome in outcomes:
        slowest = max(gate.seconds for gate in outcome.gates)
        tally.add("ok" if outcome.validate_status == "passed" else "refused", slowest, bool(outcome.violations))
        if outcome.violations:
            violations.append(f"[{TAMPERING}] {describe(outcome)}"[:800])
    if args.matrix:
        print(matrix(outcomes))


def run_hostile_sources(args: argparse.Namespace, tally: Tally, violations: list[str], started: float) -> None:
    """The named hostile source inputs, then random ones until the budget is spent or the count is reached
    (``hostile_sources.py``)."""
    remaining = max(0.0, args.budget_seconds - (time.monotonic() - started))
    outcomes = run_sources(
        budget_seconds=remaining,
        cases=args.source_cases,
        seed=args.seed,
        case_timeout=args.case_timeout,
        scale=args.source_scale,
        log=print,
    )
    for outcome in outcomes:
        slowest = max(run.seconds for run in outcome.runs)
        tally.add(outcome.runs[-1].code(), slowest, bool(outcome.violations))
        if outcome.violations:
            violations.append(f"[{SOURCES}] {outcome.name}: {'; '.join(outcome.violations)}"[:800])
    if args.matrix:
        print(sources_table(outcomes))


def run_slow(args: argparse.Namespace, packages: Path, tally: Tally, violations: list[str]) -> None:
    """Each named slow-client attack against a server of its own (``slow_clients.py``)."""
    outcomes = run_slow_clients(
        packages,
        seed=args.seed,
        start_timeout=args.start_timeout,
        probe_timeout=args.probe_timeout,
        log=print,
        cases=args.slow_cases,
    )
    for outcome in outcomes:
        tally.add("ok" if outcome.served == outcome.tries else "refused", outcome.slowest, bool(outcome.violations))
        if outcome.violations:
            violations.append(f"[{SLOW}] {outcome.name}: {'; '.join(outcome.violations)}"[:800])
    if args.matrix:
        print(slow_table(outcomes))
