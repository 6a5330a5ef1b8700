"""Growth with package size: validation, start-up, resident memory and tool latency, 1,000 → 1,000,000 items.

Run: .venv/bin/python benchmarks/scale.py [--items 1000,10000,100000,1000000] [--scratch /tmp/kgfegmcp-scale]
                                          [--repeat 3] [--samples 300] [--breakdown 100000]
                                          [--vocabulary statements|template]
                                          [--out benchmarks/results/scale.json] [--plot docs/scale.png]
                                          [--before benchmarks/results/scale_before.json] [--replot]

For each size it generates one package of that many items with ``benchmarks/validate.py``'s generator
(framework → domains → clusters → standards, a component per 4 standards, chained progression links),
validates and seals it once, and keeps it under ``--scratch/items-N-statements`` (``items-N`` for the
template vocabulary) so reruns skip generation (the generation and sealing seconds are reported apart).
The standards' texts are walks of the word chain of real statements (``--vocabulary statements``, the
default: words as frequent, and as often together, as in a real framework, so a query matches the
share of a package a real one would), or the old single template (``template``: every text has the same
words, so every query matches nearly every standard). Every measurement then runs in a fresh subprocess,
so memory numbers are clean:

* ``floor``: a process that reads and SHA-256-hashes every file of the package (startup.py's floor);
* ``validate``: a process that imports the validator, then validates the sealed package; its peak
  resident size (VmHWM) minus its resident size after the imports, per item;
* ``cold`` / ``warm``: ``build_app_state`` over the package alone with an empty derived-index cache
  (which it fills) and then with the filled cache; resident size (VmRSS) after the start minus the
  same process's resident size once it had imported the same modules, per item ("serving");
* latency, in the warm process: p50/p99 of ``search_standards``, ``get_standard_context`` and
  ``traverse_learning_progressions`` over --samples sampled requests each, measured as
  ``benchmarks/progressions.py`` measures its ``tool`` time (the service call plus the canonical JSON
  text the handler sends);
* with ``--breakdown N`` (a size in --items), a memory breakdown of a warm start at that size: tracemalloc
  grouped by source line, and a deep-size walk of the served package's structures (each object counted
  once, for the first structure that reaches it), both in bytes per item.

Results: benchmarks/results/scale.json and the growth plot (matplotlib) in docs/scale.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR
from percentiles import percentile
from validate import VOCABULARIES

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent
FRAMEWORK = "generated-benchmark"

FLOOR = """
import hashlib, os, sys
for folder, _, files in sorted(os.walk(sys.argv[1])):
    for name in sorted(files):
        with open(os.path.join(folder, name), 'rb') as handle:
            hashlib.sha256(handle.read()).hexdigest()
"""


def status_kib(field: str) -> int:
    """A ``/proc/self/status`` field (VmRSS, VmHWM) in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


# -- children (each runs in its own process) ---------------------------------------------------


def package_folders(scratch: Path, items: int, vocabulary: str) -> tuple[Path, Path]:
    """The generated package's folder and its derived-index cache for one size and vocabulary."""
    suffix = "" if vocabulary == "template" else f"-{vocabulary}"
    return scratch / f"items-{items}{suffix}", scratch / f"cache-{items}{suffix}"


def child_generate(folder: Path, items: int, vocabulary: str) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from kgfegmcp.core.config import InvalidPackagePolicy
    from kgfegmcp.packages.lifecycle import PackageLifecycle
    from kgfegmcp.packages.validator import PackageValidator
    from kgfegmcp.packages.writer import PackageWriter
    from kgfegmcp.prompts.repository import copy_generic_configs
    from validate import generated_package

    started = time.perf_counter()
    world, location = generated_package(folder, items, vocabulary)
    generated = time.perf_counter() - started
    started = time.perf_counter()
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    if not lifecycle.validate(location).accepted:
        raise SystemExit("the generated package did not validate")
    sealed = time.perf_counter() - started
    copy_generic_configs(SHIPPED_PROMPTS_DIR, folder / "prompts")
    return {"generateSeconds": round(generated, 3), "sealSeconds": round(sealed, 3)}


def child_validate(folder: Path) -> dict[str, Any]:
    return validate_peak(folder / "graph_packages", folder / "profiles")


