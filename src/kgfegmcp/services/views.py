"""Result models shared by services: package identity, standards views, warnings, pages.

Source terms (local grade labels, statement types) are always kept beside their normalised
facets; nothing here merges curricula or drops the package a value came from.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from kgfegmcp.catalog.catalog import PackageRuntime
from kgfegmcp.cursors import CursorCodec
from kgfegmcp.packages.records import FrameworkNode, ItemNode
from kgfegmcp.resources import uris

EpistemicStatus = Literal["source_asserted", "source_extracted", "deterministic_derived", "unresolved"]


class ResultModel(BaseModel):
    """camelCase on the wire; built by services only."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True, frozen=True)

    def to_wire(self) -> dict[str, Any]:
        """JSON-ready structured content (``None`` fields kept out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class ArtifactRef(ResultModel):
    """One file a result was built from."""

    logical_name: str
    sha256: str


class ProfileBinding(ResultModel):
    """The interpretation profile a package is bound to."""

    profile_id: str
    version: str
    sha256: str


class PackageIdentity(ResultModel):
    """Short package identity: the four files a result was built from, and the manifest link."""

    graph_package_id: str
    framework_id: str
    snapshot_id: str
    manifest_uri: str
    nodes: ArtifactRef
    relationships: ArtifactRef
    entity_provenance: ArtifactRef
    profile: ProfileBinding


class DisclosureView(ResultModel):
    """A profile disclosure shown with results."""

    disclosure_id: str
    text: str


class ResultWarning(ResultModel):
    """A warning is evidence: keep it with the result it qualifies."""

    code: str
    message: str
    graph_package_id: str | None = None


class GradeView(ResultModel):
    """A local grade label with its normalised facet."""

    source_label: str
    facet: str | None = None
    display: str | None = None


class StatementTypeView(ResultModel):
    """A source statement type with its normalised form and role."""

    source_type: str
    normalized: str | None = None
    role: Literal["standard", "grouping"] | None = None


class StandardView(ResultModel):
    """One published standards item, in its own package's terms."""

    graph_package_id: str
    node_id: str
    case_identifier_uuid: str = Field(alias="caseIdentifierUUID")
    case_identifier_uri: str | None = Field(None, alias="caseIdentifierURI")
    statement_code: str | None = None
    description: str
    statement_type: StatementTypeView
    grade_levels: list[GradeView]
    academic_subject: str | None = None
    in_language: str
    is_current: bool
    notes: str | None = None
    uri: str
    provenance_uri: str
    epistemic_status: EpistemicStatus = "source_asserted"


class FrameworkRootView(ResultModel):
    """The framework root as a hierarchy node."""

    graph_package_id: str
    node_id: str
    name: str
    uri: str
    kind: Literal["framework"] = "framework"


class PageInfo(ResultModel):
    """Where a paged result stands."""

    limit: int
    returned: int
    has_more: bool
    next_cursor: str | None = None


def offset_page(
    cursors: CursorCodec, tool: str, fingerprint: str, offset: int, limit: int, returned: int, total: int
) -> PageInfo:
    """Page facts of an offset-paged result, with the cursor to the next page when there is one."""
    next_offset = offset + returned
    has_more = next_offset < total
    return PageInfo(
        limit=limit,
        returned=returned,
        has_more=has_more,
        next_cursor=cursors.encode(tool, fingerprint, {"offset": next_offset}) if has_more else None,
    )


def package_identity(runtime: PackageRuntime) -> PackageIdentity:
    """The identity block every result carries."""
    manifest = runtime.manifest

    def ref(logical_name: str) -> ArtifactRef:
        entry = manifest.artifact(logical_name)
        assert entry is not None  # guaranteed by validation
        return ArtifactRef(logical_name=logical_name, sha256=entry.sha256)

    return PackageIdentity(
        graph_package_id=manifest.graph_package_id,
        framework_id=manifest.framework_id,
        snapshot_id=manifest.snapshot_id,
        manifest_uri=uris.manifest_uri(manifest.framework_id, manifest.snapshot_id),
        nodes=ref("nodes"),
        relationships=ref("relationships"),
        entity_provenance=ref("entityProvenance"),
        profile=ProfileBinding(
            profile_id=manifest.profile.profile_id, version=manifest.profile.version, sha256=manifest.profile.sha256
        ),
    )


def disclosures(runtime: PackageRuntime) -> list[DisclosureView]:
    """The bound profile's disclosures, in profile order."""
    return [DisclosureView(disclosure_id=d.disclosure_id, text=d.text) for d in runtime.profile.profile.disclosures]


def standard_view(runtime: PackageRuntime, item: ItemNode) -> StandardView:
    """An item with its source terms and normalised facets side by side."""
    profile = runtime.profile.profile
    rule = profile.statement_type(item.statement_type)
    grades = []
    for label in item.grade_level:
        declared = profile.grade_label(label)
        grades.append(
            GradeView(
                source_label=label,
                facet=declared.facet if declared else None,
                display=declared.display if declared else None,
            )
        )
    fid, sid = runtime.framework_id, runtime.snapshot_id
    return StandardView(
        graph_package_id=runtime.graph_package_id,
        node_id=item.identifier,
        case_identifier_uuid=item.case_identifier_uuid,
        case_identifier_uri=item.case_identifier_uri,
        statement_code=item.statement_code,
        description=item.description,
        statement_type=StatementTypeView(
            source_type=item.statement_type,
            normalized=rule.normalized if rule else item.normalized_statement_type,
            role=rule.role if rule else None,
        ),
        grade_levels=grades,
        academic_subject=item.academic_subject or runtime.framework.academic_subject,
        in_language=item.in_language,
        is_current=item.is_current,
        notes=item.notes,
        uri=uris.standard_uri(fid, sid, item.identifier),
        provenance_uri=uris.standard_provenance_uri(fid, sid, item.identifier),
    )


def framework_root_view(runtime: PackageRuntime, framework: FrameworkNode) -> FrameworkRootView:
    """The root node of a package's hierarchy."""
    return FrameworkRootView(
        graph_package_id=runtime.graph_package_id,
        node_id=framework.identifier,
        name=framework.name,
        uri=uris.snapshot_uri(runtime.framework_id, runtime.snapshot_id),
    )
