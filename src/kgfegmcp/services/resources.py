"""Rights-aware, read-only resource documents.

A resource is resolved from the accepted catalog and authorised by the rights policy, never by
the presence of a file: the address is parsed strictly, the package's rights gate the family,
then the document is built. Raw documents are the exact retained bytes of one declared artifact,
re-verified against the manifest's SHA-256 every time they are served; derived documents are
canonical JSON built from accepted runtime state. Provenance for one entity is read from its one
checked part only. Every document carries its canonical URI, size, SHA-256, MIME type,
representation, source-artifact evidence and epistemic labels; no local path ever appears.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from kgfegmcp.catalog.catalog import AcceptedCatalog, PackageRuntime
from kgfegmcp.config import BackendSettings
from kgfegmcp.errors import ResourceAccessDeniedError, ResourceNotFoundError
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.models import sha256_hex
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, ArtifactEntry, PackageManifest, provenance_part_name
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import (
    COMPONENT,
    HAS_CHILD,
    ITEM,
    PROGRESSION_LABELS,
    SUPPORTS,
    ComponentNode,
    NodeLabel,
    RelationshipRecord,
)
from kgfegmcp.resources import uris
from kgfegmcp.resources.addresses import Family, InvalidAddressError, ResourceAddress, parse_address
from kgfegmcp.resources.policy import (
    ARTIFACT_ACCESS,
    FAMILY_ACCESS,
    AccessClass,
    SizePolicy,
    artifact_access,
    denial_reason,
    provenance_part_uri,
    require_access,
)
from kgfegmcp.resources.representations import (
    DETERMINISTIC_DERIVED,
    JSON_MIME,
    RAW_SOURCE,
    Representation,
    derived_bytes,
    epistemic_labels,
)
from kgfegmcp.services.views import ResultModel, disclosures, package_identity, standard_view

log = logging.getLogger(__name__)

#: Pseudo logical names for the two files a package is bound to but does not list as artifacts.
MANIFEST_ARTIFACT = "packageManifest"
PROFILE_ARTIFACT = "profile"

#: What the retained bytes of each core artifact are, epistemically.
_ARTIFACT_LABELS: dict[str, tuple[str, ...]] = {
    "nodes": ("source_extracted",),
    "relationships": ("source_extracted",),
    "relationshipsHasChild": ("source_extracted",),
    "standardsFramework": ("source_extracted",),
    "standardsFrameworkItems": ("source_extracted",),
    "academicStandardsBundle": ("source_extracted",),
    "entityProvenance": ("source_extracted",),
    "unresolvedItems": ("source_extracted", "unresolved"),
    "validationReport": ("deterministic_derived",),
}
_PART_LABELS = ("source_extracted",)

_NOT_FOUND_HINT = "Use the resource links returned by the tools; list_frameworks names the accepted packages."


class SourceArtifactEvidence(ResultModel):
    """The exact retained file a document was read or derived from."""

    graph_package_id: str
    logical_artifact: str
    sha256: str
    bytes: int


class AttributionView(ResultModel):
    """The package's source licence and attribution, to be preserved with anything built from it."""

    source_license: str
    license_uri: str | None = None
    attribution_statement: str


class ResourceMetadata(ResultModel):
    """What a resource document is, where it came from, and how it may be trusted."""

    uri: str
    family: str
    access_class: AccessClass
    representation: Representation
    mime_type: str
    byte_length: int
    sha256: str
    epistemic_status: list[str]
    source_artifacts: list[SourceArtifactEvidence]
    graph_package_id: str | None = None
    attribution: AttributionView | None = None


@dataclass(frozen=True, slots=True)
class ResourceDocument:
    """The exact bytes of one resource and their metadata."""

    data: bytes
    metadata: ResourceMetadata


@dataclass(frozen=True, slots=True)
class _Built:
    """A document body before its metadata is computed."""

    data: bytes
    representation: Representation
    mime_type: str
    labels: list[str]
    evidence: list[SourceArtifactEvidence]


