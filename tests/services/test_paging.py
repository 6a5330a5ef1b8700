"""The one paging path (``services/paging.py``) called directly: where a page starts, what is refused, and the
page facts with the cursor to the next page.

Every paged tool goes through :class:`Pager`, so these are the rules of all of them; the tools' own tests
(tests/mcp/test_cursors.py, test_forged_cursors.py) check them end to end.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import SecretStr

from kgfegmcp.core.cursors import CursorCodec, request_fingerprint
from kgfegmcp.core.errors import InvalidCursorError
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.services.paging import STALE, CursorPage, PageInfo, Pager, resume_after
from kgfegmcp.services.progression_views import ProgressionPage
from kgfegmcp.services.requests import ListFrameworksRequest, ReadEvidenceRequest

CODEC = CursorCodec("catalog-fingerprint", SecretStr("paging-test-secret"))
LIST = ToolName.LIST_FRAMEWORKS


def listing(**fields: Any) -> ListFrameworksRequest:
    return ListFrameworksRequest.model_validate({"limit": 2, **fields})


def pager(**fields: Any) -> Pager:
    return Pager(CODEC, LIST, listing(**fields))


def cursor_at(offset: int, **fields: Any) -> str:
    """The cursor a page of ``listing(**fields)`` hands on when the next page starts at ``offset``."""
    token = pager(**fields).page(CursorPage, offset).next_cursor
    assert token is not None
    return token


def test_without_a_cursor_a_page_starts_at_zero() -> None:
    start = pager().start(reach=0)
    assert (start.offset, start.resumed) == (0, False)
    assert start.within(0) == 0  # an empty result has a first page, and no cursor to refuse


def test_a_cursor_resumes_where_the_page_before_it_ended() -> None:
    start = pager(cursor=cursor_at(4)).start(reach=10)
    assert (start.offset, start.resumed) == (4, True)
    assert start.within(5) == 4


def test_the_cursor_is_the_codecs_sealed_offset_bound_to_the_cursor_free_request() -> None:
    # Cursor bytes are client-visible (the recorded corpus replays them): the payload is the offset alone.
    request = listing()
    assert cursor_at(4) == CODEC.encode(LIST, request_fingerprint(request), {"offset": 4})


@pytest.mark.parametrize("reach", [0, 3, 4])
def test_an_offset_at_or_beyond_the_reach_is_refused_before_anything_is_searched(reach: int) -> None:
    with pytest.raises(InvalidCursorError, match="outside this result sequence"):
        pager(cursor=cursor_at(4)).start(reach)


def test_an_offset_at_or_beyond_the_real_total_is_refused() -> None:
    start = pager(cursor=cursor_at(4)).start(reach=100)
    with pytest.raises(InvalidCursorError, match="outside this result sequence"):
        start.within(4)


def test_the_refusal_names_what_is_paged() -> None:
    with pytest.raises(InvalidCursorError, match=": Outside the document "):
        pager(cursor=cursor_at(4)).start(reach=2, outside="Outside the document")


def test_a_cursor_of_another_request_or_tool_is_refused() -> None:
    with pytest.raises(InvalidCursorError, match="different request"):
        pager(cursor=cursor_at(2), limit=3).start(reach=10)
    foreign = Pager(CODEC, ToolName.SEARCH_STANDARDS, listing()).page(CursorPage, 2).next_cursor
    with pytest.raises(InvalidCursorError, match="does not continue list_frameworks"):
        pager(cursor=foreign).start(reach=10)


def test_a_byte_cursor_is_bound_to_the_documents_version() -> None:
    def window(cursor: str | None = None) -> ReadEvidenceRequest:
        return ReadEvidenceRequest.model_validate({"uri": "kgfegmcp://x", "cursor": cursor})

    sealed = Pager(CODEC, ToolName.READ_EVIDENCE, window(), sha256="a" * 32).page(PageInfo, 7, limit=7, returned=7)
    assert sealed.next_cursor is not None
    resumed = Pager(CODEC, ToolName.READ_EVIDENCE, window(sealed.next_cursor), sha256="a" * 32).start(reach=9)
    assert resumed.offset == 7
    with pytest.raises(InvalidCursorError, match=re.escape(f": {STALE} ")):
        Pager(CODEC, ToolName.READ_EVIDENCE, window(sealed.next_cursor), sha256="b" * 32).start(reach=9)


@pytest.mark.parametrize(
    ("offset", "returned", "total", "resume"), [(0, 2, 5, 2), (2, 2, 5, 4), (4, 1, 5, None), (0, 0, 0, None)]
)
def test_the_last_page_hands_on_no_cursor(offset: int, returned: int, total: int, resume: int | None) -> None:
    assert resume_after(offset, returned, total) == resume
    page = pager().offset_page(offset, returned, total)
    assert page.has_more is (resume is not None)
    assert (page.next_cursor is None) is (resume is None)
    if resume is not None:
        assert pager(cursor=page.next_cursor).start(reach=total).offset == resume


def test_every_page_kind_sends_next_cursor_even_as_null() -> None:
    # One family: each page kind adds its own facts to hasMore and nextCursor.
    last = pager()
    pages: list[CursorPage] = [
        last.page(CursorPage, None),
        last.page(PageInfo, None, limit=2, returned=1),
        last.page(ProgressionPage, None, limit=2, returned=1, stopped_by="exhausted", candidates_examined=1),
    ]
    assert [page.to_wire() for page in pages] == [
        {"hasMore": False, "nextCursor": None},
        {"hasMore": False, "nextCursor": None, "limit": 2, "returned": 1},
        {
            **{"hasMore": False, "nextCursor": None, "limit": 2, "returned": 1},
            **{"stoppedBy": "exhausted", "candidatesExamined": 1, "maxCandidates": 5000},
        },
    ]
    assert all({"hasMore", "nextCursor"} <= set(page.wire_schema()["required"]) for page in pages)
