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

IDENTIFIER_MIN_LENGTH = 3
IDENTIFIER_MAX_LENGTH = 96
_WORDS = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_IDENTIFIER_PATTERN = re.compile(_WORDS)
#: A snapshot as the design's construction pipeline names it: ``<framework-id>@<year>+<hex>``, its framework,
#: the source's year and a prefix of a content digest (``ghana-nacca-…-basic-1-3@2019+e00c5329a507``). Only
#: ``@``, ``+``, digits and lowercase hex join the words: nothing a path or a URI could read otherwise (no
#: ``/``, ``.``, ``%``, ``?``, ``#``, ``:``, whitespace or control character).
_SUPPLIED_SNAPSHOT = re.compile(rf"(?P<framework>{_WORDS})@(?P<year>[0-9]{{4}})\+(?P<digest>[0-9a-f]{{6,64}})")
SNAPSHOT_MAX_LENGTH = IDENTIFIER_MAX_LENGTH + len("@2019+") + 64
#: Both snapshot forms, as a JSON Schema pattern (the request models publish it).
_LENGTH = rf"[a-z0-9-]{{{IDENTIFIER_MIN_LENGTH},{IDENTIFIER_MAX_LENGTH}}}"
SNAPSHOT_ID_PATTERN = rf"^(?:(?={_LENGTH}(?![a-z0-9-])){_WORDS}|(?={_LENGTH}@){_WORDS}@[0-9]{{4}}\+[0-9a-f]{{6,64}})$"

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
            return identifier_problem(supplied["framework"], f"the framework part of the {kind}")
    problem = identifier_problem(value, kind)
    if problem is None:
        return None
    return f"{problem}, or <framework-id>@<year>+<hex digits> as supplied packages name their snapshots"


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
    """Compose ``<framework>@<snapshot>`` after checking both halves."""
    return f"{check_identifier(framework_id, 'framework id')}@{check_snapshot(snapshot_id)}"


def split_graph_package_id(value: str) -> tuple[str, str]:
    """Split and check a graph-package id; raise :class:`InvalidIdentifier` when malformed."""
    framework_id, sep, snapshot_id = value.partition("@")
    if not sep:
        raise InvalidIdentifier("graph-package id must be <framework-id>@<snapshot-id>")
    return check_identifier(framework_id, "framework id"), check_snapshot(snapshot_id)


def stable_uuid(*parts: str) -> str:
    """A deterministic UUIDv5 from stable source keys, so rebuilds are byte-identical."""
    return str(uuid.uuid5(KGFEGMCP_NAMESPACE, "\x1f".join(parts)))
