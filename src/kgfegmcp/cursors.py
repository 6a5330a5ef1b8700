"""Opaque, checksum-protected pagination cursors bound to one request and one catalog.

A cursor is unpadded base64url of ``payload || checksum``. The checksum is an HMAC whose key binds
the catalog fingerprint, so any replica serving the same catalog accepts it and any other catalog
rejects it; the payload names the tool and the fingerprint of the cursor-free request, so a replay
with changed filters, limits or query is rejected too.

With a deployment secret (``KGFEGMCP_CURSOR_SECRET``) the key is HMAC(secret, fingerprint) and only
replicas sharing the secret can seal a cursor. Without one the key is the fingerprint itself, which
anyone who reads the public manifests can compute, so the checksum then proves integrity, not
origin. Either way every payload is decoded within size and depth bounds and validated field by
field, so a forged cursor can only name a position the same request could reach.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from typing import Any

from pydantic import BaseModel, SecretStr

from kgfegmcp.bounded_json import ClientJsonError, bounded_json_loads
from kgfegmcp.errors import InvalidCursorError
from kgfegmcp.models import canonical_bytes

MAX_CURSOR_CHARS = 4096
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"
_CURSOR = re.compile(CURSOR_PATTERN)
_CHECKSUM_BYTES = 16
#: Payloads are flat (``{"p": {"offset": n, ...}, "r": ..., "t": ..., "v": 1}``); deeper is forged.
_MAX_PAYLOAD_DEPTH = 4
_MAX_PAYLOAD_BYTES = MAX_CURSOR_CHARS * 3 // 4
#: Positions index in-memory sequences; anything larger cannot be one this server issued.
MAX_CURSOR_OFFSET = 2**31 - 1
# Domain separation: the secret keys cursors only, whatever else it might one day key.
_KEY_LABEL = b"kgfegmcp cursor key v1\x00"


def request_fingerprint(request: BaseModel, exclude: frozenset[str] = frozenset({"cursor"})) -> str:
    """SHA-256 of the canonical request with defaults filled in and the cursor left out."""
    wire = request.model_dump(mode="json", by_alias=True, exclude={name for name in exclude})
    return hashlib.sha256(canonical_bytes(wire)).hexdigest()


class CursorCodec:
    """Encodes and verifies cursors for one accepted catalog."""

    def __init__(self, catalog_fingerprint: str, secret: SecretStr | None = None) -> None:
        """Key cursors by the catalog alone (no secret: deterministic and public) or by secret and catalog."""
        fingerprint = catalog_fingerprint.encode("ascii")
        if secret is None:
            self._key = fingerprint
        else:
            # surrogateescape: the secret's exact environment bytes, even when they are not UTF-8.
            secret_bytes = secret.get_secret_value().encode("utf-8", "surrogateescape")
            self._key = hmac.new(secret_bytes, _KEY_LABEL + fingerprint, hashlib.sha256).digest()

    def _checksum(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:_CHECKSUM_BYTES]

    def encode(self, tool: str, fingerprint: str, position: dict[str, Any]) -> str:
        """A cursor continuing ``tool`` for the request with ``fingerprint`` at ``position``."""
        payload = canonical_bytes({"p": position, "r": fingerprint[:32], "t": tool, "v": 1})
        token = base64.urlsafe_b64encode(payload + self._checksum(payload)).decode("ascii").rstrip("=")
        if len(token) > MAX_CURSOR_CHARS:  # positions are small; this guards future payloads
            raise InvalidCursorError("The continuation position does not fit in a cursor.")
        return token

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

    def decode_offset(self, cursor: str | None, tool: str, fingerprint: str) -> int:
        """The page offset a cursor carries (0 without a cursor); anything but a non-negative int is refused."""
        if cursor is None:
            return 0
        offset = self.decode(cursor, tool, fingerprint).get("offset")
        if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset <= MAX_CURSOR_OFFSET:
            raise InvalidCursorError("The cursor points outside this result sequence.")
        return offset
