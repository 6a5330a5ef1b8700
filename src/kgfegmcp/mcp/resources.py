"""Resource handlers, one per family of the family table: read the address the error boundary parsed through
the resource service, return the exact bytes with their metadata. No policy or domain logic here.

The error boundary (:class:`~kgfegmcp.mcp.boundary.ErrorBoundary`) parses the URI of every read once,
rejecting any URI that is not one exact supported address before FastMCP even matches a template, so
unknown, non-canonical and hostile URIs all answer ``resource_not_found``, and no message repeats the URI. A
handler serves only an address of its own family, so no template can be made to read another family's
address. The boundary also turns what a handler raises into the public error.
"""

from __future__ import annotations

from collections.abc import Callable

from fastmcp.resources import ResourceContent, ResourceResult
from fastmcp.server.context import Context

from kgfegmcp.core.errors import ResourceNotFoundError
from kgfegmcp.mcp.boundary import app_state, read_address
from kgfegmcp.resources.families import Family, ResourceFamily
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


def _read(ctx: Context, family: Family) -> ResourceResult:
    """Read the address the boundary parsed, when it is of this handler's ``family``."""
    address = read_address()
    if address is None or address.family is not family:
        raise ResourceNotFoundError("The URI is not a supported kgfegmcp:// resource address.")
    return resource_result(app_state(ctx).resources.read(address))


def handler(spec: ResourceFamily) -> Callable[..., ResourceResult]:
    """The handler of one family: the parsed address read (its template's parameters are FastMCP's match of it).

    FastMCP passes a template's parameters by name, so a keyed family's handler takes them as keywords;
    the catalog, the one fixed resource, takes none.
    """
    if not spec.variables:

        def read_fixed(ctx: Context) -> ResourceResult:
            return _read(ctx, spec.family)

        read: Callable[..., ResourceResult] = read_fixed
    else:

        def read_template(ctx: Context, **ids: str) -> ResourceResult:
            # The template's parameters are FastMCP's match of the URI the boundary parsed: the address is read.
            return _read(ctx, spec.family)

        read = read_template
    read.__name__ = read.__qualname__ = spec.name
    read.__doc__ = spec.description
    return read
