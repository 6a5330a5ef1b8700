"""Parse a ``kgfegmcp://`` URI into exactly one supported resource address, or fail closed.

The parser accepts only the canonical spelling the server itself prints (``resources/uris.py``):
lowercase scheme and family words, no percent-encoding, no query or fragment, no empty, ``.`` or
``..`` segments, no trailing slash, no absolute path, ids of at most 256 unreserved characters.
Anything else is rejected rather than normalised, so an address names one resource only and
never a file: resources are resolved from the accepted catalog, never from the filesystem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgfegmcp.core.errors import ResourceNotFoundError
from kgfegmcp.core.identifiers import identifier_problem, snapshot_problem
from kgfegmcp.packages.artifact_roles import PROVENANCE_PARTS
from kgfegmcp.resources import uris
from kgfegmcp.resources.families import FAMILIES, FAMILY, Family

#: Longest URI the parser looks at (the longest supported address is about 560 characters).
MAX_URI_CHARS = 2048
#: Longest node or relationship id an address may carry.
MAX_ENTITY_ID_CHARS = 256

_ENTITY_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._~-]{{0,{MAX_ENTITY_ID_CHARS - 1}}}")
_LOGICAL_NAME = re.compile(r"[a-z][A-Za-z0-9]{1,63}")
_PART = re.compile(r"[0-9]{2}")
#: Every character a canonical address can contain after the scheme (RFC 3986 unreserved plus ``/``).
_ALLOWED = re.compile(r"[A-Za-z0-9._~/@+-]*")  # "@" and "+" only ever inside a supplied snapshot id


#: Snapshot sub-resources addressed by one fixed word, keyed ones by ``<word>/<key>``, and the keyed
#: families with a ``/provenance`` child: all read from the family table.
_SNAPSHOT_WORDS = {spec.words[0]: spec.family for spec in FAMILIES if len(spec.words) == 1}
_KEYED_WORDS = {spec.words[0]: spec.family for spec in FAMILIES if len(spec.words) == 2}
_PROVENANCE_OF = {
    _KEYED_WORDS[spec.words[0]]: spec.family
    for spec in FAMILIES
    if len(spec.words) == 3 and spec.words[2] == "provenance"
}


class InvalidAddressError(ValueError):
    """The text is not one exact supported address; the reason never echoes the input."""


@dataclass(frozen=True, slots=True)
class ResourceAddress:
    """One parsed address: a family plus the ids it needs (``key`` is the node, relationship,
    logical-name or part segment)."""

    family: Family
    framework_id: str | None = None
    snapshot_id: str | None = None
    key: str | None = None

    @property
    def part(self) -> int:
        """The provenance part number of a ``provenance-part`` address."""
        if self.family is not Family.PROVENANCE_PART or self.key is None:
            raise ValueError("only a provenance-part address has a part number")
        return int(self.key)

    @property
    def uri(self) -> str:
        """The canonical URI, spelled by the family table."""
        return _build(self)


def _build(address: ResourceAddress) -> str:
    return FAMILY[address.family].uri(address.framework_id or "", address.snapshot_id or "", address.key or "")


def _check_framework(value: str) -> None:
    if identifier_problem(value, "framework id") is not None:
        raise InvalidAddressError("the framework id is not a lowercase identifier of 3-96 characters")


def _check_snapshot(value: str) -> None:
    if snapshot_problem(value) is not None:
        raise InvalidAddressError(
            "the snapshot id is not a lowercase identifier of 3-96 characters nor <framework-id>@<year>+<hex>"
        )


def _check_key(family: Family, value: str) -> None:
    if FAMILY[family].key == "part":
        if _PART.fullmatch(value) is None or int(value) >= PROVENANCE_PARTS:
            raise InvalidAddressError(f"a provenance part is two digits, 00-{PROVENANCE_PARTS - 1:02d}")
    elif FAMILY[family].key == "logical_name":
        if _LOGICAL_NAME.fullmatch(value) is None:
            raise InvalidAddressError("an artifact logical name is a lower-camel-case word of 2-64 characters")
    elif len(value) > MAX_ENTITY_ID_CHARS:
        raise InvalidAddressError(f"an id has at most {MAX_ENTITY_ID_CHARS} characters")
    elif _ENTITY_ID.fullmatch(value) is None:
        raise InvalidAddressError("an id starts with a letter or digit and uses only A-Z a-z 0-9 . _ ~ -")


def parse_address(uri: str) -> ResourceAddress:
    """The one address ``uri`` names exactly, or :class:`InvalidAddressError`."""
    if not isinstance(uri, str) or not uri:
        raise InvalidAddressError("the URI is empty")
    if len(uri) > MAX_URI_CHARS:
        raise InvalidAddressError(f"the URI is longer than {MAX_URI_CHARS} characters")
    if not uri.startswith(uris.SCHEME):
        raise InvalidAddressError(f"the URI does not start with {uris.SCHEME}")
    rest = uri[len(uris.SCHEME) :]
    if _ALLOWED.fullmatch(rest) is None:
        raise InvalidAddressError(
            "the URI contains a character outside the canonical form (no percent-encoding, query, fragment "
            "or whitespace)"
        )
    segments = rest.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise InvalidAddressError("the URI has an empty, '.' or '..' segment (or a leading or trailing slash)")
    address = _match(segments)
    if address.uri != uri:  # defence in depth: only the canonical spelling is accepted
        raise InvalidAddressError("the URI is not in canonical form")
    return address


def _match(segments: list[str]) -> ResourceAddress:
    if segments == ["catalog"]:
        return ResourceAddress(Family.CATALOG)
    if segments[0] != "framework" or len(segments) < 2:
        raise InvalidAddressError("the URI names no supported resource family")
    framework_id = segments[1]
    _check_framework(framework_id)
    if len(segments) == 2:
        return ResourceAddress(Family.FRAMEWORK, framework_id)
    if segments[2] != "snapshot" or len(segments) < 4:
        raise InvalidAddressError("the URI names no supported resource family under the framework")
    snapshot_id = segments[3]
    _check_snapshot(snapshot_id)
    tail = segments[4:]
    if not tail:
        return ResourceAddress(Family.SNAPSHOT, framework_id, snapshot_id)
    if len(tail) == 1 and tail[0] in _SNAPSHOT_WORDS:
        return ResourceAddress(_SNAPSHOT_WORDS[tail[0]], framework_id, snapshot_id)
    family = _KEYED_WORDS.get(tail[0])
    if family is None or len(tail) not in (2, 3):
        raise InvalidAddressError("the URI names no supported resource family under the snapshot")
    _check_key(family, tail[1])
    if len(tail) == 3:
        provenance = _PROVENANCE_OF.get(family)
        if provenance is None or tail[2] != "provenance":
            raise InvalidAddressError("the URI names no supported resource family under the snapshot")
        family = provenance
    return ResourceAddress(family, framework_id, snapshot_id, tail[1])


def supported_address(uri: str, hint: str) -> ResourceAddress:
    """The address ``uri`` names, or ``resource_not_found`` saying why (the URI itself is never repeated)."""
    try:
        return parse_address(uri)
    except InvalidAddressError as exc:
        raise ResourceNotFoundError(
            f"The URI is not a supported kgfegmcp:// resource address: {exc}.", hint=hint
        ) from None
