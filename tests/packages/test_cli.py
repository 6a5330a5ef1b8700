"""The package CLI as a user runs it: a real subprocess of the installed console script."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from corrupt import artifact_path

from kgfegmcp.packages.tree import PackageLocation
from package_factory import DAG, LC, TREE, FixtureWorld


def kgfegmcp(*args: str, world: FixtureWorld, **extra_env: str) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("kgfegmcp", path=str(Path(sys.executable).parent))
    assert executable, "the console script is installed with the project"
    env = {
        **os.environ,
        "KGFEGMCP_PROFILES_DIR": str(world.profiles_root),
        "KGFEGMCP_GRAPH_PACKAGES_DIR": str(world.packages),
        **extra_env,
    }
    return subprocess.run([executable, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_validate_json_and_exit_codes(built: dict[str, PackageLocation], world: FixtureWorld) -> None:
    result = kgfegmcp("packages", "validate", str(world.packages), "--json", world=world)
    assert result.returncode == 0, result.stderr
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["graphPackageId"] for r in reports] == [f"{DAG}@2026-01", f"{LC}@2026-01", f"{TREE}@2026-01"]
    assert {r["status"] for r in reports} == {"passed"}
    assert all(r["findings"] == [] for r in reports)

    path = artifact_path(built[LC], "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    result = kgfegmcp("packages", "validate", str(built[LC].path), "--json", world=world)
    assert result.returncode == 1
    (report,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert report["status"] == "drifted"
    # the bytes differ from the manifest, and the text from its copies in the item lines and the bundle
    assert [(f["code"], f["artifact"]) for f in report["findings"]] == [  # ordered by artifact
        ("cross_artifact_mismatch", "academicStandardsBundle"),
        ("checksum_mismatch", "nodes"),
        ("cross_artifact_mismatch", "standardsFrameworkItems"),
    ]
    assert all(set(f) == {"code", "severity", "artifact", "location", "message"} for f in report["findings"])


def test_list_shows_states(built: dict[str, PackageLocation], world: FixtureWorld) -> None:
    kgfegmcp("packages", "validate", str(built[TREE].path), world=world)
    result = kgfegmcp("packages", "list", world=world)
    assert result.returncode == 0, result.stderr
    lines = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "fixture-" in line}
    assert "passed" in lines[f"{TREE}@2026-01"] and "pending" in lines[f"{LC}@2026-01"]


def test_missing_path_is_a_clean_error(world: FixtureWorld) -> None:
    result = kgfegmcp("packages", "validate", str(world.base / "nowhere"), world=world)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("package_validation_error: ")
    assert "Traceback" not in result.stderr


def test_bad_setting_is_a_configuration_error(world: FixtureWorld) -> None:
    result = kgfegmcp("packages", "list", world=world, KGFEGMCP_INVALID_PACKAGE_POLICY="sometimes")
    assert result.returncode == 2
    assert "configuration_error" in result.stderr and "KGFEGMCP_INVALID_PACKAGE_POLICY" in result.stderr


def boundary(code: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` through the entry-point boundary the server modules use (``run_entry_point``)."""
    script = f"from kgfegmcp.core.entry_boundary import run_entry_point\nrun_entry_point(lambda: {code}, 'The server')"
    env = {key: value for key, value in os.environ.items() if not key.startswith("KGFEGMCP_LOG")}
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**env, **extra_env},
        timeout=60,
        check=False,
    )


def test_an_unexpected_failure_is_one_internal_error_line_with_an_incident_id() -> None:
    result = boundary("{}['a key']")
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    match = re.fullmatch(
        r"internal_error: The server failed unexpectedly \(KeyError; incident ([0-9a-f]{12})\)\. "
        r"Next action: Run it again with KGFEGMCP_LOG_LEVEL=DEBUG to log the traceback, and report it with the "
        r"incident id\.",
        line,
    )
    assert match, line

    debug = boundary("{}['a key']", KGFEGMCP_LOG_LEVEL="DEBUG")  # asked for: the traceback, under the incident id
    assert debug.returncode == 2
    *logged, line = debug.stderr.strip().splitlines()
    incident = re.search(r"incident ([0-9a-f]{12})\)", line)
    assert incident and line.endswith("Next action: Report the traceback logged above with the incident id.")
    assert f"DEBUG kgfegmcp.entry: incident {incident.group(1)}" in logged[0]
    assert "Traceback (most recent call last):" in logged and "KeyError: 'a key'" in logged


def test_a_file_that_cannot_be_written_is_one_filesystem_error_line(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    result = boundary(f"open({str(tmp_path / 'a-file' / 'inside')!r}, 'w')")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "filesystem_error: The server could not read or write a file: a part of the path is a file, not a directory "
        f"({tmp_path / 'a-file' / 'inside'}). Next action: Remove or rename that file, or choose another path."
    ]
