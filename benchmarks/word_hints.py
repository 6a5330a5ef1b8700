"""What hints for words not found cost: at start-up, on the first word of a letter, and per query, by vocabulary size.

Run: .venv/bin/python benchmarks/word_hints.py [--vocabulary 2000,200000,1000000] [--samples 300]
                                             [--index DIR] [--catalog data/graph_packages]
                                             [--out benchmarks/results/word_hints.json]

The cost of ``search.word_hints`` grows with a package's distinct words, not its items: a million items
drawn from real statements (``benchmarks/scale.py --vocabulary statements``) hold about two thousand, a
real framework of a million items perhaps a few hundred thousand (Heaps' law from BNCC Ensino Fundamental:
6,304 words in 2,285 items). So each size here is an index of that many distinct English-like words (the
words of real statements, then their deterministic variants), twenty to a document, each also repeated by a
Zipf draw so document frequencies differ as in text. ``--index`` adds one real standards index directory
(a derived-index cache's ``…/standards``, e.g. scale.py's million-item package).

For each index: the start-up cost (creating the vocabulary, which reads nothing); the first word not found
of each of 26 letters (reading that letter's words from the term dictionary); then ``--samples``
misspellings of words the index holds (one letter dropped, doubled or two swapped; each checked absent), each
timed warm; and the resident cost of every letter read (tracemalloc). Beside them, the alternatives the
design was weighed against: reading the whole term dictionary at once (what a lazily built whole vocabulary
costs), loading it from a persisted marshal file (what a vocabulary artifact in the derived cache costs at
start or first use), and seeking edit-distance neighbours among all words rather than one letter's.

``--catalog`` measures real packages as a search meets them: the names of every objeto de conhecimento of
Ensino Fundamental (``benchmarks/unknown_terms.py``'s 779 queries) read by every current package, whose
words not found (most, across two languages) get their hints as ``find_standards`` asks for them; the
time per query of the hints alone, on the first pass (letters read as they come) and on a second.
"""

from __future__ import annotations

import argparse
import itertools
import json
import marshal
import platform
import random
import statistics
import string
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import OSA

from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.normalize import query_words, tokens
from kgfegmcp.search.text_index import TextIndex
from kgfegmcp.search.word_hints import Vocabulary, max_edits
from percentiles import percentile

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from validate import STATEMENTS  # noqa: E402

ENGLISH = analyzer_for("en")
WORDS_PER_DOCUMENT = 20


def real_words() -> list[str]:
    """The distinct folded words of the real statements scale.py's texts are drawn from, sorted."""
    found: set[str] = set()
    with STATEMENTS.open(encoding="utf-8") as handle:
        for line in handle:
            found.update(w for w in tokens(json.loads(line)["description"]) if w.isalpha() and len(w) > 2)
    return sorted(found)