def validate_peak(root: Path, profiles: Path) -> dict[str, Any]:
    """Validate the one package under ``root`` in this process: its time, and its peak over its baseline."""
    from kgfegmcp.packages.tree import discover_packages
    from kgfegmcp.packages.validator import PackageValidator
    from kgfegmcp.profiles.repository import ProfileRepository

    validator = PackageValidator(ProfileRepository(profiles))
    (location,) = discover_packages(root).packages
    baseline = status_kib("VmRSS")
    started = time.perf_counter()
    outcome = validator.validate(location)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "passed": outcome.passed,
        "baselineKiB": baseline,
        "peakKiB": status_kib("VmHWM"),
    }


def settings_for(folder: Path, cache: Path) -> Any:
    from kgfegmcp.core.config import load_settings

    return load_settings(
        {
            "graph_packages_dir": str(folder / "graph_packages"),
            "profiles_dir": str(folder / "profiles"),
            "prompts_dir": str(folder / "prompts"),
            "cache_dir": str(cache),
            "log_level": "WARNING",
        }
    )


def child_build(folder: Path, cache: Path, samples: int) -> dict[str, Any]:
    import gc

    from kgfegmcp.bootstrap import build_app_state

    settings = settings_for(folder, cache)
    gc.collect()
    baseline = status_kib("VmRSS")
    started = time.perf_counter()
    state = build_app_state(settings)
    seconds = time.perf_counter() - started
    after = status_kib("VmRSS")
    gc.collect()
    after_gc = status_kib("VmRSS")
    out: dict[str, Any] = {
        "seconds": seconds,
        "baselineKiB": baseline,
        "rssKiB": after,
        "rssAfterGcKiB": after_gc,
        "peakKiB": status_kib("VmHWM"),
    }
    if samples:
        out["latency"] = latency(state, samples)
    return out


def sampled(state: Any, samples: int) -> tuple[list[Any], list[Any]]:
    """Standards picked at random (fixed seed) and one search_standards request per pick: every third
    the pick's statement code, the rest three consecutive words of its text."""
    import random

    from kgfegmcp.services.requests import SearchStandardsRequest

    package = state.catalog.resolve(FRAMEWORK)
    standards = [item for item in package.store.items if item.statement_type == "Standard"]
    rng = random.Random(20260101)
    picked = [rng.choice(standards) for _ in range(samples)]

    def search_query(index: int, item: Any) -> str:
        if index % 3 == 0:
            return str(item.statement_code)
        words = [w.strip(".,:") for w in item.description.split()]
        start = rng.randrange(0, max(1, len(words) - 3))
        return " ".join(words[start : start + 3])

    searches = [
        SearchStandardsRequest.model_validate(
            {"query": search_query(i, item), "frameworkIds": [FRAMEWORK], "limit": 10}
        )
        for i, item in enumerate(picked)
    ]
    return picked, searches


def latency(state: Any, samples: int) -> dict[str, Any]:
    from kgfegmcp.core.models import canonical_json
    from kgfegmcp.services.requests import GetStandardContextRequest, TraverseLearningProgressionsRequest

    picked, searches = sampled(state, samples)
    requests = {
        "search_standards": (state.standards.search_standards, searches),
        "get_standard_context": (
            state.standards.get_standard_context,
            [
                GetStandardContextRequest.model_validate({"frameworkId": FRAMEWORK, "nodeId": item.identifier})
                for item in picked
            ],
        ),
        "traverse_learning_progressions": (
            state.progressions.traverse_learning_progressions,
            [
                TraverseLearningProgressionsRequest.model_validate(
                    {"frameworkId": FRAMEWORK, "nodeId": item.identifier}
                )
                for item in picked
            ],
        ),
    }
    report: dict[str, Any] = {}
    for tool, (call, batch) in requests.items():
        for request in batch[:10]:  # warm-up: first-call costs are start-up's, not serving's
            canonical_json(call(request).to_wire())
        seconds = []
        for request in batch:
            started = time.perf_counter()
            canonical_json(call(request).to_wire())
            seconds.append(time.perf_counter() - started)
        report.update(search_summaries(seconds) if tool == "search_standards" else {tool: summary(seconds)})
    return report


