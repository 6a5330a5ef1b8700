"""search_standards latency over one generated package, warm, with the requests of ``scale.py``.

Run: PYTHONPATH=src .venv/bin/python benchmarks/search_profile.py --items 1000000 [--vocabulary template]
         [--scratch /tmp/kgfegmcp-scale] [--cache DIR] [--samples 300] [--rounds 1]
         [--record answers.jsonl | --compare answers.jsonl] [--trace] [--fractions] [--cprofile N]
         [--grade-named] [--ab] [--transplant --cache DIR]

It starts the app state once over ``scale.py``'s package of N items in ``--vocabulary`` (``statements``
unless told: ``--scratch/items-N-statements``, its derived-index cache ``--scratch/cache-N-statements``
unless ``--cache`` names another) and times the same requests as ``scale.py``'s ``latency``: --samples
requests, every third the statement code of a random standard, the rest three consecutive words of a
random standard's description, limit 10, the generated framework only; each timed as the service call
plus the canonical JSON text of its answer. Ten requests are sent first as warm-up. ``--grade-named``
adds the standard's grade to each word request ("... grade 2"), so the named grade's tiers are timed.

``--ab`` times each request twice, alternately with the current ranking and with the straightforward
tiered one, every tier searched whole (``tiered_ranked`` and the first counting of code hits, in
``tests/search/text_index_reference.py``), in the same process, and checks both answer alike: on a
machine shared with other work that is the fair comparison.

``--record`` writes every answer's canonical JSON (one line each); ``--compare`` checks that every
answer is byte-identical to a recorded one, so a faster search can be shown to answer the same.
``--trace`` wraps the package's tantivy searcher and reports, per request kind, the searches made and
their time; ``--fractions`` reports what share of the documents each query term matches.

The derived-index cache keys its entries by a fingerprint of the source code, so any edit under
``src/`` makes the scratch cache miss, and a start over it would rebuild (and prune) the entry.
``--transplant`` instead links the scratch entry's files into ``--cache`` (required then) under the
current code's key with a rewritten ledger, leaving the scratch cache untouched. It is only valid
while the edit does not change what is written into an entry (the index format and its contents).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale import FRAMEWORK, package_folders, sampled, search_summaries, settings_for  # noqa: E402
from validate import VOCABULARIES  # noqa: E402


def requests_for(state: Any, samples: int, grade_named: bool = False) -> list[Any]:
    """The search_standards requests of ``scale.latency`` (same seed, same draws, same order); with
    ``grade_named``, each word request also names its standard's grade ("... grade 2"), which ranks
    that grade's items first across every tier."""
    from kgfegmcp.services.requests import SearchStandardsRequest

    picked, searches = sampled(state, samples)
    if not grade_named:
        return searches
    return [
        request
        if number % 3 == 0
        else SearchStandardsRequest.model_validate(
            {"query": f"{request.query} grade {item.grade_level[0]}", "frameworkIds": [FRAMEWORK], "limit": 10}
        )
        for number, (item, request) in enumerate(zip(picked, searches, strict=True))
    ]


class TracingSearcher:
    """Stands in for a tantivy searcher: forwards every call, timing ``search``."""

    def __init__(self, searcher: Any, log: list[tuple[str, float, int]]) -> None:
        self._searcher = searcher
        self._log = log

    def search(self, query: Any, limit: int = 10, count: bool = True, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = self._searcher.search(query, limit, count, *args, **kwargs)
        kind = f"search(limit={limit}, count={count})"
        self._log.append((kind, time.perf_counter() - started, int(getattr(result, "count", 0) or 0)))
        return result

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._searcher, name)
        if not callable(attribute):
            return attribute

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = attribute(*args, **kwargs)
            self._log.append((name, time.perf_counter() - started, 0))
            return result

        return timed


