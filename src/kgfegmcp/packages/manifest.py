"""The package manifest contract (``package_manifest.json``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal, get_args

from pydantic import Field, model_validator

from kgfegmcp.finding_codes import FindingCode
from kgfegmcp.identifiers import FrameworkId, SnapshotId
from kgfegmcp.models import ContractModel
from kgfegmcp.package_files import PackageFile, PackageFileError, PackageJsonError, parse_package_json
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, AccessClass
from kgfegmcp.profiles.model import ProfileRef
from kgfegmcp.rights import RightsPolicy

MANIFEST_FILENAME = "package_manifest.json"
#: The schema versions this contract accepts and the writer writes.
ManifestSchemaVersion = Literal["1.0"]
DeliverySchemaVersion = Literal["1.1"]
MANIFEST_SCHEMA_VERSION: Final[ManifestSchemaVersion] = get_args(ManifestSchemaVersion)[0]
DELIVERY_SCHEMA_VERSION: Final[DeliverySchemaVersion] = get_args(DeliverySchemaVersion)[0]
#: The manifest is the one package file whose size nothing declares: a larger one is refused unread.
MAX_MANIFEST_BYTES = 16 * 1024 * 1024

SHA256 = Field(pattern=r"^[0-9a-f]{64}$")

ValidationStatus = Literal["pending", "passed", "failed", "quarantined"]


class ArtifactEntry(ContractModel):
    """One declared file: where it is, what it is, and its exact bytes."""

    logical_name: str = Field(pattern=r"^[a-z][A-Za-z0-9]{1,63}$")
    path: str = Field(min_length=1, max_length=512)
    sha256: str = SHA256
    bytes: int = Field(ge=0)
    media_type: str = Field(pattern=r"^[a-z]+/[a-z0-9.+-]+$")


class ExposureContract(ContractModel):
    """An operator's explicit decision to expose an additional artifact."""

    access_class: AccessClass
    description: str = Field(min_length=1, max_length=1000)


class AdditionalArtifact(ArtifactEntry):
    """A declared artifact outside the closed core list."""

    exposure: ExposureContract | None = None


class StandardsCounts(ContractModel):
    """Published standards side of a package."""

    frameworks: int = Field(ge=0)
    items: int = Field(ge=0)
    standards: int = Field(ge=0, description="Items whose statement type has the standard role.")
    groupings: int = Field(ge=0)
    items_by_statement_type: dict[str, int]
    items_with_code: int = Field(ge=0)


class LearningComponentCounts(ContractModel):
    """Learning-component side of a package (never added to standards)."""

    components: int = Field(ge=0)


class RelationshipCounts(ContractModel):
    """Relationships per label."""

    has_child: int = Field(ge=0)
    supports: int = Field(ge=0)
    builds_towards: int = Field(ge=0)
    relates_to: int = Field(ge=0)


class PackageCounts(ContractModel):
    """Counts the validator recomputes exactly."""

    standards: StandardsCounts
    learning_components: LearningComponentCounts
    relationships: RelationshipCounts
    unresolved_items: int = Field(ge=0)
    provenance_entities: int = Field(ge=0)


class Capabilities(ContractModel):
    """What the package can truthfully support."""

    text_search: bool
    exact_code_search: bool
    prefix_code_search: bool
    learning_components: bool
    learning_progressions: bool
    has_detailed_provenance: bool


GraphType = Literal["AcademicStandards", "LearningComponents", "LearningProgressions"]


class GraphTypes(ContractModel):
    """How the package is filed, and everything it contains."""

    filed_as: Literal["AcademicStandards"]
    contains: tuple[GraphType, ...]


class UpstreamChecksum(ContractModel):
    """A checksum the upstream source publishes for one of its files."""

    file: str = Field(min_length=1, max_length=256)
    algorithm: Literal["sha256", "sha1", "md5"]
    value: str = Field(pattern=r"^[0-9a-f]{32,64}$")


class SourceDataset(ContractModel):
    """One registry dataset a package was built from."""

    name: str = Field(min_length=1, max_length=256)
    version: str = Field(min_length=1, max_length=64)
    uri: str | None = Field(None, max_length=2000)
    license: str = Field(min_length=1, max_length=1000)
    role: str = Field(min_length=1, max_length=256)


class SourceInfo(ContractModel):
    """Where the package's content came from."""

    name: str = Field(min_length=1, max_length=256)
    version: str = Field(min_length=1, max_length=64)
    uri: str | None = Field(None, max_length=2000)
    upstream_checksums: tuple[UpstreamChecksum, ...] = ()
    datasets: tuple[SourceDataset, ...] = ()


class FindingSummary(ContractModel):
    """Counts of validation findings by severity and code."""

    errors: int = Field(ge=0)
    warnings: int = Field(ge=0)
    infos: int = Field(ge=0)
    by_code: dict[str, int]


