"""Validation throughput next to its floor: reading, hashing and JSON-parsing the same bytes.

Run: .venv/bin/python benchmarks/validate.py [--items 100000] [--repeat 3] [--root data/graph_packages]

It measures the largest accepted package under --root (the real default catalog, when built)
and a generated package of --items standards with learning components and progression links.
Results go to benchmarks/results/validate.json; the ratio is what docs/performance.md reports.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.manifest_reader import read_manifest
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    HAS_CHILD,
    RELATES_TO,
    SUPPORTS,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.packages.tree import PackageLocation, discover_packages
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.profiles.repository import ProfileRepository
from package_factory import FixtureGraph, FixtureWorld, provenance_for

GENERATED = "generated-benchmark"
#: Real statements whose words (and which word follows which) the "statements" vocabulary draws on.
STATEMENTS = (
    Path(__file__).resolve().parents[1]
    / "data/graph_packages/us-ccss-ela-literacy-grades-2-4/chiron-0-1-0/detailed/as_standards_framework_items.jsonl"
)
#: How standards' texts are made: one template for all (every text shares its words), or a word chain
#: drawn from real statements (each word's successors as they follow it there, its frequencies theirs).
VOCABULARIES = ("template", "statements")


def _link(graph: FixtureGraph, label: str, source: NodeRecord, target: NodeRecord, **extra: Any) -> None:
    graph.relationships.append(
        RelationshipRecord(
            stable_uuid(GENERATED, label, source.identifier, target.identifier),
            label,  # type: ignore[arg-type]
            source.identifier,
            target.identifier,
            source.label,
            target.label,
            entity_key_for(source.label),
            entity_key_for(target.label),
            **extra,
        )
    )


def statement_texts(seed: int = 20260102) -> Iterator[str]:
    """Endless texts, each a walk of the word chain of the real statements in ``STATEMENTS``.

    A walk starts at a statement's first word and takes, at each word, a successor it has there (ends
    of statements included, so lengths follow theirs), at most 60 words; one seeded generator, so the
    same sequence every time.
    """
    followers: dict[str | None, list[str | None]] = {}
    with STATEMENTS.open(encoding="utf-8") as handle:
        for line in handle:
            words: list[str | None] = [*json.loads(line)["description"].split(), None]
            for before, after in zip([None, *words], words, strict=False):
                followers.setdefault(before, []).append(after)
    rng = random.Random(seed)
    while True:
        text: list[str] = []
        word = rng.choice(followers[None])
        while word is not None and len(text) < 60:
            text.append(word)
            word = rng.choice(followers[word])
        yield " ".join(text)


def generated_graph(items: int, vocabulary: str = "template") -> FixtureGraph:
    """framework → domains → clusters → standards, one component per 4 standards, chained links.

    ``vocabulary`` (one of ``VOCABULARIES``) says how the standards' texts are made.
    """
    texts = statement_texts() if vocabulary == "statements" else None
    root_id = stable_uuid(GENERATED, "framework")
    graph = FixtureGraph(
        GENERATED,
        FrameworkNode(root_id, root_id, "Generated benchmark framework", "Benchmark", "Mathematics", "en"),
        [],
        [],
        [],
        [],
    )
    domains = max(1, items // 1000)
    clusters_per_domain = 10
    standards = items - domains - domains * clusters_per_domain
    clusters: list[ItemNode] = []
    for d in range(domains):
        uid = stable_uuid(GENERATED, "domain", str(d))
        domain = ItemNode(uid, uid, f"Domain {d} of generated measurement topics", "Domain", ("1",), True, "en")
        graph.items.append(domain)
        _link(graph, HAS_CHILD, graph.framework, domain)
        for c in range(clusters_per_domain):
            cid = stable_uuid(GENERATED, "cluster", str(d), str(c))
            cluster = ItemNode(
                cid, cid, f"Cluster {d}.{c} about fractions and place value", "Cluster", ("2",), True, "en"
            )
            graph.items.append(cluster)
            _link(graph, HAS_CHILD, domain, cluster)
            clusters.append(cluster)
    previous: ItemNode | None = None
    for s in range(standards):
        sid = stable_uuid(GENERATED, "standard", str(s))
        code = f"GEN.{s // 1000}.{s % 1000}"
        text = (
            next(texts)
            if texts is not None
            else f"Standard {s}: reason about quantity {s % 97} using models, number lines and equations."
        )
        standard = ItemNode(sid, sid, text, "Standard", (str(1 + s % 3),), True, "en", statement_code=code)
        graph.items.append(standard)
        _link(graph, HAS_CHILD, clusters[s % len(clusters)], standard)
        if previous is not None and s % 5:
            _link(graph, BUILDS_TOWARDS if s % 2 else RELATES_TO, previous, standard)
        if s % 4 == 0:
            component = ComponentNode(stable_uuid(GENERATED, "component", str(s)), f"Component for standard {s}", "en")
            graph.components.append(component)
            _link(graph, SUPPORTS, component, standard, support_confidence=0.9)
        previous = standard
    return graph


def generated_package(scratch: Path, items: int, vocabulary: str = "template") -> tuple[FixtureWorld, PackageLocation]:
    """A pending package of ``items`` generated standards (with its profile) under ``scratch``."""
    world = FixtureWorld(scratch)
    world.add_profile(
        GENERATED,
        rule="tree",
        hierarchy={"rule": "tree", "maxDepth": 4, "maxParents": 1},
        gradeLabels=[
            {"sourceLabel": str(g), "facet": f"grade-{g}", "display": f"Grade {g}", "order": g} for g in (1, 2, 3)
        ],
    )
    started = time.perf_counter()
    graph = generated_graph(items, vocabulary)
    location = world.write(graph, provenance=provenance_for(graph))
    print(f"generated {items} items in {time.perf_counter() - started:.1f}s")
    return world, location


def floor_seconds(location: PackageLocation) -> float:
    """Read, SHA-256 and JSON-parse every declared artifact: the work no validator can skip."""
    started = time.perf_counter()
    manifest, _ = read_manifest(location.path)
    for artifact in manifest.all_artifacts():
        data = (location.path / artifact.path).read_bytes()
        hashlib.sha256(data).hexdigest()
        if artifact.path.endswith(".jsonl"):
            for line in data.splitlines():
                json.loads(line)
        else:
            json.loads(data)
    return time.perf_counter() - started


def validate_seconds(location: PackageLocation, profiles: ProfileRepository) -> tuple[float, bool]:
    started = time.perf_counter()
    outcome = PackageValidator(profiles).validate(location)
    return time.perf_counter() - started, outcome.passed


def measure(name: str, location: PackageLocation, profiles: ProfileRepository, repeat: int) -> dict[str, Any]:
    floors, validations, passed = [], [], True
    for _ in range(repeat):  # interleaved, so machine noise hits both sides alike
        floors.append(floor_seconds(location))
        seconds, ok = validate_seconds(location, profiles)
        validations.append(seconds)
        passed = passed and ok
    manifest = json.loads((location.path / MANIFEST_FILENAME).read_text())
    size = sum(a["bytes"] for a in manifest["artifacts"])
    result = {
        "package": name,
        "items": manifest["counts"]["standards"]["items"],
        "components": manifest["counts"]["learningComponents"]["components"],
        "relationships": sum(manifest["counts"]["relationships"].values()),
        "bytes": size,
        "floorSeconds": min(floors),
        "validateSeconds": min(validations),
        "ratio": round(min(validations) / min(floors), 2),
        "itemsPerSecond": round(manifest["counts"]["standards"]["items"] / min(validations)),
        "passed": passed,
    }
    print(
        f"{name}: {result['items']} items, {size / 1e6:.1f} MB; floor {result['floorSeconds']:.3f}s, "
        f"validate {result['validateSeconds']:.3f}s, ratio {result['ratio']}x"
    )
    return result


def largest_package(root: Path) -> PackageLocation | None:
    best: tuple[int, PackageLocation] | None = None
    for location in discover_packages(root).packages:
        try:
            items = json.loads((location.path / MANIFEST_FILENAME).read_text())["counts"]["standards"]["items"]
        except (OSError, ValueError, KeyError):
            continue
        if best is None or items > best[0]:
            best = (items, location)
    return best[1] if best else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"))
    parser.add_argument("--profiles", type=Path, default=SHIPPED_PROFILES_DIR)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/validate.json"))
    args = parser.parse_args()
    results = []
    real = largest_package(args.root)
    if real is not None:
        results.append(measure(real.graph_package_id, real, ProfileRepository(args.profiles), args.repeat))
    else:
        print(f"(no package under {args.root}; run the README set-up command to include the real catalog)")
    with tempfile.TemporaryDirectory() as scratch:
        world, location = generated_package(Path(scratch), args.items)
        results.append(measure(f"generated-{args.items}", location, world.profiles(), args.repeat))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"machine": platform.platform(), "python": platform.python_version(), "results": results}, indent=2)
        + "\n"
    )


if __name__ == "__main__":
    main()