def search_summaries(seconds: list[float]) -> dict[str, Any]:
    """All searches, then the code queries (every third) and the text queries apart."""
    return {
        "search_standards": summary(seconds),
        "search_standards[code]": summary(seconds[::3]),
        "search_standards[text]": summary([s for i, s in enumerate(seconds) if i % 3]),
    }


def summary(seconds: list[float]) -> dict[str, Any]:
    return {
        "calls": len(seconds),
        "p50Ms": round(percentile(seconds, 0.5) * 1000, 3),
        "p99Ms": round(percentile(seconds, 0.99) * 1000, 3),
        "maxMs": round(max(seconds) * 1000, 3),
        "meanMs": round(sum(seconds) / len(seconds) * 1000, 3),
    }


def deep_size(root: Any, seen: set[int]) -> tuple[int, int]:
    """Bytes and object count reachable from ``root`` not already in ``seen`` (types and modules excluded)."""
    import gc
    import types

    total = count = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        count += 1
        stack.extend(gc.get_referents(obj))
    return total, count


def child_breakdown(folder: Path, cache: Path, items: int) -> dict[str, Any]:
    import gc
    import tracemalloc

    from kgfegmcp.bootstrap import build_app_state

    settings = settings_for(folder, cache)
    gc.collect()
    baseline = status_kib("VmRSS")
    tracemalloc.start()
    state = build_app_state(settings)
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    traced, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = status_kib("VmRSS")
    snapshot = snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    src = str(REPOSITORY / "src")

    def short(filename: str) -> str:
        for prefix in (src + "/", sys.prefix + "/lib/"):
            if filename.startswith(prefix):
                return filename[len(prefix) :]
        return filename

    by_line = [
        {
            "where": f"{short(stat.traceback[0].filename)}:{stat.traceback[0].lineno}",
            "bytesPerItem": round(stat.size / items, 1),
            "blocksPerItem": round(stat.count / items, 2),
        }
        for stat in snapshot.statistics("lineno")[:30]
    ]
    by_file = [
        {"file": short(stat.traceback[0].filename), "bytesPerItem": round(stat.size / items, 1)}
        for stat in snapshot.statistics("filename")[:15]
    ]
    # Deep sizes, in an order that attributes each shared object to the first structure that holds it.
    package = state.catalog.resolve(FRAMEWORK)
    store = package.store
    runtime = package.runtime
    seen: set[int] = set()
    structures: list[tuple[str, Any]] = [
        ("runtime.items (ItemNode records + their strings/tuples)", runtime.items),
        ("runtime.components (ComponentNode records)", runtime.components),
        ("runtime.relationships (RelationshipTable columns, node-id list)", runtime.relationships),
        ("store._nodes (tuple of node refs)", store._nodes),
        ("store._position (node id -> int dict)", store._position),
        ("store._adjacency (per label, compressed rows of relationship positions)", store._adjacency),
    ]
    for name in ("standards_index", "component_index", "progression_facts", "prompt_facts", "unresolved", "artifacts"):
        structures.append((f"served.{name}", getattr(package, name)))
    structures.append(("rest of AppState (services, catalog, settings)", state))
    walks = []
    before_index: set[int] = set()
    for name, root in structures:
        if root is package.standards_index:
            before_index = set(seen)
        size, count = deep_size(root, seen)
        walks.append(
            {"structure": name, "bytesPerItem": round(size / items, 1), "objectsPerItem": round(count / items, 2)}
        )
    index = package.standards_index
    attributes = [*getattr(index, "__dict__", {}), *getattr(type(index), "__slots__", ())]
    index_parts = []
    for attribute in attributes:  # what the index adds beyond the records and store already counted
        size, _count = deep_size(getattr(index, attribute, None), set(before_index))
        index_parts.append({"attribute": attribute, "bytesPerItem": round(size / items, 1)})
    return {
        "items": items,
        "rssGrowthUnderTracemallocBytesPerItem": round((rss - baseline) * 1024 / items, 1),
        "tracedBytesPerItem": round(traced / items, 1),
        "byLine": by_line,
        "byFile": by_file,
        "deepSize": walks,
        "standardsIndexParts": sorted(index_parts, key=lambda p: -p["bytesPerItem"]),
        "counts": {
            "items": len(runtime.items),
            "components": len(runtime.components),
            "relationships": len(runtime.relationships),
        },
    }


