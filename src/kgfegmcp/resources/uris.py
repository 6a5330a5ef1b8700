"""Canonical ``kgfegmcp://`` addresses. Every URI the server prints is built here."""

from __future__ import annotations

SCHEME = "kgfegmcp://"
CATALOG_URI = f"{SCHEME}catalog"


def framework_uri(framework_id: str) -> str:
    """The framework family."""
    return f"{SCHEME}framework/{framework_id}"


def snapshot_uri(framework_id: str, snapshot_id: str) -> str:
    """One exact snapshot (graph package)."""
    return f"{framework_uri(framework_id)}/snapshot/{snapshot_id}"


def manifest_uri(framework_id: str, snapshot_id: str) -> str:
    """The package manifest."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/manifest"


def standard_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """One standards item."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/standard/{node_id}"


def standard_provenance_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """Provenance of one standards item."""
    return f"{standard_uri(framework_id, snapshot_id, node_id)}/provenance"


def relationship_uri(framework_id: str, snapshot_id: str, relationship_id: str) -> str:
    """One relationship."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/relationship/{relationship_id}"


def learning_component_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """One learning component."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/learning-component/{node_id}"


def learning_component_provenance_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """Provenance of one learning component."""
    return f"{learning_component_uri(framework_id, snapshot_id, node_id)}/provenance"


def learning_progression_uri(framework_id: str, snapshot_id: str, relationship_id: str) -> str:
    """One stored progression link."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/learning-progression/{relationship_id}"


def provenance_part_uri(framework_id: str, snapshot_id: str, part: int) -> str:
    """One checked entity-provenance part."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/provenance-part/{part:02d}"


def artifact_uri(framework_id: str, snapshot_id: str, logical_name: str) -> str:
    """One declared artifact by logical name."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/artifact/{logical_name}"


def validation_uri(framework_id: str, snapshot_id: str) -> str:
    """The validation report."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/validation"


def profile_uri(framework_id: str, snapshot_id: str) -> str:
    """The bound interpretation profile."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/profile"


def unresolved_uri(framework_id: str, snapshot_id: str) -> str:
    """The unresolved-items report."""
    return f"{snapshot_uri(framework_id, snapshot_id)}/unresolved"
