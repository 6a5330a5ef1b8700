"""`kgfegmcp doctor` fails on every package root `kgfegmcp serve` refuses, saying what serve says, and passes
on every root serve serves.

Each scenario builds one root (fixture packages through the real writer and lifecycle, then damaged the
way a disk, an operator or a forger damages them), starts the server's real composition root on it
(``build_app_state``, what ``serve`` runs before it answers anything) and runs doctor's checks on it.
Every scenario also pins what serve does, so the matrix keeps exercising refusals.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import pytest
from corrupt import artifact_path, edit_manifest, edit_records, find_record, read_manifest

from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.cursor_secret import SECRET_FILE_NAME
from kgfegmcp.core.errors import KgfegmcpError
from kgfegmcp.doctor import CheckStatus, DoctorCheck, run_checks
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.recording import recording_name
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, seal_of
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.prompts.repository import copy_generic_configs
from package_factory import DAG, LC, TREE, FixtureWorld, base_graph, build_all, standard_world

pytestmark = pytest.mark.slow

Serve = Literal["serves", "refuses"]
KGFEGMCP = str(Path(sys.executable).parent / "kgfegmcp")


@dataclass
class Root:
    """One package root and the settings both commands run with."""

    world: FixtureWorld
    packages: Path
    policy: InvalidPackagePolicy = InvalidPackagePolicy.FAIL
    #: A cache directory of the root's own (else the session's).
    cache_dir: Path | None = None

    def settings(self) -> dict[str, Any]:
        prompts = self.world.base / "prompts"
        if not prompts.exists():  # the generic prompts: the shipped overlays name the default catalog's frameworks
            copy_generic_configs(SHIPPED_PROMPTS_DIR, prompts)
        own_cache = {} if self.cache_dir is None else {"cache_dir": self.cache_dir}
        return {
            "graph_packages_dir": self.packages,
            "profiles_dir": self.world.profiles_root,
            "prompts_dir": prompts,
            "invalid_package_policy": self.policy,
            **own_cache,
        }


def validate(world: FixtureWorld, *locations: PackageLocation) -> None:
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in locations:
        lifecycle.validate(location)


def passed_world(base: Path) -> tuple[Root, dict[str, PackageLocation]]:
    """The three fixture packages, each recorded passed."""
    world = standard_world(base)
    built = build_all(world)
    validate(world, *built.values())
    return Root(world, world.packages), built


def failing_pending(world: FixtureWorld) -> PackageLocation:
    """A pending package that does not validate (a grade label its profile does not know)."""
    graph = base_graph(TREE)
    graph.items = [replace(item, grade_level=("99",)) for item in graph.items]
    return world.write(graph, snapshot_id="2025-01", is_current=False)


def reseal(location: PackageLocation) -> None:
    """What a forger does after editing a passed package: recompute the manifest's seal."""

    def seal(manifest: dict[str, Any]) -> None:
        manifest["validation"]["sealSha256"] = seal_of(PackageManifest.model_validate_json(json.dumps(manifest)))

    edit_manifest(location, seal)


# -- the scenarios -------------------------------------------------------------------------------------


def all_passed(base: Path) -> Root:
    return passed_world(base)[0]


def served_while_pending(base: Path) -> Root:
    world = standard_world(base)
    world.write(base_graph(TREE))
    return Root(world, world.packages)


def quarantined_beside_a_served_one(base: Path) -> Root:
    root, _ = passed_world(base)
    failing_pending(root.world)
    return replace(root, policy=InvalidPackagePolicy.QUARANTINE)


def recorded_failed_beside_a_served_one(base: Path) -> Root:
    root, _ = passed_world(base)
    validate(root.world, failing_pending(root.world))
    return root


def older_validator_intact(base: Path) -> Root:
    root, built = passed_world(base)
    edit_manifest(built[TREE], lambda manifest: manifest["validation"].update(validatorVersion="0.9.0"))
    return root


def an_unbound_profile_is_broken(base: Path) -> Root:
    root, _ = passed_world(base)
    (root.world.profiles_root / "unused").mkdir()
    (root.world.profiles_root / "unused" / "1.0.json").write_text("{ not a profile")
    return root


def a_bound_profile_is_broken(base: Path) -> Root:
    root, _ = passed_world(base)
    (root.world.profiles_root / DAG / "1.0.json").write_text("{ not a profile")
    return root


def no_root(base: Path) -> Root:
    world = standard_world(base)
    return Root(world, base / "nowhere")


def root_is_a_file(base: Path) -> Root:
    world = standard_world(base)
    (base / "packages.txt").write_text("not a directory\n")
    return Root(world, base / "packages.txt")


def empty_root(base: Path) -> Root:
    world = standard_world(base)
    world.packages.mkdir(parents=True)
    return Root(world, world.packages)