def vocabulary(size: int, seed: int = 7) -> list[str]:
    """``size`` distinct lowercase words: the real ones first, then variants of them (a seeded generator)."""
    base = real_words()
    rng = random.Random(seed)
    words = dict.fromkeys(base[:size])
    while len(words) < size:
        word = rng.choice(base)
        cut = rng.randint(3, len(word))
        words.setdefault(word[:cut] + "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 5))))
    return list(words)


def build(words: list[str], seed: int = 11) -> TextIndex:
    """An in-memory index holding every word, twenty to a document, plus Zipf-drawn repeats."""
    rng = random.Random(seed)
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    documents = []
    for start in range(0, len(words), WORDS_PER_DOCUMENT):
        extra = rng.choices(words, cum_weights=cumulative, k=5)
        documents.append((len(documents), " ".join(words[start : start + WORDS_PER_DOCUMENT] + extra)))
    return TextIndex.build(documents, ENGLISH)


def misspellings(index: TextIndex, count: int, seed: int = 13) -> list[tuple[str, str]]:
    """Words the index holds, each misspelt once (a letter dropped, doubled, or two swapped) and absent,
    each with the word it misspells."""
    held = [w for w, _ in index.words_with_prefix("") if w.isalpha() and len(w) >= 5]
    rng = random.Random(seed)
    known = set(held)
    found: list[tuple[str, str]] = []
    while len(found) < count:
        word = rng.choice(held)
        at = rng.randrange(1, len(word) - 1)
        kind = rng.randrange(3)
        wrong = (
            word[:at] + word[at + 1 :]
            if kind == 0
            else word[:at] + word[at] + word[at:]
            if kind == 1
            else word[: at - 1] + word[at] + word[at - 1] + word[at + 1 :]
        )
        if wrong not in known and max_edits(wrong):
            found.append((wrong, word))
    return found


def milliseconds(seconds: float) -> float:
    return round(seconds * 1000, 3)


def measure(name: str, index: TextIndex, samples: int) -> dict[str, Any]:
    started = time.perf_counter()
    hints = Vocabulary(index, ENGLISH)
    startup = time.perf_counter() - started
    queries = misspellings(index, samples)
    tracemalloc.start()
    first_of_letter = []
    for letter in string.ascii_lowercase:
        started = time.perf_counter()
        hints.hints(letter + "zzqzz")  # a word that exists nowhere: only the letter's words are read
        first_of_letter.append(time.perf_counter() - started)
    resident, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    warm = []
    hinted = 0
    for word, meant in queries:
        started = time.perf_counter()
        found = hints.hints(word)
        warm.append(time.perf_counter() - started)
        hinted += meant in found
    started = time.perf_counter()
    every = index.words_with_prefix("")
    whole_walk = time.perf_counter() - started
    blob = marshal.dumps(every)
    started = time.perf_counter()
    marshal.loads(blob)
    marshal_load = time.perf_counter() - started
    all_words = [w for w, _ in every]
    started = time.perf_counter()
    for word, _ in queries[:20]:
        process.extract(word, all_words, scorer=OSA.distance, score_cutoff=max_edits(word), limit=None)
    all_words_scan = (time.perf_counter() - started) / min(20, len(queries))
    return {
        "index": name,
        "distinct_words": len(every),
        "documents": index.documents,
        "startup_ms": milliseconds(startup),
        "first_word_of_a_letter_ms": {
            "median": milliseconds(statistics.median(first_of_letter)),
            "max": milliseconds(max(first_of_letter)),
        },
        "warm_hint_ms": {"p50": milliseconds(percentile(warm, 0.5)), "p99": milliseconds(percentile(warm, 0.99))},
        "misspellings_with_the_word_meant_among_the_hints": f"{hinted}/{len(queries)}",
        "resident_mib_every_letter_read": round(resident / 2**20, 1),
        "alternatives_ms": {
            "read_the_whole_dictionary_at_once": milliseconds(whole_walk),
            "load_a_persisted_marshal_vocabulary": milliseconds(marshal_load),
            "persisted_vocabulary_mib": round(len(blob) / 2**20, 1),
            "edit_distance_over_every_word_per_query": milliseconds(all_words_scan),
        },
    }


def measure_catalog(root: Path) -> dict[str, Any]:
    """Hints for the words each package does not hold, over benchmarks/unknown_terms.py's queries."""
    from kgfegmcp.bootstrap import build_app_state
    from kgfegmcp.core.config import load_settings
    from kgfegmcp.search.word_hints import package_word_hints

    state = build_app_state(load_settings({"graph_packages_dir": root}))
    fundamental = state.catalog.resolve("brazil-bncc-ensino-fundamental")
    queries = sorted({i.description for i in fundamental.store.items if i.statement_type == "Objeto de conhecimento"})
    indexes = [p.standards_index for p in state.catalog.select(None, None)]

    def hint_time(query: str) -> tuple[float, int, int]:
        spent, words, hinted = 0.0, 0, 0
        for index in indexes:
            if index.text is None:
                continue
            reading = index.interpreter.interpret(query_words(query))
            unknown = index.text.absent(reading.terms)
            started = time.perf_counter()
            found = package_word_hints(index.runtime, index.text, index.interpreter.analyzer, unknown)
            spent += time.perf_counter() - started
            words, hinted = words + len(unknown), hinted + len(found)
        return spent, words, hinted

    first = [hint_time(query) for query in queries]
    words, hinted = sum(f[1] for f in first), sum(f[2] for f in first)
    # Warm: the least of five runs of each query, so another job's pause is not counted as the hints' cost.
    warm = [min(hint_time(query)[0] for _ in range(5)) for query in queries]
    passes = [[f[0] for f in first], warm]
    return {
        "index": f"{root} ({len(indexes)} packages), {len(queries)} queries",
        "words_not_found": words,
        "words_hinted": hinted,
        "hints_ms_per_query": {
            name: {"p50": milliseconds(percentile(t, 0.5)), "p99": milliseconds(percentile(t, 0.99))}
            for name, t in zip(("first_pass", "warm_least_of_5"), passes, strict=True)
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocabulary", default="2000,200000,1000000", help='distinct words per index ("": none)')
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--index", type=Path, help="an existing standards text index directory to measure too")
    parser.add_argument("--catalog", type=Path, help="a graph-package root: hints as searches meet them there")
    parser.add_argument("--out", type=Path, default=HERE / "results/word_hints.json")
    arguments = parser.parse_args()
    results = []
    for size in (int(v) for v in arguments.vocabulary.split(",") if v):
        started = time.perf_counter()
        index = build(vocabulary(size))
        print(f"built {size:,} words in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        results.append(measure(f"{size:,} distinct words", index, arguments.samples))
        print(json.dumps(results[-1]), file=sys.stderr)
    if arguments.index:
        results.append(measure(str(arguments.index), TextIndex.open(arguments.index), arguments.samples))
        print(json.dumps(results[-1]), file=sys.stderr)
    if arguments.catalog:
        results.append(measure_catalog(arguments.catalog))
        print(json.dumps(results[-1]), file=sys.stderr)
    report = {"python": platform.python_version(), "machine": platform.machine(), "results": results}
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
