"""What start-up tells the operator about a root or package it cannot serve: the thing, and what to do.

These messages go to stderr and the log of the process that starts, never to an MCP client, so they
name the paths the operator has to look at. Hints are chosen per finding code from one table: a code
whose remedy is specific (a killed recording, a missing or changed profile) has its own advice, any
other failure gets the caller's general advice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kgfegmcp.catalog.catalog import ExcludedPackage
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.packages.validator import ValidationOutcome

#: Start of every refusal to publish an empty catalog (scripts and tests match on it).
NO_PACKAGE = "No accepted graph package"


@dataclass(frozen=True, slots=True)
class Advice:
    """A hint template for one finding code.

    ``alone``: the advice holds only when this is the package's only failing code; with other
    damage besides, the general advice applies.
    """

    template: str
    alone: bool


#: Placeholders: ``{package}`` (graph-package id), ``{path}`` (its directory), ``{finding}`` (the
#: message of the code's first finding), and for the bound profile ``{profile_id}``,
#: ``{profile_version}``, ``{profile_sha256}``, ``{profile_path}``.
ADVICE: dict[str, Advice] = {
    "interrupted_recording": Advice(
        "A `packages validate` was killed while recording {package}; run `kgfegmcp packages validate` on it "
        "to finish or roll back that recording, then start again.",
        alone=False,
    ),
    "profile_binding_mismatch": Advice(
        "The files of {package} still match its manifest, but the interpretation profile it was validated "
        "against does not: {finding} Restore {profile_path} (profile {profile_id} version "
        "{profile_version}, SHA-256 {profile_sha256}), or rebuild {package} against the current profile "
        "(`kgfegmcp packages build`, then `kgfegmcp packages validate`), then start again.",
        alone=True,
    ),
    "rights_exceed_profile": Advice(
        "The manifest of {package} claims rights its profile {profile_id}/{profile_version} does not grant: "
        "{finding} Rebuild {package} (`kgfegmcp packages build`, then `kgfegmcp packages validate`), and record "
        "any wider rights as the operator's decision, outside the package: `kgfegmcp packages review {package} "
        "--status approved` (docs/resources.md#who-decides-a-packages-rights).",
        alone=True,
    ),
}

#: For a package whose own files fail: restoring them, or rebuilding, are the only remedies.
DAMAGED = (
    "Restore the validated files of {package} ({path}), or rebuild it (`kgfegmcp packages build`) and run "
    "`kgfegmcp packages validate` on it, then start again."
)
#: For a pending package that does not validate while the policy is ``fail``.
PENDING_FAILS = (
    "Fix {package} ({path}) and run `kgfegmcp packages validate` on it, remove it, or set "
    "KGFEGMCP_INVALID_PACKAGE_POLICY=quarantine to start without it."
)
#: For a pending package that does not validate while the policy is ``quarantine``.
PENDING_QUARANTINED = "Fix it and run `kgfegmcp packages validate` on it to serve it."
#: For a package recorded ``failed`` or ``quarantined``: the state is final for those bytes.
TERMINAL = (
    "`kgfegmcp packages validate {path}` lists its findings; rebuild it (`kgfegmcp packages build`) and "
    "validate it again to serve it."
)


def failing_codes(outcome: ValidationOutcome) -> tuple[str, ...]:
    """Sorted codes of the error findings, including codes whose findings were only counted."""
    return tuple(sorted({f.code for f in outcome.findings if f.severity == "error"} | set(outcome.omitted)))


def codes_text(codes: Sequence[str]) -> str:
    """The codes for a message, or what it means that there are none."""
    return ", ".join(codes) or "no error finding on re-check"


def hint(outcome: ValidationOutcome, profiles_root: Path, default: str) -> str:
    """The advice of the table for this outcome's failing codes, else ``default`` (same placeholders)."""
    codes = set(failing_codes(outcome))
    fields = {"package": outcome.graph_package_id, "path": str(outcome.location.path.absolute())}
    manifest = outcome.manifest
    if manifest is not None:
        binding = manifest.profile
        fields |= {
            "profile_id": binding.profile_id,
            "profile_version": binding.version,
            "profile_sha256": binding.sha256,
            "profile_path": str((profiles_root / binding.profile_id / f"{binding.version}.json").absolute()),
        }
    for code, advice in ADVICE.items():
        if code not in codes or (advice.alone and codes != {code}):
            continue
        finding = next((f.message for f in outcome.findings if f.code == code), "")
        try:
            return advice.template.format(finding=_sentence(finding), **fields)
        except KeyError:  # no readable manifest: nothing to name the profile by
            break
    return default.format(**fields)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else f"{text}."


def exclusion_advice(outcome: ValidationOutcome, recorded: bool, profiles_root: Path) -> str:
    """What to do to serve an excluded package: recorded states are final for their bytes."""
    if recorded:
        return TERMINAL.format(path=outcome.location.path.absolute())
    return hint(outcome, profiles_root, PENDING_QUARANTINED)


def excluded_line(outcome: ValidationOutcome, status: str, recorded: bool, todo: str) -> str:
    """One log line for a discovered package that is not served: which, in what state, why, what to do."""
    codes = codes_text(failing_codes(outcome))
    if recorded:
        why = f"recorded {status} ({codes})"
    else:
        why = f"pending and does not validate ({codes}); KGFEGMCP_INVALID_PACKAGE_POLICY=quarantine excludes it"
    return f"not serving {outcome.graph_package_id} ({outcome.location.path.absolute()}): {why}. {todo}"


def missing_root(root: Path) -> CatalogError:
    """The package root is not there: say which path was looked at and how to get one."""
    where = root.resolve()
    what = "is not a directory" if where.exists() else "does not exist"
    return CatalogError(
        f"{NO_PACKAGE}: KGFEGMCP_GRAPH_PACKAGES_DIR {where} {what}.",
        hint="Run `kgfegmcp catalog init` to build and validate the default catalog there, or set "
        "KGFEGMCP_GRAPH_PACKAGES_DIR (or --root) to the directory that holds your graph packages.",
    )


def empty_root(root: Path, other_entries: int) -> CatalogError:
    """The package root exists but holds no ``<framework-id>/<snapshot-id>/`` package."""
    others = f" ({other_entries} entries there are not packages; see the warnings above)" if other_entries else ""
    return CatalogError(
        f"{NO_PACKAGE}: {root.resolve()} holds no package{others}.",
        hint="Build and validate packages into it (`kgfegmcp catalog init --root DIR` does so for the default "
        "catalog), or set KGFEGMCP_GRAPH_PACKAGES_DIR (or --root) to the directory that holds them.",
    )


def all_excluded(root: Path, excluded: Sequence[ExcludedPackage], only_hint: str | None) -> CatalogError:
    """Every discovered package is excluded: name each with its state and codes (``only_hint``: the one's remedy)."""
    named = "; ".join(f"{e.graph_package_id} ({e.status}: {codes_text(e.finding_codes)})" for e in excluded)
    return CatalogError(
        f"{NO_PACKAGE}: every package under {root.resolve()} is excluded ({named}); the server will not start "
        "with an empty catalog.",
        hint=only_hint
        or f"`kgfegmcp packages validate {root.resolve()}` lists each package's findings; rebuild and validate "
        "the ones to serve.",
    )
