"""search_standards latency and recall on Ensino Fundamental, side by side with ``bncc.buscar``.

Run: .venv/bin/python benchmarks/search.py [--root data/graph_packages] [--repeat 3]

The query set is derived from the data: every object of knowledge (objeto de conhecimento) of the
Ensino Fundamental package is a query, and the habilidades under it are its relevant results.
These names are indexed into the habilidades beneath them (as their context), so the recall here
measures the index against itself: this benchmark is for speed. Relevance is measured on queries
that are never indexed into their targets by ``benchmarks/relevance.py``.
Both engines get the same query texts; ``bncc.buscar`` is restricted to etapa EF like our search is
restricted to the EF package. ``bncc.buscar`` ranks habilidades only, so our search is measured twice:
over every item (groupings included) and with ``statementTypes: ["Habilidade"]`` (the like-for-like
comparison). Recall@10 = relevant results in the top 10 / min(10, relevant).
The index engine itself is also measured against the alternative it replaced: the same documents in
tantivy (``kgfegmcp.search.text_index``) and in SQLite FTS5 (``benchmarks/fts5_index.py``), top 10
plus the exact total for every query.
Results go to benchmarks/results/search.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import bncc

from catalog_access import store_of
from fts5_index import TextIndex as Fts5TextIndex
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, load_settings
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.normalize import query_tokens
from kgfegmcp.search.text_index import TextIndex
from kgfegmcp.services.requests import SearchStandardsRequest
from kgfegmcp.sources.default_catalog import build_default_catalog
from percentiles import percentile

FRAMEWORK = "brazil-bncc-ensino-fundamental"
GROUPING_TYPE = "Objeto de conhecimento"


def query_set(state: AppState) -> list[tuple[str, set[str]]]:
    """(object-of-knowledge text, codes of the habilidades under it), in file order."""
    runtime = state.catalog.resolve(FRAMEWORK)
    store = store_of(state, runtime)
    queries: dict[str, set[str]] = {}
    for item in store.items:
        if item.statement_type != GROUPING_TYPE:
            continue
        codes = {
            child.statement_code
            for child in (store.item(c) for c in store.children(item.identifier))
            if isinstance(child, ItemNode) and child.statement_code
        }
        if codes:
            queries.setdefault(item.description, set()).update(codes)
    return sorted(queries.items())


def recall_at_10(found: list[str], relevant: set[str]) -> float:
    return len(set(found[:10]) & relevant) / min(10, len(relevant))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/search.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root
        if not (root / FRAMEWORK).is_dir():
            root = Path(scratch) / "graph_packages"
            build_default_catalog(root, ProfileRepository(SHIPPED_PROFILES_DIR))
        state = build_app_state(load_settings({"graph_packages_dir": root}))
        queries = query_set(state)
        variants: dict[str, list[SearchStandardsRequest]] = {
            name: [
                SearchStandardsRequest.model_validate(
                    {"query": text[:512], "frameworkIds": [FRAMEWORK], "limit": 10, **extra}
                )
                for text, _ in queries
            ]
            for name, extra in (("allItems", {}), ("habilidadesOnly", {"statementTypes": ["Habilidade"]}))
        }
        runtime = state.catalog.resolve(FRAMEWORK)
        store = store_of(state, runtime)
        documents = [
            (
                store.item_order(item.identifier),
                f"{item.statement_code or ''} {item.description}",
                " ".join(p.description for p in (store.item(x) for x in store.parents(item.identifier)) if p),
            )
            for item in store.items
        ]
        analyzer = analyzer_for(runtime.profile.profile.in_language)
        engines = {"engineTantivy": TextIndex.build(documents, analyzer), "engineFts5": Fts5TextIndex(documents)}
        latency: dict[str, list[float]] = {name: [] for name in (*variants, "bnccBuscar", *engines)}
        recall: dict[str, list[float]] = {name: [] for name in latency}
        for round_number in range(args.repeat):
            for index, (text, relevant) in enumerate(queries):
                for name, requests in variants.items():
                    started = time.perf_counter()
                    result = state.standards.search_standards(requests[index])
                    latency[name].append(time.perf_counter() - started)
                    if round_number == 0:
                        codes = [h.statement_code or "" for h in result.hits]
                        recall[name].append(recall_at_10(codes, relevant))
                folded = query_tokens(text[:512])
                for name, engine in engines.items():
                    started = time.perf_counter()
                    if isinstance(engine, TextIndex):  # stems, stop words, strata: what search_standards runs
                        positions = [row.position for row in engine.ranked(analyzer.terms(text[:512]), 10).rows]
                    else:
                        positions = [position for position, _ in engine.ranked(folded, 10)[0]]
                    latency[name].append(time.perf_counter() - started)
                    if round_number == 0:
                        codes = [store.node_at(position).statement_code or "" for position in positions]  # type: ignore[union-attr]
                        recall[name].append(recall_at_10(codes, relevant))
                started = time.perf_counter()
                reference = bncc.buscar(text, etapa="EF")
                latency["bnccBuscar"].append(time.perf_counter() - started)
                if round_number == 0:
                    recall["bnccBuscar"].append(recall_at_10([r["codigo"] for r in reference], relevant))
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "queries": len(queries),
        "roundsPerQuery": args.repeat,
    }
    for name in latency:
        report[name] = {
            "p50Ms": round(percentile(latency[name], 0.5) * 1000, 4),
            "p99Ms": round(percentile(latency[name], 0.99) * 1000, 4),
            "recallAt10": round(statistics.fmean(recall[name]), 4),
        }
    report["engineTantivy"]["speedupP50VsFts5"] = round(
        report["engineFts5"]["p50Ms"] / report["engineTantivy"]["p50Ms"], 1
    )
    for name in variants:
        report[name]["speedupP50VsBuscar"] = round(report["bnccBuscar"]["p50Ms"] / report[name]["p50Ms"], 1)
        report[name]["speedupP99VsBuscar"] = round(report["bnccBuscar"]["p99Ms"] / report[name]["p99Ms"], 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
