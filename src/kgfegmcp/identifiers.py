"""Identifier contracts for frameworks, snapshots and graph packages.

Identifiers name directories and appear in URIs, so they are deliberately narrow: lowercase
ASCII words joined by single hyphens. Anything else is rejected, never normalised.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated

from pydantic import AfterValidator

IDENTIFIER_MIN_LENGTH = 3
IDENTIFIER_MAX_LENGTH = 96
_IDENTIFIER_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

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


def check_identifier(value: str, kind: str = "identifier") -> str:
    """Return ``value`` unchanged when valid; raise :class:`InvalidIdentifier` otherwise."""
    problem = identifier_problem(value, kind)
    if problem is not None:
        raise InvalidIdentifier(problem)
    return value


def _framework(value: str) -> str:
    return check_identifier(value, "framework id")


def _snapshot(value: str) -> str:
    return check_identifier(value, "snapshot id")


FrameworkId = Annotated[str, AfterValidator(_framework)]
SnapshotId = Annotated[str, AfterValidator(_snapshot)]
ProfileId = Annotated[str, AfterValidator(lambda v: check_identifier(v, "profile id"))]


def graph_package_id(framework_id: str, snapshot_id: str) -> str:
    """Compose ``<framework>@<snapshot>`` after checking both halves."""
    return f"{check_identifier(framework_id, 'framework id')}@{check_identifier(snapshot_id, 'snapshot id')}"


def split_graph_package_id(value: str) -> tuple[str, str]:
    """Split and check a graph-package id; raise :class:`InvalidIdentifier` when malformed."""
    framework_id, sep, snapshot_id = value.partition("@")
    if not sep:
        raise InvalidIdentifier("graph-package id must be <framework-id>@<snapshot-id>")
    return check_identifier(framework_id, "framework id"), check_identifier(snapshot_id, "snapshot id")


def stable_uuid(*parts: str) -> str:
    """A deterministic UUIDv5 from stable source keys, so rebuilds are byte-identical."""
    return str(uuid.uuid5(KGFEGMCP_NAMESPACE, "\x1f".join(parts)))
