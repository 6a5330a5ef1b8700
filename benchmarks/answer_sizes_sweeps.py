"""The size bounds over many requests, not one (``answer_sizes.py --sweep``): every teacher query through
``search_standards``, and a traversal at the default caps from every Ensino Fundamental standard."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from fastmcp import Client

from answer_sizes_calls import EF
from answer_sizes_measure import measure, size
from catalog_access import store_of

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY_ROOT / "tests"))
from host_views import PackageFacts  # noqa: E402

TEACHER_QUERIES = REPOSITORY_ROOT / "benchmarks" / "queries" / "teacher_queries.json"
SEARCH_BOUND, SEARCH_TEXT_BOUND = 6_000, 2_500


def lean_bounds(view: str, statements: int) -> int:
    """The most a view may spend beyond its statements and attributions: 150 B a statement + 600 B in the
    text, 250 B + 1,200 B in the structured content."""
    return 150 * statements + 600 if view == "text" else 250 * statements + 1_200


def _quantiles(values: list[int]) -> dict[str, int]:
    ordered = sorted(values)
    return {
        "median": ordered[len(ordered) // 2],
        "p90": ordered[min(len(ordered) - 1, (len(ordered) * 9) // 10)],
        "max": ordered[-1],
    }


async def sweep_search(client: Client[Any], facts: dict[str, PackageFacts]) -> dict[str, Any]:
    """Every teacher query at ``limit`` 10, in its own framework and over every package: total and text
    bytes against the 6 KB / 2.5 KB bounds, and, for answers over 6 KB, the bytes of the statement texts
    alone (``description`` values as JSON strings) and of everything else; and each view's bytes beyond
    its statements and attributions against the leanness bounds (:func:`lean_bounds`)."""
    queries = json.loads(TEACHER_QUERIES.read_text(encoding="utf-8"))
    slices: dict[str, dict[str, Any]] = {}
    for slice_name, scoped in (("own framework", True), ("every package", False)):
        totals, texts, over = [], [], []
        beyond: dict[str, list[int]] = {"text": [], "structured": []}
        over_lean: dict[str, list[dict[str, Any]]] = {"text": [], "structured": []}
        ten_hit = 0
        for query in queries:
            request: dict[str, Any] = {"query": query["query"], "limit": 10}
            if scoped:
                request["frameworkIds"] = [query["frameworkId"]]
            result = await client.call_tool_mcp("search_standards", {"request": request})
            entry = measure("sweep", "search_standards", request, result, facts)
            structured = result.model_dump(mode="json", by_alias=True, exclude_none=True).get("structuredContent")
            statements = sum(size(hit["description"]) for hit in (structured or {}).get("hits", []))
            views = entry.get("views") or {}
            if views and views["statements"] == 10:  # the bound is stated for a 10-hit search
                ten_hit += 1
            for view in ("text", "structured"):
                if views:
                    spent, bound = views[view]["overhead"], lean_bounds(view, views["statements"])
                    beyond[view].append(spent)
                    if spent > bound and views["statements"] == 10:
                        packages = len((structured or {}).get("packages", []))
                        over_lean[view].append(
                            {"query": query["query"], "beyond": spent, "bound": bound, "packages": packages}
                        )
            totals.append(entry["bytes"]["total"])
            texts.append(entry["bytes"]["text"])
            if entry["bytes"]["total"] > SEARCH_BOUND:
                over.append(
                    {
                        "query": query["query"],
                        "total": entry["bytes"]["total"],
                        "statementTexts": statements,
                        "rest": entry["bytes"]["total"] - statements,
                    }
                )
        slices[slice_name] = {
            "answers": len(totals),
            "total": _quantiles(totals),
            "text": _quantiles(texts),
            "over6KB": len(over),
            "textOver2500": sum(1 for t in texts if t > SEARCH_TEXT_BOUND),
            "overAnswers": sorted(over, key=lambda o: -o["total"]),
            "beyond": {view: _quantiles(values) for view, values in beyond.items() if values},
            "tenHitAnswers": ten_hit,
            "overLeanBound": {view: sorted(o, key=lambda e: -e["beyond"]) for view, o in over_lean.items()},
        }
    return slices


async def sweep_traversals(client: Client[Any], state: Any) -> dict[str, Any]:
    """A traversal at the default caps from every Ensino Fundamental standard, each direction: how many
    stop at ``byte_limit`` and with how many links, against the goal of 100 links under the ceiling."""
    package = state.catalog.resolve(EF)
    store = store_of(state, package)
    report: dict[str, Any] = {}
    for direction in ("out", "in", "both"):
        stops: Counter[str] = Counter()
        cut: list[int] = []
        for item in store.items:
            request = {"frameworkId": EF, "nodeId": item.identifier, "direction": direction}
            result = await client.call_tool_mcp("traverse_learning_progressions", {"request": request})
            structured = result.model_dump(mode="json", by_alias=True, exclude_none=True).get("structuredContent") or {}
            reasons = structured.get("truncationReasons", [])
            stops[",".join(reasons) or "complete"] += 1
            if "byte_limit" in reasons:
                cut.append(structured["counters"]["edgesReturned"])
        report[direction] = {
            "starts": len(store.items),
            "stops": dict(sorted(stops.items())),
            "byteLimitLinksReturned": sorted(cut),
        }
    return report