class ResourceService:
    """Reads resource documents for one accepted catalog under the rights and size policy."""

    def __init__(self, catalog: AcceptedCatalog, stores: dict[str, GraphStore], settings: BackendSettings) -> None:
        self._catalog = catalog
        self._stores = stores
        self._sizes = SizePolicy.from_settings(settings)
        self._profiles_dir = settings.profiles_dir
        self._manifest_evidence: dict[str, SourceArtifactEvidence] = {}

    @property
    def catalog(self) -> AcceptedCatalog:
        """The catalog this service reads (the one every other service shares)."""
        return self._catalog

    # -- entry points ----------------------------------------------------------------------------

    def read_uri(self, uri: str) -> ResourceDocument:
        """Parse and read; an unsupported address is ``resource_not_found``."""
        try:
            address = parse_address(uri)
        except InvalidAddressError as exc:
            raise ResourceNotFoundError(
                f"The URI is not a supported kgfegmcp:// resource address: {exc}.", hint=_NOT_FOUND_HINT
            ) from None
        return self.read(address)

    def read(self, address: ResourceAddress) -> ResourceDocument:
        """The document at ``address``: resolved, authorised, size-checked and described."""
        if address.family is Family.CATALOG:
            return self._finish(address, "public_metadata", None, self._catalog_document())
        if address.family is Family.FRAMEWORK:
            assert address.framework_id is not None
            return self._finish(address, "public_metadata", None, self._framework_document(address.framework_id))
        runtime = self._runtime(address)
        access = self._access_class(runtime, address)
        require_access(runtime.manifest.rights, access, self._describe(address, runtime))
        built = self._build(runtime, address)
        return self._finish(address, access, runtime, built)

    # -- resolution and policy -------------------------------------------------------------------

    def _runtime(self, address: ResourceAddress) -> PackageRuntime:
        package_id = address.graph_package_id
        runtime = self._catalog.by_graph_package_id(package_id) if package_id else None
        if runtime is None:
            raise ResourceNotFoundError(f"No accepted package {package_id}.", hint=_NOT_FOUND_HINT)
        return runtime

    @staticmethod
    def _access_class(runtime: PackageRuntime, address: ResourceAddress) -> AccessClass:
        if address.family is not Family.ARTIFACT:
            return FAMILY_ACCESS[address.family]
        assert address.key is not None
        access = artifact_access(runtime.manifest, address.key)
        if access is None or runtime.manifest.artifact(address.key) is None:
            raise ResourceNotFoundError(
                f"Package {runtime.graph_package_id} exposes no artifact {address.key!r}.",
                hint="The snapshot resource lists the artifacts a package exposes.",
            )
        return access

    @staticmethod
    def _describe(address: ResourceAddress, runtime: PackageRuntime) -> str:
        if address.family is Family.ARTIFACT:
            return f"Artifact {address.key!r} of {runtime.graph_package_id}"
        return f"The {address.family.value.replace('_', ' ')} resource family of {runtime.graph_package_id}"

    def _finish(
        self, address: ResourceAddress, access: AccessClass, runtime: PackageRuntime | None, built: _Built
    ) -> ResourceDocument:
        self._sizes.check_returned(len(built.data), f"The resource document {address.uri}")
        rights = runtime.manifest.rights if runtime is not None else None
        metadata = ResourceMetadata(
            uri=address.uri,
            family=address.family.value,
            access_class=access,
            representation=built.representation,
            mime_type=built.mime_type,
            byte_length=len(built.data),
            sha256=sha256_hex(built.data),
            epistemic_status=built.labels,
            source_artifacts=built.evidence,
            graph_package_id=runtime.graph_package_id if runtime is not None else None,
            attribution=AttributionView(
                source_license=rights.source_license,
                license_uri=rights.license_uri,
                attribution_statement=rights.attribution_statement,
            )
            if rights is not None
            else None,
        )
        return ResourceDocument(built.data, metadata)

    # -- verified reads ----------------------------------------------------------------------------

    def _read_file(self, path: Path, what: str) -> bytes:
        """Read one regular file within the source-read limit.

        The last path component is never followed as a symlink and a non-regular file (a FIFO, a
        device, a directory swapped in after validation) is refused without blocking on it.
        """
        limit = self._sizes.max_source_read_bytes
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
        with os.fdopen(descriptor, "rb") as stream:
            status = os.fstat(stream.fileno())
            if not stat.S_ISREG(status.st_mode):
                raise OSError(f"not a regular file (mode {status.st_mode:o})")
            self._sizes.check_source(status.st_size, what)
            data = stream.read(limit + 1)
        self._sizes.check_source(len(data), what)
        return data

    @staticmethod
    def _integrity_failure(runtime: PackageRuntime, logical_name: str, file: Path, **details: Any) -> NoReturn:
        """Refuse unverifiable bytes.

        The operator is warned (the package and file to restore, and how); the client's message
        names the package and artifact but no path.
        """
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

    def _verified_artifact(self, runtime: PackageRuntime, entry: ArtifactEntry) -> bytes:
        """An artifact's exact bytes, checked against the manifest's size and SHA-256."""
        what = f"Artifact {entry.logical_name!r} of {runtime.graph_package_id}"
        self._sizes.check_source(entry.bytes, what)
        path = runtime.path / entry.path
        try:
            data = self._read_file(path, what)
        except OSError as exc:
            self._integrity_failure(runtime, entry.logical_name, path, error=type(exc).__name__)
        digest = sha256_hex(data)
        if len(data) != entry.bytes or digest != entry.sha256:
            self._integrity_failure(
                runtime,
                entry.logical_name,
                path,
                expected=entry.sha256,
                found=digest,
                size=len(data),
                declared=entry.bytes,
            )
        return data

    @staticmethod
    def _evidence(runtime: PackageRuntime, entry: ArtifactEntry) -> SourceArtifactEvidence:
        return SourceArtifactEvidence(
            graph_package_id=runtime.graph_package_id,
            logical_artifact=entry.logical_name,
            sha256=entry.sha256,
            bytes=entry.bytes,
        )

    def _declared(self, runtime: PackageRuntime, logical_name: str) -> ArtifactEntry:
        entry = runtime.manifest.artifact(logical_name)
        if entry is None:  # validation guarantees every core artifact and part
            raise ResourceNotFoundError(f"Package {runtime.graph_package_id} declares no artifact {logical_name!r}.")
        return entry

    def _manifest_bytes(self, runtime: PackageRuntime) -> bytes:
        """The manifest file, accepted only when it still parses to exactly the validated manifest."""
        what = f"The manifest of {runtime.graph_package_id}"
        path = runtime.path / MANIFEST_FILENAME
        try:
            data = self._read_file(path, what)
            unchanged = PackageManifest.model_validate_json(data) == runtime.manifest
        except OSError as exc:
            self._integrity_failure(runtime, MANIFEST_ARTIFACT, path, error=type(exc).__name__)
        except ValueError:
            unchanged = False
        if not unchanged:
            self._integrity_failure(runtime, MANIFEST_ARTIFACT, path, reason="differs from the validated manifest")
        return data

    def _manifest_source(self, runtime: PackageRuntime) -> SourceArtifactEvidence:
        """Evidence for documents derived from the manifest (read and checked once, then remembered)."""
        cached = self._manifest_evidence.get(runtime.graph_package_id)
        if cached is None:
            data = self._manifest_bytes(runtime)
            cached = SourceArtifactEvidence(
                graph_package_id=runtime.graph_package_id,
                logical_artifact=MANIFEST_ARTIFACT,
                sha256=sha256_hex(data),
                bytes=len(data),
            )
            self._manifest_evidence[runtime.graph_package_id] = cached
        return cached

    def _provenance(self, runtime: PackageRuntime, entity_id: str) -> tuple[int, ArtifactEntry, dict[str, Any] | None]:
        """One entity's provenance record, read from its one checked part only."""
        part = provenance_part_of(entity_id)
        entry = self._declared(runtime, provenance_part_name(part))
        data = self._verified_artifact(runtime, entry)
        try:
            document = json.loads(data)
        except ValueError:
            document = None
        if (
            not isinstance(document, dict)
            or document.get("graphPackageId") != runtime.graph_package_id
            or document.get("part") != part
            or not isinstance(document.get("entities"), dict)
        ):
            self._integrity_failure(
                runtime, entry.logical_name, runtime.path / entry.path, reason="not this package's provenance part"
            )
        record = document["entities"].get(entity_id)
        return part, entry, record if isinstance(record, dict) else None

    # -- documents -------------------------------------------------------------------------------

    def _derived(self, document: Any, labels: list[str], evidence: list[SourceArtifactEvidence]) -> _Built:
        return _Built(derived_bytes(document), DETERMINISTIC_DERIVED, JSON_MIME, labels, evidence)

    def _build(self, runtime: PackageRuntime, address: ResourceAddress) -> _Built:
        family = address.family
        key = address.key or ""
        if family is Family.SNAPSHOT:
            return self._snapshot_document(runtime)
        if family is Family.MANIFEST:
            data = self._manifest_bytes(runtime)
            evidence = SourceArtifactEvidence(
                graph_package_id=runtime.graph_package_id,
                logical_artifact=MANIFEST_ARTIFACT,
                sha256=sha256_hex(data),
                bytes=len(data),
            )
            return _Built(data, RAW_SOURCE, JSON_MIME, ["deterministic_derived"], [evidence])
        if family is Family.PROFILE:
            return self._profile_document(runtime)
        if family is Family.VALIDATION:
            return self._raw_artifact(runtime, "validationReport")
        if family is Family.UNRESOLVED:
            return self._raw_artifact(runtime, "unresolvedItems")
        if family is Family.ARTIFACT:
            return self._raw_artifact(runtime, key)
        if family is Family.PROVENANCE_PART:
            return self._raw_artifact(runtime, provenance_part_name(address.part))
        if family is Family.STANDARD:
            return self._standard_document(runtime, key)
        if family is Family.LEARNING_COMPONENT:
            return self._component_document(runtime, key)
        if family in (Family.STANDARD_PROVENANCE, Family.LEARNING_COMPONENT_PROVENANCE):
            return self._entity_provenance_document(
                runtime, key, ITEM if family is Family.STANDARD_PROVENANCE else COMPONENT
            )
        if family in (Family.RELATIONSHIP, Family.LEARNING_PROGRESSION):
            return self._relationship_document(runtime, key, progression=family is Family.LEARNING_PROGRESSION)
        raise ResourceNotFoundError("The resource family is not supported.")  # pragma: no cover - closed enum

    def _raw_artifact(self, runtime: PackageRuntime, logical_name: str) -> _Built:
        entry = self._declared(runtime, logical_name)
        self._sizes.check_returned(entry.bytes, f"Artifact {logical_name!r} of {runtime.graph_package_id}")
        data = self._verified_artifact(runtime, entry)
        if logical_name in _ARTIFACT_LABELS:
            labels = list(_ARTIFACT_LABELS[logical_name])
        elif logical_name.startswith("entityProvenancePart") and logical_name not in ARTIFACT_ACCESS:
            labels = list(_PART_LABELS)
        else:
            labels = []  # an additional artifact's exposure contract states no epistemic status
        return _Built(data, RAW_SOURCE, entry.media_type, epistemic_labels(*labels), [self._evidence(runtime, entry)])

    def _profile_document(self, runtime: PackageRuntime) -> _Built:
        binding = runtime.manifest.profile
        what = f"The interpretation profile of {runtime.graph_package_id}"
        path = self._profiles_dir / binding.profile_id / f"{binding.version}.json"
        try:
            data = self._read_file(path, what)
        except OSError as exc:
            self._integrity_failure(runtime, PROFILE_ARTIFACT, path, error=type(exc).__name__)
        if sha256_hex(data) != binding.sha256:
            self._integrity_failure(runtime, PROFILE_ARTIFACT, path, expected=binding.sha256, found=sha256_hex(data))
        evidence = SourceArtifactEvidence(
            graph_package_id=runtime.graph_package_id,
            logical_artifact=PROFILE_ARTIFACT,
            sha256=binding.sha256,
            bytes=len(data),
        )
        return _Built(data, RAW_SOURCE, JSON_MIME, ["accepted_derived"], [evidence])

    def _catalog_document(self) -> _Built:
        packages = self._catalog.packages
        document = {
            "catalogFingerprint": self._catalog.fingerprint,
            "frameworks": [
                {"frameworkId": framework_id, "uri": uris.framework_uri(framework_id)}
                for framework_id in self._catalog.framework_ids()
            ],
            "packages": [self._package_entry(p) for p in packages],
        }
        return self._derived(document, ["deterministic_derived"], [self._manifest_source(p) for p in packages])

    def _framework_document(self, framework_id: str) -> _Built:
        snapshots = [p for p in self._catalog.packages if p.framework_id == framework_id]
        if not snapshots:
            raise ResourceNotFoundError(f"No accepted framework {framework_id!r}.", hint=_NOT_FOUND_HINT)
        current = [p.snapshot_id for p in snapshots if p.manifest.is_current]
        document = {
            "frameworkId": framework_id,
            "uri": uris.framework_uri(framework_id),
            "currentSnapshotIds": current,
            "snapshots": [self._package_entry(p) for p in snapshots],
        }
        return self._derived(document, ["deterministic_derived"], [self._manifest_source(p) for p in snapshots])

    @staticmethod
    def _package_entry(runtime: PackageRuntime) -> dict[str, Any]:
        framework = runtime.framework
        return {
            "graphPackageId": runtime.graph_package_id,
            "frameworkId": runtime.framework_id,
            "snapshotId": runtime.snapshot_id,
            "title": runtime.manifest.title,
            "name": framework.name,
            "jurisdiction": framework.jurisdiction,
            "academicSubject": framework.academic_subject,
            "inLanguage": framework.in_language,
            "isCurrent": runtime.manifest.is_current,
            "uri": uris.snapshot_uri(runtime.framework_id, runtime.snapshot_id),
            "manifestUri": uris.manifest_uri(runtime.framework_id, runtime.snapshot_id),
        }

    def _snapshot_document(self, runtime: PackageRuntime) -> _Built:
        manifest = runtime.manifest
        fid, sid = runtime.framework_id, runtime.snapshot_id
        rights = manifest.rights

        artifacts = []
        for entry in manifest.all_artifacts():
            access = artifact_access(manifest, entry.logical_name)
            if access is None:
                continue  # provenance parts have their own family; unexposed additional artifacts stay unlisted
            artifacts.append(
                {
                    "logicalArtifact": entry.logical_name,
                    "uri": uris.artifact_uri(fid, sid, entry.logical_name),
                    "accessClass": access,
                    "allowed": not denial_reason(rights, access),
                    "sha256": entry.sha256,
                    "bytes": entry.bytes,
                    "mediaType": entry.media_type,
                }
            )
        document = {
            "graphPackageId": runtime.graph_package_id,
            "frameworkId": fid,
            "snapshotId": sid,
            "title": manifest.title,
            "isCurrent": manifest.is_current,
            "supersedes": manifest.supersedes,
            "uri": uris.snapshot_uri(fid, sid),
            "frameworkUri": uris.framework_uri(fid),
            "framework": {
                "nodeId": runtime.framework.identifier,
                "name": runtime.framework.name,
                "jurisdiction": runtime.framework.jurisdiction,
                "academicSubject": runtime.framework.academic_subject,
                "inLanguage": runtime.framework.in_language,
            },
            "counts": manifest.counts.to_wire(),
            "capabilities": manifest.capabilities.to_wire(),
            "graphTypes": manifest.graph_types.to_wire(),
            "rights": rights.to_wire(),
            "validation": {
                "status": manifest.validation.status,
                "acceptedFrom": runtime.accepted_from,
                "validatorVersion": manifest.validation.validator_version,
            },
            "resources": [
                {
                    "family": family.value,
                    "uri": uri,
                    "accessClass": FAMILY_ACCESS[family],
                    "allowed": not denial_reason(rights, FAMILY_ACCESS[family]),
                }
                for family, uri in (
                    (Family.MANIFEST, uris.manifest_uri(fid, sid)),
                    (Family.VALIDATION, uris.validation_uri(fid, sid)),
                    (Family.PROFILE, uris.profile_uri(fid, sid)),
                    (Family.UNRESOLVED, uris.unresolved_uri(fid, sid)),
                )
            ],
            "entityFamilies": [
                {
                    "family": family.value,
                    "accessClass": FAMILY_ACCESS[family],
                    "allowed": not denial_reason(rights, FAMILY_ACCESS[family]),
                }
                for family in (
                    Family.STANDARD,
                    Family.STANDARD_PROVENANCE,
                    Family.RELATIONSHIP,
                    Family.LEARNING_COMPONENT,
                    Family.LEARNING_COMPONENT_PROVENANCE,
                    Family.LEARNING_PROGRESSION,
                    Family.PROVENANCE_PART,
                )
            ],
            "artifacts": artifacts,
            "disclosures": [d.to_wire() for d in disclosures(runtime)],
        }
        return self._derived(document, ["deterministic_derived"], [self._manifest_source(runtime)])

    def _store(self, runtime: PackageRuntime) -> GraphStore:
        return self._stores[runtime.graph_package_id]

    def _standard_document(self, runtime: PackageRuntime, node_id: str) -> _Built:
        store = self._store(runtime)
        item = store.item(node_id)
        if item is None:
            raise ResourceNotFoundError(f"No standard {node_id!r} in {runtime.graph_package_id}.", hint=_NOT_FOUND_HINT)
        incoming = store.incoming(node_id, HAS_CHILD)
        document = {
            "standard": standard_view(runtime, item).to_wire(),
            "parentNodeIds": [rel.source_identifier for rel in incoming],
            "childNodeIds": list(store.children(node_id)),
            "package": package_identity(runtime).to_wire(),
            "disclosures": [d.to_wire() for d in disclosures(runtime)],
        }
        unresolved = "unresolved" if any(rel.unresolved_status for rel in incoming) else None
        labels = epistemic_labels("deterministic_derived", "source_asserted", unresolved)
        evidence = [self._evidence(runtime, self._declared(runtime, name)) for name in ("nodes", "relationships")]
        return self._derived(document, labels, evidence)

    def _component_document(self, runtime: PackageRuntime, node_id: str) -> _Built:
        store = self._store(runtime)
        component = store.component(node_id)
        if component is None:
            raise ResourceNotFoundError(
                f"No learning component {node_id!r} in {runtime.graph_package_id}.", hint=_NOT_FOUND_HINT
            )
        fid, sid = runtime.framework_id, runtime.snapshot_id
        document = {
            "learningComponent": _component_view(runtime, component),
            "supports": [
                {
                    "relationshipId": rel.identifier,
                    "standardNodeId": rel.target_identifier,
                    "supportConfidence": rel.support_confidence,
                    "relationshipUri": uris.relationship_uri(fid, sid, rel.identifier),
                    "standardUri": uris.standard_uri(fid, sid, rel.target_identifier),
                }
                for rel in store.outgoing(node_id, SUPPORTS)
            ],
            "package": package_identity(runtime).to_wire(),
            "disclosures": [d.to_wire() for d in disclosures(runtime)],
        }
        evidence = [self._evidence(runtime, self._declared(runtime, name)) for name in ("nodes", "relationships")]
        return self._derived(document, ["deterministic_derived"], evidence)

    def _entity_provenance_document(self, runtime: PackageRuntime, node_id: str, kind: NodeLabel) -> _Built:
        store = self._store(runtime)
        fid, sid = runtime.framework_id, runtime.snapshot_id
        if kind == ITEM:
            found = store.item(node_id) is not None
            noun, entity_uri = "standard", uris.standard_uri(fid, sid, node_id)
        else:
            found = store.component(node_id) is not None
            noun, entity_uri = "learning component", uris.learning_component_uri(fid, sid, node_id)
        if not found:
            raise ResourceNotFoundError(f"No {noun} {node_id!r} in {runtime.graph_package_id}.", hint=_NOT_FOUND_HINT)
        part, entry, record = self._provenance(runtime, node_id)
        if record is None:
            raise ResourceNotFoundError(
                f"No provenance is recorded for {noun} {node_id!r} in {runtime.graph_package_id}."
            )
        document = {
            "graphPackageId": runtime.graph_package_id,
            "entityId": node_id,
            "entityKind": noun,
            "entityUri": entity_uri,
            "provenancePart": part,
            "provenancePartUri": provenance_part_uri(runtime.manifest, part),
            "provenance": record,
        }
        status = record.get("epistemicStatus")
        labels = epistemic_labels("deterministic_derived", status if isinstance(status, str) else None)
        return self._derived(document, labels, [self._evidence(runtime, entry)])

    def _relationship_document(self, runtime: PackageRuntime, relationship_id: str, *, progression: bool) -> _Built:
        store = self._store(runtime)
        rel = store.relationship(relationship_id)
        if rel is None or (progression and rel.label not in PROGRESSION_LABELS):
            noun = "learning-progression link" if progression else "relationship"
            raise ResourceNotFoundError(
                f"No {noun} {relationship_id!r} in {runtime.graph_package_id}.", hint=_NOT_FOUND_HINT
            )
        part, entry, record = self._provenance(runtime, relationship_id)
        document = {
            "relationship": _relationship_view(runtime, rel),
            "provenance": {
                "provenancePart": part,
                "provenancePartUri": provenance_part_uri(runtime.manifest, part),
                "record": record,
            },
            "package": package_identity(runtime).to_wire(),
        }
        status = record.get("epistemicStatus") if record is not None else None
        labels = epistemic_labels(
            "deterministic_derived",
            status if isinstance(status, str) else None,
            "unresolved" if rel.unresolved_status else None,
        )
        evidence = [self._evidence(runtime, self._declared(runtime, "relationships")), self._evidence(runtime, entry)]
        return self._derived(document, labels, evidence)


