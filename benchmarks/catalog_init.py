"""``kgfegmcp catalog init`` and the first start after it, of two checkouts side by side, in fresh processes.

Run: .venv/bin/python benchmarks/catalog_init.py BASELINE_SRC [--candidate src] [--repeat 3]

BASELINE_SRC is the ``src`` folder of another checkout (``git worktree add /tmp/base <commit>``, then
``/tmp/base/src``); the candidate defaults to this checkout's ``src``. Both run with this virtual environment,
interleaved run by run so machine noise falls on both alike. Each run starts from nothing: an empty package root
and an empty cache directory. ``init`` is the command's wall time (its process, imports included); ``first start``
is ``build_app_state`` alone in the next fresh process on that root and cache, which is what a host waits for
before its first answer. Prints medians and the candidate ÷ baseline ratios.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from side_by_side import interleaved, print_medians, python_output

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
INIT = "from kgfegmcp.cli import main; main()"
START = """
import json, sys, time
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
started = time.perf_counter()
build_app_state(load_settings(json.loads(sys.argv[1])))
print(time.perf_counter() - started)
"""
MEASURES = ("init", "first start", "both")


def one_run(source: Path, scratch: Path) -> dict[str, float]:
    """``catalog init`` into an empty root and cache, then the first start on them, for the code under ``source``."""
    root, cache = scratch / "graph_packages", scratch / "cache"
    started = time.perf_counter()
    python_output(source, INIT, "catalog", "init", "--root", str(root), KGFEGMCP_CACHE_DIR=str(cache))
    init = time.perf_counter() - started
    overrides = json.dumps({"graph_packages_dir": str(root), "cache_dir": str(cache)})
    first = float(python_output(source, START, overrides))
    return {"init": init, "first start": first, "both": init + first}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, help="the src folder of the baseline checkout")
    parser.add_argument("--candidate", type=Path, default=REPOSITORY_ROOT / "src")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    times = interleaved(args.baseline, args.candidate, args.repeat, one_run)
    print_medians(
        f"median of {args.repeat} (seconds): baseline {args.baseline}, candidate {args.candidate}", times, MEASURES
    )


if __name__ == "__main__":
    main()
