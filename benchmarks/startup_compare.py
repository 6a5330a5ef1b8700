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
from pathlib import Path

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR
from side_by_side import interleaved, print_medians, python_output

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
    overrides = {
        "graph_packages_dir": str(args.root),
        "profiles_dir": str(args.profiles),
        "prompts_dir": str(args.prompts),
        "cache_dir": cache_dir,
    }
    return float(python_output(source, BUILD, json.dumps(overrides)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, help="the src folder of the baseline checkout")
    parser.add_argument("--candidate", type=Path, default=REPOSITORY_ROOT / "src")
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--profiles", type=Path, default=SHIPPED_PROFILES_DIR)
    parser.add_argument("--prompts", type=Path, default=SHIPPED_PROMPTS_DIR)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    def starts(source: Path, scratch: Path) -> dict[str, float]:
        cache = str(scratch / "cache")
        return {
            "cold": build_seconds(source, args, cache),
            "warm": build_seconds(source, args, cache),
            "uncached": build_seconds(source, args, ""),
        }

    times = interleaved(args.baseline, args.candidate, args.repeat, starts)
    title = f"build_app_state, median of {args.repeat} (seconds): baseline {args.baseline}, candidate {args.candidate}"
    print_medians(title, times, STARTS)


if __name__ == "__main__":
    main()