def _node_uri(runtime: PackageRuntime, label: NodeLabel, node_id: str) -> str:
    fid, sid = runtime.framework_id, runtime.snapshot_id
    if label == ITEM:
        return uris.standard_uri(fid, sid, node_id)
    if label == COMPONENT:
        return uris.learning_component_uri(fid, sid, node_id)
    return uris.snapshot_uri(fid, sid)


def _relationship_view(runtime: PackageRuntime, rel: RelationshipRecord) -> dict[str, Any]:
    fid, sid = runtime.framework_id, runtime.snapshot_id
    view: dict[str, Any] = {
        "graphPackageId": runtime.graph_package_id,
        "relationshipId": rel.identifier,
        "label": rel.label,
        "sourceNodeId": rel.source_identifier,
        "sourceLabel": rel.source_label,
        "sourceEntityKey": rel.source_entity_key,
        "sourceUri": _node_uri(runtime, rel.source_label, rel.source_identifier),
        "targetNodeId": rel.target_identifier,
        "targetLabel": rel.target_label,
        "targetEntityKey": rel.target_entity_key,
        "targetUri": _node_uri(runtime, rel.target_label, rel.target_identifier),
        "relationshipUri": uris.relationship_uri(fid, sid, rel.identifier),
    }
    if rel.label in PROGRESSION_LABELS:
        view["learningProgressionUri"] = uris.learning_progression_uri(fid, sid, rel.identifier)
    if rel.support_confidence is not None:
        view["supportConfidence"] = rel.support_confidence
    if rel.unresolved_status is not None:
        view["unresolvedStatus"] = rel.unresolved_status
    return view


def _component_view(runtime: PackageRuntime, component: ComponentNode) -> dict[str, Any]:
    fid, sid = runtime.framework_id, runtime.snapshot_id
    view: dict[str, Any] = {
        "graphPackageId": runtime.graph_package_id,
        "nodeId": component.identifier,
        "description": component.description,
        "inLanguage": component.in_language,
        "tags": list(component.tags),
        "uri": uris.learning_component_uri(fid, sid, component.identifier),
        "provenanceUri": uris.learning_component_provenance_uri(fid, sid, component.identifier),
    }
    optional = {
        "academicSubject": component.academic_subject,
        "author": component.author,
        "provider": component.provider,
        "license": component.license,
        "attributionStatement": component.attribution_statement,
    }
    view.update({key: value for key, value in optional.items() if value is not None})
    return view
