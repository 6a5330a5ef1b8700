"""Latency of progression traversal and path search, at default and maximum caps.

Run: .venv/bin/python benchmarks/progressions.py [--root data/graph_packages] [--repeat 3] [--samples 200]
                                                 [--dense-items 20000]

Graphs: the real Ensino Fundamental (Mapa de Foco links) and Educação Infantil packages, and a generated
dense graph of --dense-items standards with 4 forward ``buildsTowards`` links each (within the next 100
standards) and 3 ``relatesTo`` links each (anywhere, so cycles abound): at the default 20,000 standards
that is 140,000 progression links. The dense graph is served from a real GraphStore whose package
records were replaced in memory (the package identity is a small fixture package's).

Each case runs every sampled start (or start/target pair) --repeat times and measures two things:

* ``graph``: the algorithm alone (``ProgressionTraversal.run`` + ``view``, ``ProgressionPaths.find``);
* ``tool``: what a tool call costs past the MCP boundary — the service call, which fits the result to
  the 1 MiB / 100,000-character ceiling, plus the canonical JSON text the handler sends.

Next to them, a floor measured in the same run: a bare breadth-first walk over the same store that
visits exactly the nodes the traversal reached, with no bounds, bookkeeping or views. ``nodesPerMs`` is
nodes examined per millisecond of ``graph`` time (the median of the per-call rates, and the overall
rate): nodes reached for a traversal; nodes whose distance to the target was computed plus partial paths
admitted for a path search. Each case starts after a garbage collection; the collector stays enabled.
Results go to benchmarks/results/progressions.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import secrets
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR
from percentiles import percentile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.catalog.served import PackageServer
from kgfegmcp.core.config import InvalidPackagePolicy, load_settings
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.limits import PATH_DEPTH, PATHS, TRAVERSAL_DEPTH, TRAVERSAL_EDGES, TRAVERSAL_NODES
from kgfegmcp.core.models import canonical_json
from kgfegmcp.graph.progressions import (
    LABEL_ORDER,
    ProgressionPaths,
    ProgressionTraversal,
    TraversalLimits,
    incident_links,
)
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import BUILDS_TOWARDS, RELATES_TO, ItemNode, RelationshipRecord, entity_key_for
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.resources.policy import SizePolicy
from kgfegmcp.services.progressions import ProgressionService
from kgfegmcp.services.requests import FindLearningProgressionPathsRequest, TraverseLearningProgressionsRequest
from kgfegmcp.services.standards import StandardsService
from kgfegmcp.sources.default_catalog import build_default_catalog
from package_factory import LC, lc_graph, standard_world

REPOSITORY = Path(__file__).resolve().parents[1]
EF = "brazil-bncc-ensino-fundamental"
EI = "brazil-bncc-educacao-infantil"
DENSE = "dense"

TRAVERSAL_CAPS = {
    "default": {},
    "max": {
        "direction": "both",
        "maxDepth": TRAVERSAL_DEPTH.max,
        "maxNodes": TRAVERSAL_NODES.max,
        "maxEdges": TRAVERSAL_EDGES.max,
    },
}
PATH_CAPS = {"default": {}, "max": {"maxDepth": PATH_DEPTH.max, "maxPaths": PATHS.max}}


@dataclass
class Case:
    """Timings of one (graph, tool, caps) case."""

    graph_seconds: list[float] = field(default_factory=list)
    tool_seconds: list[float] = field(default_factory=list)
    floor_seconds: list[float] = field(default_factory=list)
    examined: list[int] = field(default_factory=list)
    result_chars: list[int] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)

    def report(self) -> dict[str, Any]:
        graph_ms = sum(self.graph_seconds) * 1000
        rates = [n / (t * 1000) for n, t in zip(self.examined, self.graph_seconds, strict=True) if t > 0]
        out: dict[str, Any] = {
            "calls": len(self.graph_seconds),
            "graphP50Ms": round(percentile(self.graph_seconds, 0.5) * 1000, 4),
            "graphP99Ms": round(percentile(self.graph_seconds, 0.99) * 1000, 4),
            "toolP50Ms": round(percentile(self.tool_seconds, 0.5) * 1000, 4),
            "toolP99Ms": round(percentile(self.tool_seconds, 0.99) * 1000, 4),
            "nodesExaminedPerCall": round(sum(self.examined) / max(1, len(self.graph_seconds)), 1),
            "nodesPerMsP50": round(percentile(rates, 0.5), 1) if rates else None,
            "nodesPerMsOverall": round(sum(self.examined) / graph_ms, 1) if graph_ms else None,
            "resultCharsP50": percentile([float(c) for c in self.result_chars], 0.5),
            "stopReasons": dict(sorted(self.reasons.items())),
        }
        if self.floor_seconds:
            floor = percentile(self.floor_seconds, 0.5)
            out["floorP50Ms"] = round(floor * 1000, 4)
            out["graphToFloorP50"] = round(percentile(self.graph_seconds, 0.5) / floor, 1) if floor else None
        return out


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def floor_walk(store: GraphStore, start: str, both: bool, budget: int) -> int:
    """A bare BFS over buildsTowards and relatesTo that stops after ``budget`` nodes."""
    seen = {start}
    queue = deque([start])
    while queue and len(seen) < budget:
        node = queue.popleft()
        for label in LABEL_ORDER:
            rels = store.outgoing(node, label) + (store.incoming(node, label) if both else ())
            for rel in rels:
                other = rel.target_identifier if rel.source_identifier == node else rel.source_identifier
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
    return len(seen)


def bench_traversal(
    service: ProgressionService,
    store: GraphStore,
    framework_id: str,
    starts: list[ItemNode],
    caps: dict[str, Any],
    repeat: int,
) -> Case:
    case = Case()
    traversal = ProgressionTraversal(store)
    for _ in range(repeat):
        for item in starts:
            request = TraverseLearningProgressionsRequest.model_validate(
                {"frameworkId": framework_id, "nodeId": item.identifier, **caps}
            )
            labels = tuple(request.link_types or LABEL_ORDER)
            limits = TraversalLimits(request.max_depth, request.max_nodes, request.max_edges)

            def graph(item: ItemNode = item, request: Any = request, labels: Any = labels, limits: Any = limits) -> Any:
                run = traversal.run(item.identifier, labels, request.direction, limits)
                return run, traversal.view(run)

            seconds, (run, _view) = timed(graph)
            case.graph_seconds.append(seconds)
            case.examined.append(len(run.nodes))
            both = request.direction == "both"
            floor, _ = timed(lambda i=item, b=both, n=len(run.nodes): floor_walk(store, i.identifier, b, n))
            case.floor_seconds.append(floor)
            tool, text = timed(
                lambda request=request: canonical_json(service.traverse_learning_progressions(request).to_wire())
            )
            case.tool_seconds.append(tool)
            case.result_chars.append(2 * len(text))
            content = json.loads(text)
            case.reasons.update(content["truncationReasons"] or ["complete"])
    return case


def bench_paths(
    service: ProgressionService,
    store: GraphStore,
    framework_id: str,
    pairs: list[tuple[str, str]],
    caps: dict[str, Any],
    repeat: int,
) -> Case:
    case = Case()
    finder = ProgressionPaths(store)
    for _ in range(repeat):
        for source, target in pairs:
            request = FindLearningProgressionPathsRequest.model_validate(
                {
                    "from": {"frameworkId": framework_id, "nodeId": source},
                    "to": {"frameworkId": framework_id, "nodeId": target},
                    **caps,
                }
            )
            seconds, search = timed(
                lambda request=request, s=source, t=target: finder.find(s, t, request.max_depth, request.max_paths)
            )
            case.graph_seconds.append(seconds)
            case.examined.append(search.nodes_examined + search.admissions)
            tool, text = timed(
                lambda request=request: canonical_json(service.find_learning_progression_paths(request).to_wire())
            )
            case.tool_seconds.append(tool)
            case.result_chars.append(2 * len(text))
            content = json.loads(text)
            case.reasons.update(content["truncationReasons"] or (["complete"] if content["paths"] else ["no_path"]))
    return case


def path_pairs(store: GraphStore, starts: list[ItemNode], depth: int) -> list[tuple[str, str]]:
    """For each start, the farthest standard its buildsTowards links reach within ``depth`` (a path exists)."""
    pairs = []
    traversal = ProgressionTraversal(store)
    for item in starts:
        run = traversal.run(item.identifier, (BUILDS_TOWARDS,), "out", TraversalLimits(depth, 250, 100))
        if len(run.nodes) > 1:
            pairs.append((item.identifier, run.nodes[-1].node_id))
    return pairs


def sample(items: list[ItemNode], count: int) -> list[ItemNode]:
    step = max(1, len(items) // count)
    return items[::step][:count]


def dense_runtime(base: PackageRuntime, size: int, seed: int = 11) -> PackageRuntime:
    """``size`` generated standards, 4 forward buildsTowards and 3 relatesTo links each."""
    rng = random.Random(seed)
    items = []
    for i in range(size):
        uid = stable_uuid(DENSE, "item", str(i))
        items.append(
            ItemNode(
                uid,
                uid,
                f"Dense standard {i} on measurement and data",
                "Standard",
                ("2",),
                True,
                "en",
                statement_code=f"D.{i}",
            )
        )
    relationships: list[RelationshipRecord] = []
    for label in (BUILDS_TOWARDS, RELATES_TO):
        for i in range(size):
            if label == BUILDS_TOWARDS:
                window = range(i + 1, min(size, i + 101))  # forward only: buildsTowards stays a DAG
                targets = sorted(rng.sample(window, min(4, len(window))))
            else:
                targets = sorted(j for j in rng.sample(range(size), 4) if j != i)[:3]
            for j in targets:
                relationships.append(
                    RelationshipRecord(
                        stable_uuid(DENSE, label, str(i), str(j)),
                        label,
                        items[i].identifier,
                        items[j].identifier,
                        "StandardsFrameworkItem",
                        "StandardsFrameworkItem",
                        entity_key_for("StandardsFrameworkItem"),
                        entity_key_for("StandardsFrameworkItem"),
                    )
                )
    return replace(base, items=tuple(items), components=(), relationships=tuple(relationships))


def services_for(catalog: AcceptedCatalog) -> tuple[ProgressionService, dict[str, GraphStore]]:
    stores = {p.graph_package_id: p.store for p in catalog.packages}
    cursors = CursorCodec(catalog.fingerprint, SecretStr(secrets.token_hex(32)))  # cursors of this run only
    return ProgressionService(catalog, StandardsService(catalog, cursors), cursors), stores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=REPOSITORY / "data" / "graph_packages")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--dense-items", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results" / "progressions.json")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "repeat": args.repeat,
        "samples": args.samples,
        "graphs": {},
        "cases": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root
        if not (root / EF).is_dir():
            root = Path(scratch) / "graph_packages"
            build_default_catalog(root, ProfileRepository(SHIPPED_PROFILES_DIR))
        state = build_app_state(
            load_settings(
                {
                    "graph_packages_dir": root,
                    "profiles_dir": SHIPPED_PROFILES_DIR,
                    "prompts_dir": SHIPPED_PROMPTS_DIR,
                }
            )
        )
        graphs: dict[str, tuple[ProgressionService, GraphStore, str, list[ItemNode]]] = {}
        for framework_id in (EF, EI):
            runtime = state.catalog.resolve(framework_id)
            store = runtime.store
            linked = [
                i for i in store.items if any(True for _ in incident_links(store, i.identifier, LABEL_ORDER, "both"))
            ]
            graphs[framework_id] = (state.progressions, store, framework_id, sample(linked, args.samples))
        world = standard_world(Path(scratch) / "dense-world")
        location = world.write(lc_graph(LC))
        PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL).validate(
            location
        )
        base = CatalogLoader(world.packages, world.profiles(), InvalidPackagePolicy.FAIL).load().packages[0]
        started = time.perf_counter()
        server = PackageServer(SizePolicy.defaults(), world.profiles().root)
        dense_catalog = AcceptedCatalog((server.serve(dense_runtime(base.runtime, args.dense_items)),))
        dense_service, dense_stores = services_for(dense_catalog)
        dense_build = time.perf_counter() - started
        dense_store = next(iter(dense_stores.values()))
        graphs[DENSE] = (dense_service, dense_store, LC, sample(list(dense_store.items), args.samples))
        for name, (_, store, _, starts) in graphs.items():
            links = sum(1 for r in store.runtime.relationships if r.label in LABEL_ORDER)
            report["graphs"][name] = {"standards": len(store.items), "progressionLinks": links, "starts": len(starts)}
        report["graphs"][DENSE]["buildSeconds"] = round(dense_build, 2)
        for name, (service, store, framework_id, starts) in graphs.items():
            for caps_name, caps in TRAVERSAL_CAPS.items():
                gc.collect()
                case = bench_traversal(service, store, framework_id, starts, caps, args.repeat)
                report["cases"][f"{name}/traverse/{caps_name}"] = case.report()
                print(f"{name}/traverse/{caps_name}", json.dumps(report["cases"][f"{name}/traverse/{caps_name}"]))
            for caps_name, caps in PATH_CAPS.items():
                depth = 12 if caps_name == "max" else 6
                pairs = path_pairs(store, starts, depth)
                gc.collect()
                case = bench_paths(service, store, framework_id, pairs, caps, args.repeat)
                report["cases"][f"{name}/paths/{caps_name}"] = case.report()
                print(f"{name}/paths/{caps_name}", json.dumps(report["cases"][f"{name}/paths/{caps_name}"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
