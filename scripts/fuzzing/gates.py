"""The three gates a tampered package meets, each a real process under a deadline (``kgfegmcp doctor --json``, the
start-up gate, ``kgfegmcp packages validate --json``), and the invariants their verdicts must hold together."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .server import KGFEGMCP, server_environment

CODED_LINE = re.compile(r"^[a-z_]+: \S")


@dataclass
class Gate:
    """One gate's process: how it ended, in what time, and what it wrote last on stderr."""

    name: str
    exit_code: int | None  # None: stopped at the deadline
    seconds: float
    stdout: str
    stderr: str

    @property
    def refused(self) -> bool:
        return self.exit_code not in (0, None)

    def last_line(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def code(self) -> str:
        """The error code the process ended with (its last stderr line), or its status."""
        if self.exit_code is None:
            return "HANG"
        if self.exit_code == 0:
            return "ok"
        if self.name == "doctor" and self.exit_code == 1:
            return "fail"
        match = re.match(r"^([a-z_]+): ", self.last_line())
        return match.group(1) if match else f"exit {self.exit_code}"


@dataclass
class Outcome:
    """What one tampered package did to the three gates."""

    name: str
    what: str
    gates: list[Gate] = field(default_factory=list)
    validate_status: str = "?"
    validate_codes: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


def run_process(name: str, command: list[str], env: dict[str, str], timeout: float, user: list[str]) -> Gate:
    """Run one gate under ``timeout`` seconds (its whole session killed at the deadline)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [*user, *command], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            code = None
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return Gate(name, code, seconds, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"))


def run_gates(root: Path, package: Path, cache: Path, timeout: float, unprivileged: bool) -> list[Gate]:
    """doctor, the start-up gate and validate, in that order (validate writes its verdict)."""
    env = server_environment(root, cache)
    user: list[str] = []
    if unprivileged and os.geteuid() == 0:
        # The copy and its cache become the unprivileged user's (what the scenario made unreadable stays so).
        user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        env["HOME"] = str(root.parent)  # a home of its own, as a real user has (the fuzzer's may be root's)
        for path in (root, cache, *root.rglob("*"), *cache.rglob("*")):
            os.lchown(path, 65534, 65534)
    return [
        run_process("doctor", [str(KGFEGMCP), "doctor", "--json", "--root", str(root)], env, timeout, user),
        run_process("serve", [str(KGFEGMCP), "serve", "--transport", "stdio", "--root", str(root)], env, timeout, user),
        run_process("validate", [str(KGFEGMCP), "packages", "validate", "--json", str(package)], env, timeout, user),
    ]


def _doctor_says_why(doctor: Gate) -> bool:
    """Whether doctor's JSON holds a failing check with a detail and a fix."""
    try:
        checks = json.loads(doctor.stdout)
    except ValueError:
        return bool(CODED_LINE.match(doctor.last_line()))  # it could not even run its checks: a coded line
    return any(c.get("status") == "fail" and c.get("detail") and c.get("fix") for c in checks if isinstance(c, dict))


def judge(outcome: Outcome, must_refuse: bool) -> None:
    """The invariants of one case (see the module docstring)."""
    for gate in outcome.gates:
        if gate.exit_code is None:
            outcome.violations.append(f"{gate.name}: no end within the deadline (hang)")
        if "Traceback" in gate.stderr or "Traceback" in gate.stdout:
            outcome.violations.append(f"{gate.name}: wrote a traceback")
        if gate.refused and gate.name == "serve" and not CODED_LINE.match(gate.last_line()):
            outcome.violations.append(f"{gate.name}: ended without a coded line: {gate.last_line()[:200]!r}")
    doctor = outcome.gates[0]
    if doctor.refused and not _doctor_says_why(doctor):
        outcome.violations.append(f"doctor: failed without a failing check that says why: {doctor.stdout[-300:]!r}")
    validate = outcome.gates[-1]
    try:
        report = json.loads(validate.stdout.splitlines()[0]) if validate.stdout.strip() else {}
    except ValueError:
        report = {}
    outcome.validate_status = str(report.get("status", validate.code()))
    outcome.validate_codes = sorted({f.get("code", "?") for f in report.get("findings", []) if isinstance(f, dict)})
    if validate.refused and not report and not CODED_LINE.match(validate.last_line()):
        outcome.violations.append(f"validate: ended without a report or a coded line: {validate.last_line()[:200]!r}")
    verdicts = {gate.name: not gate.refused for gate in outcome.gates if gate.exit_code is not None}
    verdicts["validate"] = outcome.validate_status == "passed"
    if len(set(verdicts.values())) > 1:
        outcome.violations.append(f"the gates disagree: {verdicts}")
    if must_refuse and any(verdicts.values()):
        outcome.violations.append(f"a damaged package was accepted: {verdicts}")
