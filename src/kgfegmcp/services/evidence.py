"""``read_evidence``: any resource document, read in UTF-8 windows behind a cursor.

The whole resource goes through exactly the resource read (address, rights, source-read and
returned limits, integrity) before any window is cut, so a window never shows what a resource
read would refuse. Windows end on UTF-8 character boundaries and shrink, never split, to keep the
whole tool result within 1 MiB / 100,000 characters; the cursor is bound to the URI, the window
size and the catalog, so replaying it with anything else changed is ``invalid_cursor``.
"""

from __future__ import annotations

from typing import Literal

from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.errors import (
    EvidenceResultTooLargeError,
    InvalidCursorError,
    InvalidEvidenceUriError,
    UnsupportedEvidenceFormatError,
)
from kgfegmcp.core.rendering import rendered_size
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.resources.addresses import InvalidAddressError, parse_address
from kgfegmcp.services.paging import PageInfo, Pager
from kgfegmcp.services.requests import ReadEvidenceRequest
from kgfegmcp.services.resources import ResourceMetadata, ResourceService
from kgfegmcp.services.views import ResultModel

LimitedBy = Literal["end_of_resource", "window_bytes", "result_ceiling"]
#: Refusal of a byte cursor that is not inside the document, after its first window, on a character.
_OUTSIDE = "The cursor points outside this resource."


class EvidenceWindow(ResultModel):
    """One slice of the resource bytes, decoded as UTF-8."""

    offset: int
    end_offset: int
    byte_length: int
    text: str


class ReadEvidenceResult(ResultModel):
    """A window of one resource document with that document's full metadata."""

    uri: str
    resource: ResourceMetadata
    window: EvidenceWindow
    reached_end: bool
    limited_by: LimitedBy
    page: PageInfo


def _is_boundary(data: bytes, position: int) -> bool:
    """Whether ``position`` starts a UTF-8 character (or is the end)."""
    return position >= len(data) or (data[position] & 0xC0) != 0x80


def _floor_boundary(data: bytes, position: int) -> int:
    """The last character boundary at or before ``position``."""
    while position > 0 and not _is_boundary(data, position):
        position -= 1
    return position


class EvidenceService:
    """Windows over resource documents, with the resource service as the only way in."""

    def __init__(self, resources: ResourceService, cursors: CursorCodec) -> None:
        self._resources = resources
        self._cursors = cursors

    def read_evidence(self, request: ReadEvidenceRequest) -> ReadEvidenceResult:
        """The next window of ``request.uri``."""
        try:
            address = parse_address(request.uri)
        except InvalidAddressError as exc:
            raise InvalidEvidenceUriError(
                f"The URI is not one exact supported kgfegmcp:// address: {exc}.",
                hint="Pass a resource link exactly as a tool or resource returned it.",
            ) from None
        document = self._resources.read(address)
        data = document.data
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise UnsupportedEvidenceFormatError(
                f"{document.metadata.uri} is {document.metadata.mime_type} content that is not UTF-8 text.",
                hint="read_evidence returns text only; read the resource natively for binary content.",
            ) from None
        pager = Pager(self._cursors, ToolName.READ_EVIDENCE, request, sha256=document.metadata.sha256[:32])
        start = pager.start(len(data), _OUTSIDE)
        # The first window starts at 0 without a cursor; a cursor continues after it, on a character.
        if start.resumed and (start.offset == 0 or not _is_boundary(data, start.offset)):
            raise InvalidCursorError(_OUTSIDE)
        return self._fit(request, pager, document.metadata, data, start.offset)

    def _result(
        self,
        request: ReadEvidenceRequest,
        pager: Pager,
        metadata: ResourceMetadata,
        data: bytes,
        offset: int,
        end: int,
        limited_by: LimitedBy,
    ) -> ReadEvidenceResult:
        resume = end if end < len(data) else None  # where the next window starts
        return ReadEvidenceResult(
            uri=metadata.uri,
            resource=metadata,
            window=EvidenceWindow(
                offset=offset, end_offset=end, byte_length=end - offset, text=data[offset:end].decode("utf-8")
            ),
            reached_end=resume is None,
            limited_by=limited_by,
            page=pager.page(PageInfo, resume, limit=request.window_bytes, returned=end - offset),
        )

    def _fit(
        self, request: ReadEvidenceRequest, pager: Pager, metadata: ResourceMetadata, data: bytes, offset: int
    ) -> ReadEvidenceResult:
        """The largest window from ``offset`` that fits the request and the whole-result ceiling."""
        total = len(data)
        end = _floor_boundary(data, min(offset + request.window_bytes, total))

        def attempt(candidate: int, limited_by: LimitedBy) -> ReadEvidenceResult | None:
            result = self._result(request, pager, metadata, data, offset, candidate, limited_by)
            return result if rendered_size(result.to_wire()).fits else None

        first = attempt(end, "end_of_resource" if end == total else "window_bytes")
        if first is not None:
            return first
        best: ReadEvidenceResult | None = None
        low, high = offset + 1, end - 1
        while low <= high:  # largest boundary below ``end`` whose result fits; sizes grow with the window
            middle = (low + high) // 2
            candidate = _floor_boundary(data, middle)
            if candidate <= offset:
                low = middle + 1
                continue
            fitted = attempt(candidate, "result_ceiling")
            if fitted is not None:
                best = fitted
                low = middle + 1
            else:
                high = candidate - 1
        if best is None:
            raise EvidenceResultTooLargeError(
                f"No content of {metadata.uri} fits beside its metadata within the 1 MiB / 100,000-character "
                "result ceiling.",
                hint="Read the resource natively instead.",
            )
        return best
