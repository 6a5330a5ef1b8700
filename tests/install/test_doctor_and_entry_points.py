"""`kgfegmcp doctor` on the states a user meets, the bundle entry point's arguments, and the one table of
pinned source packages agreeing with pyproject's `sources` extra."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from install_support import REPOSITORY_ROOT

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, InvalidPackagePolicy
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.doctor import CheckStatus, DoctorCheck, run_checks
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.tree import locate_package
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.sources.registry_sources import BNCC, SOURCE_DISTRIBUTIONS
from kgfegmcp.stdio_transport.server import bundle_settings
from package_factory import TREE, base_graph, standard_world


def by_area(checks: list[DoctorCheck]) -> dict[str, DoctorCheck]:
    return {check.area: check for check in checks}


def test_doctor_names_each_package_state_and_the_fix(tmp_path: Path) -> None:
    world = standard_world(tmp_path)
    pending = world.write(base_graph(TREE), snapshot_id="2026-02")
    checks = by_area(run_checks({"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root}))
    # A pending package that passes every rule is served (start-up runs the gate), but checked in full each time.
    assert checks[f"package {pending.graph_package_id}"].status is CheckStatus.WARN
    assert "served while pending" in checks[f"package {pending.graph_package_id}"].detail
    assert f"kgfegmcp packages validate {pending.path}" in (checks[f"package {pending.graph_package_id}"].fix or "")
    assert (
        checks["catalog"].status is CheckStatus.OK and checks["catalog"].detail == "`kgfegmcp serve` serves 1 package"
    )

    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert lifecycle.validate(locate_package(pending.path)).accepted
    checks = by_area(run_checks({"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root}))
    assert checks[f"package {pending.graph_package_id}"].status is CheckStatus.OK
    assert checks["catalog"].status is CheckStatus.OK
    assert checks["profiles"].status is CheckStatus.OK and checks["prompts"].status is CheckStatus.OK

    # A pass recorded by another validator version is re-checked in full at every start: doctor says so, and how.
    manifest_path = pending.path / "package_manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["validation"]["validatorVersion"] = "0.9.0"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    checks = by_area(run_checks({"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root}))
    older = checks[f"package {pending.graph_package_id}"]
    assert older.status is CheckStatus.WARN and "passed by validator 0.9.0" in older.detail
    assert f"kgfegmcp packages validate {pending.path}" in (older.fix or "")


def test_doctor_reports_a_missing_root_bad_settings_and_a_disabled_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = by_area(run_checks({"graph_packages_dir": tmp_path / "nowhere"}))["package root"]
    assert missing.status is CheckStatus.FAIL and missing.fix is not None
    assert f"kgfegmcp catalog init --root {tmp_path / 'nowhere'}" in missing.fix

    # In a checkout after scripts/setup.sh, the catalog it built is named instead of a second `catalog init`.
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "data" / "graph_packages" / "some-framework" / "some-snapshot" / "package_manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text("{}", encoding="utf-8")
    checkout = by_area(run_checks({"graph_packages_dir": tmp_path / "nowhere"}))["package root"]
    assert checkout.fix is not None and "pass `--root data/graph_packages`" in checkout.fix

    monkeypatch.setenv("KGFEGMCP_CACHE_DIR", "")
    cache = by_area(run_checks({"graph_packages_dir": tmp_path}))["cache"]
    assert cache.status is CheckStatus.WARN and "disabled" in cache.detail

    monkeypatch.setenv("KGFEGMCP_HTTP_PORT", "0")
    settings = by_area(run_checks())["settings"]
    assert settings.status is CheckStatus.FAIL and "KGFEGMCP_HTTP_PORT" in settings.detail


def test_doctor_fails_on_a_profiles_root_without_profiles(tmp_path: Path) -> None:
    profiles = by_area(run_checks({"graph_packages_dir": tmp_path, "profiles_dir": tmp_path / "empty"}))["profiles"]
    assert profiles.status is CheckStatus.FAIL and "KGFEGMCP_PROFILES_DIR" in (profiles.fix or "")


def test_the_bundle_entry_point_serves_the_users_directory_or_else_the_bundled_catalog(tmp_path: Path) -> None:
    bundled, mine = tmp_path / "bundled", tmp_path / "mine"
    assert bundle_settings(["--bundled-catalog", str(bundled), "--packages-dir", ""]).graph_packages_dir == bundled
    assert bundle_settings(["--bundled-catalog", str(bundled)]).graph_packages_dir == bundled
    chosen = bundle_settings(["--bundled-catalog", str(bundled), "--packages-dir", str(mine)])
    assert chosen.graph_packages_dir == mine and chosen.profiles_dir == SHIPPED_PROFILES_DIR
    for wrong in (
        ["--packages-dir", str(mine)],
        ["--bundled-catalog"],
        ["--root", "x"],
        ["--bundled-catalog", "a"] * 2,
    ):
        with pytest.raises(ConfigurationError):
            bundle_settings(wrong)


def test_the_pinned_sources_are_the_ones_pyproject_and_setup_install() -> None:
    project = tomllib.loads((REPOSITORY_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["optional-dependencies"]["sources"] == [BNCC.requirement]
    install = (REPOSITORY_ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")
    for source in SOURCE_DISTRIBUTIONS[1:]:
        assert f"'{source.requirement}'" in install


def test_catalog_init_names_the_command_as_it_can_be_typed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a checkout the console script is not on PATH: the hint names `.venv/bin/kgfegmcp`, not `kgfegmcp`."""
    from kgfegmcp.cli.catalog_commands import this_command

    script = tmp_path / ".venv" / "bin" / "kgfegmcp"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", [str(script), "catalog", "init"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert this_command() == ".venv/bin/kgfegmcp"
    monkeypatch.setenv("PATH", str(script.parent))  # installed: PATH finds this very script
    assert this_command() == "kgfegmcp"
