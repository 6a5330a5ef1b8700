"""``build_app_state`` of two checkouts side by side: warm, cold and uncached, in fresh processes.

Run: .venv/bin/python benchmarks/startup_compare.py BASELINE_SRC [--candidate src] [--repeat 5]
         [--root data/graph_packages] [--profiles config/profiles] [--prompts config/prompts]

BASELINE_SRC is the ``src`` folder of another checkout (for example ``git worktree add /tmp/base
<commit>``, then ``/tmp/base/src``); the candidate defaults to this checkout's ``src``. Both run with
this virtual environment on the same catalog, interleaved run by run so machine noise falls on both
alike. A cold start is timed on an empty cache directory, the warm start right after it on the same
directory, and an uncached start with ``KGFEGMCP_CACHE_DIR=`` empty. Imports are excluded: each
child process times ``build_app_state`` alone. Prints medians and the candidate ÷ baseline ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
BUILD = """
import json, sys, time
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
overrides = json.loads(sys.argv[1])
started = time.perf_counter()
build_app_state(load_settings(overrides))
print(time.perf_counter() - started)
"""
STARTS = ("warm", "cold", "uncached")


def build_seconds(source: Path, args: argparse.Namespace, cache_dir: str) -> float:
    """One ``build_app_state`` of the code under ``source``, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    env["PYTHONPATH"] = str(source)
    overrides = {
        "graph_packages_dir": str(args.root),
        "profiles_dir": str(args.profiles),
        "prompts_dir": str(args.prompts),
        "cache_dir": cache_dir,
    }
    done = subprocess.run(
        [sys.executable, "-c", BUILD, json.dumps(overrides)], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, help="the src folder of the baseline checkout")
    parser.add_argument("--candidate", type=Path, default=REPOSITORY_ROOT / "src")
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--profiles", type=Path, default=SHIPPED_PROFILES_DIR)
    parser.add_argument("--prompts", type=Path, default=SHIPPED_PROMPTS_DIR)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):
        for name, source in (("baseline", args.baseline), ("candidate", args.candidate)):
            with tempfile.TemporaryDirectory() as scratch:
                cache = str(Path(scratch) / "cache")
                measured = {
                    "cold": build_seconds(source, args, cache),
                    "warm": build_seconds(source, args, cache),
                    "uncached": build_seconds(source, args, ""),
                }
            for start, seconds in measured.items():
                times.setdefault((name, start), []).append(seconds)
    print(f"build_app_state, median of {args.repeat} (seconds): baseline {args.baseline}, candidate {args.candidate}")
    print(f"{'start':9} {'baseline':>9} {'candidate':>10} {'ratio':>7}")
    for start in STARTS:
        base = statistics.median(times[("baseline", start)])
        cand = statistics.median(times[("candidate", start)])
        print(f"{start:9} {base:9.3f} {cand:10.3f} {cand / base:6.2f}x")


if __name__ == "__main__":
    main()
