"""Opaque, checksummed pagination cursors bound to one request, one catalog and one secret.

A cursor is unpadded base64url of ``payload || checksum``. The checksum is an HMAC keyed by
HMAC(secret, catalog fingerprint): only a server holding the secret can seal a cursor, and a cursor
of another catalog is refused. The secret is never derivable from public data: it is generated once
per install and kept owner-only, or set for replicas that must share it (``cursor_secret.py``). The
payload names the tool and the fingerprint of the cursor-free request, so a replay with changed
filters, limits or query is rejected too.

Even a validly sealed cursor (a replica's, or one sealed with a leaked secret) can only name a
position inside the result: every payload is decoded within size and depth bounds and validated
field by field, and an offset is compared with the most results the request can reach (known
before any search, so nothing is ever sized by it) and then with the real total
(``services/paging.py``); at or beyond either is ``invalid_cursor``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from typing import Any, Protocol

from pydantic import SecretStr

from kgfegmcp.core.bounded_json import ClientJsonError, bounded_json_loads
from kgfegmcp.core.errors import InvalidCursorError
from kgfegmcp.core.limits import MAX_CURSOR_CHARS
from kgfegmcp.core.models import canonical_bytes

CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"
_CURSOR = re.compile(CURSOR_PATTERN)
_CHECKSUM_BYTES = 16
#: Payloads are flat (``{"p": {"offset": n, ...}, "r": ..., "t": ..., "v": 1}``); deeper is forged.
_MAX_PAYLOAD_DEPTH = 4
_MAX_PAYLOAD_BYTES = MAX_CURSOR_CHARS * 3 // 4
# Domain separation: the secret keys cursors only, whatever else it might one day key.
_KEY_LABEL = b"kgfegmcp cursor key v1\x00"
OUTSIDE = "The cursor points outside this result sequence."


class CursoredRequest(Protocol):
    """A request model paged by ``cursor``: a cursor is bound to the rest of the request."""

    @property
    def cursor(self) -> str | None: ...

    def model_dump(self, *, mode: str, by_alias: bool, exclude: set[str]) -> dict[str, Any]: ...


def request_fingerprint(request: CursoredRequest) -> str:
    """SHA-256 of the canonical request with defaults filled in and the cursor left out."""
    wire = request.model_dump(mode="json", by_alias=True, exclude={"cursor"})
    return hashlib.sha256(canonical_bytes(wire)).hexdigest()


def offset_within(position: dict[str, Any], reach: int, message: str = OUTSIDE) -> int:
    """The position's offset when it is an integer below ``reach``; else ``invalid_cursor``.

    ``reach`` is how many results (or bytes) the request can have at most, known before anything is
    searched or allocated, so no work is ever sized by an offset that was not first compared with it.
    """
    offset = position.get("offset")
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset < reach:
        raise InvalidCursorError(message)
    return offset


class CursorCodec:
    """Encodes and verifies cursors for one accepted catalog under one secret."""

    def __init__(self, catalog_fingerprint: str, secret: SecretStr) -> None:
        """Key cursors by HMAC(secret, catalog fingerprint): the secret's holders alone seal them."""
        # surrogateescape: the secret's exact environment bytes, even when they are not UTF-8.
        secret_bytes = secret.get_secret_value().encode("utf-8", "surrogateescape")
        self._key = hmac.new(secret_bytes, _KEY_LABEL + catalog_fingerprint.encode("ascii"), hashlib.sha256).digest()

    def _checksum(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:_CHECKSUM_BYTES]

    def encode(self, tool: str, fingerprint: str, position: dict[str, Any]) -> str:
        """A cursor continuing ``tool`` for the request with ``fingerprint`` at ``position``."""
        token = self.seal(canonical_bytes({"p": position, "r": fingerprint[:32], "t": tool, "v": 1}))
        if len(token) > MAX_CURSOR_CHARS:  # positions are small; this guards future payloads
            raise InvalidCursorError("The continuation position does not fit in a cursor.")
        return token

    def seal(self, payload: bytes) -> str:
        """The cursor text of ``payload`` under this codec's key, whatever the payload holds (so tests and
        the fuzzer can seal what only a secret's holder could, and see it refused by position)."""
        return base64.urlsafe_b64encode(payload + self._checksum(payload)).decode("ascii").rstrip("=")

    def decode(self, cursor: str, tool: str, fingerprint: str) -> dict[str, Any]:
        """The position inside a valid cursor; ``invalid_cursor`` for anything else."""
        if not 0 < len(cursor) <= MAX_CURSOR_CHARS or _CURSOR.fullmatch(cursor) is None:
            raise InvalidCursorError("The cursor is not unpadded base64url text of at most 4096 characters.")
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        except (binascii.Error, ValueError):
            raise InvalidCursorError("The cursor is not valid base64url.") from None
        if base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != cursor:
            raise InvalidCursorError("The cursor is not in canonical form.")
        payload, checksum = raw[:-_CHECKSUM_BYTES], raw[-_CHECKSUM_BYTES:]
        if len(raw) <= _CHECKSUM_BYTES or not hmac.compare_digest(checksum, self._checksum(payload)):
            raise InvalidCursorError("The cursor was altered, or belongs to another catalog.")
        try:
            body = bounded_json_loads(payload, max_bytes=_MAX_PAYLOAD_BYTES, max_depth=_MAX_PAYLOAD_DEPTH)
        except ClientJsonError:
            raise InvalidCursorError("The cursor payload is unreadable.") from None
        if not isinstance(body, dict) or body.get("v") != 1 or body.get("t") != tool:
            raise InvalidCursorError(f"The cursor does not continue {tool}.")
        if body.get("r") != fingerprint[:32]:
            raise InvalidCursorError(
                "The cursor belongs to a different request; only the cursor may change between pages."
            )
        position = body.get("p")
        if not isinstance(position, dict):
            raise InvalidCursorError("The cursor payload is unreadable.")
        return position
