"""Building a package from a curriculum PDF, beside the floor: pdfplumber extracting the same file's text alone.

Each side runs in its own fresh process (so its peak resident memory is its own), alternately, ``--repeat``
times; the medians are reported with their ratio. The PDF defaults to the largest of NaCCA's in
``../shared/data/ghana-nacca-2019/`` (never committed: pass another with ``--pdf``).

    .venv/bin/python benchmarks/pdf_build.py [--pdf FILE.pdf] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "ghana-nacca-2019"

FLOOR = """
import pdfplumber, resource, sys, time
start = time.perf_counter()
with pdfplumber.open(sys.argv[1]) as pdf:
    for page in pdf.pages:
        page.extract_text()
        page.close()
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

BUILD = """
import resource, sys, tempfile, time
from pathlib import Path
from kgfegmcp.core.config import SHIPPED_DIR
from kgfegmcp.packages.writer import PackageBatch
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.importer import NaccaPdfSource
start = time.perf_counter()
(content,) = NaccaPdfSource().build(Path(sys.argv[1]), ProfileRepository(SHIPPED_DIR / "profiles"))
with tempfile.TemporaryDirectory() as root, PackageBatch(Path(root)) as batch:
    batch.write(content)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run(code: str, pdf: Path) -> tuple[float, float]:
    """Seconds and peak resident MiB of one fresh process."""
    out = subprocess.run([sys.executable, "-c", code, str(pdf)], check=True, capture_output=True, text=True).stdout
    seconds, kib = out.split()
    return float(seconds), int(kib) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pdf = args.pdf or max(DATA.glob("*.pdf"), key=lambda p: p.stat().st_size)
    floor, build = [], []
    for _ in range(args.repeat):
        floor.append(run(FLOOR, pdf))
        build.append(run(BUILD, pdf))
    result = {
        "pdf": pdf.name,
        "bytes": pdf.stat().st_size,
        "repeat": args.repeat,
        "floorSeconds": round(statistics.median(t for t, _m in floor), 2),
        "buildSeconds": round(statistics.median(t for t, _m in build), 2),
        "floorPeakMiB": round(statistics.median(m for _t, m in floor), 1),
        "buildPeakMiB": round(statistics.median(m for _t, m in build), 1),
    }
    result["timeRatio"] = round(result["buildSeconds"] / result["floorSeconds"], 2)
    result["memoryRatio"] = round(result["buildPeakMiB"] / result["floorPeakMiB"], 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
