"""The fuzz script's short run over the session's default catalog: every invariant holds on a real server,
and every tampered package is refused by doctor, the start-up gate and ``packages validate`` alike.

scripts/fuzz.sh starts its own ``kgfegmcp serve --transport http`` at log level INFO (the default),
so it can also watch the server's stderr for tracebacks and unbounded echoes, which the shared
``default_http_server`` (WARNING) would not show. See docs/reliability.md.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from e2e_support import REPOSITORY_ROOT

FUZZ = REPOSITORY_ROOT / "scripts" / "fuzz.sh"
#: The fuzz script's own list of classes, so the test follows it: every one must have run.
sys.path.insert(0, str(REPOSITORY_ROOT / "scripts"))  # fuzz.py imports its package-tampering class beside it
_SPEC = importlib.util.spec_from_file_location("fuzz", REPOSITORY_ROOT / "scripts" / "fuzz.py")
assert _SPEC is not None and _SPEC.loader is not None
_FUZZ = sys.modules.setdefault("fuzz", importlib.util.module_from_spec(_SPEC))  # dataclasses look it up
_SPEC.loader.exec_module(_FUZZ)
CLASSES: tuple[str, ...] = _FUZZ.CLASSES


def test_a_short_fuzz_run_holds_every_invariant(default_catalog_root: Path) -> None:
    command = [str(FUZZ), "--budget-seconds", "20", "--seed", "1", "--graph-packages-dir", str(default_catalog_root)]
    completed = subprocess.run(command, cwd=REPOSITORY_ROOT, capture_output=True, text=True, timeout=1200)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    assert re.search(r"^fuzz: \d+ cases in \d+s, seed 1, .*, 0 violations$", completed.stdout, re.MULTILINE), output
    for cls in CLASSES:  # the sweep reached every class
        row = re.search(rf"^{cls}\s+(\d+)\s", completed.stdout, re.MULTILINE)
        assert row is not None and int(row.group(1)) > 0, (cls, output[-3000:])
