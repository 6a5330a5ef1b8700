"""Default-catalog build time next to its floor: merely reading and parsing the same source files.

Run: .venv/bin/python benchmarks/build.py [--repeat 5] [--out benchmarks/results/build.json]

Per round, in one process: (1) the read floor: read the bytes of every data file the adapters use
and parse them with the standard library (json for bncc and the ACARA JSON-LD, csv for the Mapa de
Foco CSV, one SELECT over the chiron SQLite table, zipfile + ElementTree for MEXT's .xlsx tables);
(2) the build: adapters → package contents; (3) the write of pending
packages; (4) validation to a terminal state. Best-of-N times are reported with the ratio of
build + write + validate to the read floor. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import platform
import sqlite3
import tempfile
import time
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import load_importer
from kgfegmcp.sources.default_catalog import DEFAULT_SOURCES, SHIPPED_SOURCES_DIR

REPOSITORY = Path(__file__).resolve().parents[1]
BNCC_FILES = (
    "VERSAO.json",
    "estrutura.json",
    "educacao-infantil.json",
    "ensino-fundamental.json",
    "ensino-medio.json",
    "computacao.json",
)


def source_files() -> list[Path]:
    """Every file the default adapters read."""
    bncc = resources.files("bncc") / "dados"
    files = [Path(str(bncc / name)) for name in BNCC_FILES]
    files.append(Path(str(resources.files("bncc_mcp") / "data" / "bncc_habilidades.csv")))
    files.append(Path(str(resources.files("chiron_standards") / "data" / "standards.db")))
    files += [SHIPPED_SOURCES_DIR / name for default in DEFAULT_SOURCES for name in default.inputs]
    return files


def read_floor(files: list[Path]) -> tuple[float, int]:
    """Seconds to read and parse the sources, and their total size in bytes."""
    start = time.perf_counter()
    size = 0
    for path in files:
        data = path.read_bytes()
        size += len(data)
        if path.suffix in (".json", ".jsonld"):
            json.loads(data)
        elif path.suffix == ".xlsx":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for name in archive.namelist():
                    if name == "xl/sharedStrings.xml" or name.startswith("xl/worksheets/sheet"):
                        ElementTree.fromstring(archive.read(name))
        elif path.suffix == ".csv":
            list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))
        else:
            connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                connection.execute("SELECT * FROM standards").fetchall()
            finally:
                connection.close()
    return time.perf_counter() - start, size


def build_round(profiles: ProfileRepository) -> tuple[dict[str, float], list[PackageContent]]:
    """One timed build → write → validate of the default catalog into a temporary root."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    contents = [
        content
        for default in DEFAULT_SOURCES
        for source_input in default.input_paths()
        for content in load_importer(default.source).build(source_input, profiles)
    ]
    timings["build"] = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-bench-") as temporary:
        root = Path(temporary)
        writer = PackageWriter()
        start = time.perf_counter()
        locations = [writer.write_pending(content, root) for content in contents]
        timings["write"] = time.perf_counter() - start
        lifecycle = PackageLifecycle(PackageValidator(profiles), writer, InvalidPackagePolicy.FAIL)
        start = time.perf_counter()
        results = [lifecycle.validate(location) for location in locations]
        timings["validate"] = time.perf_counter() - start
        if not all(r.accepted for r in results):
            raise SystemExit("a default-catalog package failed validation; fix that before benchmarking")
    return timings, contents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profiles", type=Path, default=SHIPPED_PROFILES_DIR)
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results" / "build.json")
    args = parser.parse_args()
    files = source_files()
    floors: list[float] = []
    rounds: list[dict[str, float]] = []
    contents: list[PackageContent] = []
    size = 0
    for _ in range(args.repeat):
        profiles = ProfileRepository(args.profiles)  # fresh: no profile cache carried between rounds
        seconds, size = read_floor(files)
        floors.append(seconds)
        timings, contents = build_round(profiles)
        rounds.append(timings)
    best = {step: min(r[step] for r in rounds) for step in ("build", "write", "validate")}
    total = min(sum(r.values()) for r in rounds)
    floor = min(floors)
    result: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "repeat": args.repeat,
        "sourceFiles": len(files),
        "sourceBytes": size,
        "readFloorSeconds": round(floor, 4),
        "buildSeconds": round(best["build"], 4),
        "writeSeconds": round(best["write"], 4),
        "validateSeconds": round(best["validate"], 4),
        "totalSeconds": round(total, 4),
        "ratio": round(total / floor, 1),
        "packages": [
            {
                "graphPackageId": f"{c.framework_id}@{c.snapshot_id}",
                "items": len(c.items),
                "learningComponents": len(c.components),
                "relationships": len(c.relationships),
                "unresolved": len(c.unresolved),
            }
            for c in contents
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"read floor {floor:.3f}s ({size / 1e6:.1f} MB, {len(files)} files); build {best['build']:.3f}s, "
        f"write {best['write']:.3f}s, validate {best['validate']:.3f}s; total {total:.3f}s = "
        f"{result['ratio']}x the read floor"
    )


if __name__ == "__main__":
    main()
