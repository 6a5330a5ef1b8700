"""A killed or concurrent ``packages validate`` never fails a good package.

Real console-script processes, each with one fault injected at a chosen file operation by
``fault_driver.py``: SIGKILL at the moment a new version of the manifest or the report is opened or
renamed (a ``kill -9`` in the middle of recording a state), or a pause that holds the process there
while a second run starts. After any of them, a plain ``packages validate`` must end with every
package ``passed``, byte for byte as an uninterrupted run leaves it.
"""

from __future__ import annotations

import hashlib
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from package_factory import DAG, LC, FixtureWorld, build_all, standard_world

pytestmark = pytest.mark.slow

DRIVER = Path(__file__).resolve().parent / "fault_driver.py"
REPORT = "as_validation_report.json"
# The manifest's and the report's new versions, under this writer's names and the earlier ".tmp" ones,
# so the same fault is injected at the same step whichever writer runs.
MANIFEST_NEW = f".{MANIFEST_FILENAME}.recording,.{MANIFEST_FILENAME}.tmp"
REPORT_NEW = f".{REPORT}.recording,.{REPORT}.tmp"
# A package with learning components records a second report, renamed after the first.
LC_REPORT_NEW = ".as_lc_validation_report.json.recording"


def tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def env(world: FixtureWorld) -> dict[str, str]:
    return {**os.environ, "KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "PYTHONUNBUFFERED": "1"}


def faulty(world: FixtureWorld, action: str, event: str, names: str, *arguments: str) -> subprocess.Popen[str]:
    """The command under ``fault_driver.py``; a paused one holds until a line is written to its stdin."""
    command = [sys.executable, str(DRIVER), action, event, names, "--", *arguments]
    stdin = subprocess.PIPE if action == "pause" else subprocess.DEVNULL
    return subprocess.Popen(
        command, env=env(world), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def stderr_until(process: subprocess.Popen[str], text: str, timeout: float = 60) -> str:
    """What ``process`` writes on stderr until ``text`` is among it (line wrapping undone); fail if it ends
    first or ``timeout`` (a ceiling against a hang) passes."""
    assert process.stderr is not None
    descriptor, written = process.stderr.fileno(), b""
    deadline = time.monotonic() + timeout
    while text not in " ".join(written.decode(errors="replace").split()):
        ready, _, _ = select.select([descriptor], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(descriptor, 65536) if ready else b""
        assert chunk, f"no {text!r} on stderr: {written.decode(errors='replace')[-2000:]}"
        written += chunk
    return written.decode(errors="replace")


def validate(world: FixtureWorld, *paths: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(DRIVER), "none", "none", "none", "--", "packages", "validate", "--json"]
    return subprocess.run(
        [*command, *(str(p) for p in paths)], env=env(world), capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def world(tmp_path: Path) -> FixtureWorld:
    world = standard_world(tmp_path / "world")
    build_all(world)
    return world


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The package tree an uninterrupted validation leaves (the same bytes wherever the world is built)."""
    world = standard_world(tmp_path_factory.mktemp("reference"))
    build_all(world)
    assert validate(world, world.packages).returncode == 0
    return tree_digest(world.packages)


@pytest.mark.parametrize(
    ("framework", "event", "names"),
    [
        (DAG, "open", REPORT_NEW),  # nothing of the new state exists yet
        (DAG, "open", MANIFEST_NEW),  # the new report exists in full, nothing is renamed
        (DAG, "os.rename", REPORT_NEW),  # both new versions exist in full, nothing is renamed
        (DAG, "os.rename", MANIFEST_NEW),  # the report is in place, the manifest is not
        (LC, "open", LC_REPORT_NEW),  # one new report exists, the component report does not
        (LC, "os.rename", LC_REPORT_NEW),  # the package report is in place, the component report is not
        (LC, "os.rename", MANIFEST_NEW),  # both reports are in place, the manifest is not
    ],
)
def test_a_killed_validation_is_finished_or_rolled_back_never_blamed(
    world: FixtureWorld, reference: dict[str, str], framework: str, event: str, names: str
) -> None:
    package = world.packages / framework / "2026-01"
    killed = faulty(world, "kill", event, names, "packages", "validate", str(package))
    killed.communicate(timeout=120)
    assert killed.returncode == -9, "the fault was not injected"

    result = validate(world, world.packages)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"status": "passed"' in result.stdout and '"failed"' not in result.stdout
    assert tree_digest(world.packages) == reference  # exactly what an uninterrupted run leaves
    again = validate(world, world.packages)
    assert again.returncode == 0 and '"recoveredInterruptedRecording": null' in again.stdout


def test_start_up_names_an_interrupted_recording(world: FixtureWorld) -> None:
    package = world.packages / DAG / "2026-01"
    killed = faulty(world, "kill", "os.rename", MANIFEST_NEW, "packages", "validate", str(package))
    killed.communicate(timeout=120)
    assert killed.returncode == -9
    served = subprocess.run(
        [sys.executable, str(DRIVER), "none", "none", "none", "--", "serve", "--transport", "stdio"],
        env={**env(world), "KGFEGMCP_GRAPH_PACKAGES_DIR": str(world.packages), "KGFEGMCP_CACHE_DIR": ""},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert served.returncode == 2
    message = " ".join(served.stderr.split())
    assert "catalog_error" in message and DAG in message and "interrupted_recording" in message
    assert "run `kgfegmcp packages validate` on it to finish or roll back" in message
    outcome = PackageValidator(world.profiles()).validate(PackageLocation(DAG, "2026-01", package))
    assert {f.code for f in outcome.findings if f.code == "interrupted_recording"} == {"interrupted_recording"}


def test_concurrent_validations_wait_for_each_other(world: FixtureWorld, reference: dict[str, str]) -> None:
    """The first run is held in the middle of recording a state; the second must wait, not judge it."""
    package = world.packages / DAG / "2026-01"
    first = faulty(world, "pause", "os.rename", MANIFEST_NEW, "packages", "validate", str(world.packages))
    assert first.stderr is not None
    deadline = time.monotonic() + 60
    while first.stderr.readline().strip() != "paused":  # the first run now holds a half-recorded state
        assert time.monotonic() < deadline and first.poll() is None, "the first run never paused"
    second = faulty(world, "none", "none", "none", "packages", "validate", "--json", str(package))
    waited = stderr_until(second, "waiting for it to finish")  # the second run found the package held
    assert first.stdin is not None
    first.stdin.write("\n")  # now the first may finish
    first.stdin.flush()
    first_out, first_err = first.communicate(timeout=120)
    second_out, second_err = second.communicate(timeout=120)
    assert first.returncode == 0, first_out + first_err
    assert second.returncode == 0, second_out + waited + second_err
    assert '"status": "passed"' in second_out
    assert tree_digest(world.packages) == reference


def test_two_validations_started_together_both_pass(world: FixtureWorld, reference: dict[str, str]) -> None:
    for _ in range(3):
        shutil.rmtree(world.packages)
        build_all(world)
        runs = [faulty(world, "none", "none", "none", "packages", "validate", str(world.packages)) for _ in range(2)]
        for run in runs:
            stdout, stderr = run.communicate(timeout=120)
            assert run.returncode == 0, stdout + stderr
        assert tree_digest(world.packages) == reference
