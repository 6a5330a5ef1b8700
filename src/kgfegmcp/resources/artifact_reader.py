"""Verified reads of one served package's files: the exact bytes validation recorded, or a refusal.

Every byte a resource serves from a package passes through here: the file is read without following
a final symlink, within the source-read limit, and checked against the manifest's size and SHA-256
(the manifest itself against the validated manifest, the profile against its bound SHA-256). What
no longer matches is refused to the client by package and artifact name, and reported to the
operator with the file to restore.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from kgfegmcp.core.errors import ResourceAccessDeniedError
from kgfegmcp.core.models import sha256_hex
from kgfegmcp.core.package_files import PackageFile, PackageFileError, parse_package_json
from kgfegmcp.packages.artifact_roles import progression_shard_name, provenance_part_name
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, ArtifactEntry
from kgfegmcp.packages.manifest_reader import parse_manifest
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import PROGRESSION_LABELS
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.packages.supplied_provenance import entity_records, progression_shard, shard_records
from kgfegmcp.resources.policy import SizePolicy

log = logging.getLogger(__name__)

#: Pseudo logical names for the two files a package is bound to but does not list as artifacts.
MANIFEST_ARTIFACT = "packageManifest"
PROFILE_ARTIFACT = "profile"


class VerifiedArtifactReader:
    """One package's files, read only as validation recorded them."""

    def __init__(self, runtime: PackageRuntime, sizes: SizePolicy, profile_path: Path) -> None:
        """``profile_path``: the file of the profile the manifest binds, wherever its repository keeps it."""
        self._runtime = runtime
        self._sizes = sizes
        self._profile_path = profile_path
        self._manifest_digest: tuple[str, int] | None = None

    @property
    def sizes(self) -> SizePolicy:
        """The source-read and returned-document limits these reads run under."""
        return self._sizes

    def entity_provenance(self, entity_id: str) -> tuple[int | None, ArtifactEntry, dict[str, Any] | None]:
        """One entity's provenance record (``None`` when none is recorded), with the part it was read from and
        that file's manifest entry.

        Read from its one checked part where the package declares the 64 parts; else (a package shaped as the
        spec draws it, without them) from the provenance documents themselves, part ``None``.
        """
        runtime = self._runtime
        if runtime.manifest.shape == "1.1":
            return self._supplied_provenance(entity_id)
        part = provenance_part_of(entity_id)
        entry = runtime.manifest.artifact(provenance_part_name(part))
        if entry is None:
            return self._whole_provenance(entity_id)
        document = self._entities(entry)
        if document.get("graphPackageId") != runtime.graph_package_id or document.get("part") != part:
            self.refuse(entry.logical_name, runtime.path / entry.path, reason="not this package's provenance part")
        record = document["entities"].get(entity_id)
        return part, entry, record if isinstance(record, dict) else None

    def _whole_provenance(self, entity_id: str) -> tuple[None, ArtifactEntry, dict[str, Any] | None]:
        """The entity's record in ``entityProvenance`` (standards side), else in ``lcEntityProvenance``."""
        runtime = self._runtime
        standards = runtime.manifest.artifact("entityProvenance")
        if standards is None:  # validation guarantees it
            self.refuse("entityProvenance", runtime.path, reason="not declared")
        components = runtime.manifest.artifact("lcEntityProvenance")
        for entry in (standards, components):
            if entry is None:
                continue
            document = self._entities(entry)
            if document.get("graphPackageId") != runtime.graph_package_id:
                self.refuse(entry.logical_name, runtime.path / entry.path, reason="not this package's provenance")
            record = document["entities"].get(entity_id)
            if isinstance(record, dict):
                return None, entry, record
        return None, standards, None

    def _supplied_provenance(self, entity_id: str) -> tuple[None, ArtifactEntry, dict[str, Any] | None]:
        """A supplied package's record of the entity: a progression link's from the one shard its id names,
        anything else's from the provenance documents (``supplied_provenance``)."""
        runtime = self._runtime
        documents: list[tuple[ArtifactEntry, Callable[[object], dict[str, dict[str, Any]] | None]]] = []
        position = runtime.relationships.position(entity_id)
        if position is not None and runtime.relationships.label_at(position) in PROGRESSION_LABELS:
            shard = runtime.manifest.artifact(progression_shard_name(progression_shard(entity_id)))
            if shard is not None:
                documents.append((shard, shard_records))
        for name in ("entityProvenance", "lcEntityProvenance"):
            entry = runtime.manifest.artifact(name)
            if entry is not None:
                documents.append((entry, entity_records))
        for entry, read in documents:
            records = read(self._document(entry))
            if records is None:
                self.refuse(entry.logical_name, runtime.path / entry.path, reason="not a provenance document")
            if entity_id in records:
                return None, entry, records[entity_id]
        standards = runtime.manifest.artifact("entityProvenance")
        if standards is None:  # validation guarantees it
            self.refuse("entityProvenance", runtime.path, reason="not declared")
        return None, standards, None

    def _document(self, entry: ArtifactEntry) -> Any:
        """A checked JSON artifact, parsed (``None`` when it is not JSON)."""
        try:
            return json.loads(self.artifact(entry))
        except ValueError:
            return None

    def _entities(self, entry: ArtifactEntry) -> dict[str, Any]:
        """A provenance document (or part), checked, whose ``entities`` is an object; refused otherwise."""
        document = self._document(entry)
        if not isinstance(document, dict) or not isinstance(document.get("entities"), dict):
            self.refuse(entry.logical_name, self._runtime.path / entry.path, reason="not a provenance document")
        return document

    def artifact(self, entry: ArtifactEntry) -> bytes:
        """An artifact's exact bytes, checked against the manifest's size and SHA-256."""
        runtime = self._runtime
        what = f"Artifact {entry.logical_name!r} of {runtime.graph_package_id}"
        self._sizes.check_source(entry.bytes, what)
        path = runtime.path / entry.path
        try:
            data = self._read_file(path, what)
        except PackageFileError as exc:
            self.refuse(entry.logical_name, path, error=exc.reason)
        digest = sha256_hex(data)
        if len(data) != entry.bytes or digest != entry.sha256:
            self.refuse(
                entry.logical_name, path, expected=entry.sha256, found=digest, size=len(data), declared=entry.bytes
            )
        return data

    def manifest(self) -> bytes:
        """The manifest file, accepted only when it still parses to exactly the validated manifest."""
        runtime = self._runtime
        path = runtime.path / MANIFEST_FILENAME
        try:
            data = self._read_file(path, f"The manifest of {runtime.graph_package_id}")
            parse_package_json(data)  # a repeated key would say two things where the model keeps one
            unchanged = parse_manifest(data, runtime.path) == runtime.manifest
        except PackageFileError as exc:
            self.refuse(MANIFEST_ARTIFACT, path, error=exc.reason)
        except ValueError:
            unchanged = False
        if not unchanged:
            self.refuse(MANIFEST_ARTIFACT, path, reason="differs from the validated manifest")
        return data

    def manifest_digest(self) -> tuple[str, int]:
        """SHA-256 and size of the verified manifest, for documents derived from it (read once, then kept)."""
        if self._manifest_digest is None:
            data = self.manifest()
            self._manifest_digest = (sha256_hex(data), len(data))
        return self._manifest_digest

    def profile(self) -> bytes:
        """The bound interpretation profile file, checked against the SHA-256 the manifest binds."""
        runtime = self._runtime
        binding = runtime.manifest.profile
        path = self._profile_path
        try:
            data = self._read_file(path, f"The interpretation profile of {runtime.graph_package_id}")
        except PackageFileError as exc:
            self.refuse(PROFILE_ARTIFACT, path, error=exc.reason)
        if sha256_hex(data) != binding.sha256:
            self.refuse(PROFILE_ARTIFACT, path, expected=binding.sha256, found=sha256_hex(data))
        return data

    def refuse(self, logical_name: str, file: Path, **details: Any) -> NoReturn:
        """Refuse unverifiable bytes.

        The operator is warned (the package and file to restore, and how); the client's message
        names the package and artifact but no path.
        """
        runtime = self._runtime
        if logical_name == PROFILE_ARTIFACT:
            binding = runtime.manifest.profile
            remedy = (
                f"Restore profile {binding.profile_id} version {binding.version} as it was validated (reads resume "
                "at once), or rebuild the package against the current profile, validate it and restart the server."
            )
        else:
            remedy = (
                "Restore the package's validated files (reads resume at once), or rebuild it, run "
                "`kgfegmcp packages validate` and restart the server."
            )
        log.warning(
            "integrity check failed: refused artifact %s of %s, file %s no longer matches what validation "
            "recorded (%s). %s",
            logical_name,
            runtime.graph_package_id,
            file,
            json.dumps(details, sort_keys=True, default=str),
            remedy,
        )
        raise ResourceAccessDeniedError(
            f"Artifact {logical_name!r} of {runtime.graph_package_id} no longer matches the SHA-256 its "
            "validated manifest records; the server does not serve unverified bytes.",
            hint="Ask the operator to restore or rebuild and re-validate the package.",
            details={"graphPackageId": runtime.graph_package_id, "logicalArtifact": logical_name},
        )

    def _read_file(self, path: Path, what: str) -> bytes:
        """Read one regular file within the source-read limit (``PackageFile``: the one way a package
        file is opened, so a FIFO, device, directory or symlink swapped in after validation is refused
        without blocking on it). ``PackageFileError`` when it cannot be read as a regular file."""
        with PackageFile.open(path.parent, path.name) as handle:
            self._sizes.check_source(handle.size, what)
            data = handle.read_all()
        self._sizes.check_source(len(data), what)
        return data
