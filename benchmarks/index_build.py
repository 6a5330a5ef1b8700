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
from pathlib import Path

from side_by_side import interleaved, print_medians, python_output

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, help="the src folder of the baseline checkout")
    parser.add_argument("--root", type=Path, required=True, help="a validated graph-package root")
    parser.add_argument("--candidate", type=Path, default=REPOSITORY_ROOT / "src")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    overrides = json.dumps({"graph_packages_dir": str(args.root), "cache_dir": ""})

    def cpu(source: Path, _scratch: Path) -> dict[str, float]:
        return {"index build CPU": float(python_output(source, BUILD, overrides))}

    times = interleaved(args.baseline, args.candidate, args.repeat, cpu)
    print_medians(f"median of {args.repeat} (CPU seconds): baseline {args.baseline}", times, ["index build CPU"])


if __name__ == "__main__":
    main()
