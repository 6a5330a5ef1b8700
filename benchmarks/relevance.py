"""search_standards relevance on queries that are never indexed into their targets, beside ``bncc.buscar``.

Run:
    .venv/bin/python benchmarks/relevance.py [--root data/graph_packages] [--repeat 3]
        [--analysis lemmas|snowball|folded] [--out benchmarks/results/relevance.json]
        [--only teacher|components|requests] [--label TEXT]
    .venv/bin/python benchmarks/relevance.py --only requests --root /tmp/catalog \
        --out benchmarks/results/relevance_requests_2026-12-05.json
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/relevance.py --out /tmp/rel_before.json

``--only components`` runs the two data-derived sets (Mapa de Foco components and CCSS anchors).
``--only requests`` runs the request set alone (it is never part of the default run, whose output stays
as it was); its root must hold every framework it names (``kgfegmcp catalog init`` builds all nine).

``benchmarks/search.py`` uses object-of-knowledge names as queries, and those names are indexed into the
habilidades beneath them (the context column of ``search/package_indexes.py``), so its recall measures
the index against itself. Every query here comes from text that no standards document contains:

* **teacher** (``benchmarks/queries/teacher_queries.json``): short queries written by hand the way a
  teacher types them, in our own words (never a statement's wording), some with a grade ("5 ano",
  "3rd grade"), some without accents, with other plurals and word forms than the statements, or topic
  words no statement uses. Gold codes were chosen by reading the habilidades/standards: every code a
  teacher would accept. Portuguese over Ensino Fundamental and Ensino Médio, English over CCSS ELA 2-4.
  ``validate_teacher`` checks every entry (fields, language, gold codes exist as statement-level items)
  and that no query is the text of an indexed item.
* **requests** (``benchmarks/queries/teacher_requests.json``): requests written by hand the way a
  teacher writes to an assistant, each with a ``kind``: ``colloquial`` (everyday wording, complaints
  about a class: "meus alunos do 3º ano não sabem ler horas no relógio de ponteiro"), ``task`` (how to
  teach, activity, lesson plan: "como ensinar a tabuada para o 3º ano"), ``misspelt`` (missing accents
  or cedillas, typos: "fraçoes equivalentes", "subject verb agreemnt") and ``multi-concept`` (several
  topics in one request). Portuguese over Ensino Fundamental and Médio, English over CCSS ELA 2-4 and
  ACARA v9 Mathematics, a few Japanese over MEXT elementary. Gold chosen the same way as the teacher
  set's, checked by the same validation (plus ``kind``). Results add slices per kind and per language
  and the worst requests with our whole first page.
* **components**: each distinct Mapa de Foco learning-component text of a package (today only Ensino
  Fundamental has components; Ensino Médio, Computação and CCSS have none) is a query; the habilidades
  it ``supports`` are its gold set (duplicate texts are one query with the union of their codes).
  Component text lives only in the separate component index (``PackageTextIndexes.components``); the
  standards index holds each item's code and text plus the names of its direct parents, never a
  component's text. About 50 components (nearly all História) reuse the exact text of *another*
  habilidade; that verbatim item is dropped from the ranking (``excluded``), so it is neither a hit nor
  a miss.
* **anchors** (CCSS, derived): the CCSS package has no learning components and no cross-links, only
  ``hasChild``. Its College and Career Readiness anchor standards (CCR.R.n, CCR.W.n, CCR.SL.n, CCR.L.n)
  correspond by number to the grade-specific standards (R → RL.g.n and RI.g.n; W, SL, L → W/SL/L.g.n),
  which sit under other strands: the anchor's text is indexed for the anchor only, never into the
  grade standards. Each anchor text is a query, its grade 2-4 standards (not their lettered
  components) the gold, and the anchor itself is excluded from the ranking. The set is abstract and
  long-worded; the hand-written set carries the English teacher view.

Queries over the server's limits (512 characters, 32 distinct normalised words) are cut at the last
word that fits, and the same cut text goes to every engine.

Engines, called on the same queries in the same run (interleaved, ``--repeat`` rounds, ranking from
round one): our search the way the ``search_standards`` tool calls it, in process through the service
layer with a ``SearchStandardsRequest`` (``frameworkIds`` = the query's framework), (a) with no filter
and (b) with ``statementTypes`` = the framework's statement-level types from its profile (role
``standard``: ``habilidade`` for BNCC, ``standard`` and ``component`` for CCSS); and
``bncc.buscar(texto, etapa="EF"|"EM")`` (BNCC only: English slices have no peer, shown "n/a").
Metrics at 10, binary relevance on statement codes (hits without a code, i.e. groupings, count as
non-relevant): recall@1 (the first hit is gold), recall@10 (gold in top 10 / min(10, |gold|)),
success@10 (any gold in the top 10), MRR@10 and nDCG@10. Each query also has a ``lexicalOverlap``:
the share of its words (4+ letters, folded) found verbatim in some gold item's indexed text (its own
text and its parents' names); 0 is a vocabulary gap (no stemming or synonym, no match), 1 means a miss
is the ranking's. Results (per slice and, for components, per subject; per query with our top-10 codes;
latency p50/p99; the worst teacher queries) go to ``--out``; a compact table goes to stdout. The
checkout whose code ran is recorded (``PYTHONPATH`` may point at another).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import re
import statistics
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import bncc

import analysis_alternatives
import kgfegmcp
from catalog_access import store_of
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.limits import MAX_QUERY_TOKENS, TEXT_QUERY_CHARS
from kgfegmcp.packages.records import SUPPORTS
from kgfegmcp.services.requests import SearchStandardsRequest
from percentiles import percentile

TEACHER_FILE = Path(__file__).parent / "queries" / "teacher_queries.json"
REQUESTS_FILE = Path(__file__).parent / "queries" / "teacher_requests.json"
#: The kinds of the request set, in report order.
REQUEST_KINDS = ("colloquial", "task", "misspelt", "multi-concept")
#: Short stage labels of the frameworks the sets cover; any other framework is labelled by its id.
STAGES = {
    "brazil-bncc-ensino-fundamental": "EF",
    "brazil-bncc-ensino-medio": "EM",
    "us-ccss-ela-literacy-grades-2-4": "ELA 2-4",
    "japan-mext-course-of-study-elementary": "小学校",
    "japan-mext-course-of-study-lower-secondary": "中学校",
    "australia-acara-v9-mathematics": "AC9 Maths",
}
#: ``bncc.buscar`` etapa per framework; frameworks not listed have no peer.
BNCC_ETAPA = {"brazil-bncc-ensino-fundamental": "EF", "brazil-bncc-ensino-medio": "EM"}
K = 10
OURS, OURS_TYPED, PEER = "ours", "oursStatementTypes", "bnccBuscar"
ENGINES = (OURS, OURS_TYPED, PEER)
METRICS = ("recallAt1", "recallAt10", "successAt10", "mrrAt10", "ndcgAt10")
_WORD = re.compile(r"\w+")
_ANCHOR = re.compile(r"^CCR\.(R|W|SL|L)\.(\d+)$")


def our_codes(result: Any) -> list[str]:
    """Statement codes of a ``search_standards`` result, in rank order ("" for a hit without a code).

    The one place that knows the result's shape: it reads the canonical JSON, where a hit's code is
    ``statementCode`` on the hit itself or on its ``standard``.
    """
    data = result.model_dump(mode="json", by_alias=True) if hasattr(result, "model_dump") else result
    codes = []
    for hit in data["hits"]:
        standard = hit.get("standard") if isinstance(hit.get("standard"), dict) else hit
        codes.append(standard.get("statementCode") or "")
    return codes


def fold_words(text: str) -> list[str]:
    """Case- and accent-folded word tokens (the server's normalisation, kept here so the set stays fixed)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _WORD.findall("".join(c for c in decomposed if not unicodedata.combining(c)))


def fit_query(text: str) -> str:
    """The longest word prefix of ``text`` within the server's query limits."""
    words = text.split()
    while words and (
        len(" ".join(words)) > TEXT_QUERY_CHARS.max or len(set(fold_words(" ".join(words)))) > MAX_QUERY_TOKENS
    ):
        words.pop()
    return " ".join(words)


@dataclass
class Query:
    """One query with its gold codes; ``excluded`` codes are dropped from every ranking."""

    id: str
    query_set: str
    framework_id: str
    language: str
    text: str
    gold: frozenset[str]
    excluded: frozenset[str] = frozenset()
    excluded_items: int = 0
    subject: str | None = None
    kind: str | None = None
    overlap: float = 0.0
    truncated: bool = False
    note: str | None = None
    ranked: dict[str, list[str]] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    @property
    def slice(self) -> str:
        return f"{self.language} · {STAGES.get(self.framework_id, self.framework_id)} · {self.query_set}"


class Catalog:
    """What the sets need from the accepted catalog: codes, indexed text and profile facts per framework."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.codes: dict[str, set[str]] = {}
        self.statement_codes: dict[str, set[str]] = {}
        self.indexed_words: dict[str, dict[str, set[str]]] = {}
        self.text_codes: dict[str, dict[str, list[str]]] = {}
        self.statement_types: dict[str, list[str]] = {}
        self.language: dict[str, str] = {}
        for runtime in state.catalog.packages:
            fid = runtime.framework_id
            store = store_of(state, runtime)
            profile = runtime.profile.profile
            roles = {rule.source_type: rule.role for rule in profile.statement_types}
            self.statement_types[fid] = [rule.normalized for rule in profile.statement_types if rule.role == "standard"]
            self.language[fid] = profile.in_language
            self.codes[fid] = {i.statement_code for i in store.items if i.statement_code}
            self.statement_codes[fid] = {
                i.statement_code for i in store.items if i.statement_code and roles.get(i.statement_type) == "standard"
            }
            words: dict[str, set[str]] = {}
            texts: dict[str, list[str]] = {}
            for item in store.items:
                texts.setdefault(" ".join(fold_words(item.description)), []).append(item.statement_code or "")
                if item.statement_code:
                    parents = " ".join(
                        p.description for p in (store.item(x) for x in store.parents(item.identifier)) if p
                    )
                    words.setdefault(item.statement_code, set()).update(fold_words(f"{item.description} {parents}"))
            self.indexed_words[fid] = words
            self.text_codes[fid] = texts
        self._descriptions: dict[str, dict[str, str]] = {}

    def first_words(self, fid: str, count: int) -> dict[str, str]:
        """The first ``count`` words (at most ``9 * count`` characters) of each coded item's text (printed only)."""
        if fid not in self._descriptions:
            runtime = next(r for r in self.state.catalog.packages if r.framework_id == fid)
            found: dict[str, str] = {}
            for item in store_of(self.state, runtime).items:
                if item.statement_code:
                    found.setdefault(item.statement_code, item.description)
            self._descriptions[fid] = found
        return {code: " ".join(text.split()[:count])[: 9 * count] for code, text in self._descriptions[fid].items()}

    def make(self, qid: str, query_set: str, fid: str, text: str, gold: Iterable[str], **extra: Any) -> Query:
        """A query with its exclusions (indexed items whose text is the query's) and its lexical overlap."""
        fitted = fit_query(text)
        gold = frozenset(gold)
        verbatim = self.text_codes[fid].get(" ".join(fold_words(text)), [])
        excluded = frozenset(c for c in verbatim if c and c not in gold)
        words = [w for w in dict.fromkeys(fold_words(fitted)) if len(w) >= 4 and not w.isdigit()]
        indexed = set().union(*(self.indexed_words[fid].get(c, set()) for c in gold))
        overlap = sum(w in indexed for w in words) / len(words) if words else 0.0
        return Query(
            qid,
            query_set,
            fid,
            self.language[fid].split("-")[0],
            fitted,
            gold,
            excluded,
            sum(1 for c in verbatim if c in excluded),
            overlap=overlap,
            truncated=fitted != text.strip(),
            **extra,
        )


def validate_teacher(
    entries: list[dict[str, Any]], catalog: Catalog, kinds: tuple[str, ...] = (), name: str = TEACHER_FILE.name
) -> None:
    """Every entry well formed, every gold code a statement-level item of its framework, no query verbatim.

    With ``kinds`` (the request set) every entry also carries a ``kind`` among them.
    """
    problems = []
    seen: set[str] = set()
    required = {"id", "language", "frameworkId", "query", "gold"} | ({"kind"} if kinds else set())
    for number, entry in enumerate(entries):
        where = f"entry {number} ({entry.get('id', '?')})"
        missing = required - entry.keys()
        extra = entry.keys() - required - {"note"}
        if missing or extra:
            problems.append(f"{where}: missing {sorted(missing)}, unexpected {sorted(extra)}")
            continue
        if kinds and entry["kind"] not in kinds:
            problems.append(f"{where}: kind {entry['kind']!r} is not one of {list(kinds)}")
        if entry["id"] in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(entry["id"])
        fid = entry["frameworkId"]
        if fid not in catalog.codes:
            problems.append(f"{where}: framework {fid!r} is not in the catalog")
            continue
        if entry["language"] != catalog.language[fid]:
            problems.append(f"{where}: language {entry['language']!r}, the framework's is {catalog.language[fid]!r}")
        if not entry["gold"] or len(set(entry["gold"])) != len(entry["gold"]):
            problems.append(f"{where}: gold must be non-empty and distinct")
        for code in entry["gold"]:
            if code not in catalog.codes[fid]:
                problems.append(f"{where}: gold code {code!r} does not exist in {fid}")
            elif code not in catalog.statement_codes[fid]:
                problems.append(f"{where}: gold code {code!r} is not a statement-level item")
        if " ".join(fold_words(entry["query"])) in catalog.text_codes[fid]:
            problems.append(f"{where}: the query is the text of an indexed item")
        if fit_query(entry["query"]) != entry["query"].strip():
            problems.append(f"{where}: the query exceeds the server's limits")
    if problems:
        raise SystemExit(f"{name} is invalid:\n  " + "\n  ".join(problems))


def teacher_queries(catalog: Catalog) -> list[Query]:
    entries = json.loads(TEACHER_FILE.read_text(encoding="utf-8"))
    validate_teacher(entries, catalog)
    return [
        catalog.make(e["id"], "teacher", e["frameworkId"], e["query"], e["gold"], note=e.get("note")) for e in entries
    ]


def request_queries(catalog: Catalog) -> list[Query]:
    entries = json.loads(REQUESTS_FILE.read_text(encoding="utf-8"))
    validate_teacher(entries, catalog, REQUEST_KINDS, REQUESTS_FILE.name)
    return [
        catalog.make(e["id"], "requests", e["frameworkId"], e["query"], e["gold"], kind=e["kind"], note=e.get("note"))
        for e in entries
    ]


def component_queries(catalog: Catalog) -> list[Query]:
    """Each distinct component text of each package with components; gold: the habilidades it supports."""
    queries = []
    for runtime in catalog.state.catalog.packages:
        store = store_of(catalog.state, runtime)
        gold: dict[str, set[str]] = {}
        subject: dict[str, str | None] = {}
        for component in store.components:
            targets = (store.item(r.target_identifier) for r in store.outgoing(component.identifier, SUPPORTS))
            codes = {t.statement_code for t in targets if t is not None and t.statement_code}
            if codes:
                gold.setdefault(component.description, set()).update(codes)
                subject.setdefault(component.description, component.academic_subject)
        stage = STAGES.get(runtime.framework_id, runtime.framework_id).lower()
        for number, (text, codes) in enumerate(gold.items(), 1):
            queries.append(
                catalog.make(
                    f"mf-{stage}-{number:04d}", "components", runtime.framework_id, text, codes, subject=subject[text]
                )
            )
    return queries


def anchor_queries(catalog: Catalog) -> list[Query]:
    """Each CCSS anchor text; gold: the grade-specific standards of the same strand family and number."""
    queries = []
    for runtime in catalog.state.catalog.packages:
        fid = runtime.framework_id
        codes = catalog.statement_codes[fid]
        seen: set[str] = set()
        for item in store_of(catalog.state, runtime).items:
            match = _ANCHOR.match(item.statement_code or "")
            if not match or item.statement_code in seen:
                continue
            seen.add(item.statement_code)  # type: ignore[arg-type]
            strands = ("RL", "RI") if match[1] == "R" else (match[1],)
            pattern = re.compile(rf"^({'|'.join(strands)})\.\d+\.{match[2]}$")
            gold = sorted(c for c in codes if pattern.match(c))
            if gold:
                queries.append(catalog.make(f"anchor-{item.statement_code}", "anchors", fid, item.description, gold))
    return queries


def metrics(ranked: list[str], gold: frozenset[str]) -> dict[str, float]:
    """Binary-relevance metrics at 10 of one ranking (codes, "" for hits without a code).

    A gold code counts at its first place only (CCSS repeats each anchor code once per grade).
    """
    top = ranked[:K]
    relevant = [code in gold and code not in top[:i] for i, code in enumerate(top)]
    first = next((i for i, r in enumerate(relevant) if r), None)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(K, len(gold))))
    return {
        "recallAt1": float(bool(relevant[:1] and relevant[0])),
        "recallAt10": sum(relevant) / min(K, len(gold)),
        "successAt10": float(first is not None),
        "mrrAt10": 0.0 if first is None else 1 / (first + 1),
        "ndcgAt10": sum(1 / math.log2(i + 2) for i, r in enumerate(relevant) if r) / ideal,
    }


