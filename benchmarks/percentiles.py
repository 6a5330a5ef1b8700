"""The one percentile every benchmark reports: nearest rank, so a reported p95 is a latency that was seen."""

from __future__ import annotations


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of ``values`` at ``fraction`` (0.5 for the median, 0.95 for p95)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]
