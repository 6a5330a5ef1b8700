"""Real-world CFPackage variation whose meaning is certain, read as the CASE 1.0 member it stands for.

CASE tools wrote packages before CASE 1.0 was final, and some still write a few members their own way:
a pre-1.0 member name (``educationalLevel`` for ``educationLevel``), a link object given as its URI
string, a node's identifier in a separate ``*Identifier`` member, ``null`` for a member that has no
value. Each such record is rewritten here, before the strict models of
:mod:`kgfegmcp.sources.case.document` read it, and every rewrite is noted, so the build reports it
(a ``source_variant_accepted`` warning naming the member). Only the rewrites listed below are made;
a value whose meaning is not certain (a link given as a string that is not a URI, a sequence number
that is not a string of digits, a pre-1.0 name beside the CASE 1.0 member it would fill) is left as
it is, and the models refuse it or the build reports it unread.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Pre-CASE-1.0 member names → the CASE 1.0 member holding the same value.
RENAMED: Mapping[str, Mapping[str, str]] = {
    "CFDocument": {"subjectURL": "subjectURI"},
    "CFItems": {"educationalLevel": "educationLevel"},
}
#: Pre-CASE-1.0 members holding the identifier of a link → the CASE 1.0 link object that holds it.
LINK_IDENTIFIERS: Mapping[str, Mapping[str, str]] = {
    "CFAssociations": {
        "originNodeIdentifier": "originNodeURI",
        "destinationNodeIdentifier": "destinationNodeURI",
        "CFAssociationGroupingIdentifier": "CFAssociationGroupingURI",
    },
}
#: Pre-CASE-1.0 members with no CASE 1.0 counterpart, whose content the package holds anyway.
SUPERSEDED: Mapping[str, Mapping[str, str]] = {
    "CFItems": {"CFItemAssociationURI": "the address of the item's associations, which the package holds itself"},
}
#: Link members that tools wrote as a bare URI string: the string is the link's ``uri``.
#: (``CFPackageURI`` keeps its string: the CFDocument model accepts it as it is.)
URI_STRING_LINKS: Mapping[str, tuple[str, ...]] = {
    "CFDocument": ("CFPackageURI",),
    "CFItems": ("CFDocumentURI",),
    "CFAssociations": ("CFDocumentURI", "originNodeURI", "destinationNodeURI"),
}
#: Top-level object members that tools wrote as an empty array when they had nothing to put in them.
EMPTY_ARRAY_AS_ABSENT = frozenset({"CFDefinitions"})
_KEPT_AS_STRING = frozenset({("CFDocument", "CFPackageURI")})
#: Integer members that tools wrote as a string of digits.
DIGIT_STRINGS: Mapping[str, tuple[str, ...]] = {"CFAssociations": ("sequenceNumber",)}
#: Link members CASE 1.0 packages carry and CASE 1.1 dropped: their absence is noted for a 1.0 package.
CASE_1_0_LINKS: Mapping[str, tuple[str, ...]] = {
    "CFDocument": ("CFPackageURI",),
    "CFItems": ("CFDocumentURI",),
    "CFAssociations": ("CFDocumentURI",),
}
_NULL = "null (CASE gives a value or leaves the member out); read as absent"
#: Members holding free-form content, whose inner ``null`` values are the publisher's own.
_FREE_FORM = frozenset({"extensions"})
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_DIGITS = re.compile(r"[0-9]{1,18}")


@dataclass(frozen=True, slots=True, order=True)
class Variant:
    """One kind of accepted variation: the member (``CFItems.educationalLevel``) and how it was read."""

    member: str
    reading: str


def is_uri(value: str) -> bool:
    """Whether ``value`` is written as an absolute URI (a scheme, a colon, then no blank)."""
    return _URI.fullmatch(value) is not None


def accept_variants(collection: str, record: dict[str, Any], case_1_0: bool) -> list[Variant]:
    """Rewrite the accepted variants of one record of ``collection`` in place; what was rewritten.

    ``case_1_0``: the package does not declare CASE 1.1, so the links CASE 1.0 packages carry are
    expected and their absence is noted.
    """
    found: list[Variant] = []
    for name in [name for name, value in record.items() if value is None]:
        del record[name]
        found.append(Variant(f"{collection}.{name}", _NULL))
    for name, value in record.items():
        if isinstance(value, dict) and name not in _FREE_FORM:
            for inner in [inner for inner, inner_value in value.items() if inner_value is None]:
                del value[inner]
                found.append(Variant(f"{collection}.{name}.{inner}", _NULL))
    for old, new in RENAMED.get(collection, {}).items():
        if old in record and new not in record:
            record[new] = record.pop(old)
            found.append(Variant(f"{collection}.{old}", f"the pre-CASE-1.0 name of {new}; read as {new}"))
    for name, reason in SUPERSEDED.get(collection, {}).items():
        if name in record:
            del record[name]
            found.append(Variant(f"{collection}.{name}", f"a pre-CASE-1.0 member ({reason}); not needed, not read"))
    for name in URI_STRING_LINKS.get(collection, ()):
        value = record.get(name)
        if isinstance(value, str) and is_uri(value):
            kept = (collection, name) in _KEPT_AS_STRING
            if not kept:
                record[name] = {"uri": value}
            found.append(
                Variant(
                    f"{collection}.{name}",
                    "a URI string where CASE has a link object; "
                    + ("kept as that URI" if kept else "read as the link's uri"),
                )
            )
    for old, link in LINK_IDENTIFIERS.get(collection, {}).items():
        found.extend(_fold_identifier(collection, record, old, link))
    for name in DIGIT_STRINGS.get(collection, ()):
        value = record.get(name)
        if isinstance(value, str) and _DIGITS.fullmatch(value):
            record[name] = int(value)
            found.append(
                Variant(f"{collection}.{name}", "a string of digits where CASE has an integer; read as that integer")
            )
    if case_1_0:
        for name in CASE_1_0_LINKS.get(collection, ()):
            if name not in record:
                found.append(
                    Variant(f"{collection}.{name}", "absent (CASE 1.0 packages carry it, 1.1 dropped it); not needed")
                )
    return found


def _fold_identifier(collection: str, record: dict[str, Any], old: str, link: str) -> list[Variant]:
    """A pre-1.0 ``*Identifier`` member: into its link object when that has no identifier or the same one."""
    identifier = record.get(old)
    if not isinstance(identifier, str):
        return []  # absent, or of a type whose meaning is not certain: reported unread
    target = record.get(link)
    if target is None:
        record[link] = {"identifier": identifier}
    elif not isinstance(target, dict) or target.get("identifier") not in (None, identifier):
        return []  # disagrees with the link (or the link is not an object): reported unread
    else:
        target.setdefault("identifier", identifier)
    del record[old]
    return [Variant(f"{collection}.{old}", f"a pre-CASE-1.0 member holding {link}.identifier; read as it")]
