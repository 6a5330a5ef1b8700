"""Building a package from each shipped official file, beside the read floors of that file.

For every file of ``src/kgfegmcp/shipped/sources/`` (MEXT's code tables, ACARA's JSON-LD) and, when
``../shared/data/australia-acara-v9/MAT.rdf`` is here, the same ACARA release as RDF/XML, three fresh
processes each, alternately, ``--repeat`` times (each process's peak resident memory is its own):

- **stdlib floor**: the bytes read and parsed with the standard library alone (``zipfile`` + ElementTree of the
  sheet and its shared strings; ``json``; ElementTree of the RDF/XML): what no reader of the file can beat;
- **library floor**: the library the importer reads it with, reading it whole (openpyxl's read-only
  workbook, every cell value; rdflib's ``Dataset`` parse);
- **build**: the importer's ``build`` and the write of the pending package (``packages build``).

Medians are reported with the ratios build ÷ floor.

    .venv/bin/python benchmarks/file_build.py [--repeat 3]     # writes benchmarks/results/file_build.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "src" / "kgfegmcp" / "shipped" / "sources"
RDF = ROOT.parent / "shared" / "data" / "australia-acara-v9" / "MAT.rdf"

_REPORT = "print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"

STDLIB_FLOOR = f"""
import json, resource, sys, time, zipfile
from xml.etree import ElementTree
path = sys.argv[1]
start = time.perf_counter()
if path.endswith(".xlsx"):
    with zipfile.ZipFile(path) as archive:
        ElementTree.fromstring(archive.read("xl/sharedStrings.xml"))
        for name in archive.namelist():
            if name.startswith("xl/worksheets/sheet"):
                ElementTree.fromstring(archive.read(name))
elif path.endswith(".jsonld"):
    json.loads(open(path, "rb").read())
else:
    ElementTree.fromstring(open(path, "rb").read())
{_REPORT}
"""

LIBRARY_FLOOR = f"""
import resource, sys, time, warnings
path = sys.argv[1]
start = time.perf_counter()
if path.endswith(".xlsx"):
    import openpyxl
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        for sheet in book.worksheets:
            for row in sheet.iter_rows(values_only=True):
                pass
        book.close()
else:
    import rdflib
    rdflib.Dataset().parse(path, format="json-ld" if path.endswith(".jsonld") else "xml")
{_REPORT}
"""

BUILD = f"""
import resource, sys, tempfile, time
from pathlib import Path
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR
from kgfegmcp.packages.writer import PackageBatch
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import load_importer
path = Path(sys.argv[1])
start = time.perf_counter()
source = "mext-code-table" if path.suffix == ".xlsx" else "asn"
(content,) = load_importer(source).build(path, ProfileRepository(SHIPPED_PROFILES_DIR))
with tempfile.TemporaryDirectory() as root, PackageBatch(Path(root)) as batch:
    batch.write(content)
{_REPORT}
print(f"{{content.framework_id}}@{{content.snapshot_id}}", len(content.items))
"""


def run(code: str, path: Path) -> tuple[float, float, list[str]]:
    """Seconds, peak resident MiB and any further output lines of one fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    seconds, kib = out[0].split()
    return float(seconds), int(kib) / 1024, out[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "file_build.json")
    args = parser.parse_args()
    files = sorted(p for p in SHIPPED.glob("*/*") if p.suffix in (".xlsx", ".jsonld"))
    if RDF.is_file():
        files.append(RDF)
    rows = []
    for path in files:
        measured: dict[str, list[tuple[float, float]]] = {"stdlib": [], "library": [], "build": []}
        package = ""
        for _ in range(args.repeat):
            for name, code in (("stdlib", STDLIB_FLOOR), ("library", LIBRARY_FLOOR), ("build", BUILD)):
                seconds, mib, extra = run(code, path)
                measured[name].append((seconds, mib))
                package = " ".join(extra) or package
        median = {
            name: (statistics.median(s for s, _ in runs), statistics.median(m for _, m in runs))
            for name, runs in measured.items()
        }
        row = {
            "file": path.name,
            "bytes": path.stat().st_size,
            "package": package,
            **{f"{name}Seconds": round(s, 3) for name, (s, _) in median.items()},
            **{f"{name}PeakMiB": round(m, 1) for name, (_, m) in median.items()},
            "buildOverStdlib": round(median["build"][0] / median["stdlib"][0], 1),
            "buildOverLibrary": round(median["build"][0] / median["library"][0], 2),
        }
        rows.append(row)
        print(
            f"{path.name} ({row['bytes'] / 1e6:.2f} MB) → {package}: stdlib floor {row['stdlibSeconds']} s "
            f"{row['stdlibPeakMiB']} MiB; library floor {row['librarySeconds']} s {row['libraryPeakMiB']} MiB; "
            f"build + write {row['buildSeconds']} s {row['buildPeakMiB']} MiB "
            f"({row['buildOverStdlib']}x stdlib, {row['buildOverLibrary']}x library)"
        )
    result = {"machine": platform.platform(), "python": platform.python_version(), "repeat": args.repeat, "files": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