def clean(codes: list[str], excluded: frozenset[str]) -> list[str]:
    """The first 10 places once the excluded codes are dropped ("" marks a hit without a code)."""
    return [code for code in codes if code not in excluded][:K]


def engines_for(query: Query, catalog: Catalog) -> dict[str, Callable[[], Any]]:
    """The calls for one query: ours (unfiltered and statement-typed) and, for BNCC, ``bncc.buscar``."""
    limit = min(100, K + query.excluded_items)
    base = {"query": query.text, "frameworkIds": [query.framework_id], "limit": limit}
    plain = SearchStandardsRequest.model_validate(base)
    typed = SearchStandardsRequest.model_validate(
        {**base, "statementTypes": catalog.statement_types[query.framework_id]}
    )
    search = catalog.state.standards.search_standards
    calls: dict[str, Callable[[], Any]] = {OURS: lambda: search(plain), OURS_TYPED: lambda: search(typed)}
    etapa = BNCC_ETAPA.get(query.framework_id)
    if etapa is not None:
        calls[PEER] = lambda: bncc.buscar(query.text, etapa=etapa)
    return calls


def extract(engine: str, result: Any) -> list[str]:
    return [r["codigo"] for r in result] if engine == PEER else our_codes(result)


def run(queries: list[Query], catalog: Catalog, repeat: int) -> None:
    """Rank every query with every engine (round one) and time every call; rounds rotate the engine order."""
    calls = [engines_for(q, catalog) for q in queries]
    for query_calls in calls[:: max(1, len(calls) // 25)]:  # warm-up: first-call costs (bncc loads its index)
        for call in query_calls.values():
            call()
    for round_number in range(repeat):
        for query, query_calls in zip(queries, calls, strict=True):
            names = list(query_calls)
            names = names[round_number % len(names) :] + names[: round_number % len(names)]
            for name in names:
                started = time.perf_counter()
                result = query_calls[name]()
                query.seconds.setdefault(name, []).append(time.perf_counter() - started)
                if round_number == 0:
                    query.ranked[name] = clean(extract(name, result), query.excluded)


def summarise(queries: list[Query], engine: str) -> dict[str, float] | None:
    """Mean metrics of ``engine`` over ``queries``; None unless it answered every one (no partial peer)."""
    if not queries or any(engine not in q.ranked for q in queries):
        return None
    scored = [metrics(q.ranked[engine], q.gold) for q in queries]
    return {m: round(statistics.fmean(s[m] for s in scored), 4) for m in METRICS}


def latency(queries: list[Query]) -> dict[str, Any]:
    """p50/p99 per engine over every timed call of ``queries`` (engines that answered all of them)."""
    found: dict[str, Any] = {}
    for engine in ENGINES:
        if not queries or any(engine not in q.seconds for q in queries):
            continue
        values = [t for q in queries for t in q.seconds[engine]]
        found[engine] = {
            "calls": len(values),
            "p50Ms": round(percentile(values, 0.5) * 1000, 3),
            "p99Ms": round(percentile(values, 0.99) * 1000, 3),
        }
    if PEER in found:
        for engine in (OURS, OURS_TYPED):
            found[engine]["p50SpeedupVsBuscar"] = round(found[PEER]["p50Ms"] / found[engine]["p50Ms"], 1)
    return found


def slices(queries: list[Query]) -> dict[str, list[Query]]:
    """Per language x stage x set, then the aggregates that differ from every slice before them."""
    groups: dict[str, list[Query]] = {}
    for query in queries:
        groups.setdefault(query.slice, []).append(query)
    teacher = [q for q in queries if q.query_set == "teacher"]
    # The request set's own aggregates come first (it runs alone, so the sets' mixed ones would repeat them).
    requests = [q for q in queries if q.query_set == "requests"]
    aggregates = {f"all · requests · {kind}": [q for q in requests if q.kind == kind] for kind in REQUEST_KINDS}
    for language in dict.fromkeys(q.language for q in requests):
        aggregates[f"{language} · requests"] = [q for q in requests if q.language == language]
    aggregates["all · requests"] = requests
    aggregates |= {
        "pt · EF+EM · teacher": [q for q in teacher if q.framework_id in BNCC_ETAPA],
        "all · teacher": teacher,
        "all · BNCC (teacher + components)": [q for q in queries if q.framework_id in BNCC_ETAPA],
        "all queries": queries,
    }
    for name, members in aggregates.items():
        if members and all({q.id for q in members} != {q.id for q in g} for g in groups.values()):
            groups[name] = members
    return groups


def per_query(query: Query) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": query.id,
        "slice": query.slice,
        # Only our own words are written out: the data-derived sets' texts are the publishers' curriculum
        # text, which the results must not copy (the id and the package name it).
        **({"query": query.text} if query.query_set in ("teacher", "requests") else {}),
        "gold": sorted(query.gold),
        "lexicalOverlap": round(query.overlap, 3),
    }
    optional = (
        ("excluded", sorted(query.excluded)),
        ("subject", query.subject),
        ("kind", query.kind),
        ("note", query.note),
    )
    for key, value in optional:
        if value:
            record[key] = value
    if query.truncated:
        record["truncated"] = True
    for engine in ENGINES:
        if engine not in query.ranked:
            continue
        ranked = query.ranked[engine]
        found = metrics(ranked, query.gold)
        first = next((i + 1 for i, c in enumerate(ranked) if c in query.gold), None)
        entry: dict[str, Any] = {"hit": bool(found["successAt10"]), "firstGoldRank": first}
        if engine == OURS or query.query_set != "components":  # keeps the 1,300 component rows short
            entry["top10"] = ranked
        record[engine] = entry
    return record


def worst_requests(queries: list[Query], count: int = 10) -> list[dict[str, Any]]:
    """The ``count`` worst requests (ours): lowest MRR@10, then R@10, then highest lexical overlap first.

    Only codes are written (never the statements' text); ``print_worst_requests`` shows a few words of each.
    """
    requests = [q for q in queries if q.query_set == "requests"]

    def key(query: Query) -> tuple[float, float, float, str]:
        found = metrics(query.ranked[OURS], query.gold)
        return found["mrrAt10"], found["recallAt10"], -query.overlap, query.id

    rows = []
    for query in sorted(requests, key=key)[:count]:
        found = metrics(query.ranked[OURS], query.gold)
        rows.append(
            {
                "id": query.id,
                "kind": query.kind,
                "frameworkId": query.framework_id,
                "query": query.text,
                "gold": sorted(query.gold),
                "lexicalOverlap": round(query.overlap, 3),
                "oursRecallAt10": round(found["recallAt10"], 3),
                "oursMrrAt10": round(found["mrrAt10"], 3),
                "oursTop10": query.ranked[OURS],
            }
        )
    return rows


def print_worst_requests(rows: list[dict[str, Any]], catalog: Catalog, words: int = 7) -> None:
    """The worst requests with our first page, each code with the first ``words`` words of its text."""
    print()
    print("worst requests (ours: MRR@10, then R@10, then lexical overlap with the gold, highest first):")
    for row in rows:
        texts = catalog.first_words(row["frameworkId"], words)
        print(
            f"  {row['id']:<6} [{row['kind']}] {row['query']!r} R@10 {row['oursRecallAt10']:.2f} "
            f"MRR {row['oursMrrAt10']:.2f} overlap {row['lexicalOverlap']:.2f}"
        )
        gold = ", ".join(f"{code} ({texts.get(code, '?')})" for code in row["gold"])
        print(f"         gold: {gold}")
        for rank, code in enumerate(row["oursTop10"], 1):
            mark = "*" if code in row["gold"] else " "
            print(f"       {mark}{rank:>2}. {code or '(grouping)'}  {texts.get(code, '')}")


def checkout() -> dict[str, Any]:
    """Which code ran: its source directory, the commit there and whether its files differ from it."""
    source = Path(kgfegmcp.__file__).resolve().parent

    def git(*arguments: str) -> str | None:
        try:  # --no-optional-locks: never touch the index of a tree others are working in
            done = subprocess.run(
                ["git", "--no-optional-locks", "-C", str(source), *arguments],
                capture_output=True,
                text=True,
                check=True,
            )
        except (OSError, subprocess.CalledProcessError):
            return None
        return done.stdout.strip()

    commit = git("rev-parse", "HEAD")
    changes = git("status", "--porcelain", "--", ".") if commit else None
    return {"source": str(source), "commit": commit or "unknown", "modified": bool(changes) if commit else None}


def table(summary: dict[str, Any]) -> str:
    names = {OURS: "ours", OURS_TYPED: "ours + statement types", PEER: "bncc.buscar"}
    lines = [
        "| slice | n | engine | R@1 | R@10 | S@10 | MRR@10 | nDCG@10 |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, entry in summary.items():
        for engine in ENGINES:
            values = entry[engine]
            cells = ["n/a"] * len(METRICS) if values is None else [f"{values[m]:.3f}" for m in METRICS]
            lines.append(f"| {name} | {entry['queries']} | {names[engine]} | {' | '.join(cells)} |")
    return "\n".join(lines)


def latency_table(summary: dict[str, Any]) -> str:
    lines = ["| slice | engine | calls | p50 ms | p99 ms |", "| --- | --- | ---: | ---: | ---: |"]
    for name, entry in summary.items():
        for engine, values in entry["latency"].items():
            lines.append(f"| {name} | {engine} | {values['calls']} | {values['p50Ms']} | {values['p99Ms']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/relevance.json"))
    parser.add_argument("--only", choices=("teacher", "components", "requests"))
    parser.add_argument("--label", help="free text recorded with the results (e.g. which code ran)")
    parser.add_argument(
        "--analysis",
        choices=analysis_alternatives.CHOICES,
        default="lemmas",
        help="how words are reduced (lemmas is the server's; the others are its alternatives, indexed anew)",
    )
    args = parser.parse_args()
    if not args.root.is_dir():
        raise SystemExit(f"{args.root} is not a directory; build the catalog first (scripts/setup.sh --no-serve).")
    analysis_alternatives.use(args.analysis)
    # Another reduction needs its own indexes: the derived-index cache holds the server's.
    overrides: dict[str, Any] = {} if args.analysis == "lemmas" else {"cache_dir": ""}
    state = build_app_state(load_settings({"graph_packages_dir": args.root, **overrides}))
    catalog = Catalog(state)
    queries = []
    if args.only in (None, "teacher"):
        queries += teacher_queries(catalog)
    if args.only in (None, "components"):
        queries += component_queries(catalog) + anchor_queries(catalog)
    if args.only == "requests":
        queries += request_queries(catalog)
    run(queries, catalog, args.repeat)
    summary: dict[str, Any] = {}
    for name, members in slices(queries).items():
        summary[name] = {
            "queries": len(members),
            "meanLexicalOverlap": round(statistics.fmean(q.overlap for q in members), 3),
            **{engine: summarise(members, engine) for engine in ENGINES},
            "latency": latency(members),
        }
    by_subject: dict[str, list[Query]] = {}
    for query in queries:
        if query.query_set == "components":
            by_subject.setdefault(f"{query.slice} · {query.subject}", []).append(query)
    teacher = [q for q in queries if q.query_set == "teacher"]
    # Worst first; among equals, queries whose words the gold items do contain (a ranking miss, not a
    # vocabulary gap) come first.
    worst = sorted(teacher, key=lambda q: (metrics(q.ranked[OURS], q.gold)["ndcgAt10"], -q.overlap, q.id))[:15]
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "checkout": {**checkout(), **({"label": args.label} if args.label else {})},
        "analysis": args.analysis,
        "bncc": {"package": metadata.version("bncc"), "data": bncc.versao()["data_version"]},
        "roundsPerQuery": args.repeat,
        "k": K,
        "statementTypes": {fid: types for fid, types in catalog.statement_types.items() if fid in STAGES},
        "truncatedQueries": sum(q.truncated for q in queries),
        "slices": summary,
        "componentsBySubject": {
            name: {"queries": len(members), **{e: summarise(members, e) for e in ENGINES}}
            for name, members in sorted(by_subject.items())
        },
        "worstTeacherQueries": [
            {
                "id": q.id,
                "query": q.text,
                "gold": sorted(q.gold),
                "lexicalOverlap": round(q.overlap, 3),
                "oursNdcgAt10": round(metrics(q.ranked[OURS], q.gold)["ndcgAt10"], 3),
                "oursTop3": q.ranked[OURS][:3],
            }
            for q in worst
        ],
        **({"worstRequests": worst_requests(queries)} if any(q.query_set == "requests" for q in queries) else {}),
        "queries": [per_query(q) for q in queries],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # One line per query keeps the file readable and small; everything else is indented.
    head = json.dumps({k: v for k, v in report.items() if k != "queries"}, indent=2, ensure_ascii=False)
    rows = ",\n".join("    " + json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in report["queries"])
    args.out.write_text(head.removesuffix("\n}") + f',\n  "queries": [\n{rows}\n  ]\n}}\n', encoding="utf-8")
    where = report["checkout"]
    modified = " + uncommitted changes" if where["modified"] else ""
    print(f"checkout {where['commit'][:12]}{modified} ({where['source']}), {len(queries)} queries")
    print(table(summary))
    print()
    print(latency_table(summary))
    print()
    if report["worstTeacherQueries"] or "worstRequests" not in report:
        print("worst teacher queries (ours: nDCG@10, then lexical overlap with the gold, highest first):")
    for entry in report["worstTeacherQueries"]:
        print(
            f"  {entry['id']:<10} {entry['query']!r:<36} nDCG {entry['oursNdcgAt10']:.2f} overlap "
            f"{entry['lexicalOverlap']:.2f} gold {entry['gold']} ours top 3 {entry['oursTop3']}"
        )
    if "worstRequests" in report:
        print_worst_requests(report["worstRequests"], catalog)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