def only_stray_entries(base: Path) -> Root:
    world = standard_world(base)
    (world.packages / "Not A Framework").mkdir(parents=True)
    (world.packages / "README.txt").write_text("notes\n")
    return Root(world, world.packages)


def artifact_edited(base: Path) -> Root:
    root, built = passed_world(base)
    path = artifact_path(built[LC], "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    return root


def artifact_deleted(base: Path) -> Root:
    root, built = passed_world(base)
    artifact_path(built[DAG], "relationshipsHasChild").unlink()
    return root


def extra_file_in_a_package(base: Path) -> Root:
    root, built = passed_world(base)
    (built[TREE].path / "detailed" / "notes.txt").write_text("added later\n")
    return root


def artifact_replaced_by_a_symlink(base: Path) -> Root:
    root, built = passed_world(base)
    path = artifact_path(built[TREE], "unresolvedItems")
    copy = base / "elsewhere.json"
    shutil.copyfile(path, copy)
    path.unlink()
    path.symlink_to(copy)
    return root


def manifest_edited_without_reseal(base: Path) -> Root:
    root, built = passed_world(base)
    edit_manifest(built[DAG], lambda manifest: manifest.update(title="Another title"))
    return root


def failed_package_claims_passed(base: Path) -> Root:
    root, _ = passed_world(base)
    failed = failing_pending(root.world)
    validate(root.world, failed)
    edit_manifest(failed, lambda manifest: manifest["validation"].update(status="passed"))
    return root


def resealed_tampering(base: Path) -> Root:
    root, built = passed_world(base)

    def drop(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        index = next(i for i, r in enumerate(records) if r.get("label") == "hasChild")
        return records[:index] + records[index + 1 :]

    edit_records(built[DAG], "relationships", drop)
    reseal(built[DAG])
    return root


def resealed_text_change(base: Path) -> Root:
    """One statement's text changed in ``nodes`` alone, its checksum refreshed and the manifest resealed."""
    root, built = passed_world(base)

    def change(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        find_record(records, statementCode="NBT.1")["properties"]["description"] = "Count to 999."
        return records

    edit_records(built[TREE], "nodes", change)
    reseal(built[TREE])
    return root


def bound_profile_edited(base: Path) -> Root:
    root, _ = passed_world(base)
    profile = root.world.profiles_root / TREE / "1.0.json"
    profile.write_bytes(profile.read_bytes() + b"\n")
    return root


def bound_profile_deleted(base: Path) -> Root:
    root, _ = passed_world(base)
    shutil.rmtree(root.world.profiles_root / LC)
    return root


def interrupted_recording(base: Path) -> Root:
    root, built = passed_world(base)
    report = artifact_path(built[TREE], "validationReport")
    (report.parent / recording_name(report.name)).write_bytes(report.read_bytes())
    return root


def pending_fails_under_the_fail_policy(base: Path) -> Root:
    root, _ = passed_world(base)
    failing_pending(root.world)
    return root


def only_recorded_failed(base: Path) -> Root:
    world = standard_world(base)
    validate(world, failing_pending(world))
    return Root(world, world.packages)


def only_quarantined(base: Path) -> Root:
    world = standard_world(base)
    failing_pending(world)
    return Root(world, world.packages, InvalidPackagePolicy.QUARANTINE)


def manifest_not_json(base: Path) -> Root:
    root, built = passed_world(base)
    (built[LC].path / MANIFEST_FILENAME).write_bytes(b"{ not json")
    return root


def manifest_missing(base: Path) -> Root:
    root, built = passed_world(base)
    (built[LC].path / MANIFEST_FILENAME).unlink()
    return root


def manifest_nested_100000_deep(base: Path) -> Root:
    root, built = passed_world(base)
    (built[TREE].path / MANIFEST_FILENAME).write_bytes(b"[" * 100_000 + b"]" * 100_000)
    return root


def duplicate_rights_key(base: Path) -> Root:
    """A second ``rights`` object that turns bulk resources on, after the manifest's own, sealed as a
    last-key-wins parser reads it."""
    root, built = passed_world(base)
    manifest = read_manifest(built[TREE])
    forged = {**manifest["rights"], "allowBulkResource": True}
    as_read = PackageManifest.model_validate_json(json.dumps({**manifest, "rights": forged}))
    manifest["validation"]["sealSha256"] = seal_of(as_read)
    text = json.dumps(manifest, indent=2, sort_keys=True)
    duplicate = f',\n  "rights": {json.dumps(forged)}\n}}\n'
    (built[TREE].path / MANIFEST_FILENAME).write_text(text[:-1].rstrip() + duplicate)
    return root


def older_validator_damaged(base: Path) -> Root:
    root = older_validator_intact(base)
    location = PackageLocation(TREE, "2026-01", root.packages / TREE / "2026-01")
    path = artifact_path(location, "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    return root


def damaged_after_a_warm_start(base: Path) -> Root:
    """The derived-index cache holds a verdict for every package (a start), then one artifact changes."""
    root, built = passed_world(base)
    build_app_state(load_settings(root.settings()))
    path = artifact_path(built[LC], "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))
    return root


def cursor_secret_open_to_others(base: Path) -> Root:
    """The install's cursor secret file readable by anyone: start-up refuses it rather than use it."""
    root, _ = passed_world(base)
    root.cache_dir = base / "cache"
    root.cache_dir.mkdir()
    secret = root.cache_dir / SECRET_FILE_NAME
    secret.write_text("a" * 64 + "\n", encoding="ascii")
    secret.chmod(0o644)
    return root


SCENARIOS: dict[str, tuple[Callable[[Path], Root], Serve]] = {
    "all passed": (all_passed, "serves"),
    "served while pending": (served_while_pending, "serves"),
    "quarantined beside a served one": (quarantined_beside_a_served_one, "serves"),
    "recorded failed beside a served one": (recorded_failed_beside_a_served_one, "serves"),
    "older validator, intact": (older_validator_intact, "serves"),
    "an unbound profile is broken": (an_unbound_profile_is_broken, "serves"),
    "a bound profile is broken": (a_bound_profile_is_broken, "refuses"),
    "no root": (no_root, "refuses"),
    "root is a file": (root_is_a_file, "refuses"),
    "empty root": (empty_root, "refuses"),
    "only stray entries": (only_stray_entries, "refuses"),
    "artifact edited": (artifact_edited, "refuses"),
    "artifact deleted": (artifact_deleted, "refuses"),
    "extra file in a package": (extra_file_in_a_package, "refuses"),
    "artifact replaced by a symlink": (artifact_replaced_by_a_symlink, "refuses"),
    "manifest edited without reseal": (manifest_edited_without_reseal, "refuses"),
    "failed package claims passed": (failed_package_claims_passed, "refuses"),
    "resealed tampering": (resealed_tampering, "refuses"),
    "resealed text change": (resealed_text_change, "refuses"),
    "bound profile edited": (bound_profile_edited, "refuses"),
    "bound profile deleted": (bound_profile_deleted, "refuses"),
    "interrupted recording": (interrupted_recording, "refuses"),
    "pending fails under the fail policy": (pending_fails_under_the_fail_policy, "refuses"),
    "only recorded failed": (only_recorded_failed, "refuses"),
    "only quarantined": (only_quarantined, "refuses"),
    "manifest not JSON": (manifest_not_json, "refuses"),
    "manifest missing": (manifest_missing, "refuses"),
    "manifest nested 100,000 deep": (manifest_nested_100000_deep, "refuses"),
    "duplicate rights key": (duplicate_rights_key, "refuses"),
    "older validator, damaged": (older_validator_damaged, "refuses"),
    "damaged after a warm start": (damaged_after_a_warm_start, "refuses"),
    "cursor secret open to others": (cursor_secret_open_to_others, "refuses"),
}


def serve_refusal(settings: dict[str, Any]) -> Exception | None:
    """What stops the server's start-up on these settings, or ``None`` when it starts."""
    try:
        build_app_state(load_settings(settings))
    except Exception as exc:  # whatever stops start-up: serve exits non-zero on it
        return exc
    return None


def failing(checks: list[DoctorCheck]) -> list[DoctorCheck]:
    return [check for check in checks if check.status is CheckStatus.FAIL]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_doctor_fails_exactly_where_serve_refuses(name: str, tmp_path: Path) -> None:
    build, expected = SCENARIOS[name]
    root = build(tmp_path)
    settings = root.settings()
    refusal = serve_refusal(settings)
    assert (refusal is None) == (expected == "serves"), f"{name}: serve {refusal!r}"
    checks = run_checks(settings)
    failed = failing(checks)
    if refusal is None:
        assert failed == [], f"{name}: serve serves, doctor fails: {failed}"
        assert next(c for c in checks if c.area == "catalog").status is CheckStatus.OK
        return
    assert failed, f"{name}: serve refuses ({refusal}), doctor passes: {checks}"
    assert all(check.fix for check in failed), failed
    said = refusal.message if isinstance(refusal, KgfegmcpError) else type(refusal).__name__
    assert any(said in check.detail for check in failed), f"{name}: serve says {said!r}; doctor: {failed}"


def test_doctor_reports_what_serve_does_with_each_package(tmp_path: Path) -> None:
    """Served, excluded (with its codes and remedy) and refusing packages, each named in one root."""
    root = recorded_failed_beside_a_served_one(tmp_path)
    checks = {check.area: check for check in run_checks(root.settings())}
    assert checks[f"package {TREE}@2026-01"].detail == "served: passed, current"
    excluded = checks[f"package {TREE}@2025-01"]
    assert excluded.status is CheckStatus.WARN
    assert excluded.detail == "not served: failed (unknown_grade_label)"
    assert f"kgfegmcp packages validate {(root.packages / TREE / '2025-01').absolute()}" in (excluded.fix or "")
    assert checks["catalog"].detail == "`kgfegmcp serve` serves 3 packages; 1 excluded"

    artifact_path(PackageLocation(DAG, "2026-01", root.packages / DAG / "2026-01"), "nodes").write_bytes(b"{}\n")
    checks = {check.area: check for check in run_checks(root.settings())}
    damaged = checks[f"package {DAG}@2026-01"]
    assert damaged.status is CheckStatus.FAIL
    assert "marked passed but no longer validates (checksum_mismatch" in damaged.detail
    assert "Restore the validated files" in (damaged.fix or "")
    assert checks["catalog"].status is CheckStatus.FAIL and "1 package(s) stop it" in checks["catalog"].detail


def test_doctor_writes_nothing_into_the_root(tmp_path: Path) -> None:
    """Pending (valid and failing), passed and damaged packages: doctor leaves every name and byte as it was."""
    root = pending_fails_under_the_fail_policy(tmp_path)
    root.world.write(base_graph(TREE), snapshot_id="2026-03", is_current=False)
    path = artifact_path(PackageLocation(LC, "2026-01", root.packages / LC / "2026-01"), "nodes")
    path.write_bytes(path.read_bytes().replace(b"Count to 120", b"Count to 999"))

    def tree() -> dict[str, bytes | None]:
        entries = sorted(root.packages.rglob("*"))
        return {str(p.relative_to(root.packages)): p.read_bytes() if p.is_file() else None for p in entries}

    before = tree()
    checks = run_checks(root.settings())
    assert {c.area for c in checks if c.status is CheckStatus.FAIL} == {
        f"package {TREE}@2025-01",
        f"package {LC}@2026-01",
        "catalog",
    }
    assert tree() == before


def test_the_doctor_command_exits_1_on_a_refused_root_and_0_on_a_served_one(tmp_path: Path) -> None:
    """The console script, as an operator runs it: the exit code follows serve, and no traceback."""
    root = manifest_nested_100000_deep(tmp_path)
    env_settings = root.settings()
    env = {
        "KGFEGMCP_GRAPH_PACKAGES_DIR": str(env_settings["graph_packages_dir"]),
        "KGFEGMCP_PROFILES_DIR": str(env_settings["profiles_dir"]),
        "KGFEGMCP_PROMPTS_DIR": str(env_settings["prompts_dir"]),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [KGFEGMCP, *args], capture_output=True, text=True, env={**os.environ, **env}, timeout=120, check=False
        )

    doctor = run("doctor", "--json")
    assert doctor.returncode == 1, doctor.stdout
    assert "Traceback" not in doctor.stderr + doctor.stdout
    failed = [check for check in json.loads(doctor.stdout) if check["status"] == "fail"]
    assert [check["area"] for check in failed] == [f"package {TREE}@2026-01", "catalog"]
    serve = run("serve")
    assert serve.returncode == 2 and "Traceback" not in serve.stderr
    (line,) = serve.stderr.strip().splitlines()[-1:]
    assert line.startswith("catalog_error: "), serve.stderr[-2000:]

    shutil.rmtree(root.packages / TREE)
    doctor = run("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr


def test_doctor_reads_a_cache_that_a_server_is_writing(tmp_path: Path) -> None:
    """A starting server stores entries through staging directories it renames or removes; doctor, reading the
    same cache meanwhile, reports its size and never fails on a file gone between listing it and reading it."""
    world = standard_world(tmp_path / "world")
    build_all(world)
    cache = tmp_path / "cache"
    settings = {"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root, "cache_dir": cache}
    stop = threading.Event()

    def store_and_discard() -> None:  # what entries being staged and pruned look like to a reader
        while not stop.is_set():
            staging = cache / "fixture-lc" / "2026-01" / ".staging-x" / "components"
            staging.mkdir(parents=True, exist_ok=True)
            for n in range(40):
                (staging / f"{n}.term").write_bytes(b"x" * 64)
            shutil.rmtree(staging.parent, ignore_errors=True)

    writer = threading.Thread(target=store_and_discard)
    writer.start()
    try:
        checks = [check for _ in range(30) for check in run_checks(settings) if check.area == "cache"]
    finally:
        stop.set()
        writer.join()
    assert {check.status for check in checks} == {CheckStatus.OK}