def transplant(source: Path, target: Path) -> None:
    """Serve ``source``'s entries from ``target`` under the current code's key (files hard-linked)."""
    import hashlib
    import os
    import shutil

    from kgfegmcp.derived.cache import LEDGER, derivation_fingerprint

    for ledger_path in sorted(source.glob(f"*/*/*/{LEDGER}")):
        entry = ledger_path.parent
        ledger = json.loads(ledger_path.read_text())
        key = hashlib.sha256(f"{derivation_fingerprint()}:{ledger['manifestSha256']}".encode()).hexdigest()
        destination = target / entry.parent.relative_to(source) / key
        if destination.exists():
            continue
        shutil.copytree(entry, destination, copy_function=os.link, ignore=shutil.ignore_patterns(LEDGER, ".tantivy-*"))
        ledger["derivation"] = derivation_fingerprint()
        (destination / LEDGER).write_text(json.dumps(ledger, indent=1) + "\n", encoding="utf-8")
        print(f"transplanted {entry} -> {destination}", file=sys.stderr)


def ab(call: Any, requests: list[Any], canonical_json: Any) -> dict[str, Any]:
    """Each request timed with the current ranking and the reference one, alternating which goes first."""
    sys.path.insert(0, str(HERE.parent / "tests" / "search"))
    from text_index_reference import reference_coverage_counts, tiered_ranked

    from kgfegmcp.search.text_index import TextIndex

    current = (TextIndex.ranked, TextIndex.coverage_counts)
    reference = (tiered_ranked, reference_coverage_counts)
    seconds: dict[str, list[float]] = {"current": [], "reference": []}
    differing = []
    try:
        for number, request in enumerate(requests):
            answers = {}
            for name in ("current", "reference") if number % 2 else ("reference", "current"):
                TextIndex.ranked, TextIndex.coverage_counts = current if name == "current" else reference  # type: ignore[method-assign,assignment]
                started = time.perf_counter()
                answers[name] = canonical_json(call(request).to_wire())
                seconds[name].append(time.perf_counter() - started)
            if answers["current"] != answers["reference"]:
                differing.append(request.query)
    finally:
        TextIndex.ranked, TextIndex.coverage_counts = current  # type: ignore[method-assign]
    out: dict[str, Any] = {"differing": differing}
    for name, values in seconds.items():
        out[name] = search_summaries(values)
    print(f"a/b: {len(differing)} of {len(requests)} answers differ", file=sys.stderr)
    return out


