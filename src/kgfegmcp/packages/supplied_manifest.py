"""The manifest as the design's construction pipeline supplies it (``manifestVersion`` 1.1), read unchanged.

A supplied manifest names its artifacts as a map from role to path, pins each file by a ``sha256:`` digest
in a map keyed by path, and declares no sizes. :meth:`SuppliedManifest.view` turns it into the one
:class:`~kgfegmcp.packages.manifest.PackageManifest` everything downstream reads: roles under this
server's logical names (``artifact_roles`` holds both names), the profile binding, rights and state as
declared, and each file's size as measured when the manifest was read (the SHA-256 check that every read
makes then proves those bytes, so a size is never taken on trust).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, field_validator, model_validator

from kgfegmcp.core.identifiers import (
    FrameworkId,
    ProfileId,
    SnapshotId,
    supplied_package_parts,
    supplied_snapshot_framework,
)
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.package_files import path_problem
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.artifact_roles import SUPPLIED_ROLE
from kgfegmcp.packages.manifest import (
    TIMESTAMP_PATTERN,
    AdditionalArtifact,
    ArtifactEntry,
    ExposureContract,
    GraphType,
    GraphTypes,
    PackageManifest,
    SuppliedCapabilities,
    SuppliedCounts,
    SuppliedFramework,
    ValidationState,
    ValidationStatus,
)
from kgfegmcp.profiles.model import PROFILE_VERSION_PATTERN, ProfileRef

_DIGEST = r"^sha256:[0-9a-f]{64}$"
_ARTIFACT_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,99}$"
#: The pipeline's graph types, and the name this server files each under.
_GRAPH_TYPES: Final[dict[str, GraphType]] = {
    "academic_standards": "AcademicStandards",
    "learning_components": "LearningComponents",
    "learning_progressions": "LearningProgressions",
}
SuppliedGraphType = Literal["academic_standards", "learning_components", "learning_progressions"]


class SuppliedProfileBinding(ContractModel):
    """The exact profile file a supplied package was built and validated against."""

    profile_id: ProfileId
    profile_version: str = Field(pattern=PROFILE_VERSION_PATTERN)
    sha256: str = Field(pattern=_DIGEST)


class SuppliedValidation(ContractModel):
    """The pipeline's verdict: a terminal state says when it was reached, a pending one does not."""

    status: ValidationStatus
    validated_at: str | None = Field(None, pattern=TIMESTAMP_PATTERN)

    @model_validator(mode="after")
    def _terminal_is_dated(self) -> SuppliedValidation:
        if (self.status == "pending") != (self.validated_at is None):
            raise ValueError("a terminal status carries validatedAt and a pending one does not")
        return self


class SnapshotRelation(ContractModel):
    """How this snapshot relates to another snapshot of its framework."""

    relation_type: Literal["derived_from", "replaces", "revises", "supersedes"]
    target_snapshot_id: SnapshotId
    evidence: str | None = Field(None, max_length=4000)


