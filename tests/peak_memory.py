"""A command run to its end under a deadline, with its own peak resident memory.

A child's ``ru_maxrss`` counts the memory of the process that forked it: at ``exec`` the kernel keeps the
larger of the old and the new high-water marks. A test or fuzzer that holds hundreds of MB would be charged
to every command it runs, so the command is started by a small launcher (a fresh interpreter holding
nothing) that forks it, waits for it and reports its ``ru_maxrss``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
sys.exit(max(os.waitstatus_to_exitcode(status), 0) if os.WIFEXITED(status) else 1)
"""


@dataclass
class Measured:
    """How a command ended (``None``: stopped at the deadline), in what time and peak memory, and what it printed."""

    exit_code: int | None
    seconds: float
    peak_bytes: int
    stdout: str
    stderr: str


def run_measured(command: Sequence[str], env: Mapping[str, str], timeout: float) -> Measured:
    """Run ``command`` (its first element an absolute path) under ``timeout`` seconds; its whole session is
    killed at the deadline."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "maxrss"
        with (Path(scratch) / "out").open("w+b") as out, (Path(scratch) / "err").open("w+b") as err:
            process = subprocess.Popen(
                [sys.executable, "-c", _LAUNCHER, str(report), *command],
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            stopped = threading.Event()

            def stop() -> None:
                stopped.set()
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)

            timer = threading.Timer(timeout, stop)
            timer.start()
            try:
                code = process.wait()
            finally:
                timer.cancel()
            out.seek(0)
            err.seek(0)
            peak = int(report.read_text()) * 1024 if report.is_file() else 0
            return Measured(
                None if stopped.is_set() else code,
                time.monotonic() - started,
                peak,
                out.read().decode("utf-8", "replace"),
                err.read().decode("utf-8", "replace"),
            )
