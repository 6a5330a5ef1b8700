"""Paging, one way for every paged tool: where a page starts, and the page facts with the cursor to the next.

A cursor holds the position the next page starts at: a result's offset in a ranked or listed sequence,
a link's in a scan, or a byte's in a document (``read_evidence``, whose cursors are bound to the
document's version too). :class:`Pager` opens it against the most the request can reach and seals the
next one; :class:`CursorPage` and its subclasses are the page facts an answer carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from pydantic import SerializerFunctionWrapHandler, model_serializer

from kgfegmcp.core.cursors import OUTSIDE, CursorCodec, CursoredRequest, offset_within, request_fingerprint
from kgfegmcp.core.errors import InvalidCursorError
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.services.views import ResultModel

#: Refusal of a byte cursor whose document changed since the cursor was issued.
STALE = "The cursor belongs to a different version of this resource."


class CursorPage(ResultModel):
    """Whether a page has a next one, and its cursor: the cursor is always sent, ``null`` on the last page.

    The one exception to "a field is on the wire only when it has a value": the spec has every paged
    result report ``nextCursor``, as ``null`` when ``hasMore`` is false. Catalog and search pages carry
    these two facts alone (the limit is the request's, the number returned the length of the page's list).
    """

    SENT_AS_NULL: ClassVar[tuple[str, ...]] = ("next_cursor",)

    has_more: bool
    next_cursor: str | None = None

    # No return annotation: an annotated one would replace this model's serialization schema with it.
    @model_serializer(mode="wrap")
    def _cursor_always_sent(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        if isinstance(data, dict) and self.next_cursor is None:
            data["nextCursor" if "hasMore" in data else "next_cursor"] = None
        return data


class PageInfo(CursorPage):
    """A page that also says its limit and how much it returned (a window's bytes, a progression page's links)."""

    limit: int
    returned: int


PageT = TypeVar("PageT", bound=CursorPage)


@dataclass(frozen=True, slots=True)
class PageStart:
    """Where a page begins: 0 without a cursor, else the cursor's offset (below the reach)."""

    offset: int
    resumed: bool

    def within(self, total: int) -> int:
        """The offset, once the result's real total is known: a cursor never points at or past the end
        (the last page issues none), so such an offset is ``invalid_cursor``."""
        if self.resumed and self.offset >= total:
            raise InvalidCursorError(OUTSIDE)
        return self.offset


class Pager:
    """One paged request's cursors: the one it came with, opened, and the one its page hands on."""

    def __init__(
        self, cursors: CursorCodec, tool: ToolName, request: CursoredRequest, *, sha256: str | None = None
    ) -> None:
        """Cursors of ``tool`` bound to ``request`` (all but its cursor) and, for a document's byte windows,
        to the document's SHA-256 prefix ``sha256``."""
        self._cursors = cursors
        self._tool = tool
        self._cursor = request.cursor
        self._fingerprint = request_fingerprint(request)
        self._bound: dict[str, Any] = {} if sha256 is None else {"sha256": sha256}

    def start(self, reach: int, outside: str = OUTSIDE) -> PageStart:
        """Where the page begins: 0 without a cursor, else the cursor's offset, refused (with ``outside``) at
        or beyond ``reach``, the most results (or bytes) this request can have, known before searching."""
        if self._cursor is None:
            return PageStart(0, resumed=False)
        position = self._cursors.decode(self._cursor, self._tool, self._fingerprint)
        if any(position.get(name) != value for name, value in self._bound.items()):
            raise InvalidCursorError(STALE)
        return PageStart(offset_within(position, reach, outside), resumed=True)

    def page(self, model: type[PageT], resume: int | None, **facts: Any) -> PageT:
        """The page facts ``model`` with ``facts``, and the cursor to the next page when it starts at
        ``resume`` (``None``: this page is the last)."""
        if resume is None:
            return model(has_more=False, next_cursor=None, **facts)
        token = self._cursors.encode(self._tool, self._fingerprint, {"offset": resume, **self._bound})
        return model(has_more=True, next_cursor=token, **facts)

    def offset_page(self, offset: int, returned: int, total: int) -> CursorPage:
        """The page facts of ``returned`` results from ``offset`` of ``total``."""
        return self.page(CursorPage, resume_after(offset, returned, total))


def resume_after(offset: int, returned: int, total: int) -> int | None:
    """Where the next page starts after ``returned`` results from ``offset`` of ``total``; ``None`` at the end."""
    end = offset + returned
    return end if end < total else None
