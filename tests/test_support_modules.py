"""The test support modules are loaded once, under one name, and name the checkout one way.

A module loaded under two names (``corrupt`` and ``packages.corrupt``) is two modules: its module-level caches,
and the worlds built through them, exist twice in one process. Every worker collects the whole selection, so by
the time this runs every module a test module imports at its top is loaded.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

from checkout import REPOSITORY_ROOT

TESTS = REPOSITORY_ROOT / "tests"
#: Computing the root from a file's place: only ``checkout.py`` does it, and ``e2e/balancer.py``, which
#: benchmarks/http_load_servers.py imports with nothing but tests/e2e on its path.
ROOT_FROM_FILE = re.compile(r"Path\(__file__\)\.resolve\(\)\.parents\[")
ALLOWED = {TESTS / "checkout.py", TESTS / "e2e" / "balancer.py"}


def test_no_test_module_is_loaded_under_two_names() -> None:
    names: dict[Path, list[str]] = defaultdict(list)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file is not None and Path(file).resolve().is_relative_to(TESTS):
            names[Path(file).resolve()].append(name)
    assert {str(path): found for path, found in names.items() if len(found) > 1} == {}


def test_the_repository_root_is_one_constant() -> None:
    computed = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path not in ALLOWED and ROOT_FROM_FILE.search(path.read_text(encoding="utf-8"))
    ]
    assert computed == [], "import REPOSITORY_ROOT from checkout instead"
