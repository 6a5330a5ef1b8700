"""Rights-aware, read-only resource documents.

A resource is resolved from the accepted catalog and authorised by the rights policy, never by
the presence of a file: the address is parsed strictly, the package's rights gate the family,
then the document is built. Raw documents are the exact retained bytes of one declared artifact,
re-verified against the manifest's SHA-256 every time they are served; derived documents are
canonical JSON built from accepted package state. Provenance for one entity is read from its one
checked part only. Every document carries its canonical URI, size, SHA-256, MIME type,
representation, source-artifact evidence and epistemic labels; no local path ever appears.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.epistemic import SERVER_BUILT, UNRESOLVED_REFERENCE
from kgfegmcp.core.errors import ResourceNotFoundError
from kgfegmcp.core.identifiers import graph_package_id
from kgfegmcp.core.models import sha256_hex
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, AccessClass, provenance_part_name
from kgfegmcp.packages.manifest import ArtifactEntry
from kgfegmcp.packages.records import (
    COMPONENT,
    HAS_CHILD,
    ITEM,
    PROGRESSION_LABELS,
    SUPPORTS,
    NodeLabel,
)
from kgfegmcp.resources import uris
from kgfegmcp.resources.addresses import ResourceAddress, supported_address
from kgfegmcp.resources.artifact_reader import MANIFEST_ARTIFACT, PROFILE_ARTIFACT
from kgfegmcp.resources.families import FAMILIES, Family
from kgfegmcp.resources.policy import (
    FAMILY_ACCESS,
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
from kgfegmcp.services.resource_views import component_view, relationship_view
from kgfegmcp.services.views import (
    ResultModel,
    declared_production,
    disclosures,
    package_identity,
    standard_view,
)

log = logging.getLogger(__name__)


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

    def __init__(self, catalog: AcceptedCatalog, sizes: SizePolicy) -> None:
        self._catalog = catalog
        self._sizes = sizes
        self._builders = self._document_builders()

    @property
    def catalog(self) -> AcceptedCatalog:
        """The catalog this service reads (the one every other service shares)."""
        return self._catalog

    # -- entry points ----------------------------------------------------------------------------

    def read_uri(self, uri: str) -> ResourceDocument:
        """Parse and read, for callers holding a URI (the MCP layer passes the address it parsed to :meth:`read`);
        an unsupported address is ``resource_not_found``."""
        return self.read(supported_address(uri, _NOT_FOUND_HINT))

    def read(self, address: ResourceAddress) -> ResourceDocument:
        """The document at ``address``: resolved, authorised, size-checked and described."""
        if address.family is Family.CATALOG:
            return self._finish(address, "public_metadata", None, self._catalog_document())
        if address.family is Family.FRAMEWORK:
            assert address.framework_id is not None
            return self._finish(address, "public_metadata", None, self._framework_document(address.framework_id))
        package = self._runtime(address)
        access = self._access_class(package, address)
        require_access(package.rights, access, self._describe(address, package))
        built = self._build(package, address)
        return self._finish(address, access, package, built)

    # -- resolution and policy -------------------------------------------------------------------

    def _runtime(self, address: ResourceAddress) -> ServedPackage:
        framework_id, snapshot_id = address.framework_id, address.snapshot_id
        package = self._catalog.by_snapshot(framework_id, snapshot_id) if framework_id and snapshot_id else None
        if package is None:
            named = graph_package_id(framework_id, snapshot_id) if framework_id and snapshot_id else "at this address"
            raise ResourceNotFoundError(f"No accepted package {named}.", hint=_NOT_FOUND_HINT)
        return package

    @staticmethod
    def _access_class(package: ServedPackage, address: ResourceAddress) -> AccessClass:
        if address.family is not Family.ARTIFACT:
            return FAMILY_ACCESS[address.family]
        assert address.key is not None
        access = artifact_access(package.manifest, address.key)
        if access is None or package.manifest.artifact(address.key) is None:
            raise ResourceNotFoundError(
                f"Package {package.graph_package_id} exposes no artifact {address.key!r}.",
                hint="The snapshot resource lists the artifacts a package exposes.",
            )
        return access

    @staticmethod
    def _describe(address: ResourceAddress, package: ServedPackage) -> str:
        if address.family is Family.ARTIFACT:
            return f"Artifact {address.key!r} of {package.graph_package_id}"
        return f"The {address.family.value.replace('_', ' ')} resource family of {package.graph_package_id}"

    def _finish(
        self, address: ResourceAddress, access: AccessClass, package: ServedPackage | None, built: _Built
    ) -> ResourceDocument:
        self._sizes.check_returned(len(built.data), f"The resource document {address.uri}")
        rights = package.rights if package is not None else None
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
            graph_package_id=package.graph_package_id if package is not None else None,
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

    @staticmethod
    def _evidence(package: ServedPackage, entry: ArtifactEntry) -> SourceArtifactEvidence:
        return SourceArtifactEvidence(
            graph_package_id=package.graph_package_id,
            logical_artifact=entry.logical_name,
            sha256=entry.sha256,
            bytes=entry.bytes,
        )

    def _declared(self, package: ServedPackage, logical_name: str) -> ArtifactEntry:
        entry = package.manifest.artifact(logical_name)
        if entry is None:  # validation guarantees every core artifact and part
            raise ResourceNotFoundError(f"Package {package.graph_package_id} declares no artifact {logical_name!r}.")
        return entry

    @staticmethod
    def _manifest_source(package: ServedPackage) -> SourceArtifactEvidence:
        """Evidence for documents derived from the manifest (read and checked once, then remembered)."""
        sha256, size = package.artifacts.manifest_digest()
        return SourceArtifactEvidence(
            graph_package_id=package.graph_package_id, logical_artifact=MANIFEST_ARTIFACT, sha256=sha256, bytes=size
        )

    # -- documents -------------------------------------------------------------------------------

    def _derived(self, document: Any, labels: list[str], evidence: list[SourceArtifactEvidence]) -> _Built:
        return _Built(derived_bytes(document), DETERMINISTIC_DERIVED, JSON_MIME, labels, evidence)

    def _build(self, package: ServedPackage, address: ResourceAddress) -> _Built:
        return self._builders[address.family](package, address)

    def _document_builders(self) -> dict[Family, Callable[[ServedPackage, ResourceAddress], _Built]]:
        """One document builder per package-level family of the family table."""
        return {
            Family.SNAPSHOT: lambda package, _: self._snapshot_document(package),
            Family.MANIFEST: lambda package, _: self._manifest_document(package),
            Family.VALIDATION: lambda package, _: self._raw_artifact(package, "validationReport"),
            Family.PROFILE: lambda package, _: self._profile_document(package),
            Family.UNRESOLVED: lambda package, _: self._raw_artifact(package, "unresolvedItems"),
            Family.STANDARD: lambda package, address: self._standard_document(package, _key(address)),
            Family.STANDARD_PROVENANCE: lambda package, address: self._entity_provenance_document(
                package, _key(address), ITEM
            ),
            Family.RELATIONSHIP: lambda package, address: self._relationship_document(
                package, _key(address), progression=False
            ),
            Family.LEARNING_COMPONENT: lambda package, address: self._component_document(package, _key(address)),
            Family.LEARNING_COMPONENT_PROVENANCE: lambda package, address: self._entity_provenance_document(
                package, _key(address), COMPONENT
            ),
            Family.LEARNING_PROGRESSION: lambda package, address: self._relationship_document(
                package, _key(address), progression=True
            ),
            Family.PROVENANCE_PART: lambda package, address: self._raw_artifact(
                package, provenance_part_name(address.part)
            ),
            Family.ARTIFACT: lambda package, address: self._raw_artifact(package, _key(address)),
        }

    def _manifest_document(self, package: ServedPackage) -> _Built:
        data = package.artifacts.manifest()
        evidence = SourceArtifactEvidence(
            graph_package_id=package.graph_package_id,
            logical_artifact=MANIFEST_ARTIFACT,
            sha256=sha256_hex(data),
            bytes=len(data),
        )
        return _Built(data, RAW_SOURCE, JSON_MIME, ["deterministic_derived"], [evidence])

    def _raw_artifact(self, package: ServedPackage, logical_name: str) -> _Built:
        entry = self._declared(package, logical_name)
        self._sizes.check_returned(entry.bytes, f"Artifact {logical_name!r} of {package.graph_package_id}")
        data = package.artifacts.artifact(entry)
        # What the retained bytes are, epistemically: the role's labels, and those of the learning components
        # it carries; an additional artifact's exposure contract states no epistemic status.
        role = ARTIFACT_ROLE.get(logical_name)
        labels: list[str] = list(role.labels) if role is not None else []
        production = declared_production(package) if role is not None and role.carries_components else None
        if production is not None:
            labels.append(production.epistemic_status)
        return _Built(data, RAW_SOURCE, entry.media_type, epistemic_labels(*labels), [self._evidence(package, entry)])

    def _profile_document(self, package: ServedPackage) -> _Built:
        data = package.artifacts.profile()
        binding = package.manifest.profile
        evidence = SourceArtifactEvidence(
            graph_package_id=package.graph_package_id,
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
    def _package_entry(package: ServedPackage) -> dict[str, Any]:
        framework = package.framework
        return {
            "graphPackageId": package.graph_package_id,
            "frameworkId": package.framework_id,
            "snapshotId": package.snapshot_id,
            "title": package.manifest.title,
            "name": framework.name,
            "jurisdiction": framework.jurisdiction,
            "academicSubject": framework.academic_subject,
            "inLanguage": framework.in_language,
            "isCurrent": package.manifest.is_current,
            "uri": uris.snapshot_uri(package.framework_id, package.snapshot_id),
            "manifestUri": uris.manifest_uri(package.framework_id, package.snapshot_id),
        }

    def _snapshot_document(self, package: ServedPackage) -> _Built:
        manifest = package.manifest
        fid, sid = package.framework_id, package.snapshot_id
        rights = package.rights

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
            "graphPackageId": package.graph_package_id,
            "frameworkId": fid,
            "snapshotId": sid,
            "title": manifest.title,
            "isCurrent": manifest.is_current,
            "supersedes": manifest.supersedes,
            "uri": uris.snapshot_uri(fid, sid),
            "frameworkUri": uris.framework_uri(fid),
            "framework": {
                "nodeId": package.framework.identifier,
                "name": package.framework.name,
                "jurisdiction": package.framework.jurisdiction,
                "academicSubject": package.framework.academic_subject,
                "inLanguage": package.framework.in_language,
            },
            "counts": manifest.counts.to_wire(),
            "capabilities": manifest.capabilities.to_wire(),
            "graphTypes": manifest.graph_types.to_wire(),
            "rights": rights.to_wire(),
            "validation": {
                "status": manifest.validation.status,
                "acceptedFrom": package.runtime.accepted_from,
                "validatorVersion": manifest.validation.validator_version,
            },
            "resources": [
                {
                    "family": family.value,
                    "uri": uri,
                    "accessClass": FAMILY_ACCESS[family],
                    "allowed": not denial_reason(rights, FAMILY_ACCESS[family]),
                }
                for family, uri in ((spec.family, spec.uri(fid, sid)) for spec in FAMILIES if len(spec.words) == 1)
            ],
            "entityFamilies": [
                {
                    "family": family.value,
                    "accessClass": FAMILY_ACCESS[family],
                    "allowed": not denial_reason(rights, FAMILY_ACCESS[family]),
                }
                for family in (spec.family for spec in FAMILIES if spec.key is not None and spec.access is not None)
            ],
            "artifacts": artifacts,
            "disclosures": [d.to_wire() for d in disclosures(package)],
        }
        return self._derived(document, ["deterministic_derived"], [self._manifest_source(package)])

    def _standard_document(self, package: ServedPackage, node_id: str) -> _Built:
        store = package.store
        item = store.item(node_id)
        if item is None:
            raise ResourceNotFoundError(f"No standard {node_id!r} in {package.graph_package_id}.", hint=_NOT_FOUND_HINT)
        incoming = store.incoming(node_id, HAS_CHILD)
        view = standard_view(package, item)
        document = {
            "standard": view.to_wire(),
            "parentNodeIds": [rel.source_identifier for rel in incoming],
            "childNodeIds": list(store.children(node_id)),
            "package": package_identity(package).to_wire(),
            "disclosures": [d.to_wire() for d in disclosures(package)],
        }
        unresolved = UNRESOLVED_REFERENCE if any(rel.unresolved_status for rel in incoming) else None
        labels = epistemic_labels(SERVER_BUILT, view.epistemic_status, unresolved)
        evidence = [self._evidence(package, self._declared(package, name)) for name in ("nodes", "relationships")]
        return self._derived(document, labels, evidence)

    def _component_document(self, package: ServedPackage, node_id: str) -> _Built:
        store = package.store
        component = store.component(node_id)
        if component is None:
            raise ResourceNotFoundError(
                f"No learning component {node_id!r} in {package.graph_package_id}.", hint=_NOT_FOUND_HINT
            )
        fid, sid = package.framework_id, package.snapshot_id
        production = declared_production(package)
        assert production is not None  # validation requires a generation summary beside components
        document = {
            "learningComponent": component_view(package, component),
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
            "components": production.to_wire(),
            "package": package_identity(package).to_wire(),
            "disclosures": [d.to_wire() for d in disclosures(package)],
        }
        labels = epistemic_labels(SERVER_BUILT, production.epistemic_status)
        evidence = [self._evidence(package, self._declared(package, name)) for name in ("nodes", "relationships")]
        return self._derived(document, labels, evidence)

    def _entity_provenance_document(self, package: ServedPackage, node_id: str, kind: NodeLabel) -> _Built:
        store = package.store
        fid, sid = package.framework_id, package.snapshot_id
        if kind == ITEM:
            found = store.item(node_id) is not None
            noun, entity_uri = "standard", uris.standard_uri(fid, sid, node_id)
        else:
            found = store.component(node_id) is not None
            noun, entity_uri = "learning component", uris.learning_component_uri(fid, sid, node_id)
        if not found:
            raise ResourceNotFoundError(f"No {noun} {node_id!r} in {package.graph_package_id}.", hint=_NOT_FOUND_HINT)
        part, entry, record = package.artifacts.entity_provenance(node_id)
        if record is None:
            raise ResourceNotFoundError(
                f"No provenance is recorded for {noun} {node_id!r} in {package.graph_package_id}."
            )
        document = {
            "graphPackageId": package.graph_package_id,
            "entityId": node_id,
            "entityKind": noun,
            "entityUri": entity_uri,
            "provenancePart": part,
            "provenancePartUri": provenance_part_uri(package.runtime, part),
            "provenance": record,
        }
        status = record.get("epistemicStatus")
        labels = epistemic_labels("deterministic_derived", status if isinstance(status, str) else None)
        return self._derived(document, labels, [self._evidence(package, entry)])

    def _relationship_document(self, package: ServedPackage, relationship_id: str, *, progression: bool) -> _Built:
        store = package.store
        rel = store.relationship(relationship_id)
        if rel is None or (progression and rel.label not in PROGRESSION_LABELS):
            noun = "learning-progression link" if progression else "relationship"
            raise ResourceNotFoundError(
                f"No {noun} {relationship_id!r} in {package.graph_package_id}.", hint=_NOT_FOUND_HINT
            )
        part, entry, record = package.artifacts.entity_provenance(relationship_id)
        document = {
            "relationship": relationship_view(package, rel),
            "provenance": {
                "provenancePart": part,
                "provenancePartUri": provenance_part_uri(package.runtime, part),
                "record": record,
            },
            "package": package_identity(package).to_wire(),
        }
        status = record.get("epistemicStatus") if record is not None else None
        # A record read from a supplied package's progression shard is the model's judgement (its role says so).
        role = ARTIFACT_ROLE.get(entry.logical_name)
        judged = role.labels if role is not None and role.requirement == "with_progressions" else ()
        labels = epistemic_labels(
            "deterministic_derived",
            status if isinstance(status, str) else None,
            *judged,
            "unresolved" if rel.unresolved_status else None,
        )
        evidence = [self._evidence(package, self._declared(package, "relationships")), self._evidence(package, entry)]
        return self._derived(document, labels, evidence)


def _key(address: ResourceAddress) -> str:
    """The node, relationship or logical-name segment of a keyed address (the parser guarantees one)."""
    assert address.key is not None
    return address.key
