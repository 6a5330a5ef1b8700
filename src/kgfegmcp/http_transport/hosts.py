"""The HTTP wing's guard that keeps FastMCP's ``Host`` and ``Origin`` matching on whole DNS labels.

The pattern grammar (what ``KGFEGMCP_HTTP_ALLOWED_HOSTS`` and ``KGFEGMCP_HTTP_ALLOWED_ORIGINS`` accept, and what a
well-formed header is) is the shared core's ``host_patterns``: the settings validate with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgfegmcp.core.host_patterns import is_host_header, is_origin_header

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send


class WellFormedHostAndOrigin:
    """Answers ``421`` to a malformed ``Host`` and ``403`` to a malformed ``Origin`` when the matching list is
    configured (and is not ``*``), so FastMCP's pattern match only ever compares whole labels.

    More than one ``Host`` or ``Origin`` header is malformed too (which one would the guard have compared?).
    """

    def __init__(self, app: ASGIApp, *, check_host: bool, check_origin: bool) -> None:
        self.app = app
        self.check_host = check_host
        self.check_origin = check_origin

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (self.check_host or self.check_origin):
            hosts = [value.decode("latin-1") for name, value in scope["headers"] if name.lower() == b"host"]
            origins = [value.decode("latin-1") for name, value in scope["headers"] if name.lower() == b"origin"]
            if self.check_host and not (len(hosts) == 1 and is_host_header(hosts[0].strip())):
                await _refuse(send, 421, b"Misdirected Request")
                return
            if self.check_origin and origins and not (len(origins) == 1 and is_origin_header(origins[0].strip())):
                await _refuse(send, 403, b"Forbidden Origin")
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def needs_check(patterns: Sequence[str] | None) -> bool:
    """Whether a configured list makes FastMCP pattern-match the header (unset or ``*``: nothing to keep whole)."""
    return patterns is not None and "*" not in patterns