class SuppliedManifest(ContractModel):
    """``package_manifest.json`` as the construction pipeline writes it (``manifestVersion`` 1.1)."""

    manifest_version: Literal["1.1"]
    delivery_schema_version: Literal["1.2"]
    source_schema_version: Literal["1.0"]
    graph_package_id: str = Field(max_length=320)
    framework_id: FrameworkId
    snapshot_id: SnapshotId
    graph_type: Literal["academic_standards"]
    included_graph_types: tuple[SuppliedGraphType, ...] = Field(min_length=1)
    package_revision: int = Field(1, ge=1)
    created_at: str = Field(pattern=TIMESTAMP_PATTERN)
    framework: SuppliedFramework
    profile: SuppliedProfileBinding
    artifacts: dict[str, Any]
    checksums: dict[str, str]
    counts: SuppliedCounts
    capabilities: SuppliedCapabilities
    rights: RightsPolicy
    snapshot_relations: tuple[SnapshotRelation, ...] = ()
    validation: SuppliedValidation

    @field_validator("checksums")
    @classmethod
    def _digests(cls, checksums: dict[str, str]) -> dict[str, str]:
        bad = sorted(path for path, digest in checksums.items() if re.fullmatch(_DIGEST, digest) is None)
        if bad:
            raise ValueError(f"checksums must be sha256:<64 lowercase hex> (not so for {bad[:3]})")
        return checksums

    @model_validator(mode="after")
    def _consistent(self) -> SuppliedManifest:
        declared = self.declared_paths()
        paths = [path for _, path, _ in declared]
        if len(set(paths)) != len(paths):
            raise ValueError("two artifacts declare one path")
        if set(self.checksums) != set(paths):
            missing = sorted(set(paths) - set(self.checksums))
            extra = sorted(set(self.checksums) - set(paths))
            raise ValueError(f"checksums must name exactly the declared paths (missing {missing}, extra {extra})")
        if supplied_snapshot_framework(self.snapshot_id) != self.framework_id:
            raise ValueError("snapshotId must be <frameworkId>@<version>+<hex>")
        parts = supplied_package_parts(self.graph_package_id)
        if parts is None or parts[0] != self.snapshot_id:
            raise ValueError("graphPackageId must be the snapshotId, or it with --<graph-type>--p<revision>")
        _, graph_type, revision = parts
        if graph_type is None and (self.package_revision != 1 or self.included_graph_types != (self.graph_type,)):
            raise ValueError("a graphPackageId without a suffix files revision 1 of its graph type alone")
        suffix = (self.graph_type.replace("_", "-"), self.package_revision)
        if graph_type is not None and (graph_type, revision) != suffix:
            raise ValueError("the graphPackageId suffix must name graphType and packageRevision")
        if self.graph_type not in self.included_graph_types or len(set(self.included_graph_types)) != len(
            self.included_graph_types
        ):
            raise ValueError("includedGraphTypes holds graphType once, and no type twice")
        progressions = "learning_progressions" in self.included_graph_types
        caps = self.capabilities
        if caps.has_learning_progressions != progressions or caps.has_learning_progression_provenance != progressions:
            raise ValueError(
                "hasLearningProgressions and hasLearningProgressionProvenance say whether "
                "includedGraphTypes holds learning_progressions"
            )
        if not progressions and (self.counts.builds_towards_relationships or self.counts.relates_to_relationships):
            raise ValueError("a package without learning progressions counts no progression links")
        return self

    def declared_paths(self) -> list[tuple[str, str, bool]]:
        """Every declared artifact as (supplied key, path, additional), in manifest order; raises ``ValueError``
        on a key or path the supplied shape does not allow."""
        declared: list[tuple[str, str, bool]] = []
        for key, value in self.artifacts.items():
            if key == "additionalArtifacts":
                if not isinstance(value, dict):
                    raise ValueError("artifacts.additionalArtifacts must be a map from name to path")
                for name, path in value.items():
                    known = SUPPLIED_ROLE.get(name)
                    if known is not None and not known.additional:
                        raise ValueError(f"additionalArtifacts reuses the artifact role {name!r}")
                    declared.append((_name(name), _path(path, name), True))
                continue
            role = SUPPLIED_ROLE.get(key)
            if role is None or role.additional:
                raise ValueError(f"artifacts.{key} is not an artifact role of the supplied shape")
            declared.append((key, _path(value, key), False))
        return declared

    def view(self, package_dir: Path) -> PackageManifest:
        """The package as this server reads every package (see the module docstring)."""
        artifacts: list[ArtifactEntry] = []
        additional: list[AdditionalArtifact] = []
        for key, path, is_additional in self.declared_paths():
            role = SUPPLIED_ROLE.get(key)
            digest = self.checksums[path].removeprefix("sha256:")
            size = _measured_size(package_dir, path)
            if not is_additional:
                assert role is not None
                artifacts.append(
                    ArtifactEntry(
                        logical_name=role.logical_name,
                        path=path,
                        sha256=digest,
                        bytes=size,
                        media_type=role.media_type,
                    )
                )
                continue
            # This server's role table is the exposure contract of the additional artifacts it knows (the
            # progression shards); any other additional artifact is checked, never served.
            exposure = (
                ExposureContract(
                    access_class=role.access_class,
                    description="Provenance of the learning-progression links whose id falls in this shard.",
                )
                if role is not None  # declared_paths refused any other role here
                else None
            )
            media = role.media_type if role is not None else "application/octet-stream"
            additional.append(
                AdditionalArtifact(
                    logical_name=key, path=path, sha256=digest, bytes=size, media_type=media, exposure=exposure
                )
            )
        return PackageManifest(
            manifest_schema_version="1.1",
            graph_package_id=self.graph_package_id,
            framework_id=self.framework_id,
            snapshot_id=self.snapshot_id,
            title=self.framework.name,
            delivery_schema_version="1.2",
            profile=ProfileRef(
                profile_id=self.profile.profile_id,
                version=self.profile.profile_version,
                sha256=self.profile.sha256.removeprefix("sha256:"),
            ),
            artifacts=tuple(artifacts),
            additional_artifacts=tuple(additional),
            counts=self.counts,
            capabilities=self.capabilities,
            graph_types=GraphTypes(
                filed_as="AcademicStandards",
                contains=tuple(_GRAPH_TYPES[t] for t in self.included_graph_types),
            ),
            rights=self.rights,
            source=self.framework,
            is_current=self.framework.is_current,
            validation=ValidationState(status=self.validation.status, validated_at=self.validation.validated_at),
        )


def _name(name: object) -> str:
    if not isinstance(name, str) or re.fullmatch(_ARTIFACT_NAME, name) is None:
        raise ValueError(f"additional artifact name {name!r} must match {_ARTIFACT_NAME}")
    return name


def _path(path: object, key: str) -> str:
    if not isinstance(path, str) or not 1 <= len(path) <= 512 or path != path.strip():
        raise ValueError(f"artifacts.{key} must be a relative path of 1-512 characters")
    return path


def _measured_size(package_dir: Path, path: str) -> int:
    """The size of a declared regular file, or 0 for one that is missing or not a regular file (the tree scan
    reports why; nothing is read from it)."""
    if path_problem(path) is not None:
        return 0
    try:
        info = os.lstat(package_dir / path)
    except (OSError, ValueError):
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def checksum_set_digest(manifest: PackageManifest) -> str:
    """The pipeline's digest of a package's declared files, which names its snapshot: the SHA-256 of every
    ``sha256:<hex>`` checksum, sorted, one per line (its snapshot id ends with a prefix of it)."""
    checksums = sorted(f"sha256:{entry.sha256}" for entry in manifest.all_artifacts())
    return hashlib.sha256("".join(f"{value}\n" for value in checksums).encode()).hexdigest()