# -- parent -------------------------------------------------------------------------------------


def run_child(role: str, *arguments: str, timeout: float) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPOSITORY / "src"), os.environ.get("PYTHONPATH")])),
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--child", role, *arguments]
    done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=timeout, env=env)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def time_floor(root: Path, timeout: float) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", FLOOR, str(root)], check=True, timeout=timeout)
    return time.perf_counter() - started


def tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def measure_size(
    items: int, scratch: Path, vocabulary: str, repeat: int, samples: int, timeout: float
) -> dict[str, Any]:
    folder, cache = package_folders(scratch, items, vocabulary)
    marker = folder / "generated.json"
    if not marker.is_file():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        generation = run_child("generate", str(folder), str(items), vocabulary, timeout=timeout)
        marker.write_text(json.dumps(generation))
    generation = json.loads(marker.read_text())
    packages = folder / "graph_packages"
    print(f"[{items}] package ready ({generation})", flush=True)
    floors = [time_floor(packages, timeout) for _ in range(repeat)]
    validation = run_child("validate", str(folder), timeout=timeout)
    print(f"[{items}] floor {min(floors):.3f}s, validate {validation['seconds']:.2f}s", flush=True)
    shutil.rmtree(cache, ignore_errors=True)
    cold = run_child("build", str(folder), str(cache), "0", timeout=timeout)
    warms = [
        run_child("build", str(folder), str(cache), str(samples if r == 0 else 0), timeout=timeout)
        for r in range(repeat)
    ]
    print(f"[{items}] cold {cold['seconds']:.2f}s, warm {min(w['seconds'] for w in warms):.2f}s", flush=True)
    floor = statistics.median(floors)
    warm_seconds = statistics.median(w["seconds"] for w in warms)
    serving = statistics.median((w["rssKiB"] - w["baselineKiB"]) for w in warms)
    serving_gc = statistics.median((w["rssAfterGcKiB"] - w["baselineKiB"]) for w in warms)
    return {
        "items": items,
        "vocabulary": vocabulary,
        "packageBytes": tree_bytes(packages),
        **generation,
        "floorSeconds": round(floor, 3),
        "validateSeconds": round(validation["seconds"], 3),
        "validateOverFloor": round(validation["seconds"] / floor, 1),
        "validatePassed": validation["passed"],
        "validatePeakKiBPerItem": round((validation["peakKiB"] - validation["baselineKiB"]) / items, 3),
        "coldSeconds": round(cold["seconds"], 3),
        "coldPeakKiBPerItem": round((cold["peakKiB"] - cold["baselineKiB"]) / items, 3),
        "warmSeconds": round(warm_seconds, 3),
        "warmOverFloor": round(warm_seconds / floor, 1),
        "warmPeakKiBPerItem": round(statistics.median(w["peakKiB"] - w["baselineKiB"] for w in warms) / items, 3),
        "servingKiBPerItem": round(serving / items, 3),
        "servingAfterGcKiBPerItem": round(serving_gc / items, 3),
        "importedBaselineKiB": warms[0]["baselineKiB"],
        "latency": warms[0]["latency"],
    }


