"""What a CASE package is called and which profile it binds, when the caller does not say.

Framework id: the slug of the CFDocument title (or ``case-<uuid prefix>``). Snapshot id:
``v<version>-<lastChangeDateTime as yyyymmdd-hhmmss UTC>`` (either part alone, else ``sha-<content
hash>``). Profile: the operator's, named after the framework id, when the profiles root holds it
(highest version); otherwise none is chosen here, and the mapping derives one from the package with
``case-generic`` as its vocabulary (:mod:`kgfegmcp.sources.case.derived_profile`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.identifiers import identifier_problem
from kgfegmcp.profiles.model import PROFILE_VERSION_PATTERN
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.sources.case.document import CaseDocument, nonblank
from kgfegmcp.sources.graph_builder import identifier_from, slugify

#: The generic CASE vocabulary a derived profile starts from (statement-type roles, CEDS levels, rights).
GENERIC_PROFILE = ("case-generic", "2.1")
FRAMEWORK_ID_LENGTH = 64


@dataclass(frozen=True, slots=True)
class CaseIdentity:
    """The package's framework and snapshot ids, and the operator's profile for it (``None``: derive one)."""

    framework_id: str
    snapshot_id: str
    profile: LoadedProfile | None


def package_identity(
    document: CaseDocument,
    sha256: str,
    profiles: ProfileRepository,
    framework_id: str | None = None,
    snapshot_id: str | None = None,
) -> CaseIdentity:
    """The ids the caller gave, else the defaults of ``document``; the operator's profile for them, if any."""
    framework_id = framework_id or default_framework_id(document)
    snapshot_id = snapshot_id or snapshot_id_of(document, sha256)
    for value, kind in ((framework_id, "framework id"), (snapshot_id, "snapshot id")):
        problem = identifier_problem(value, kind)
        if problem:
            raise ManifestBuildError(f"Cannot build the CASE package: {problem}.")
    return CaseIdentity(framework_id, snapshot_id, select_profile(profiles, framework_id))


def parse_datetime(value: Any) -> datetime | None:
    """A CASE date-time (``Z`` or offset; naive means UTC), in UTC."""
    text = nonblank(value)
    if text is None:
        return None
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)


def default_framework_id(document: CaseDocument) -> str:
    """Slug of the CFDocument title, or ``case-<uuid prefix>`` when the title gives no usable slug."""
    slug = slugify(document.title or "", FRAMEWORK_ID_LENGTH)
    if identifier_problem(slug) is None:
        return slug
    return identifier_from(f"case-{(document.identifier or '')[:8]}", "framework id")


def default_snapshot_id(document: CaseDocument, data: bytes) -> str:
    """``v<version>-<lastChange yyyymmdd-hhmmss>``, either part when alone, else a hash of ``data``."""
    return snapshot_id_of(document, hashlib.sha256(data).hexdigest())


def snapshot_id_of(document: CaseDocument, sha256: str) -> str:
    """``v<version>-<lastChange yyyymmdd-hhmmss>``, either part when alone, else the content hash ``sha256``."""
    parts = []
    version = slugify(document.version or "", 40)
    if version:
        parts.append(version if version.startswith("v") else f"v{version}")
    changed = parse_datetime(document.last_change_date_time)
    if changed is not None:
        parts.append(changed.strftime("%Y%m%d-%H%M%S"))
    if not parts:
        parts.append(f"sha-{sha256[:12]}")
    return identifier_from("-".join(parts), "snapshot id")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def select_profile(profiles: ProfileRepository, framework_id: str) -> LoadedProfile | None:
    """The operator's profile named after the framework (highest version), or ``None`` when there is none."""
    versions = [
        v for pid, v in profiles.list_refs() if pid == framework_id and re.fullmatch(PROFILE_VERSION_PATTERN, v)
    ]
    if versions:
        return profiles.load(framework_id, max(versions, key=_version_key))
    return None
