"""Resource handlers: rebuild the canonical URI from the template parameters, read it through the
resource service, return the exact bytes with their metadata. No policy or domain logic here.

Every handler re-parses the URI it rebuilt and checks the family, so a parameter that smuggles a
``/`` (or anything else) can never turn one template into another family's address. The
middleware below rejects any URI that is not one exact supported address before FastMCP even
matches a template, so unknown, non-canonical and hostile URIs all answer ``resource_not_found``,
and no message repeats the URI.
"""

from __future__ import annotations

from fastmcp.exceptions import NotFoundError, ResourceError
from fastmcp.resources import ResourceContent, ResourceResult
from fastmcp.server.context import Context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.types import ReadResourceRequestParams

from kgfegmcp.errors import ResourceNotFoundError
from kgfegmcp.mcp.boundary import app_state, public_cause, public_error, resource_boundary
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


@resource_boundary
def catalog(ctx: Context) -> ResourceResult:
    """Every accepted package (framework, snapshot, title, links) and the catalog fingerprint."""
    return _read(ctx, uris.CATALOG_URI, Family.CATALOG)


@resource_boundary
def framework(framework_id: str, ctx: Context) -> ResourceResult:
    """One framework family: its accepted snapshots and which are current."""
    return _read(ctx, uris.framework_uri(framework_id), Family.FRAMEWORK)


@resource_boundary
def snapshot(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """One graph package: identity, counts, capabilities, rights and what each resource family allows."""
    return _read(ctx, uris.snapshot_uri(framework_id, snapshot_id), Family.SNAPSHOT)


@resource_boundary
def manifest(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The package manifest, exact retained bytes (public metadata)."""
    return _read(ctx, uris.manifest_uri(framework_id, snapshot_id), Family.MANIFEST)


@resource_boundary
def validation(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The validation report, exact retained bytes (public metadata)."""
    return _read(ctx, uris.validation_uri(framework_id, snapshot_id), Family.VALIDATION)


@resource_boundary
def profile(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The interpretation profile the package is bound to, exact bytes checked by SHA-256."""
    return _read(ctx, uris.profile_uri(framework_id, snapshot_id), Family.PROFILE)


@resource_boundary
def unresolved(framework_id: str, snapshot_id: str, ctx: Context) -> ResourceResult:
    """The unresolved-items report (reviewed rights + allowFullText)."""
    return _read(ctx, uris.unresolved_uri(framework_id, snapshot_id), Family.UNRESOLVED)


@resource_boundary
def standard(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """One standards item with its hierarchy neighbours (standard-resource rights)."""
    return _read(ctx, uris.standard_uri(framework_id, snapshot_id, node_id), Family.STANDARD)


@resource_boundary
def standard_provenance(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """Provenance of one standards item, read from its one checked part (standard-resource rights)."""
    uri = uris.standard_provenance_uri(framework_id, snapshot_id, node_id)
    return _read(ctx, uri, Family.STANDARD_PROVENANCE)


@resource_boundary
def relationship(framework_id: str, snapshot_id: str, relationship_id: str, ctx: Context) -> ResourceResult:
    """One relationship of any label with its provenance from one checked part (standard-resource rights)."""
    return _read(ctx, uris.relationship_uri(framework_id, snapshot_id, relationship_id), Family.RELATIONSHIP)


@resource_boundary
def learning_component(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """One learning component with the standards it supports (standard-resource rights)."""
    return _read(ctx, uris.learning_component_uri(framework_id, snapshot_id, node_id), Family.LEARNING_COMPONENT)


@resource_boundary
def learning_component_provenance(framework_id: str, snapshot_id: str, node_id: str, ctx: Context) -> ResourceResult:
    """Provenance of one learning component, read from its one checked part (standard-resource rights)."""
    uri = uris.learning_component_provenance_uri(framework_id, snapshot_id, node_id)
    return _read(ctx, uri, Family.LEARNING_COMPONENT_PROVENANCE)


@resource_boundary
def learning_progression(framework_id: str, snapshot_id: str, relationship_id: str, ctx: Context) -> ResourceResult:
    """One stored buildsTowards/relatesTo link with its provenance (standard-resource rights)."""
    uri = uris.learning_progression_uri(framework_id, snapshot_id, relationship_id)
    return _read(ctx, uri, Family.LEARNING_PROGRESSION)


@resource_boundary
def provenance_part(framework_id: str, snapshot_id: str, part: str, ctx: Context) -> ResourceResult:
    """One checked entity-provenance part (00-63), exact retained bytes (standard-resource rights)."""
    if len(part) != 2 or not part.isascii() or not part.isdigit():
        raise ResourceNotFoundError("A provenance part is two digits, 00-63.")
    return _read(ctx, uris.provenance_part_uri(framework_id, snapshot_id, int(part)), Family.PROVENANCE_PART)


@resource_boundary
def artifact(framework_id: str, snapshot_id: str, logical_name: str, ctx: Context) -> ResourceResult:
    """One declared artifact by logical name, under the closed artifact access-class policy."""
    return _read(ctx, uris.artifact_uri(framework_id, snapshot_id, logical_name), Family.ARTIFACT)


@resource_boundary
def _require_supported(uri: str) -> None:
    """Any exact supported address passes; everything else is ``resource_not_found``."""
    try:
        parse_address(uri)
    except InvalidAddressError as exc:
        raise ResourceNotFoundError(
            f"The URI is not a supported kgfegmcp:// resource address: {exc}.",
            hint="Use the resource links returned by the tools, or list the resource templates.",
        ) from None


class ResourceAddressMiddleware(Middleware):
    """Fails closed before template matching: only exact supported addresses reach a handler."""

    async def on_read_resource(
        self,
        context: MiddlewareContext[ReadResourceRequestParams],
        call_next: CallNext[ReadResourceRequestParams, ResourceResult],
    ) -> ResourceResult:
        try:
            _require_supported(str(context.message.uri))
            return await call_next(context)
        except ResourceError as exc:
            raise public_cause(exc) from None
        except NotFoundError:  # FastMCP's own refusal would repeat the URI whole, uncoded
            missing = ResourceNotFoundError(
                "The URI names no resource this server serves.",
                hint="Use the resource links returned by the tools, or list the resource templates.",
            )
            raise public_error(missing) from None
