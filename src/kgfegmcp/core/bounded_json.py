"""Decode JSON within a size and a nesting bound, refusing an object that repeats a key.

``json.loads`` recurses once per nesting level, so a document nested deeper than the interpreter's
recursion limit raises ``RecursionError`` rather than ``ValueError`` and would surface as an
internal error. It also keeps the last of two equal keys, so ``{"a": 1, "a": 2}`` silently says
``a`` is 2. JSON from outside the process is therefore measured first: its UTF-8 size, then its
nesting depth counted outside strings; only a document within both bounds is decoded, and an object
that repeats a key is refused. Two kinds of reader use it: clients (prompt list arguments, cursor
payloads: :func:`bounded_json_loads`, whose refusals echo nothing) and package files (every JSON
document and JSONL record of a package, through ``kgfegmcp.core.package_files``, whose operator
is told which key repeats: :attr:`BoundedJsonError.repeated_key`).
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

#: Every byte but brackets and quotes, deleted in C once escaped backslashes and quotes are gone.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
#: Every byte but those and what a backslash may escape: deleting these keeps every escape whole.
_NOT_ESCAPE = bytes(b for b in range(256) if b not in b'[]{}"\\/bfnrtu')
_QUOTE, _OPENERS = ord('"'), frozenset(b"[{")
#: Escapes of UTF-16 surrogates, the only way a decoded string can hold a lone one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


#: The reason bytes that are not UTF-8 are refused with (package readers tell it apart).
NOT_UTF8 = "is not UTF-8 text"


class BoundedJsonError(ValueError):
    """JSON refused: too large, nested too deeply, a repeated key, not UTF-8, or not JSON.

    The message echoes nothing of the document. ``repeated_key`` (the key a refused object repeats)
    and ``detail`` (where the text stops being JSON) are for a reader entitled to the document (a
    package's operator), never for a client.
    """

    def __init__(self, reason: str, repeated_key: str | None = None, detail: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.repeated_key = repeated_key
        self.detail = detail


class ClientJsonError(BoundedJsonError):
    """Client JSON refused: too large, nested too deeply, a repeated key, not UTF-8, or not JSON."""


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_object(pairs: list[tuple[str, Any]], dict: type[dict[str, Any]] = dict, len: Any = len) -> dict[str, Any]:
    """An object's members as a dict, or :class:`_RepeatedKey` naming the first key that repeats.

    Called once per object of every document: ``dict`` and ``len`` are bound locally for speed.
    """
    members = dict(pairs)
    if len(members) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return members


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_object, parse_constant=_no_constants)


def nesting_exceeds(data: bytes, max_depth: int) -> bool:
    """Whether ``data`` nests arrays and objects deeper than ``max_depth``, brackets in strings not counted.

    Exact for JSON text, and for the part of any text before its first error: the decoder stops there,
    before any depth that follows (which may count here, so such text can be refused as too deep).
    """
    if data.count(b"[") + data.count(b"{") <= max_depth:
        return False
    if b"\\" in data:  # an escaped quote must not end its string; pairs of backslashes go first
        data = data.translate(None, _NOT_ESCAPE).replace(b"\\\\", b"").replace(b'\\"', b"")
    # What is left is brackets and quotes. Dropping two adjacent quotes keeps every other character as
    # inside or outside a string as it was, and leaves almost only the brackets to walk through.
    depth, in_string = 0, False
    for byte in data.translate(None, _NOT_STRUCTURE).replace(b'""', b""):
        if byte == _QUOTE:
            in_string = not in_string
        elif in_string:
            continue
        elif byte in _OPENERS:
            depth += 1
            if depth > max_depth:
                return True
        elif depth:
            depth -= 1
    return False


def decode_bounded(document: str | bytes, *, max_bytes: int | None, max_depth: int) -> Any:
    """The decoded ``document``, or :class:`BoundedJsonError` when it is outside the bounds or not JSON.

    ``max_bytes`` is ``None`` only for a document whose size its reader already bounded.

    ``NaN`` and ``Infinity`` are refused, and so are escapes of lone surrogates: neither is JSON text,
    whatever ``json.loads`` tolerates. So is an object with two equal keys.
    """
    if isinstance(document, bytes):
        data = document
        if max_bytes is not None and len(data) > max_bytes:
            raise BoundedJsonError(f"is larger than {max_bytes} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise BoundedJsonError(NOT_UTF8) from None
    else:
        # surrogatepass: a lone surrogate is measured here, then refused below rather than raised here.
        if max_bytes is not None and len(document) > max_bytes:
            raise BoundedJsonError(f"is larger than {max_bytes} bytes")
        data = document.encode("utf-8", "surrogatepass")
        if max_bytes is not None and len(data) > max_bytes:
            raise BoundedJsonError(f"is larger than {max_bytes} bytes")
        text = document
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise BoundedJsonError("is not valid JSON text") from None
    # The count is the fast path of nesting_exceeds, here to spare a call per JSONL record.
    if data.count(b"[") + data.count(b"{") > max_depth and nesting_exceeds(data, max_depth):
        raise BoundedJsonError(f"is nested deeper than {max_depth} levels")
    try:
        value = _DECODER.decode(text)
        if "\\u" in text and _SURROGATE_ESCAPE.search(text):
            # A "\ud800" escape decodes to a lone surrogate, which is not text and cannot be encoded later.
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except _RepeatedKey as repeated:
        raise BoundedJsonError("repeats a key in an object", repeated.key) from None
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        raise BoundedJsonError("is not valid JSON text", detail=where) from None
    except ValueError:  # the constants above, over-long integers, lone surrogates
        raise BoundedJsonError("is not valid JSON text") from None
    return value


def bounded_json_loads(document: str | bytes, *, max_bytes: int, max_depth: int) -> Any:
    """Client JSON decoded within the bounds, or :class:`ClientJsonError` with a reason that echoes nothing."""
    try:
        return decode_bounded(document, max_bytes=max_bytes, max_depth=max_depth)
    except BoundedJsonError as exc:
        raise ClientJsonError(exc.reason) from None
