"""Validly sealed cursors with extreme offsets, against a real server process: every one is invalid_cursor,
and the server answers the next request.

A holder of the cursor secret (here the test, which sets ``KGFEGMCP_CURSOR_SECRET``; in production a
replica, or whoever obtained the secret) can seal any position. The server must compare it with what
the request can reach before anything is sized by it: an offset once reached tantivy as a top-k of
offset + limit, whose allocation aborts the whole process. Only a separate process shows that as a
failure (an abort inside pytest would end the run), so every call here goes over HTTP to one.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import HttpServer, http_server
from fastmcp import Client
from pydantic import BaseModel, SecretStr

from kgfegmcp.core.cursors import CursorCodec, request_fingerprint
from kgfegmcp.services import requests as r
from tool_calls import call, error, structured

pytestmark = pytest.mark.slow

SECRET = secrets.token_urlsafe(48)
EF = "brazil-bncc-ensino-fundamental"
CATALOG = "kgfegmcp://catalog"

#: Every paged tool (and search mode), with a request that has a next page on the default catalog.
PAGED: dict[str, tuple[str, dict[str, Any], type[BaseModel]]] = {
    "list_frameworks": ("list_frameworks", {"limit": 1}, r.ListFrameworksRequest),
    "search_standards auto": ("search_standards", {"query": "frações", "limit": 1}, r.SearchStandardsRequest),
    "search_standards text": (
        "search_standards",
        {"query": "frações", "searchMode": "text", "limit": 1},
        r.SearchStandardsRequest,
    ),
    "search_standards code": (
        "search_standards",
        {"query": "EF05MA", "searchMode": "code", "codeMatch": "prefix", "limit": 1},
        r.SearchStandardsRequest,
    ),
    "search_learning_components": (
        "search_learning_components",
        {"query": "frações", "limit": 1},
        r.SearchLearningComponentsRequest,
    ),
    "get_standard_progressions": (
        "get_standard_progressions",
        {"frameworkId": EF, "statementCode": "EF05MA03", "limit": 1},
        r.GetStandardProgressionsRequest,
    ),
    "search_learning_progressions": (
        "search_learning_progressions",
        {"frameworkId": EF, "limit": 1},
        r.SearchLearningProgressionsRequest,
    ),
    "read_evidence": ("read_evidence", {"uri": CATALOG, "windowBytes": 64}, r.ReadEvidenceRequest),
}
HUGE = [2**31 - 1, 2**31, 2**32 + 1, 2**63 - 1, 2**63, 2**64 + 1, 10**30]


@pytest.fixture(scope="module")
def sealed_server(default_catalog_root: Path) -> Iterator[HttpServer]:
    """A server whose cursor secret the test knows, so it can seal any position."""
    with http_server(default_catalog_root, {"KGFEGMCP_CURSOR_SECRET": SECRET}) as server:
        yield server


async def reach(client: Client[Any], label: str, first: dict[str, Any]) -> int:
    """How many results (bytes, for read_evidence; links scanned, for search_learning_progressions) the
    request has: the first offset no cursor of it may carry."""
    tool = PAGED[label][0]
    if tool == "read_evidence":
        return int(first["resource"]["byteLength"])
    if tool == "get_standard_progressions":
        return int(first["totalLinks"])
    if tool == "search_learning_progressions":
        listing = structured(await call(client, "list_frameworks", {"frameworkIds": [EF]}))
        return int(listing["frameworks"][0]["learningProgressionLinks"])
    return int(first["total"])


def position(label: str, offset: int, first: dict[str, Any]) -> dict[str, Any]:
    if PAGED[label][0] == "read_evidence":
        return {"offset": offset, "sha256": first["resource"]["sha256"][:32]}
    return {"offset": offset}


async def answers_next(client: Client[Any], server: HttpServer) -> None:
    """The process is alive and the next, cheap request is answered."""
    assert server.process.poll() is None, f"the server exited with {server.process.returncode}"
    assert structured(await call(client, "get_capabilities", {}))["server"]["readOnly"] is True


@pytest.mark.parametrize("label", sorted(PAGED))
async def test_extreme_offsets_are_invalid_cursor_and_the_server_answers_on(
    sealed_server: HttpServer, label: str
) -> None:
    tool, request, model = PAGED[label]
    fingerprint = request_fingerprint(model.model_validate(request))
    async with asyncio.timeout(300), Client(sealed_server.url) as client:
        first = structured(await call(client, tool, request))
        assert first["page"]["hasMore"] is True
        codec = CursorCodec(await catalog_fingerprint(client), SecretStr(SECRET))
        # The test seals exactly what the server does: its own next cursor comes out byte-identical.
        genuine = first["page"]["nextCursor"]
        assert codec.encode(tool, fingerprint, codec.decode(genuine, tool, fingerprint)) == genuine
        total = await reach(client, label, first)
        for offset in [*HUGE, total, total + 1, -1]:
            cursor = codec.encode(tool, fingerprint, position(label, offset, first))
            message = await error(client, tool, {**request, "cursor": cursor})
            assert message.startswith("invalid_cursor: The cursor points outside this "), (offset, message)
            await answers_next(client, sealed_server)
        # The last position the request has is a real page (for read_evidence, a window's end).
        last = total - 1 if tool != "read_evidence" else codec.decode(genuine, tool, fingerprint)["offset"]
        page = await call(
            client, tool, {**request, "cursor": codec.encode(tool, fingerprint, position(label, last, first))}
        )
        assert structured(page)["page"] is not None


@pytest.mark.parametrize("label", sorted(PAGED))
async def test_cursors_forged_with_the_public_fingerprint_are_refused(
    default_http_server: HttpServer, label: str
) -> None:
    """A server started with no cursor setting keys cursors by its install's secret, not the fingerprint."""
    tool, request, _ = PAGED[label]
    async with asyncio.timeout(300), Client(default_http_server.url) as client:
        genuine = structured(await call(client, tool, request))["page"]["nextCursor"]
        payload = base64.urlsafe_b64decode(genuine + "=" * (-len(genuine) % 4))[:-16]
        public_key = (await catalog_fingerprint(client)).encode("ascii")
        checksum = hmac.new(public_key, payload, hashlib.sha256).digest()[:16]
        forged = base64.urlsafe_b64encode(payload + checksum).decode("ascii").rstrip("=")
        message = await error(client, tool, {**request, "cursor": forged})
        assert message.startswith("invalid_cursor: The cursor was altered, or belongs to another catalog."), message
        await answers_next(client, default_http_server)


async def catalog_fingerprint(client: Client[Any]) -> str:
    capabilities = structured(await call(client, "get_capabilities", {}))
    fingerprint = capabilities["server"]["catalogFingerprint"]
    assert isinstance(fingerprint, str)
    return fingerprint
