"""``read_evidence``: any resource document, read in UTF-8 windows behind a cursor.

The whole resource goes through exactly the resource read (address, rights, source-read and
returned limits, integrity) before any window is cut, so a window never shows what a resource
read would refuse. Windows end on UTF-8 character boundaries and shrink, never split, to keep the
whole tool result within 1 MiB / 100,000 characters; the cursor is bound to the URI, the window
size and the catalog, so replaying it with anything else changed is ``invalid_cursor``.
"""

from __future__ import annotations

from typing import Literal

from kgfegmcp.cursors import CursorCodec, offset_within, request_fingerprint
from kgfegmcp.errors import (
    EvidenceResultTooLargeError,
    InvalidCursorError,
    InvalidEvidenceUriError,
    UnsupportedEvidenceFormatError,
)
from kgfegmcp.rendering import rendered_size
from kgfegmcp.resources.addresses import InvalidAddressError, parse_address
from kgfegmcp.services.requests import ReadEvidenceRequest
from kgfegmcp.services.resources import ResourceMetadata, ResourceService
from kgfegmcp.services.views import PageInfo, ResultModel
from kgfegmcp.tool_names import ToolName

LimitedBy = Literal["end_of_resource", "window_bytes", "result_ceiling"]


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
        fingerprint = request_fingerprint(request)
        offset = 0
        if request.cursor is not None:
            offset = self._offset(request.cursor, fingerprint, data, document.metadata.sha256)
        return self._fit(request, fingerprint, document.metadata, data, offset)

    def _offset(self, cursor: str, fingerprint: str, data: bytes, sha256: str) -> int:
        position = self._cursors.decode(cursor, ToolName.READ_EVIDENCE, fingerprint)
        if position.get("sha256") != sha256[:32]:
            raise InvalidCursorError("The cursor belongs to a different version of this resource.")
        outside = "The cursor points outside this resource."
        offset = offset_within(position, len(data), outside)
        # The first window starts at 0 without a cursor; a cursor continues after it, on a character.
        if offset == 0 or not _is_boundary(data, offset):
            raise InvalidCursorError(outside)
        return offset

    def _result(
        self,
        request: ReadEvidenceRequest,
        fingerprint: str,
        metadata: ResourceMetadata,
        data: bytes,
        offset: int,
        end: int,
        limited_by: LimitedBy,
    ) -> ReadEvidenceResult:
        has_more = end < len(data)
        next_cursor = (
            self._cursors.encode(ToolName.READ_EVIDENCE, fingerprint, {"offset": end, "sha256": metadata.sha256[:32]})
            if has_more
            else None
        )
        return ReadEvidenceResult(
            uri=metadata.uri,
            resource=metadata,
            window=EvidenceWindow(
                offset=offset, end_offset=end, byte_length=end - offset, text=data[offset:end].decode("utf-8")
            ),
            reached_end=not has_more,
            limited_by=limited_by,
            page=PageInfo(
                limit=request.window_bytes, returned=end - offset, has_more=has_more, next_cursor=next_cursor
            ),
        )

    def _fit(
        self, request: ReadEvidenceRequest, fingerprint: str, metadata: ResourceMetadata, data: bytes, offset: int
    ) -> ReadEvidenceResult:
        """The largest window from ``offset`` that fits the request and the whole-result ceiling."""
        total = len(data)
        end = _floor_boundary(data, min(offset + request.window_bytes, total))

        def attempt(candidate: int, limited_by: LimitedBy) -> ReadEvidenceResult | None:
            result = self._result(request, fingerprint, metadata, data, offset, candidate, limited_by)
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
