"""What Linux's ``/proc`` says about a process: resident memory, threads, descriptors, CPU time, children."""

from __future__ import annotations

import contextlib
import os
from typing import Any


def proc_status(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (kB) and the number of threads of a process."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                values[key] = int(rest.split()[0])
    return values


def descriptors(pid: int) -> int:
    """Open file descriptors of a process."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    """Direct children of a process (nginx's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


def memory_of(pids: list[int]) -> dict[str, Any]:
    """RSS, peak RSS, threads and descriptors of each server process (MB), and their sums."""
    each = []
    for pid in pids:
        status = proc_status(pid)
        each.append(
            {
                "rssMB": round(status["VmRSS"] / 1024, 1),
                "peakRssMB": round(status["VmHWM"] / 1024, 1),
                "threads": status["Threads"],
                "fds": descriptors(pid),
            }
        )
    return {
        "rssMB": round(sum(e["rssMB"] for e in each), 1),
        "peakRssMB": round(sum(e["peakRssMB"] for e in each), 1),
        "fds": sum(e["fds"] for e in each),
        "replicas": each,
    }
