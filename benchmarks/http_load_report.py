"""What the load run reports: each run's counts, rates, latencies, CPU shares and memory, a line per run as it
ends, and the summary over every run (ours against the no-op server's floor)."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from percentiles import percentile


@dataclass
class RunStats:
    """What one measured (or warm-up) run saw."""

    label: str
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    failures: Counter[str] = field(default_factory=Counter)
    failure_examples: dict[str, str] = field(default_factory=dict)
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    nginx_cpu: float = 0.0
    rss_curve: list[tuple[float, int]] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        """Answered and failed calls."""
        return sum(len(v) for v in self.latencies.values()) + sum(self.failures.values())

    def report(self) -> dict[str, Any]:
        """The JSON form: counts, rates, percentiles per operation and overall, CPU shares, memory."""
        every = [x for values in self.latencies.values() for x in values]
        per_op = {
            name: {
                "calls": len(values),
                "p50Ms": round(percentile(values, 0.5) * 1000, 2),
                "p99Ms": round(percentile(values, 0.99) * 1000, 2),
            }
            for name, values in sorted(self.latencies.items())
            if values
        }
        return {
            "label": self.label,
            "seconds": round(self.seconds, 2),
            "calls": self.calls,
            "succeeded": len(every),
            "failures": dict(sorted(self.failures.items())),
            "failureExamples": self.failure_examples,
            "callsPerSecond": round(len(every) / self.seconds, 1) if self.seconds else 0.0,
            "p50Ms": round(percentile(every, 0.5) * 1000, 2) if every else None,
            "p99Ms": round(percentile(every, 0.99) * 1000, 2) if every else None,
            "operations": per_op,
            # CPU per answered call is steadier than calls/s on a shared machine: time the server waited
            # for a core shows in calls/s, not here.
            "serverCpuMsPerCall": round(1000 * self.server_cpu / len(every), 3) if every else None,
            "cpuShare": {
                "server": round(self.server_cpu / self.seconds, 3) if self.seconds else None,
                "nginx": round(self.nginx_cpu / self.seconds, 3) if self.seconds else None,
                "client": round(self.client_cpu / self.seconds, 3) if self.seconds else None,
            },
            "memory": self.memory,
            "rssCurveMB": [(round(t, 1), round(kb / 1024, 1)) for t, kb in self.rss_curve],
        }


def print_run(kind: str, stats: RunStats) -> None:
    """One line per run, as it finishes."""
    report = stats.report()
    failures = ", ".join(f"{k} {v}" for k, v in report["failures"].items()) or "0"
    share = report["cpuShare"]
    print(
        f"{kind:5} {report['label']:8} {report['callsPerSecond']:8.1f} calls/s  p50 {report['p50Ms']:7.2f} ms  "
        f"p99 {report['p99Ms']:7.2f} ms  cpu/call {report['serverCpuMsPerCall']} ms  failures {failures}  "
        f"RSS {stats.memory['rssMB']:6.1f} MB  "
        f"fds {stats.memory['fds']}  cpu server/nginx/client {share['server']}/{share['nginx']}/{share['client']}",
        flush=True,
    )


def summarise(phases: dict[str, Any]) -> dict[str, Any]:
    """Calls/s ours vs noop, the ratio, latencies over every measured run, memory and descriptors."""
    ours = phases["ours"]
    rates = [run["callsPerSecond"] for run in ours["runs"]]
    summary: dict[str, Any] = {
        "oursCallsPerSecondMedian": statistics.median(rates),
        "oursCallsPerSecondRuns": rates,
        "failures": dict(sum((Counter(run["failures"]) for run in ours["runs"]), Counter())),
        "rssMB": {
            "start": ours["atStart"]["rssMB"],
            "afterWarmUp": ours["warmUp"]["memory"]["rssMB"],
            "afterEachRun": [run["memory"]["rssMB"] for run in ours["runs"]],
            "end": ours["atEnd"]["rssMB"],
            "peak": ours["atEnd"]["peakRssMB"],
        },
        "fds": {"start": ours["atStart"]["fds"], "end": ours["atEnd"]["fds"]},
    }
    after_warm = summary["rssMB"]["afterWarmUp"]
    summary["rssGrowthAfterWarmUpPercent"] = round(100 * (summary["rssMB"]["end"] - after_warm) / after_warm, 1)
    summary["oursServerCpuMsPerCallMedian"] = round(
        statistics.median(run["serverCpuMsPerCall"] for run in ours["runs"]), 3
    )
    noop_runs = [phases[name]["runs"][0] for name in ("noopBefore", "noopAfter") if name in phases]
    if noop_runs:
        summary["noopCallsPerSecond"] = [run["callsPerSecond"] for run in noop_runs]
        summary["ratio"] = round(
            summary["oursCallsPerSecondMedian"] / statistics.mean(summary["noopCallsPerSecond"]), 3
        )
        summary["noopServerCpuMsPerCall"] = [run["serverCpuMsPerCall"] for run in noop_runs]
        # The same ratio from server CPU time per call (noop / ours): what calls/s gives on a quiet machine.
        summary["cpuRatio"] = round(
            statistics.mean(summary["noopServerCpuMsPerCall"]) / summary["oursServerCpuMsPerCallMedian"], 3
        )
    return summary


def latency_rows(merged: dict[str, dict[str, list[float]]]) -> list[tuple[str, int, float, float]]:
    """p50/p99 per operation, and overall, over every measured run of each phase."""
    rows = []
    for name, per_operation in merged.items():
        prefix = "" if name == "ours" else f"{name}: "
        for operation in sorted(per_operation):
            values = per_operation[operation]
            rows.append((prefix + operation, len(values), percentile(values, 0.5), percentile(values, 0.99)))
        every = [x for values in per_operation.values() for x in values]
        if name == "ours" and len(per_operation) > 1:
            rows.append(("all operations", len(every), percentile(every, 0.5), percentile(every, 0.99)))
    return rows


def operation_latencies(merged: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, Any]]:
    """The latency rows as the results file holds them (milliseconds)."""
    return {
        label: {"calls": calls, "p50Ms": round(p50 * 1000, 2), "p99Ms": round(p99 * 1000, 2)}
        for label, calls, p50, p99 in latency_rows(merged)
    }


def print_summary(summary: dict[str, Any], merged: dict[str, dict[str, list[float]]], runs: int) -> None:
    """The latency table over every measured run, ours against the noop, then memory, descriptors and failures."""
    print()
    print(f"{'operation (every measured run)':44} {'calls':>9} {'p50 ms':>9} {'p99 ms':>9}")
    for label, calls, p50, p99 in latency_rows(merged):
        print(f"{label:44} {calls:>9,} {p50 * 1000:>9.2f} {p99 * 1000:>9.2f}")
    print()
    print(f"ours: {summary['oursCallsPerSecondMedian']:.1f} calls/s (median of {runs} runs)", end="")
    if "ratio" in summary:
        print(
            f"; noop: {' / '.join(f'{x:.1f}' for x in summary['noopCallsPerSecond'])} calls/s; ratio {summary['ratio']}"
            f" (server CPU per call: ours {summary['oursServerCpuMsPerCallMedian']} ms, noop "
            f"{' / '.join(map(str, summary['noopServerCpuMsPerCall']))} ms; ratio {summary['cpuRatio']})"
        )
    else:
        print()
    rss = summary["rssMB"]
    print(
        f"RSS MB: start {rss['start']}, after warm-up {rss['afterWarmUp']}, after each run "
        f"{', '.join(map(str, rss['afterEachRun']))}, end {rss['end']} (peak {rss['peak']}); growth after warm-up "
        f"{summary['rssGrowthAfterWarmUpPercent']}%; fds {summary['fds']['start']} → {summary['fds']['end']}; "
        f"failures {summary['failures'] or 0}"
    )
