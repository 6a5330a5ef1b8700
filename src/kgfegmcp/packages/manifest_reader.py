"""Reads a package manifest in whichever shape it is written, as the one model every reader uses."""

from __future__ import annotations

import json
from pathlib import Path

from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest, read_manifest_json
from kgfegmcp.packages.supplied_manifest import SuppliedManifest


def parse_manifest(data: bytes, package_dir: Path) -> PackageManifest:
    """Manifest bytes (already read as strict JSON) as :class:`PackageManifest`.

    A document with ``manifestVersion`` is a supplied manifest (read by :class:`SuppliedManifest`, whose view
    measures the sizes of the files in ``package_dir``); any other is this server's own. Raises pydantic's
    ``ValidationError`` naming what the shape refuses.
    """
    document = json.loads(data)
    if isinstance(document, dict) and "manifestVersion" in document:
        return SuppliedManifest.model_validate_json(data).view(package_dir)
    return PackageManifest.model_validate_json(data)


def read_manifest(package_dir: Path, name: str = MANIFEST_FILENAME) -> tuple[PackageManifest, bytes]:
    """A manifest and the bytes it was read from: :func:`read_manifest_json`, then the contract.

    Raises ``PackageFileError`` as :func:`read_manifest_json` does, or pydantic's ``ValidationError``.
    """
    data, _ = read_manifest_json(package_dir, name)
    return parse_manifest(data, package_dir), data
