"""Two checkouts measured side by side: each run in fresh processes, interleaved so machine noise falls on both.

The benchmarks that compare a baseline ``src`` folder with this checkout's (``startup_compare.py``,
``catalog_init.py``, ``index_build.py``) share this loop and its table of medians and ratios.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

#: One run of the code under ``source`` (a ``src`` folder), with a scratch directory of its own: seconds per measure.
Measure = Callable[[Path, Path], dict[str, float]]


def child_env(source: Path, **extra: str) -> dict[str, str]:
    """This environment for a process running the code under ``source``: no ``KGFEGMCP_*`` setting leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    env.update({"PYTHONPATH": str(source), **extra})
    return env


def python_output(source: Path, script: str, *args: str, **extra: str) -> str:
    """What ``script`` (run with ``python -c`` on the code under ``source``) printed."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        env=child_env(source, **extra),
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def interleaved(baseline: Path, candidate: Path, repeat: int, measure: Measure) -> dict[tuple[str, str], list[float]]:
    """``measure`` of each checkout in turn, ``repeat`` times: the seconds by (checkout, measure)."""
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeat):
        for name, source in (("baseline", baseline), ("candidate", candidate)):
            with tempfile.TemporaryDirectory() as scratch:
                for key, seconds in measure(source, Path(scratch)).items():
                    times.setdefault((name, key), []).append(seconds)
    return times


def print_medians(title: str, times: dict[tuple[str, str], list[float]], measures: Sequence[str]) -> None:
    """One row per measure: the medians of both checkouts and candidate ÷ baseline."""
    width = max(len(m) for m in measures)
    print(title)
    print(f"{'':{width}} {'baseline':>9} {'candidate':>10} {'ratio':>7}")
    for measure in measures:
        base = statistics.median(times[("baseline", measure)])
        new = statistics.median(times[("candidate", measure)])
        print(f"{measure:{width}} {base:9.3f} {new:10.3f} {new / base:7.2f}")