def fractions(state: Any, requests: list[Any]) -> dict[str, Any]:
    """For each distinct query term: the share of standards documents holding its stem (text or context)."""
    import tantivy

    from kgfegmcp.search.normalize import query_words

    index = state.catalog.resolve(FRAMEWORK).standards_index
    text = index.text
    searcher, schema, documents = text._searcher, text._schema, text.documents
    shares: dict[str, float] = {}
    per_query: list[dict[str, Any]] = []
    for request in requests:
        reading = index.interpreter.interpret(query_words(request.query))
        row = {}
        for term in reading.terms:
            word = term.exact if term.exact_only else term.stem
            if word not in shares:
                query = tantivy.Query.boolean_query(
                    [
                        (tantivy.Occur.Should, tantivy.Query.term_query(schema, field, word))
                        for field in (("text", "context") if term.exact_only else ("text_stems", "context_stems"))
                    ]
                )
                shares[word] = searcher.search(query, 1, count=True).count / documents
            row[word] = round(shares[word], 4)
        clauses = [
            tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Should, tantivy.Query.term_query(schema, f, t.stem))
                    for f in ("text_stems", "context_stems")
                ]
            )
            for t in reading.terms
        ]
        every = tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in clauses])
        anyq = tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])
        per_query.append(
            {
                "query": request.query,
                "terms": row,
                "every": round(searcher.search(every, 1, count=True).count / documents, 4),
                "any": round(searcher.search(anyq, 1, count=True).count / documents, 4),
            }
        )
    return {"documents": documents, "terms": dict(sorted(shares.items(), key=lambda kv: -kv[1])), "queries": per_query}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/kgfegmcp-scale"))
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="statements", help="which generated package")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1, help="time the whole batch this many times")
    parser.add_argument("--record", type=Path)
    parser.add_argument("--compare", type=Path)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--fractions", action="store_true")
    parser.add_argument("--cprofile", type=int, default=0, help="print the top N functions of a profiled round")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--ab", action="store_true", help="time the reference ranking beside the current one")
    parser.add_argument("--grade-named", action="store_true", help="word requests also name their grade")
    parser.add_argument("--transplant", action="store_true", help="link the scratch cache's entries into --cache")
    args = parser.parse_args()
    if args.transplant and not args.cache:
        parser.error("--transplant needs --cache (the scratch cache is never written)")

    from kgfegmcp.bootstrap import build_app_state
    from kgfegmcp.core.models import canonical_json

    folder, scratch_cache = package_folders(args.scratch, args.items, args.vocabulary)
    cache = args.cache or scratch_cache
    if args.transplant:
        transplant(scratch_cache, cache)
    started = time.perf_counter()
    state = build_app_state(settings_for(folder, cache))
    print(f"warm start over {folder} ({cache}): {time.perf_counter() - started:.1f}s", file=sys.stderr)
    requests = requests_for(state, args.samples, args.grade_named)
    call = state.standards.search_standards
    report: dict[str, Any] = {"items": args.items, "vocabulary": args.vocabulary, "samples": args.samples}
    if args.grade_named:
        report["gradeNamed"] = True

    for request in requests[:10]:  # warm-up, as scale.py does
        canonical_json(call(request).to_wire())

    answers = [canonical_json(call(request).to_wire()) for request in requests]
    if args.record:
        args.record.write_text("".join(a + "\n" for a in answers))
    if args.compare:
        recorded = args.compare.read_text().splitlines()
        differing = [r.query for r, a, b in zip(requests, answers, recorded, strict=True) if a != b]
        report["compare"] = {"answers": len(answers), "differing": len(differing), "first": differing[:5]}
        print(f"compare: {len(differing)} of {len(answers)} answers differ {differing[:5]}", file=sys.stderr)

    rounds = []
    for _ in range(args.rounds):
        seconds = []
        for request in requests:
            started = time.perf_counter()
            canonical_json(call(request).to_wire())
            seconds.append(time.perf_counter() - started)
        rounds.append(search_summaries(seconds))
    report["rounds"] = rounds

    if args.ab:
        report["ab"] = ab(call, requests, canonical_json)

    if args.trace:
        index = state.catalog.resolve(FRAMEWORK).standards_index
        text = index.text
        log: list[tuple[str, float, int]] = []
        original = text._searcher
        text._searcher = TracingSearcher(original, log)
        kinds: dict[str, dict[str, Any]] = {}
        try:
            for number, request in enumerate(requests):
                del log[:]
                canonical_json(call(request).to_wire())
                kind = kinds.setdefault("code" if number % 3 == 0 else "text", {"requests": 0, "calls": {}})
                kind["requests"] += 1
                for name, seconds_, matched in log:
                    entry = kind["calls"].setdefault(name, {"calls": 0, "ms": 0.0, "matched": 0})
                    entry["calls"] += 1
                    entry["ms"] += seconds_ * 1000
                    entry["matched"] += matched
        finally:
            text._searcher = original
        for kind in kinds.values():
            for entry in kind["calls"].values():
                entry["msPerCall"] = round(entry["ms"] / entry["calls"], 3)
                entry["matchedPerCall"] = round(entry["matched"] / entry["calls"])
                entry["callsPerRequest"] = round(entry["calls"] / kind["requests"], 3)
                entry["ms"] = round(entry["ms"], 1)
                del entry["matched"]
        report["trace"] = kinds

    if args.cprofile:
        profiler = cProfile.Profile()
        profiler.enable()
        for request in requests:
            canonical_json(call(request).to_wire())
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(args.cprofile)

    if args.fractions:
        report["fractions"] = fractions(state, requests)

    text_out = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text_out + "\n")
    print(
        text_out if not args.fractions else json.dumps({k: v for k, v in report.items() if k != "fractions"}, indent=2)
    )
    if args.fractions:
        shares = report["fractions"]
        print(
            json.dumps({"documents": shares["documents"], "terms": dict(list(shares["terms"].items())[:40])}, indent=2)
        )


if __name__ == "__main__":
    main()
