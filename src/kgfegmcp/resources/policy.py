"""Rights and size policy for resources: who may read what, and how much.

Access is decided from the RightsPolicy a package is served under (its manifest's, the operator's decision
applied) and the closed table of artifact roles (``packages.artifact_roles``), never from the presence of a
file. Size limits are a separate gate: exceeding one denies the read; nothing is ever truncated silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgfegmcp.core.config import BackendSettings
from kgfegmcp.core.errors import ResourceAccessDeniedError
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, AccessClass, provenance_part_name
from kgfegmcp.packages.manifest import PackageManifest
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.resources import uris
from kgfegmcp.resources.families import FAMILIES, Family

#: The access class of every dedicated resource family, from the family table (``artifact`` is decided
#: per logical name).
FAMILY_ACCESS: dict[Family, AccessClass] = {spec.family: spec.access for spec in FAMILIES if spec.access is not None}


def artifact_access(manifest: PackageManifest, logical_name: str) -> AccessClass | None:
    """The access class the generic ``artifact`` family serves an artifact under, or ``None`` (fail closed).

    The closed artifact policy of the rights page: a role's class (``artifact_roles``; the provenance
    parts have their own family), or an additional artifact's explicit exposure contract.
    """
    role = ARTIFACT_ROLE.get(logical_name)
    if role is not None and manifest.shape in role.shapes:
        return role.access_class if role.by_logical_name else None
    for entry in manifest.additional_artifacts:
        if entry.logical_name == logical_name:
            return entry.exposure.access_class if entry.exposure is not None else None
    return None


def denial_reason(rights: RightsPolicy, access: AccessClass) -> str | None:
    """Why ``rights`` do not permit ``access``; ``None`` when they do."""
    if access == "public_metadata":
        return None
    full_text = rights.full_text_denial()
    if full_text is not None:
        return full_text
    if access in ("standard_resource", "bulk_content") and not rights.allow_standard_resources:
        return "the package's rights do not allow standard resources (allowStandardResources is false)"
    if access == "bulk_content" and not rights.allow_bulk_resource:
        return "the package's rights do not allow bulk content (allowBulkResource is false)"
    return None


def provenance_part_uri(runtime: PackageRuntime, part: int | None) -> str | None:
    """The address of a provenance part when the package declares it and its rights let a client open it,
    else ``None``.

    Results cite a part only where reading it is allowed: a link that is always refused costs a host a
    round trip and tells it nothing the per-entity provenance does not. A package shaped as the spec draws
    it declares no parts (``part`` is then ``None``, or names a part the manifest does not declare).
    """
    manifest = runtime.manifest
    if part is None or manifest.artifact(provenance_part_name(part)) is None:
        return None
    if denial_reason(runtime.rights, FAMILY_ACCESS[Family.PROVENANCE_PART]) is not None:
        return None
    return uris.provenance_part_uri(manifest.framework_id, manifest.snapshot_id, part)


def require_access(rights: RightsPolicy, access: AccessClass, what: str) -> None:
    """Raise ``resource_access_denied`` unless ``rights`` permit ``access``."""
    reason = denial_reason(rights, access)
    if reason is not None:
        raise ResourceAccessDeniedError(
            f"{what} is not exposed: {reason}.",
            hint="Use the tools for cited evidence, or ask the operator to review the package's rights.",
        )


@dataclass(frozen=True, slots=True)
class SizePolicy:
    """The configured source-read and returned-document limits."""

    max_source_read_bytes: int
    max_returned_bytes: int

    @staticmethod
    def from_settings(settings: BackendSettings) -> SizePolicy:
        """Limits from ``KGFEGMCP_MAX_SOURCE_READ_BYTES`` and ``KGFEGMCP_MAX_RETURNED_RESOURCE_BYTES``."""
        return SizePolicy(settings.max_source_read_bytes, settings.max_returned_resource_bytes)

    @staticmethod
    def defaults() -> SizePolicy:
        """The limits a server runs under when neither setting is given."""
        fields = BackendSettings.model_fields
        return SizePolicy(fields["max_source_read_bytes"].default, fields["max_returned_resource_bytes"].default)

    def check_source(self, size: int, what: str) -> None:
        """Deny reading more than the source-read limit from one artifact."""
        if size > self.max_source_read_bytes:
            raise ResourceAccessDeniedError(
                f"{what} is {size} bytes; the source-read limit is {self.max_source_read_bytes} bytes.",
                hint="Read a smaller resource (one standard, relationship or provenance part) instead.",
            )

    def check_returned(self, size: int, what: str) -> None:
        """Deny returning a document larger than the returned-resource limit."""
        if size > self.max_returned_bytes:
            raise ResourceAccessDeniedError(
                f"{what} is {size} bytes; the returned-resource limit is {self.max_returned_bytes} bytes.",
                hint="Read a smaller resource (one standard, relationship or provenance part) instead.",
            )
