"""`kgfegmcp doctor`: what this installation can serve, and what to fix when it cannot.

Every check reads; none writes, builds or records (``kgfegmcp packages validate`` does that). The
packages go through the very gate ``kgfegmcp serve`` runs at start-up, so doctor fails exactly where
serve would refuse to start, and names each package serve would leave out. A check that cannot run
because an earlier one failed (no settings, no package root) is not listed.
"""

from __future__ import annotations

import importlib.metadata
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kgfegmcp.catalog import advice
from kgfegmcp.catalog.loader import CatalogLoader, Exclusion, PackageVerdict
from kgfegmcp.core.config import USER_GRAPH_PACKAGES_DIR, BackendSettings, load_settings, profile_roots
from kgfegmcp.core.cursor_secret import read_secret_file, secret_file
from kgfegmcp.core.errors import KgfegmcpError, filesystem_error
from kgfegmcp.core.operator_rights import OperatorRights, read_operator_rights
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.validator import VALIDATOR_VERSION
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.prompts.repository import OVERLAYS_DIR, PromptConfigRepository
from kgfegmcp.sources.registry_sources import SOURCE_DISTRIBUTIONS, install_command

MIN_PYTHON = (3, 11)
#: Where ``scripts/setup.sh`` builds a checkout's catalog (relative to the checkout, where it is run).
CHECKOUT_ROOT = Path("data") / "graph_packages"


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
    repository = ProfileRepository(*profile_roots(settings))
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
        # Start-up loads only the profiles its packages are bound to: a package bound to this one fails
        # its own check below, and serve refuses it there. Any other package still serves.
        return DoctorCheck(
            area="profiles",
            status=CheckStatus.WARN,
            detail=f"{exc.public_message} (start-up needs it only for a package bound to it)",
            fix=f"{exc.hint + ' ' if exc.hint else ''}Fix it before you build or validate a package with it.",
        )
    return DoctorCheck(
        area="profiles", status=CheckStatus.OK, detail=f"{len(refs)} profiles in {settings.profiles_dir}"
    )


def _operator_rights(settings: BackendSettings) -> tuple[DoctorCheck, OperatorRights]:
    """The operator's rights decisions, read as start-up reads them (an invalid file refuses the start)."""
    path = settings.operator_rights_file
    try:
        decisions = read_operator_rights(path)
    except KgfegmcpError as exc:
        failed = DoctorCheck(
            area="operator rights",
            status=CheckStatus.FAIL,
            detail=f"`kgfegmcp serve` refuses to start: {exc.public_message}",
            fix=exc.hint,
        )
        return failed, OperatorRights()
    count = len(decisions.decisions)
    detail = (
        f"{count} decision{'' if count == 1 else 's'} in {path}"
        if path.exists()
        else f"none ({path} does not exist): every package is served under its manifest's rights"
    )
    return DoctorCheck(area="operator rights", status=CheckStatus.OK, detail=detail), decisions


def _package_check(verdict: PackageVerdict, init: str, decisions: OperatorRights) -> DoctorCheck:
    """What start-up does with one package, as a check: a refusal fails, an exclusion or a slow start warns."""
    check = _judged(verdict, init)
    manifest = verdict.outcome.manifest
    if manifest is None or verdict.refusal is not None or verdict.exclusion is not None:
        return check
    decision = decisions.decision(manifest.framework_id, manifest.snapshot_id)
    if decision is None:
        return check
    return check.model_copy(update={"detail": f"{check.detail}; under the operator's decision {decision.summary()}"})


