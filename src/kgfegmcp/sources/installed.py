"""Data files of installed registry packages: located, versioned and checked against their checksums.

Importers read registry data as files (never through the packages' own APIs or servers), so the
build depends only on bytes whose checksums the wheel itself publishes in its ``RECORD``.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from kgfegmcp.core.errors import ManifestBuildError


@dataclass(frozen=True, slots=True)
class InstalledFile:
    """One data file of an installed distribution, read and verified once."""

    distribution: str
    version: str
    relative_path: str
    path: Path
    data: bytes
    sha256: str
    record_sha256: str | None


def _missing(distribution: str, install_hint: str) -> ManifestBuildError:
    return ManifestBuildError(
        f"The registry package {distribution!r} is not installed.",
        hint=f"Install it ({install_hint}), or run `kgfegmcp catalog init --install-sources`.",
    )


def distribution_version(distribution: str, install_hint: str) -> str:
    """Installed version of ``distribution``; ``manifest_build_error`` when it is absent."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise _missing(distribution, install_hint) from None


def package_directory(import_name: str, distribution: str, install_hint: str) -> Path:
    """Filesystem directory of an installed import package (zip installs are not supported)."""
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        raise _missing(distribution, install_hint)
    directory = Path(next(iter(spec.submodule_search_locations)))
    if not directory.is_dir():
        raise ManifestBuildError(f"The installed package {import_name!r} is not a directory on disk ({distribution}).")
    return directory


def record_sha256(distribution: str, relative_path: str) -> str | None:
    """Hex SHA-256 the wheel's RECORD publishes for one of its files, if any."""
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.as_posix() == relative_path and entry.hash is not None and entry.hash.mode == "sha256":
            padded = entry.hash.value + "=" * (-len(entry.hash.value) % 4)
            return base64.urlsafe_b64decode(padded).hex()
    return None


def read_installed(
    import_name: str,
    distribution: str,
    relative_path: str,
    install_hint: str,
    expected_sha256: str | None = None,
) -> InstalledFile:
    """Read one data file and verify it against the wheel RECORD and, if given, an upstream checksum.

    ``relative_path`` is relative to site-packages (``bncc/dados/VERSAO.json``), as RECORD names it.
    """
    version = distribution_version(distribution, install_hint)
    directory = package_directory(import_name, distribution, install_hint)
    path = directory.parent / relative_path
    if not path.is_file():
        raise ManifestBuildError(
            f"{distribution} {version} has no data file {relative_path}.",
            hint="Install the pinned version (see scripts/setup.sh).",
        )
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    recorded = record_sha256(distribution, relative_path)
    for label, expected in (("the wheel RECORD", recorded), ("the upstream checksum", expected_sha256)):
        if expected is not None and expected != digest:
            raise ManifestBuildError(
                f"{relative_path} of {distribution} {version} does not match {label} "
                f"(expected {expected}, found {digest}).",
                hint="Reinstall the package; the data file was modified after installation.",
            )
    return InstalledFile(distribution, version, relative_path, path, data, digest, recorded)
