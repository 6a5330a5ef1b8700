"""`kgfegmcp doctor`: what this installation can serve, and what to fix when it cannot.

Every check reads; none writes, builds or validates (``kgfegmcp packages validate`` does that). A
check that cannot run because an earlier one failed (no settings, no package root) is not listed.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from collections.abc import Iterator, Mapping
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kgfegmcp.config import USER_GRAPH_PACKAGES_DIR, BackendSettings, load_settings
from kgfegmcp.errors import KgfegmcpError
from kgfegmcp.packages.manifest import manifest_document
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.packages.validator import VALIDATOR_VERSION
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.prompts.repository import OVERLAYS_DIR, PromptConfigRepository
from kgfegmcp.sources.registry_sources import SOURCE_DISTRIBUTIONS, install_command

MIN_PYTHON = (3, 11)


class CheckStatus(StrEnum):
    OK = "ok"
    WARN = "warn"  # works, but something a user likely wants is missing
    FAIL = "fail"  # the server will not start, or will not serve what it should


class DoctorCheck(BaseModel):
    """One finding: what was checked, how it stands, and the next action when it is not ok."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    area: str
    status: CheckStatus
    detail: str
    fix: str | None = None


def _python() -> DoctorCheck:
    version = ".".join(str(part) for part in sys.version_info[:3])
    if sys.version_info[:2] < MIN_PYTHON:
        return DoctorCheck(
            area="python",
            status=CheckStatus.FAIL,
            detail=f"Python {version} ({sys.executable})",
            fix="Install kgfegmcp with Python 3.11 or newer.",
        )
    return DoctorCheck(area="python", status=CheckStatus.OK, detail=f"Python {version} ({sys.executable})")


def _installation() -> DoctorCheck:
    try:
        version = importlib.metadata.version("kgfegmcp")
    except importlib.metadata.PackageNotFoundError:
        version = "not installed (imported from a source tree)"
    where = Path(__file__).resolve().parent
    return DoctorCheck(area="kgfegmcp", status=CheckStatus.OK, detail=f"{version} at {where}")


def _sources() -> Iterator[DoctorCheck]:
    missing = []
    for source in SOURCE_DISTRIBUTIONS:
        installed = source.installed_version()
        area = f"source {source.distribution}"
        if installed == source.version:
            yield DoctorCheck(area=area, status=CheckStatus.OK, detail=f"{installed} ({source.serves})")
            continue
        missing.append(source)
        state = "not installed" if installed is None else f"{installed} installed, {source.version} pinned"
        yield DoctorCheck(
            area=area,
            status=CheckStatus.WARN,
            detail=f"{state}; needed only to build the default catalog ({source.serves})",
            fix=f"`{install_command([source])}` or `kgfegmcp catalog init --install-sources`",
        )


def _profiles(settings: BackendSettings) -> DoctorCheck:
    repository = ProfileRepository(settings.profiles_dir)
    refs = repository.list_refs()
    if not refs:
        return DoctorCheck(
            area="profiles",
            status=CheckStatus.FAIL,
            detail=f"no profile under {settings.profiles_dir}",
            fix="Unset KGFEGMCP_PROFILES_DIR to use the shipped profiles, or point it at a profiles root.",
        )
    try:
        for profile_id, version in refs:
            repository.load(profile_id, version)
    except KgfegmcpError as exc:
        return DoctorCheck(area="profiles", status=CheckStatus.FAIL, detail=exc.public_message, fix=exc.hint)
    return DoctorCheck(
        area="profiles", status=CheckStatus.OK, detail=f"{len(refs)} profiles in {settings.profiles_dir}"
    )


def _manifest_state(package_dir: Path) -> tuple[str, bool, str | None]:
    """(recorded validation status, is current, recording validator version) from a manifest.

    ``("unreadable", False, None)`` when the manifest cannot be read.
    """
    manifest = manifest_document(package_dir)
    try:
        validation = manifest["validation"]
        version = validation.get("validatorVersion")
        return str(validation["status"]), bool(manifest.get("isCurrent")), str(version) if version else None
    except (KeyError, TypeError, AttributeError):
        return "unreadable", False, None