def _judged(verdict: PackageVerdict, init: str) -> DoctorCheck:
    """What start-up does with one package, its rights aside."""
    outcome = verdict.outcome
    area, path = f"package {outcome.graph_package_id}", outcome.location.path
    if verdict.refusal is not None:
        return DoctorCheck(
            area=area,
            status=CheckStatus.FAIL,
            detail=f"`kgfegmcp serve` refuses to start: {verdict.refusal.message}",
            fix=verdict.refusal.hint,
        )
    if verdict.exclusion is not None:
        excluded = verdict.exclusion.package
        return DoctorCheck(
            area=area,
            status=CheckStatus.WARN,
            detail=f"not served: {excluded.status} ({advice.codes_text(excluded.finding_codes)})",
            fix=verdict.exclusion.remedy,
        )
    manifest = outcome.manifest
    assert manifest is not None  # served: it passed the gate
    current = "current" if manifest.is_current else "not current (served when selected by snapshot)"
    if manifest.shape != "1.0":
        # Nothing of this server's is ever recorded in a supplied package: the derived-index cache alone
        # spares a start its rules, once this code has passed it through all of them.
        stated = f"{verdict.status} by its supplying pipeline"
        if manifest.validation.validated_at:
            stated += f" ({manifest.validation.validated_at})"
        return DoctorCheck(
            area=area,
            status=CheckStatus.OK,
            detail=f"served: supplied package, {stated} and by every rule here; {current}",
        )
    if verdict.status == "pending":
        return DoctorCheck(
            area=area,
            status=CheckStatus.WARN,
            detail="served while pending: it passes every rule, but nothing records that, so every start checks it "
            "in full",
            fix=f"`kgfegmcp packages validate {path}` records it passed.",
        )
    version = manifest.validation.validator_version
    if version != VALIDATOR_VERSION:
        return DoctorCheck(
            area=area,
            status=CheckStatus.WARN,
            detail=f"served: passed by validator {version}; this server is {VALIDATOR_VERSION}, so every start "
            "checks it in full (no cache)",
            fix=f"Rebuild it and run `kgfegmcp packages validate {path}` to record it with this validator; "
            f"`{init}` does both for the default catalog.",
        )
    return DoctorCheck(area=area, status=CheckStatus.OK, detail=f"served: passed, {current}")


def _packages(settings: BackendSettings, decisions: OperatorRights) -> list[DoctorCheck]:
    """The root, then every package through the gate ``kgfegmcp serve`` runs, then what start-up would do.

    It is the same :class:`CatalogLoader` with the same derived-index cache, judging without serving,
    so doctor fails exactly where start-up refuses. It never writes a package (a damaged cache entry
    is discarded, as start-up would).
    """
    root = settings.graph_packages_dir
    init = "kgfegmcp catalog init" + ("" if root == USER_GRAPH_PACKAGES_DIR else f" --root {root}")
    cache = DerivedIndexCache(settings.cache_dir) if settings.cache_dir is not None else None
    profiles = ProfileRepository(*profile_roots(settings))
    loader = CatalogLoader(root, profiles, settings.invalid_package_policy, cache, decisions=decisions)
    try:
        discovery = loader.discover()
    except Exception as exc:  # what stops start-up here (no root, an empty one, an unreadable one) fails this check
        failure = _gate_failure(exc, "package root")
        if not root.is_dir():
            fix = f"Run `{init}`, or set KGFEGMCP_GRAPH_PACKAGES_DIR to your packages."
            if root.resolve() != CHECKOUT_ROOT.resolve() and any(CHECKOUT_ROOT.glob(f"*/*/{MANIFEST_FILENAME}")):
                # In a checkout after scripts/setup.sh: its catalog is here, not in the user data directory.
                fix = (
                    f"This directory holds the catalog scripts/setup.sh built: pass `--root {CHECKOUT_ROOT}` (to "
                    f"doctor and serve) or set KGFEGMCP_GRAPH_PACKAGES_DIR={CHECKOUT_ROOT}; `{init}` would build a "
                    "second catalog."
                )
            failure = failure.model_copy(update={"fix": fix})
        return [failure]
    checks = [
        DoctorCheck(
            area="package root",
            status=CheckStatus.WARN if discovery.root_findings else CheckStatus.OK,
            detail=f"{root.resolve()}: {len(discovery.packages)} packages"
            + "".join(f"; {f.code}: {f.location}" for f in discovery.root_findings),
            fix="Remove what is not a <framework-id>/<snapshot-id>/ package." if discovery.root_findings else None,
        )
    ]
    served, refused, excluded = 0, 0, []
    checking: list[str] = []
    try:
        for verdict in loader.judge(discovery, checking.append):
            checks.append(_package_check(verdict, init, decisions))
            if verdict.refusal is not None:
                refused += 1
            elif verdict.exclusion is not None:
                excluded.append(verdict.exclusion)
            else:
                served += 1
    except Exception as exc:  # start-up stops on whatever stops the gate; doctor says so instead
        checks.append(_gate_failure(exc, f"package {checking[-1]}" if checking else "catalog"))
        return checks
    checks.append(_catalog(loader, served, refused, excluded))
    return checks


