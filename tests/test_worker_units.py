"""The suite's parallel runs keep each module on one worker, as ``scripts/test.sh`` runs them.

A module's fixtures (its worlds, states and servers) are built once only if all its tests run in one worker
process; the install tests share one unit, since they share the wheel and bundle the README's commands
build. The run below uses the pytest options of ``scripts/test.sh`` itself, so a change there is checked.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections import defaultdict

import pytest

from checkout import REPOSITORY_ROOT
from work_units import work_unit

pytestmark = pytest.mark.slow


#: Modules cheap enough to run again inside this test, with several tests each.
MODULES = ("tests/test_error_codes_doc.py", "tests/mcp/test_schema_patterns.py", "tests/mcp/test_surface.py")


def script_options() -> list[str]:
    """The options scripts/test.sh gives pytest, with two workers (this machine's `auto`)."""
    (line,) = [
        line for line in (REPOSITORY_ROOT / "scripts" / "test.sh").read_text().splitlines() if " -m pytest " in line
    ]
    options = shlex.split(line.split(" -m pytest ", 1)[1].split('"$@"', 1)[0])
    return ["2" if option == "auto" else option for option in options]


def test_the_install_tests_are_one_unit_and_every_other_module_its_own() -> None:
    assert work_unit("tests/install/test_wheel_install.py::test_a") == work_unit("tests/install/test_mcpb_bundle.py::b")
    assert work_unit("tests/mcp/test_surface.py::test_a[x]") == "tests/mcp/test_surface.py"
    assert work_unit("tests/mcp/test_surface.py::test_a") != work_unit("tests/mcp/test_smoke.py::test_a")


def test_each_module_runs_on_one_worker() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *script_options(), "-v", "-p", "no:cacheprovider", *MODULES],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    workers: dict[str, set[str]] = defaultdict(set)
    for worker, nodeid in re.findall(r"^\[(gw\d+)\] \[\s*\d+%\] PASSED (\S+)", run.stdout, re.MULTILINE):
        workers[nodeid.split("::")[0]].add(worker)
    assert set(workers) == set(MODULES), run.stdout[-3000:]
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)
