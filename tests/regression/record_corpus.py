"""Record the client-visible regression corpus: ``.venv/bin/python tests/regression/record_corpus.py``.

The corpus (``tests/regression/corpus/<catalog>.jsonl``) is the safety net of refactoring: the test
``test_client_visible_corpus.py`` replays every call of ``regression_calls.py`` and fails on any byte a
client would see differently. Re-recording makes the new answers the reference, so it is legitimate only
when a client-visible change is intended (a new field, a reworded message, a fixed bug, an SDK upgrade
that changes the wire) or when calls are added to the table; never to make a refactor pass. Review the
diff of the fixture catalogs' files (the default catalog's lines only show that a digest changed), and
state the intended change in the commit.

Options: ``--out DIR`` writes elsewhere (e.g. to compare two recordings for determinism); ``--check``
compares with the recorded corpus instead of writing and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

# Like a test run (tests/worlds.py): a private, empty derived-index cache (never the checkout's ./data/cache), so a
# recording depends on the packages and the code only.
_CACHE = tempfile.mkdtemp(prefix="kgfegmcp-corpus-cache-")
os.environ["KGFEGMCP_CACHE_DIR"] = _CACHE
os.environ["KGFEGMCP_OPERATOR_RIGHTS_FILE"] = os.path.join(_CACHE, "no-operator-rights.json")  # no developer's decision
# The test support modules (the fixture worlds), as pytest finds them (pyproject.toml: pythonpath = tests).
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

import regression_corpus as corpus  # noqa: E402
from regression_calls import DEFAULT  # noqa: E402

from checkout import REPOSITORY_ROOT  # noqa: E402


def _summary(outcomes: dict[str, list[corpus.Outcome]]) -> str:
    """Calls per catalog and kind, and how many of them are refusals."""
    lines = [f"{'catalog':<10} {'calls':>5} {'list':>5} {'tool':>5} {'resource':>8} {'prompt':>6} {'error':>5}"]
    for catalog, items in outcomes.items():
        kinds = Counter(o.call.kind for o in items)
        errors = sum(o.is_error for o in items)
        lines.append(
            f"{catalog:<10} {len(items):>5} {kinds['list']:>5} {kinds['tool']:>5} {kinds['resource']:>8} "
            f"{kinds['prompt']:>6} {errors:>5}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Build every catalog in a temporary folder, replay the table, then write or check the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=corpus.CORPUS_DIR, help="folder for <catalog>.jsonl")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing")
    args = parser.parse_args(argv)
    problems = corpus.environment_problems()
    if problems:
        print(f"the corpus is recorded with default settings: unset {', '.join(problems)}", file=sys.stderr)
        return 2
    logging.getLogger("fastmcp").setLevel(logging.ERROR)  # refusals are logged as warnings
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-corpus-") as folder:
        base = Path(folder)
        states = corpus.fixture_states(base)
        states[DEFAULT] = corpus.default_state(corpus.build_default_catalog_root(base / DEFAULT / "graph_packages"))
        outcomes = asyncio.run(corpus.replay(states))
        local = [folder, os.environ["KGFEGMCP_CACHE_DIR"], str(REPOSITORY_ROOT)]
        refused = corpus.problems(outcomes, local)
    if refused:
        print("not recordable:\n" + "\n".join(refused), file=sys.stderr)
        return 1
    if args.check:
        report = [d for c, items in outcomes.items() for d in corpus.differences(c, corpus.load(c, args.out), items)]
        print("\n\n".join(report) or "every answer is as recorded")
        return 1 if report else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for catalog, items in outcomes.items():
        corpus.corpus_path(catalog, args.out).write_text(corpus.render(items), encoding="utf-8")
    print(_summary(outcomes))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        shutil.rmtree(_CACHE, ignore_errors=True)
