"""Resource handlers: rebuild the canonical URI from the template parameters, read it through the
resource service, return the exact bytes with their metadata. No policy or domain logic here.

Every handler re-parses the URI it rebuilt and checks the family, so a parameter that smuggles a
``/`` (or anything else) can never turn one template into another family's address. The error
boundary (:class:`~kgfegmcp.mcp.boundary.ErrorBoundary`) rejects any URI that is not one exact
supported address before FastMCP even matches a template, so unknown, non-canonical and hostile
URIs all answer ``resource_not_found``, and no message repeats the URI; it also turns what a
handler raises into the public error.
"""

from __future__ import annotations

from fastmcp.resources import ResourceContent, ResourceResult
from fastmcp.server.context import Context

from kgfegmcp.errors import ResourceNotFoundError
from kgfegmcp.mcp.boundary import app_state
from kgfegmcp.resources import uris
from kgfegmcp.resources.addresses import Family, InvalidAddressError, parse_address
from kgfegmcp.services.resources import ResourceDocument

#: The ``_meta`` key under which each content item carries its document metadata.
META_KEY = "kgfegmcp"


def resource_result(document: ResourceDocument) -> ResourceResult:
    """UTF-8 documents as text (whose UTF-8 encoding is exactly the document bytes), others as a blob."""
    try:
        content: str | bytes = document.data.decode("utf-8")
    except UnicodeDecodeError:
        content = document.data
    meta = {META_KEY: document.metadata.to_wire()}
    return ResourceResult([ResourceContent(content, mime_type=document.metadata.mime_type, meta=meta)])


def _checked(uri: str, family: Family) -> str:
    """``uri`` when it parses to exactly ``family``; ``resource_not_found`` otherwise."""
    try:
        address = parse_address(uri)
    except InvalidAddressError as exc:
        raise ResourceNotFoundError(f"The URI is not a supported kgfegmcp:// resource address: {exc}.") from None
    if address.family is not family:
        raise ResourceNotFoundError("The URI is not a supported kgfegmcp:// resource address.")
    return uri


def _read(ctx: Context, uri: str, family: Family) -> ResourceResult:
    return resource_result(app_state(ctx).resources.read_uri(_checked(uri, family)))


def catalog(ctx: Context) -> ResourceResult:
    """Every accepted package (framework, snapshot, title, links) and the catalog fingerprint."""
    return _read(ctx, uris.CATALOG_URI, Family.CATALOG)


def framework(framework_id: str, ctx: Context) -> ResourceResult:
    """One framework family: its accepted snapshots and which are current."""
    return _read(ctx, uris.framework_uri(framework_id), Family.FRAMEWORK)


def snapshot(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """One graph package: identity, counts, capabilities, rights and what each resource family allows."""
    return _read(ctx, uris.snapshot_uri(framework_id, snapshot_id), Family.SNAPSHOT)


def manifest(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The package manifest, exact retained bytes (public metadata)."""
    return _read(ctx, uris.manifest_uri(framework_id, snapshot_id), Family.MANIFEST)


def validation(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The validation report, exact retained bytes (public metadata)."""
    return _read(ctx, uris.validation_uri(framework_id, snapshot_id), Family.VALIDATION)


def profile(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The interpretation profile the package is bound to, exact bytes checked by SHA-256."""
    return _read(ctx, uris.profile_uri(framework_id, snapshot_id), Family.PROFILE)


def unresolved(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The unresolved-items report (reviewed rights + allowFullText)."""
    return _read(ctx, uris.unresolved_uri(framework_id, snapshot_id), Family.UNRESOLVED)


def standard(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """One standards item with its hierarchy neighbours (standard-resource rights)."""
    return _read(ctx, uris.standard_uri(framework_id, snapshot_id, node_id), Family.STANDARD)


def standard_provenance(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """Provenance of one standards item, read from its one checked part (standard-resource rights)."""
    uri = uris.standard_provenance_uri(framework_id, snapshot_id, node_id)
    return _read(ctx, uri, Family.STANDARD_PROVENANCE)


def relationship(framework_id: str, snapshot_id: str, relationship_id: str, ctx: Context) -> ResourceResult:
    """One relationship of any label with its provenance from one checked part (standard-resource rights)."""
    return _read(ctx, uris.relationship_uri(framework_id, snapshot_id, relationship_id), Family.RELATIONSHIP)


def learning_component(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """One learning component with the standards it supports (standard-resource rights)."""
    return _read(ctx, uris.learning_component_uri(framework_id, snapshot_id, node_id), Family.LEARNING_COMPONENT)


def learning_component_provenance(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """Provenance of one learning component, read from its one checked part (standard-resource rights)."""
    uri = uris.learning_component_provenance_uri(framework_id, snapshot_id, node_id)
    return _read(ctx, uri, Family.LEARNING_COMPONENT_PROVENANCE)


def learning_progression(framework_id: str, snapshot_id: str, relationship_id: str, ctx: Context) -> ResourceResult:
    """One stored buildsTowards/relatesTo link with its provenance (standard-resource rights)."""
    uri = uris.learning_progression_uri(framework_id, snapshot_id, relationship_id)
    return _read(ctx, uri, Family.LEARNING_PROGRESSION)


def provenance_part(framework_id: str, snapshot_id: str, part: str, ctx: Context) -> ResourceResult:
    """One checked entity-provenance part (00-63), exact retained bytes (standard-resource rights)."""
    if len(part) != 2 or not part.isascii() or not part.isdigit():
        raise ResourceNotFoundError("A provenance part is two digits, 00-63.")
    return _read(ctx, uris.provenance_part_uri(framework_id, snapshot_id, int(part)), Family.PROVENANCE_PART)


def artifact(framework_id: str, snapshot_id: str, logical_name: str, ctx: Context) -> ResourceResult:
    """One declared artifact by logical name, under the closed artifact access-class policy."""
    return _read(ctx, uris.artifact_uri(framework_id, snapshot_id, logical_name), Family.ARTIFACT)
