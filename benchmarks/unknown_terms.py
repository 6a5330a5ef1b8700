"""What naming the query words a package never uses (``unknownTerms``) costs a search_standards call.

Run: .venv/bin/python benchmarks/unknown_terms.py [--root data/graph_packages] [--repeat 8]

The queries are the names of every objeto de conhecimento of Ensino Fundamental (as in
``benchmarks/search.py``), searched twice: in that package alone, and in every current package of
the catalog (five packages, two languages, so most words are unknown somewhere). Each query runs
with the lookup (``TextIndex.absent``: one document-frequency read per term and field) and without
it (the method replaced by one that finds nothing, which is the search as it was before), the two
interleaved per round (alternating which runs first) so both see the same machine state, and the
lookups alone are timed too. Reported: the median time of one call over all queries, per round, the
ratio with/without, and the lookups' own time per call.
Results go to benchmarks/results/unknown_terms.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.search.analysis import Term
from kgfegmcp.search.normalize import query_words
from kgfegmcp.search.text_index import TextIndex
from kgfegmcp.services.requests import SearchStandardsRequest

FRAMEWORK = "brazil-bncc-ensino-fundamental"
GROUPING_TYPE = "Objeto de conhecimento"
RESULTS = Path(__file__).parent / "results" / "unknown_terms.json"


def _nothing_absent(self: TextIndex, terms: Sequence[Term]) -> tuple[str, ...]:
    return ()


def _per_call(run: Callable[[], None], calls: int) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) / calls * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="data/graph_packages")
    parser.add_argument("--repeat", type=int, default=8)
    args = parser.parse_args()
    settings = load_settings({"graph_packages_dir": Path(args.root)})
    state = build_app_state(settings)
    package = state.catalog.resolve(FRAMEWORK)
    queries = sorted({item.description for item in package.store.items if item.statement_type == GROUPING_TYPE})
    service = state.standards
    scopes: dict[str, list[str] | None] = {"ensino-fundamental": [FRAMEWORK], "every-current-package": None}
    requests = {
        scope: [
            SearchStandardsRequest.model_validate({"query": q, **({"frameworkIds": ids} if ids else {}), "limit": 10})
            for q in queries
        ]
        for scope, ids in scopes.items()
    }
    with_lookup = TextIndex.absent
    unknown_seen = sum(
        len(reading.unknown_terms or ())
        for request in requests["every-current-package"]
        for reading in service.search_standards(request).interpretation
    )

    def run_all(scope: str) -> Callable[[], None]:
        return lambda: [service.search_standards(request) for request in requests[scope]] and None

    report: dict[str, Any] = {
        "queries": len(queries),
        "unknown_terms_reported_every_package": unknown_seen,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "scopes": {},
    }
    for scope in scopes:
        run_all(scope)()  # warm both paths once
        before: list[float] = []
        after: list[float] = []
        for round_ in range(args.repeat):
            # Alternate which path runs first, so neither always meets the warmer caches.
            for lookup in (False, True) if round_ % 2 == 0 else (True, False):
                TextIndex.absent = with_lookup if lookup else _nothing_absent  # type: ignore[method-assign]
                (after if lookup else before).append(_per_call(run_all(scope), len(queries)))
        TextIndex.absent = with_lookup  # type: ignore[method-assign]
        # The lookups alone: every package's reading of every query, then its absent terms.
        indexes = [p.standards_index for p in state.catalog.select(scopes[scope], None)]
        readings = [
            (index.text, index.interpreter.interpret(query_words(q)).terms) for q in queries for index in indexes
        ]

        def lookup_all(readings: list[tuple[TextIndex | None, tuple[Term, ...]]] = readings) -> None:
            for text, terms in readings:
                if text is not None:
                    text.absent(terms)

        lookups = statistics.median(_per_call(lookup_all, len(queries)) for _ in range(args.repeat))
        median_before, median_after = statistics.median(before), statistics.median(after)
        report["scopes"][scope] = {
            "without_lookup_ms_per_call": round(median_before, 3),
            "with_lookup_ms_per_call": round(median_after, 3),
            "ratio": round(median_after / median_before, 3),
            "lookups_alone_ms_per_call": round(lookups, 4),
        }
        print(
            f"{scope}: {median_before:.3f} ms -> {median_after:.3f} ms per call "
            f"(x{median_after / median_before:.3f}, {len(queries)} queries, median of {args.repeat} rounds); "
            f"the lookups alone {lookups:.4f} ms per call"
        )
    print(f"unknown terms reported over every package: {unknown_seen}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