def _gate_failure(exc: Exception, area: str) -> DoctorCheck:
    """What stopped the gate, as start-up would stop on it (the same error, or the same unexpected failure)."""
    if isinstance(exc, KgfegmcpError | OSError):
        error = exc if isinstance(exc, KgfegmcpError) else filesystem_error(exc, "Start-up could not read a file")
        return DoctorCheck(
            area=area,
            status=CheckStatus.FAIL,
            detail=f"`kgfegmcp serve` refuses to start: {error.message}",
            fix=error.hint,
        )
    return DoctorCheck(
        area=area,
        status=CheckStatus.FAIL,
        detail=f"`kgfegmcp serve` fails unexpectedly here ({type(exc).__name__})",
        fix="Run `kgfegmcp serve` with KGFEGMCP_LOG_LEVEL=DEBUG to log the traceback, and report it.",
    )


def _catalog(loader: CatalogLoader, served: int, refused: int, excluded: list[Exclusion]) -> DoctorCheck:
    """The verdict on the whole root: what ``kgfegmcp serve`` would serve, or why it would not start."""
    if refused:
        return DoctorCheck(
            area="catalog",
            status=CheckStatus.FAIL,
            detail=f"`kgfegmcp serve` refuses to start: {refused} package(s) stop it (see above)",
            fix="Fix or remove each package that fails above, then run `kgfegmcp doctor` again.",
        )
    if not served:
        refusal = loader.all_excluded(excluded)
        return DoctorCheck(
            area="catalog",
            status=CheckStatus.FAIL,
            detail=f"`kgfegmcp serve` refuses to start: {refusal.message}",
            fix=refusal.hint,
        )
    left_out = f"; {len(excluded)} excluded" if excluded else ""
    detail = f"`kgfegmcp serve` serves {served} package{'' if served == 1 else 's'}{left_out}"
    return DoctorCheck(area="catalog", status=CheckStatus.OK, detail=detail)


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
    return DoctorCheck(area="cache", status=CheckStatus.OK, detail=f"{cache} ({_bytes_in(cache) / 1e6:.1f} MB)")


def _bytes_in(cache: Path) -> int:
    """The bytes of the cache's files. A server storing or pruning an entry meanwhile removes files and whole
    staging directories: what is gone by the time it is read is not counted (``os.walk`` skips a vanished
    directory), and no link is followed."""
    total = 0
    for directory, _, names in os.walk(cache):
        for name in names:
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def _cursor_secret(settings: BackendSettings) -> DoctorCheck:
    """Start-up refuses an unfit secret file, so doctor reads it the same way (and never makes one)."""
    area = "cursor secret"
    if settings.cursor_secret is not None:
        return DoctorCheck(area=area, status=CheckStatus.OK, detail="KGFEGMCP_CURSOR_SECRET (shared by replicas)")
    path = secret_file(settings)
    if path is None:
        return DoctorCheck(
            area=area,
            status=CheckStatus.WARN,
            detail="the cache is off: each server process keys cursors by a secret of its own",
            fix="Set KGFEGMCP_CURSOR_SECRET, or turn the cache on, so cursors outlive a restart.",
        )
    try:
        found = read_secret_file(path)
    except KgfegmcpError as exc:
        return DoctorCheck(area=area, status=CheckStatus.FAIL, detail=exc.public_message, fix=exc.hint)
    detail = f"{path} (owner-only)" if found is not None else f"{path} (made on first start)"
    return DoctorCheck(area=area, status=CheckStatus.OK, detail=detail)


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
    rights_check, decisions = _operator_rights(settings)
    checks.append(rights_check)
    checks.extend(_packages(settings, decisions))
    checks.append(_prompts(settings))
    checks.append(_cache(settings))
    checks.append(_cursor_secret(settings))
    return checks
