"""The gate on one curriculum in both package shapes, side by side: this server's and the supplied one.

Run: .venv/bin/python benchmarks/supplied_validate.py [--items 20000] [--repeat 3]

The same generated graph (benchmarks/validate.py's: standards, learning components, progression links) is
written by this server's builder and by the fixture writer of the construction pipeline's shape
(tests/supplied_package.py: manifest 1.1, delivery 1.2, the progression files and their 64 shards); each is
validated through every rule, interleaved, and beside its floor (reading, hashing and JSON-parsing every
declared file). A supplied package is checked like this at every start (nothing of this server's is recorded
in it); this server's own package is, after its first validation, served from the derived-index cache.
Results go to benchmarks/results/supplied_validate.json; docs/performance.md reports the ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from package_factory import FixtureWorld
from supplied_package import SuppliedPackageWriter
from validate import GENERATED, floor_seconds, generated_graph, generated_package


def validate_seconds(world: FixtureWorld, location: PackageLocation) -> tuple[float, bool]:
    started = time.perf_counter()
    outcome = PackageValidator(world.profiles()).validate(location)
    return time.perf_counter() - started, outcome.passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/supplied_validate.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        ours_world, ours = generated_package(Path(scratch) / "ours", args.items)
        supplied_world = FixtureWorld(Path(scratch) / "supplied")
        writer = SuppliedPackageWriter(supplied_world)
        supplied = writer.write(generated_graph(args.items), writer.profile(GENERATED))
        sides: dict[str, tuple[FixtureWorld, PackageLocation]] = {
            "ours": (ours_world, ours),
            "supplied": (supplied_world, supplied),
        }
        floors: dict[str, list[float]] = {name: [] for name in sides}
        gates: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.repeat):  # interleaved, so machine noise hits both sides alike
            for name, (world, location) in sides.items():
                floors[name].append(floor_seconds(location))
                seconds, passed = validate_seconds(world, location)
                assert passed, f"{name} did not validate"
                gates[name].append(seconds)
        sizes = {
            name: sum(f.stat().st_size for f in location.path.rglob("*") if f.is_file())
            for name, (_, location) in sides.items()
        }
    result: dict[str, Any] = {
        "items": args.items,
        "python": platform.python_version(),
        "sides": {
            name: {
                "bytes": sizes[name],
                "floorSeconds": round(min(floors[name]), 3),
                "validateSeconds": round(min(gates[name]), 3),
                "overFloor": round(min(gates[name]) / min(floors[name]), 2),
            }
            for name in sides
        },
        "suppliedOverOurs": round(min(gates["supplied"]) / min(gates["ours"]), 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for name, side in result["sides"].items():
        print(
            f"{name}: {side['bytes'] / 1e6:.1f} MB; floor {side['floorSeconds']}s, "
            f"gate {side['validateSeconds']}s ({side['overFloor']}x floor)"
        )
    print(f"supplied gate / ours: {result['suppliedOverOurs']}x")


if __name__ == "__main__":
    main()