class ValidationState(ContractModel):
    """Lifecycle state; terminal states carry the validator version and report hash."""

    status: ValidationStatus
    validator_version: str | None = None
    report_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    seal_sha256: str | None = Field(
        None,
        pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 of the canonical manifest without this block; detects edits.",
    )
    findings: FindingSummary | None = None

    @model_validator(mode="after")
    def _terminal_is_recorded(self) -> ValidationState:
        recorded = (self.validator_version, self.report_sha256, self.seal_sha256, self.findings)
        if self.status == "pending" and any(v is not None for v in recorded):
            raise ValueError("a pending package carries no validation record")
        if self.status != "pending" and any(v is None for v in recorded):
            raise ValueError("a terminal package records validatorVersion, reportSha256, sealSha256, findings")
        return self


class PackageManifest(ContractModel):
    """Identity, checksums, counts, capabilities, profile binding, rights and state."""

    manifest_schema_version: ManifestSchemaVersion
    graph_package_id: str = Field(max_length=193)
    framework_id: FrameworkId
    snapshot_id: SnapshotId
    title: str = Field(min_length=1, max_length=512)
    delivery_schema_version: DeliverySchemaVersion
    profile: ProfileRef
    artifacts: tuple[ArtifactEntry, ...]
    additional_artifacts: tuple[AdditionalArtifact, ...] = ()
    counts: PackageCounts
    capabilities: Capabilities
    graph_types: GraphTypes
    rights: RightsPolicy
    source: SourceInfo
    is_current: bool
    supersedes: str | None = Field(None, max_length=193)
    validation: ValidationState

    @model_validator(mode="after")
    def _logical_names_unique(self) -> PackageManifest:
        names = [a.logical_name for a in self.artifacts] + [a.logical_name for a in self.additional_artifacts]
        if len(set(names)) != len(names):
            raise ValueError("artifact logicalName values must be unique")
        extra = set(a.logical_name for a in self.artifacts) - ARTIFACT_ROLE.keys()
        if extra:
            raise ValueError(f"artifacts holds non-core logical names {sorted(extra)}; use additionalArtifacts")
        clash = set(a.logical_name for a in self.additional_artifacts) & ARTIFACT_ROLE.keys()
        if clash:
            raise ValueError(f"additionalArtifacts reuses core logical names {sorted(clash)}")
        return self

    def all_artifacts(self) -> tuple[ArtifactEntry, ...]:
        """Core and additional artifacts, in manifest order."""
        return (*self.artifacts, *self.additional_artifacts)

    def artifact(self, logical_name: str) -> ArtifactEntry | None:
        """One declared artifact by logical name."""
        for entry in self.all_artifacts():
            if entry.logical_name == logical_name:
                return entry
        return None

    def seal_payload(self) -> dict[str, object]:
        """The manifest content a terminal validation seals (everything except ``validation``)."""
        wire = self.to_wire()
        wire.pop("validation", None)
        return wire


def read_manifest_json(package_dir: Path, name: str = MANIFEST_FILENAME) -> tuple[bytes, Any]:
    """A manifest's bytes and its JSON, read as a package file and decoded strictly (not yet the contract).

    ``name`` is the manifest's file name in ``package_dir`` (its recording has another). Raises
    :class:`~kgfegmcp.package_files.PackageFileError` with the finding that says why it is
    unusable: not a regular file, missing, unreadable, larger than 16 MiB, or JSON that repeats a key,
    nests too deeply or is not JSON (``invalid_manifest``).
    """
    with PackageFile.open(package_dir, name) as handle:
        if handle.size > MAX_MANIFEST_BYTES:
            raise PackageFileError(FindingCode.INVALID_MANIFEST, "is larger than 16 MiB (not read)")
        data = handle.read_all()
    try:
        return data, parse_package_json(data)
    except PackageJsonError as exc:
        raise PackageFileError(FindingCode.INVALID_MANIFEST, str(exc)) from None


def read_manifest(package_dir: Path, name: str = MANIFEST_FILENAME) -> tuple[PackageManifest, bytes]:
    """A manifest and the bytes it was read from: :func:`read_manifest_json`, then the contract.

    Raises ``PackageFileError`` as :func:`read_manifest_json` does, or pydantic's ``ValidationError``.
    """
    data, _ = read_manifest_json(package_dir, name)
    return PackageManifest.model_validate_json(data), data


def manifest_document(package_dir: Path) -> Any:
    """A package's manifest as recorded JSON, unchecked, or None when it cannot be read as strict JSON.

    For listings that must still name a package whose manifest is broken (``packages list``, ``doctor``);
    whatever serves or compares a package validates its manifest instead. It never blocks (a FIFO is
    not opened for reading) and never raises: :func:`read_manifest_json` says why when that matters.
    """
    try:
        return read_manifest_json(package_dir)[1]
    except PackageFileError:
        return None