def finish_breakdown(breakdown: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """Set the traced Python heap against the same size's warm serving RSS (measured without tracemalloc,
    whose own trace tables inflate RSS): the rest is native memory (tantivy) and allocator slack."""
    serving = row["servingKiBPerItem"] * 1024
    return {
        **breakdown,
        "servingRssBytesPerItem": round(serving, 1),
        "servingNotTracedBytesPerItem": round(serving - breakdown["tracedBytesPerItem"], 1),
    }


def plot(rows: list[dict[str, Any]], path: Path, before: list[dict[str, Any]] | None = None) -> None:
    """Seconds, memory per item and p99 against size; ``before`` (an earlier run's rows) drawn faded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = [r["items"] for r in rows]
    figure, (seconds, memory, latency_axis) = plt.subplots(1, 3, figsize=(15, 4.5))
    for key, label in (
        ("floorSeconds", "read+hash floor"),
        ("validateSeconds", "validate"),
        ("coldSeconds", "cold start"),
        ("warmSeconds", "warm start"),
    ):
        seconds.plot(items, [r[key] for r in rows], marker="o", label=label)
    seconds.set(xscale="log", yscale="log", xlabel="items", ylabel="seconds", title="Validation and start-up")
    for key, label in (
        ("servingKiBPerItem", "serving (warm RSS growth)"),
        ("validatePeakKiBPerItem", "validator peak"),
    ):
        line = memory.plot(items, [r[key] for r in rows], marker="o", label=label)
        if before:
            earlier = [r["items"] for r in before]
            memory.plot(
                earlier,
                [r[key] for r in before],
                marker="x",
                linestyle=":",
                alpha=0.5,
                color=line[0].get_color(),
                label=f"{label}, before",
            )
    memory.axhline(1.5, linestyle="--", color="grey", label="goal: serving 1.5 KiB")
    memory.axhline(2.0, linestyle=":", color="grey", label="goal: validator 2 KiB")
    memory.set(xscale="log", xlabel="items", ylabel="KiB per item", title="Resident memory per item")
    for tool, goal in (("search_standards", 25), ("get_standard_context", 5), ("traverse_learning_progressions", 10)):
        line = latency_axis.plot(items, [r["latency"][tool]["p99Ms"] for r in rows], marker="o", label=f"{tool} p99")
        latency_axis.axhline(goal, linestyle="--", color=line[0].get_color(), alpha=0.5)
        if before and tool == "search_standards":
            latency_axis.plot(
                [r["items"] for r in before],
                [r["latency"][tool]["p99Ms"] for r in before],
                marker="x",
                linestyle=":",
                alpha=0.5,
                color=line[0].get_color(),
                label=f"{tool} p99, before",
            )
    latency_axis.set(xscale="log", yscale="log", xlabel="items", ylabel="ms", title="Tool p99 (dashed: goal at 1M)")
    for axis in (seconds, memory, latency_axis):
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", default="1000,10000,100000,1000000")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/kgfegmcp-scale"))
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="statements", help="standards' texts")
    parser.add_argument("--repeat", type=int, default=3, help="floor and warm-start runs per size (median)")
    parser.add_argument("--samples", type=int, default=300, help="requests per tool for latency")
    parser.add_argument("--breakdown", type=int, default=100_000, help="size for the memory breakdown (0: none)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed to any one subprocess")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/scale.json"))
    parser.add_argument("--plot", type=Path, default=Path("docs/scale.png"))
    parser.add_argument("--before", type=Path, help="an earlier run's results, drawn faded in the plot")
    parser.add_argument("--replot", action="store_true", help="draw the plot from --out without measuring")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.child:
        children = {
            "generate": lambda: child_generate(Path(rest[0]), int(rest[1]), rest[2]),
            "validate": lambda: child_validate(Path(rest[0])),
            "build": lambda: child_build(Path(rest[0]), Path(rest[1]), int(rest[2])),
            "breakdown": lambda: child_breakdown(Path(rest[0]), Path(rest[1]), int(rest[2])),
        }
        print(json.dumps(children[args.child]()))
        return
    before = json.loads(args.before.read_text())["sizes"] if args.before else None
    if args.replot:
        plot(json.loads(args.out.read_text())["sizes"], args.plot, before)
        return
    sizes = [int(size) for size in args.items.split(",")]
    rows = [
        measure_size(size, args.scratch, args.vocabulary, args.repeat, args.samples, args.timeout) for size in sizes
    ]
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "vocabulary": args.vocabulary,
        "repeat": args.repeat,
        "samplesPerTool": args.samples,
        "sizes": rows,
    }
    if args.breakdown in sizes:
        folder, cache = package_folders(args.scratch, args.breakdown, args.vocabulary)
        breakdown = run_child("breakdown", str(folder), str(cache), str(args.breakdown), timeout=args.timeout)
        report["breakdown"] = finish_breakdown(breakdown, next(r for r in rows if r["items"] == args.breakdown))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.plot:
        plot(rows, args.plot, before)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
