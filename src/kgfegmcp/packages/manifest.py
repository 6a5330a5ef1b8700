"""The package manifest contract (``package_manifest.json``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import Field, model_validator

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import FrameworkId, SnapshotId
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.package_files import (
    MANIFEST_FILENAME as MANIFEST_FILENAME,
)
from kgfegmcp.core.package_files import (
    PackageFile,
    PackageFileError,
    PackageJsonError,
    parse_package_json,
)
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, AccessClass, PackageShape
from kgfegmcp.profiles.model import ProfileRef

#: The schema versions this contract accepts, the writer's first: 1.0 is this server's builder, 1.1 the
#: design's construction pipeline (read through ``supplied_manifest``, delivered in schema 1.2).
ManifestSchemaVersion = Literal["1.0", "1.1"]
DeliverySchemaVersion = Literal["1.1", "1.2"]
MANIFEST_SCHEMA_VERSION: Final[ManifestSchemaVersion] = get_args(ManifestSchemaVersion)[0]
DELIVERY_SCHEMA_VERSION: Final[DeliverySchemaVersion] = get_args(DeliverySchemaVersion)[0]
#: An ISO 8601 timestamp with its offset (a supplied manifest dates its creation and verdict so).
TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2})$"
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

    @property
    def items(self) -> int:
        """Standards framework items."""
        return self.standards.items

    @property
    def components(self) -> int:
        """Learning components."""
        return self.learning_components.components

    @property
    def links(self) -> RelationshipCounts:
        """Relationships per label."""
        return self.relationships

    @property
    def unresolved(self) -> int:
        """What the package keeps unresolved: its unresolved items."""
        return self.unresolved_items

    @property
    def coded_items(self) -> int:
        """Items with a statement code."""
        return self.standards.items_with_code


class SuppliedAdditionalCounts(ContractModel):
    """The supplied shape's further counts (exactly these three)."""

    coded_items: int = Field(ge=0)
    multi_parent_targets: int = Field(ge=0)
    unresolved_relationships: int = Field(ge=0)


class SuppliedCounts(ContractModel):
    """Counts as a supplied manifest declares them; the validator recomputes each exactly."""

    framework_nodes: int = Field(1, ge=1, le=1)
    item_nodes: int = Field(ge=0)
    learning_component_nodes: int = Field(ge=0)
    relationships: int = Field(ge=0)
    supports_relationships: int = Field(ge=0)
    builds_towards_relationships: int = Field(0, ge=0)
    relates_to_relationships: int = Field(0, ge=0)
    additional_counts: SuppliedAdditionalCounts

    @model_validator(mode="after")
    def _labelled_within_total(self) -> SuppliedCounts:
        labelled = self.supports_relationships + self.builds_towards_relationships + self.relates_to_relationships
        if labelled > self.relationships:
            raise ValueError("supports, buildsTowards and relatesTo relationships exceed relationships")
        return self

    @property
    def items(self) -> int:
        """Standards framework items."""
        return self.item_nodes

    @property
    def components(self) -> int:
        """Learning components."""
        return self.learning_component_nodes

    @property
    def links(self) -> RelationshipCounts:
        """Relationships per label: what is not supports or a progression link is hasChild."""
        labelled = self.supports_relationships + self.builds_towards_relationships + self.relates_to_relationships
        return RelationshipCounts(
            has_child=self.relationships - labelled,
            supports=self.supports_relationships,
            builds_towards=self.builds_towards_relationships,
            relates_to=self.relates_to_relationships,
        )

    @property
    def unresolved(self) -> int:
        """What the package keeps unresolved: its unresolved relationships."""
        return self.additional_counts.unresolved_relationships

    @property
    def coded_items(self) -> int:
        """Items with a statement code."""
        return self.additional_counts.coded_items


class Capabilities(ContractModel):
    """What the package can truthfully support."""

    text_search: bool
    exact_code_search: bool
    prefix_code_search: bool
    learning_components: bool
    learning_progressions: bool
    has_detailed_provenance: bool


class SuppliedCapabilities(ContractModel):
    """Capabilities as a supplied manifest declares them."""

    code_search: Literal["complete", "partial", "none"]
    has_detailed_provenance: bool = False
    has_learning_progression_provenance: bool = False
    has_learning_progressions: bool = False
    has_official_activities: bool = False
    has_official_assessment_guidance: bool = False
    has_unresolved_relationships: bool = False
    multi_parent: bool = False
    text_search: bool = True


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


