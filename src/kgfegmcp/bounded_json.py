"""Decode client-supplied JSON within a size and a nesting bound.

``json.loads`` recurses once per nesting level, so a document nested deeper than the interpreter's
recursion limit raises ``RecursionError`` rather than ``ValueError`` and would surface as an
internal error. Client JSON (prompt list arguments, cursor payloads) is therefore measured first:
its UTF-8 size, then its nesting depth counted outside strings; only a document within both bounds
is decoded. Every refusal is one :class:`ClientJsonError` with a short reason that echoes nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

# A string token (its end quote optional, so an unterminated string is one token, not quadratic
# rescanning) or one bracket. Brackets inside strings are thereby never counted.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


class ClientJsonError(ValueError):
    """Client JSON refused: too large, nested too deeply, not UTF-8, or not JSON."""


def _exceeds_depth(text: str, max_depth: int) -> bool:
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif token in "]}":
            depth = max(depth - 1, 0)  # unbalanced input is left for json.loads to refuse
    return False


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def bounded_json_loads(document: str | bytes, *, max_bytes: int, max_depth: int) -> Any:
    """The decoded ``document``, or :class:`ClientJsonError` when it is outside the bounds or not JSON.

    ``NaN`` and ``Infinity`` are refused, and so are escapes of lone surrogates: neither is JSON text,
    whatever ``json.loads`` tolerates.
    """
    if isinstance(document, bytes):
        if len(document) > max_bytes:
            raise ClientJsonError(f"is larger than {max_bytes} bytes")
        try:
            text = document.decode("utf-8")
        except UnicodeDecodeError:
            raise ClientJsonError("is not UTF-8 text") from None
    else:
        # surrogatepass: a lone surrogate is measured here, then refused below rather than raised here.
        if len(document) > max_bytes or len(document.encode("utf-8", "surrogatepass")) > max_bytes:
            raise ClientJsonError(f"is larger than {max_bytes} bytes")
        text = document
    if _exceeds_depth(text, max_depth):
        raise ClientJsonError(f"is nested deeper than {max_depth} levels")
    try:
        value = json.loads(text, parse_constant=_no_constants)
        # A "\ud800" escape decodes to a lone surrogate, which is not text and cannot be encoded later.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except ValueError:  # JSONDecodeError, the constants above, over-long integers, lone surrogates
        raise ClientJsonError("is not valid JSON text") from None
    return value