def _packages(settings: BackendSettings) -> list[DoctorCheck]:
    """One check for the root, one per package, and one more when no package would be served."""
    root = settings.graph_packages_dir
    init = "kgfegmcp catalog init" + ("" if root == USER_GRAPH_PACKAGES_DIR else f" --root {root}")
    if not root.is_dir():
        return [
            DoctorCheck(
                area="package root",
                status=CheckStatus.FAIL,
                detail=f"{root.resolve()} does not exist",
                fix=f"Run `{init}`, or set KGFEGMCP_GRAPH_PACKAGES_DIR to your packages.",
            )
        ]
    discovery = discover_packages(root)
    checks = [
        DoctorCheck(
            area="package root",
            status=CheckStatus.WARN if discovery.root_findings else CheckStatus.OK,
            detail=f"{root.resolve()}: {len(discovery.packages)} packages"
            + "".join(f"; {f.code}: {f.location}" for f in discovery.root_findings),
            fix="Remove what is not a <framework-id>/<snapshot-id>/ package." if discovery.root_findings else None,
        )
    ]
    passed = 0
    for location in discovery.packages:
        status, current, version = _manifest_state(location.path)
        area = f"package {location.graph_package_id}"
        if status == "passed" and version != VALIDATOR_VERSION:
            # Start-up runs every rule again on such a package, and rules added since may refuse it.
            passed += 1
            checks.append(
                DoctorCheck(
                    area=area,
                    status=CheckStatus.WARN,
                    detail=f"passed by validator {version}; this server is {VALIDATOR_VERSION} and checks it again",
                    fix=f"`kgfegmcp packages validate --json {location.path}` shows whether it still passes; "
                    f"`{init}` rebuilds the default catalog.",
                )
            )
        elif status == "passed":
            passed += 1
            detail = "passed" + (", current" if current else ", not current (served when selected by snapshot)")
            checks.append(DoctorCheck(area=area, status=CheckStatus.OK, detail=detail))
        elif status == "pending":
            checks.append(
                DoctorCheck(
                    area=area,
                    status=CheckStatus.WARN,
                    detail="pending: not served until validated",
                    fix=f"`kgfegmcp packages validate {location.path}`",
                )
            )
        else:
            checks.append(
                DoctorCheck(
                    area=area,
                    status=CheckStatus.FAIL,
                    detail=f"{status}: not served",
                    fix=f"`kgfegmcp packages validate --json {location.path}` lists the findings; rebuild it.",
                )
            )
    if not passed:
        checks.append(
            DoctorCheck(
                area="catalog",
                status=CheckStatus.FAIL,
                detail="no passed package: the server refuses to start",
                fix=f"Run `{init}`.",
            )
        )
    return checks


def _prompts(settings: BackendSettings) -> DoctorCheck:
    # Every overlay is checked as if its framework were served, so none is skipped (and logged as skipped).
    overlays = settings.prompts_dir / OVERLAYS_DIR
    framework_ids = [entry.name for entry in overlays.iterdir()] if overlays.is_dir() else []
    try:
        PromptConfigRepository(settings.prompts_dir).load(framework_ids)
    except KgfegmcpError as exc:
        return DoctorCheck(area="prompts", status=CheckStatus.FAIL, detail=exc.public_message, fix=exc.hint)
    return DoctorCheck(area="prompts", status=CheckStatus.OK, detail=f"valid in {settings.prompts_dir}")


def _cache(settings: BackendSettings) -> DoctorCheck:
    cache = settings.cache_dir
    if cache is None:
        return DoctorCheck(
            area="cache",
            status=CheckStatus.WARN,
            detail="disabled (KGFEGMCP_CACHE_DIR is empty): every start rebuilds the derived indexes",
            fix="Unset KGFEGMCP_CACHE_DIR, or set it to a writable directory.",
        )
    existing = next((p for p in (cache, *cache.parents) if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        return DoctorCheck(
            area="cache",
            status=CheckStatus.WARN,
            detail=f"{cache} cannot be created or written: every start rebuilds the derived indexes",
            fix="Set KGFEGMCP_CACHE_DIR to a writable directory.",
        )
    if not cache.exists():
        return DoctorCheck(area="cache", status=CheckStatus.OK, detail=f"{cache} (created on first start)")
    size = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
    return DoctorCheck(area="cache", status=CheckStatus.OK, detail=f"{cache} ({size / 1e6:.1f} MB)")


def run_checks(overrides: Mapping[str, object] | None = None) -> list[DoctorCheck]:
    """Every check, in the order a user fixes them."""
    checks = [_python(), _installation(), *_sources()]
    try:
        settings = load_settings(overrides)
    except KgfegmcpError as exc:
        checks.append(DoctorCheck(area="settings", status=CheckStatus.FAIL, detail=exc.public_message, fix=exc.hint))
        return checks
    checks.append(DoctorCheck(area="settings", status=CheckStatus.OK, detail="valid"))
    checks.append(_profiles(settings))
    checks.extend(_packages(settings))
    checks.append(_prompts(settings))
    checks.append(_cache(settings))
    return checks
