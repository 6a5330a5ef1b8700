"""Building the text indexes of a catalog's packages, two checkouts side by side, in fresh processes.

Run: .venv/bin/python benchmarks/index_build.py BASELINE_SRC --root ROOT [--candidate src] [--repeat 3]

BASELINE_SRC is the ``src`` folder of another checkout (``git worktree add /tmp/base <commit>``, then
``/tmp/base/src``); ROOT a validated catalog (``kgfegmcp catalog init --root ROOT``). Each process loads the
catalog, then builds every package's standards and component indexes in memory, with a fresh analyzer per
language (so nothing learnt by loading is reused), twice. Reported: the CPU time of the second build (the
process's, tantivy's threads included; CPU rather than wall time, so a busy machine disturbs it less), median
over ``--repeat`` processes each, interleaved, and the candidate ÷ baseline ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
BUILD = """
import json, sys, time
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.search import analysis
from kgfegmcp.search.package_indexes import PackageTextIndexes
state = build_app_state(load_settings(json.loads(sys.argv[1])))
seconds = []
for _ in range(2):
    analysis.analyzer_for.cache_clear()
    started = time.process_time()
    for package in state.catalog.packages:
        PackageTextIndexes.build(package.store)
    seconds.append(time.process_time() - started)
print(seconds[-1])
"""


def build_seconds(source: Path, root: Path, cache: str) -> float:
    """CPU seconds of one catalog's index build, for the code under ``source``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    env["PYTHONPATH"] = str(source)
    overrides = json.dumps({"graph_packages_dir": str(root), "cache_dir": cache})
    done = subprocess.run([sys.executable, "-c", BUILD, overrides], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, help="the src folder of the baseline checkout")
    parser.add_argument("--root", type=Path, required=True, help="a validated graph-package root")
    parser.add_argument("--candidate", type=Path, default=REPOSITORY_ROOT / "src")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"baseline": [], "candidate": []}
    for _ in range(args.repeat):
        for name, source in (("baseline", args.baseline), ("candidate", args.candidate)):
            times[name].append(build_seconds(source, args.root, ""))
    base, new = statistics.median(times["baseline"]), statistics.median(times["candidate"])
    print(
        f"index build CPU seconds, median of {args.repeat}: baseline {base:.2f}, candidate {new:.2f}, "
        f"ratio {new / base:.2f}"
    )


if __name__ == "__main__":
    main()
