"""Identifier contracts for frameworks, snapshots and graph packages.

Identifiers name directories and appear in URIs, so they are deliberately narrow: lowercase
ASCII words joined by single hyphens. A snapshot id may also take the form the design's pipeline gives
its packages, ``<framework-id>@<year>+<hex>``. Anything else is rejected, never normalised.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated

from pydantic import AfterValidator

from kgfegmcp.core.limits import (
    IDENTIFIER_MAX_LENGTH,
    IDENTIFIER_MIN_LENGTH,
    SNAPSHOT_DIGEST_MAX_LENGTH,
    SNAPSHOT_MAX_LENGTH,
    VERSION_MAX_LENGTH,
)

_WORDS = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_IDENTIFIER_PATTERN = re.compile(_WORDS)
#: A snapshot as the design's construction pipeline names it: ``<framework-id>@<version>+<hex>``, its framework,
#: the source's version token (a year, ``undated``, ``2025-proposed-draft``) and a prefix of a content digest
#: (``ghana-nacca-…-basic-1-3@2019+e00c5329a507``). Only ``@``, ``+``, single ``-``/``_``/``.`` between words,
#: digits and lowercase hex: nothing a path or a URI could read otherwise (no ``/``, ``..``, ``%``, ``?``, ``#``,
#: ``:``, whitespace or control character).
_VERSION = r"[a-z0-9]+(?:[._-][a-z0-9]+)*"
_DIGEST = rf"[0-9a-f]{{6,{SNAPSHOT_DIGEST_MAX_LENGTH}}}"
_SUPPLIED_SNAPSHOT_TEXT = rf"(?P<framework>{_WORDS})@(?P<version>{_VERSION})\+(?P<digest>{_DIGEST})"
_SUPPLIED_SNAPSHOT = re.compile(_SUPPLIED_SNAPSHOT_TEXT)
#: A supplied graph-package id: its snapshot id, or that id with the graph type and package revision it files
#: (``…@2019+e00c5329a507--academic-standards--p1``).
_SUPPLIED_PACKAGE = re.compile(
    rf"(?P<snapshot>{_SUPPLIED_SNAPSHOT_TEXT})(?:--(?P<graph_type>{_WORDS})--p(?P<revision>[1-9][0-9]{{0,5}}))?"
)
#: Both snapshot forms, as a JSON Schema pattern (the request models publish it).
_LENGTH = rf"[a-z0-9-]{{{IDENTIFIER_MIN_LENGTH},{IDENTIFIER_MAX_LENGTH}}}"
SNAPSHOT_ID_PATTERN = (
    rf"^(?:(?={_LENGTH}(?![a-z0-9-])){_WORDS}"
    rf"|(?={_LENGTH}@)(?=[^@]*@[a-z0-9._-]{{1,{VERSION_MAX_LENGTH}}}\+){_WORDS}@{_VERSION}\+{_DIGEST})$"
)

#: Namespace for every deterministic UUIDv5 the builders mint.
KGFEGMCP_NAMESPACE = uuid.UUID("6f1c3c55-3f4e-5c1b-9d0e-6b7a2f1e4a10")


class InvalidIdentifier(ValueError):
    """An identifier that does not satisfy the repository contract."""


def identifier_problem(value: object, kind: str = "identifier") -> str | None:
    """Return why ``value`` is not a valid identifier, or ``None`` when it is."""
    if not isinstance(value, str):
        return f"{kind} must be a string"
    if not IDENTIFIER_MIN_LENGTH <= len(value) <= IDENTIFIER_MAX_LENGTH:
        return f"{kind} must be {IDENTIFIER_MIN_LENGTH}-{IDENTIFIER_MAX_LENGTH} characters (got {len(value)})"
    if _IDENTIFIER_PATTERN.fullmatch(value) is None:
        return f"{kind} must be lowercase a-z/0-9 words joined by single hyphens"
    return None


def snapshot_problem(value: object, kind: str = "snapshot id") -> str | None:
    """Why ``value`` is not a snapshot id (an identifier, or the supplied ``<framework>@<year>+<hex>``), or ``None``."""
    if isinstance(value, str) and len(value) <= SNAPSHOT_MAX_LENGTH:
        supplied = _SUPPLIED_SNAPSHOT.fullmatch(value)
        if supplied is not None:
            if len(supplied["version"]) > VERSION_MAX_LENGTH:
                return f"the version part of the {kind} must be at most {VERSION_MAX_LENGTH} characters"
            return identifier_problem(supplied["framework"], f"the framework part of the {kind}")
    problem = identifier_problem(value, kind)
    if problem is None:
        return None
    return f"{problem}, or <framework-id>@<version>+<hex digits> as supplied packages name their snapshots"


def supplied_snapshot_framework(snapshot_id: str) -> str | None:
    """The framework a snapshot id in the supplied form names, or ``None`` for an identifier."""
    supplied = _SUPPLIED_SNAPSHOT.fullmatch(snapshot_id)
    return supplied["framework"] if supplied is not None else None


def check_identifier(value: str, kind: str = "identifier") -> str:
    """Return ``value`` unchanged when valid; raise :class:`InvalidIdentifier` otherwise."""
    problem = identifier_problem(value, kind)
    if problem is not None:
        raise InvalidIdentifier(problem)
    return value


def _framework(value: str) -> str:
    return check_identifier(value, "framework id")


def check_snapshot(value: str, kind: str = "snapshot id") -> str:
    """Return ``value`` unchanged when it is a snapshot id; raise :class:`InvalidIdentifier` otherwise."""
    problem = snapshot_problem(value, kind)
    if problem is not None:
        raise InvalidIdentifier(problem)
    return value


def _snapshot(value: str) -> str:
    return check_snapshot(value)


FrameworkId = Annotated[str, AfterValidator(_framework)]
SnapshotId = Annotated[str, AfterValidator(_snapshot)]
ProfileId = Annotated[str, AfterValidator(lambda v: check_identifier(v, "profile id"))]


def graph_package_id(framework_id: str, snapshot_id: str) -> str:
    """The id of the package a directory pair names (:func:`named_package_id`), after checking both."""
    check_identifier(framework_id, "framework id")
    check_snapshot(snapshot_id)
    return named_package_id(framework_id, snapshot_id)


def named_package_id(framework_id: str, snapshot_id: str) -> str:
    """The one rule of a package id: ``<framework>@<snapshot>``, or a supplied snapshot id itself (it already
    names its framework). Unchecked, for names as found (directories) or about to be written; use
    :func:`graph_package_id` where they must be valid."""
    return snapshot_id if supplied_snapshot_framework(snapshot_id) is not None else f"{framework_id}@{snapshot_id}"


def supplied_package_parts(value: str) -> tuple[str, str | None, int | None] | None:
    """A supplied graph-package id's snapshot id, graph type and revision (``None`` when it has no suffix), or
    ``None`` when ``value`` is not a supplied graph-package id."""
    supplied = _SUPPLIED_PACKAGE.fullmatch(value)
    if supplied is None or snapshot_problem(supplied["snapshot"]) is not None:
        return None
    revision = supplied["revision"]
    return supplied["snapshot"], supplied["graph_type"], int(revision) if revision else None


def split_graph_package_id(value: str) -> tuple[str, str]:
    """Split and check a graph-package id (``<framework>@<snapshot>``, or a supplied package's id, whose snapshot
    names its framework); raise :class:`InvalidIdentifier` when malformed."""
    supplied = supplied_package_parts(value)
    if supplied is not None:
        snapshot_id = supplied[0]
        return snapshot_id.partition("@")[0], snapshot_id
    framework_id, sep, snapshot_id = value.partition("@")
    if not sep:
        raise InvalidIdentifier("graph-package id must be <framework-id>@<snapshot-id>")
    return check_identifier(framework_id, "framework id"), check_snapshot(snapshot_id)


def stable_uuid(*parts: str) -> str:
    """A deterministic UUIDv5 from stable source keys, so rebuilds are byte-identical."""
    return str(uuid.uuid5(KGFEGMCP_NAMESPACE, "\x1f".join(parts)))
