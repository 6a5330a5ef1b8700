"""Which source document a framework id stands for in a graph-package root, so that one id never names two.

A package's framework node names the document it was built from by its ``identifier``: a CASE CFDocument's
UUID (kept across the document's versions), an ASN document's IRI made a UUID, and, where the framework id
itself is the document's identity (a registry source, a code table, a PDF layout, a publisher's table that
names each release a snapshot), a UUID of the framework id. Two documents given one framework id (two CASE
documents whose titles give no Latin slug and whose identifiers begin alike, two ASN documents of one
jurisdiction and title) would become two current packages of one framework, and the catalog would answer
``ambiguous_framework`` for the genuine one; with the same snapshot id too, the second build would silently
replace the first. So every write is refused, before anything is written, when its root already holds the
framework id built from another document (:func:`refuse_other_document`). The document's URI is shown, not
compared: one CFDocument is served from several addresses, and a publisher's release has IRIs of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from kgfegmcp.core.errors import ManifestBuildError, echo
from kgfegmcp.core.identifiers import named_package_id
from kgfegmcp.core.package_files import PackageFileError, PackageJsonError, parse_package_json, read_package_file
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.manifest_reader import read_manifest
from kgfegmcp.packages.records import FrameworkNode

#: The artifact holding the framework node as a document (small: read whole).
_FRAMEWORK_ARTIFACT = "standardsFramework"


@dataclass(frozen=True, slots=True)
class FrameworkOrigin:
    """The document a package's framework was built from, as its framework node names it."""

    identifier: str
    uri: str | None
    name: str

    @classmethod
    def of(cls, framework: FrameworkNode) -> FrameworkOrigin:
        return cls(framework.identifier, framework.case_identifier_uri, framework.name)

    def same_document(self, other: FrameworkOrigin) -> bool:
        """Whether both name one document (its versions and releases included)."""
        return self.identifier == other.identifier

    def described(self) -> str:
        uri = f", uri {echo(self.uri, 200)}" if self.uri else ""
        return f"“{echo(self.name, 120)}” (identifier {echo(self.identifier, 120)}{uri})"


def existing_origins(root: Path, framework_id: str) -> list[tuple[str, FrameworkOrigin]]:
    """``(snapshot id, origin)`` of each package of ``framework_id`` under ``root`` whose framework can be read.

    A package whose manifest or framework cannot be read is left to ``packages validate`` to report.
    """
    directory = root / framework_id
    if not directory.is_dir():
        return []
    found: list[tuple[str, FrameworkOrigin]] = []
    for package_dir in sorted(directory.iterdir()):
        if not (package_dir / MANIFEST_FILENAME).is_file():
            continue
        try:
            manifest, _ = read_manifest(package_dir)
            entry = next((a for a in manifest.artifacts if a.logical_name == _FRAMEWORK_ARTIFACT), None)
            if manifest.framework_id != framework_id or entry is None:
                continue
            document = parse_package_json(read_package_file(package_dir, entry.path, expected_bytes=entry.bytes))
        except (PackageFileError, PackageJsonError, ValidationError, ValueError):
            continue
        framework = document.get("framework") if isinstance(document, dict) else None
        if not isinstance(framework, dict) or not isinstance(framework.get("identifier"), str):
            continue
        uri = framework.get("caseIdentifierURI")
        name = framework.get("name")
        found.append(
            (
                manifest.snapshot_id,
                FrameworkOrigin(framework["identifier"], uri if isinstance(uri, str) else None, str(name or "")),
            )
        )
    return found


def refuse_other_document(root: Path, framework_id: str, snapshot_id: str, framework: FrameworkNode) -> None:
    """``manifest_build_error`` when ``root`` holds ``framework_id`` built from another document than ``framework``."""
    origin = FrameworkOrigin.of(framework)
    for existing_snapshot, existing in existing_origins(root, framework_id):
        if existing.same_document(origin):
            continue
        raise ManifestBuildError(
            f"Cannot write {named_package_id(framework_id, snapshot_id)}: the framework id {framework_id} already "
            f"belongs to {named_package_id(framework_id, existing_snapshot)} in the graph-package root, built from "
            "another source document, "
            f"{existing.described()}; this package is built from {origin.described()}. One framework id names "
            "one document; nothing was written.",
            hint=f"Build into another graph-package root (--out), or remove {framework_id}/ from this one if that "
            "package is no longer wanted. A CASE framework id is the slug of the CFDocument's title (a title "
            "without Latin letters or digits gives case-<the first 8 characters of its identifier>).",
        )