class SuppliedFramework(ContractModel):
    """What a supplied manifest says of its framework and source (kept as declared)."""

    name: str = Field(min_length=1, max_length=512)
    jurisdiction: str = Field(min_length=1, max_length=256)
    jurisdiction_type: str | None = Field(None, max_length=64)
    issuing_authority: str | None = Field(None, max_length=512)
    provider: str | None = Field(None, max_length=512)
    adoption_status: str | None = Field(None, max_length=64)
    is_current: bool
    languages: tuple[Annotated[str, Field(pattern=r"^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$")], ...] = Field(min_length=1)
    local_grades_or_stages: tuple[Annotated[str, Field(min_length=1, max_length=128)], ...]
    normalized_grades: tuple[Annotated[str, Field(min_length=1, max_length=64)], ...]
    local_subject: str = Field(min_length=1, max_length=256)
    normalized_subjects: tuple[Annotated[str, Field(min_length=1, max_length=256)], ...]
    subject_mapping_status: Literal["mapped", "other", "unreviewed"]
    subject_mapping_note: str | None = Field(None, max_length=2000)
    source_document_sha256: str | None = Field(None, pattern=r"^sha256:[0-9a-f]{64}$")
    source_publication_date: str | None = Field(None, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
    source_version: str | None = Field(None, max_length=64)

    @property
    def label(self) -> str:
        """Who issued which document."""
        return f"{self.issuing_authority or self.jurisdiction}, {self.name}"

    @model_validator(mode="after")
    def _mapping_stated(self) -> SuppliedFramework:
        for name in ("languages", "local_grades_or_stages", "normalized_grades", "normalized_subjects"):
            values = getattr(self, name)
            if len(set(values)) != len(values):
                raise ValueError(f"{name} repeats a value")
        if (self.subject_mapping_status == "unreviewed") != (not self.normalized_subjects):
            raise ValueError("normalizedSubjects is empty exactly when subjectMappingStatus is unreviewed")
        if self.subject_mapping_status == "other" and not self.subject_mapping_note:
            raise ValueError("subjectMappingStatus other needs subjectMappingNote")
        return self


class FindingSummary(ContractModel):
    """Counts of validation findings by severity and code."""

    errors: int = Field(ge=0)
    warnings: int = Field(ge=0)
    infos: int = Field(ge=0)
    by_code: dict[str, int]


class ValidationState(ContractModel):
    """Lifecycle state; terminal states carry the validator version and report hash."""

    status: ValidationStatus
    #: When a supplied package's pipeline reached its verdict (its manifest records no more than that).
    validated_at: str | None = Field(None, pattern=TIMESTAMP_PATTERN)
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
        if self.status == "pending" and any(v is not None for v in (*recorded, self.validated_at)):
            raise ValueError("a pending package carries no validation record")
        supplied = self.validated_at is not None
        if self.status != "pending" and not supplied and any(v is None for v in recorded):
            raise ValueError("a terminal package records validatorVersion, reportSha256, sealSha256, findings")
        if supplied and any(v is not None for v in recorded):
            raise ValueError("a supplied verdict (validatedAt) carries no record of this server's validator")
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
    counts: PackageCounts | SuppliedCounts
    capabilities: Capabilities | SuppliedCapabilities
    graph_types: GraphTypes
    rights: RightsPolicy
    source: SourceInfo | SuppliedFramework
    is_current: bool
    supersedes: str | None = Field(None, max_length=193)
    validation: ValidationState

    @model_validator(mode="after")
    def _one_shape(self) -> PackageManifest:
        """Every part is of the manifest's own shape: this server's (1.0) or the supplied one (1.1)."""
        ours = self.manifest_schema_version == "1.0"
        parts = (
            isinstance(self.counts, PackageCounts),
            isinstance(self.capabilities, Capabilities),
            isinstance(self.source, SourceInfo),
            self.delivery_schema_version == "1.1",
        )
        # This server records its own validator's verdict; only a supplied manifest dates its pipeline's.
        if any(part != ours for part in parts) or (ours and self.validation.validated_at is not None):
            raise ValueError(
                "manifestSchemaVersion 1.0 declares delivery schema 1.1, this server's counts, capabilities, "
                "source and validation record; other shapes are read through their own manifest model"
            )
        return self

    @model_validator(mode="after")
    def _logical_names_unique(self) -> PackageManifest:
        names = [a.logical_name for a in self.artifacts] + [a.logical_name for a in self.additional_artifacts]
        if len(set(names)) != len(names):
            raise ValueError("artifact logicalName values must be unique")
        core = {name for name, role in ARTIFACT_ROLE.items() if not role.additional}
        extra = set(a.logical_name for a in self.artifacts) - core
        if extra:
            raise ValueError(f"artifacts holds non-core logical names {sorted(extra)}; use additionalArtifacts")
        clash = set(a.logical_name for a in self.additional_artifacts) & core
        if clash:
            raise ValueError(f"additionalArtifacts reuses core logical names {sorted(clash)}")
        return self

    @property
    def shape(self) -> PackageShape:
        """Whose package format this is (``artifact_roles.PackageShape``)."""
        return self.manifest_schema_version

    @property
    def capabilities_view(self) -> Capabilities:
        """What the package supports, in this server's terms (a supplied manifest's flags translated: code
        lookup wherever ``codeSearch`` is not ``none``, the profile's code policy still deciding)."""
        caps = self.capabilities
        if isinstance(caps, Capabilities):
            return caps
        codes = caps.code_search != "none"
        return Capabilities(
            text_search=caps.text_search,
            exact_code_search=codes,
            prefix_code_search=codes,
            learning_components=self.counts.components > 0,
            learning_progressions=caps.has_learning_progressions,
            has_detailed_provenance=caps.has_detailed_provenance,
        )

    @property
    def source_view(self) -> SourceInfo:
        """Where the content came from, in this server's terms (a supplied manifest: its document and version)."""
        source = self.source
        if isinstance(source, SourceInfo):
            return source
        return SourceInfo(name=source.label, version=source.source_version or "unversioned")

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
    :class:`~kgfegmcp.core.package_files.PackageFileError` with the finding that says why it is
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
