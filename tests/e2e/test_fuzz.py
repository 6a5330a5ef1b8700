"""The fuzz script's short run over the session's default catalog: every invariant holds on a real server,
and every tampered package is refused by doctor, the start-up gate and ``packages validate`` alike.

The run is bounded by a count, not a clock (``--cases``): a seeded sample of every class, the same cases
on every run however loaded the machine is. The full sweep and long runs are ``scripts/fuzz.sh``'s.

scripts/fuzz.sh starts its own ``kgfegmcp serve --transport http`` at log level INFO (the default),
so it can also watch the server's stderr for tracebacks and unbounded echoes, which the shared
``default_http_server`` (WARNING) would not show. See docs/reliability.md.
"""

from __future__ import annotations

import collections
import random
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_support import REPOSITORY_ROOT, HttpServer

pytestmark = pytest.mark.slow

FUZZ = REPOSITORY_ROOT / "scripts" / "fuzz.sh"
sys.path.insert(0, str(REPOSITORY_ROOT / "scripts"))  # the fuzz script's package, beside it
#: The fuzz script's own list of classes, so the test follows it: every one must have run.
from fuzzing.classes import CLASSES, REQUEST_CLASSES, SLOW, SOURCES, TAMPERING  # noqa: E402
from fuzzing.slow_clients import SLOW_ATTACKS  # noqa: E402
from fuzzing.source_inputs import SOURCE_SCENARIOS  # noqa: E402
from fuzzing.strategies import counted  # noqa: E402
from fuzzing.surface import discover  # noqa: E402

#: Cases of each request class, and tampered packages (three real processes each, so fewer).
CASES, PACKAGE_CASES = 20, 2
#: Every named hostile source input, written at a fiftieth of the size that was found to hurt (a 2.4 MB code).
SOURCE_CASES, SOURCE_SCALE = len(SOURCE_SCENARIOS), 0.02
#: Every slow-client attack (each lasts seconds against a server with short limits).
SLOW_CASES = len(SLOW_ATTACKS)


def test_a_short_fuzz_run_holds_every_invariant(default_catalog_root: Path) -> None:
    command = [
        str(FUZZ),
        *("--cases", str(CASES), "--package-cases", str(PACKAGE_CASES), "--seed", "1"),
        *("--source-cases", str(SOURCE_CASES), "--source-scale", str(SOURCE_SCALE), "--slow-cases", str(SLOW_CASES)),
        *("--graph-packages-dir", str(default_catalog_root)),
    ]
    completed = subprocess.run(command, cwd=REPOSITORY_ROOT, capture_output=True, text=True, timeout=1200)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    total = CASES * len(REQUEST_CLASSES) + PACKAGE_CASES + SOURCE_CASES + SLOW_CASES
    summary = rf"^fuzz: {total} cases in \d+s, seed 1, .*, 0 violations$"
    assert re.search(summary, completed.stdout, re.MULTILINE), output[-3000:]
    expected = {TAMPERING: PACKAGE_CASES, SOURCES: SOURCE_CASES, SLOW: SLOW_CASES}
    for cls in CLASSES:  # exactly the count of every class ran
        row = re.search(rf"^{cls}\s+(\d+)\s", completed.stdout, re.MULTILINE)
        assert row is not None and int(row.group(1)) == expected.get(cls, CASES), (
            cls,
            output[-3000:],
        )


def test_a_counted_run_sends_the_same_cases_every_time(default_http_server: HttpServer) -> None:
    """``--cases``: the same seed gives the same cases, exactly that many of each request class, a class
    whose sweep is shorter (unknown-names has 26) topped up with random cases of its own."""
    surface = discover(default_http_server.url, secrets.token_urlsafe(48))  # only builds cases here
    classes = set(CLASSES)
    first = counted(surface, random.Random(5), classes, 30, 5)
    again = counted(surface, random.Random(5), classes, 30, 5)
    assert [(case.cls, case.label, case.body) for case in first] == [(c.cls, c.label, c.body) for c in again]
    assert collections.Counter(case.cls for case in first) == {cls: 30 for cls in REQUEST_CLASSES}
