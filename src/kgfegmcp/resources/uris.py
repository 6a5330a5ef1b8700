"""Canonical ``kgfegmcp://`` addresses. Every URI the server prints is built here, from the family table."""

from __future__ import annotations

from kgfegmcp.resources.families import FAMILY, SCHEME, Family

__all__ = ["CATALOG_URI", "SCHEME"]

CATALOG_URI = FAMILY[Family.CATALOG].uri()


def framework_uri(framework_id: str) -> str:
    """The framework family."""
    return FAMILY[Family.FRAMEWORK].uri(framework_id)


def snapshot_uri(framework_id: str, snapshot_id: str) -> str:
    """One exact snapshot (graph package)."""
    return FAMILY[Family.SNAPSHOT].uri(framework_id, snapshot_id)


def manifest_uri(framework_id: str, snapshot_id: str) -> str:
    """The package manifest."""
    return FAMILY[Family.MANIFEST].uri(framework_id, snapshot_id)


def standard_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """One standards item."""
    return FAMILY[Family.STANDARD].uri(framework_id, snapshot_id, node_id)


def standard_provenance_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """The provenance of one standards item."""
    return FAMILY[Family.STANDARD_PROVENANCE].uri(framework_id, snapshot_id, node_id)


def relationship_uri(framework_id: str, snapshot_id: str, relationship_id: str) -> str:
    """One relationship of any label."""
    return FAMILY[Family.RELATIONSHIP].uri(framework_id, snapshot_id, relationship_id)


def learning_component_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """One learning component."""
    return FAMILY[Family.LEARNING_COMPONENT].uri(framework_id, snapshot_id, node_id)


def learning_component_provenance_uri(framework_id: str, snapshot_id: str, node_id: str) -> str:
    """The provenance of one learning component."""
    return FAMILY[Family.LEARNING_COMPONENT_PROVENANCE].uri(framework_id, snapshot_id, node_id)


def learning_progression_uri(framework_id: str, snapshot_id: str, relationship_id: str) -> str:
    """One stored buildsTowards/relatesTo link."""
    return FAMILY[Family.LEARNING_PROGRESSION].uri(framework_id, snapshot_id, relationship_id)


def provenance_part_uri(framework_id: str, snapshot_id: str, part: int) -> str:
    """One checked entity-provenance part (two digits)."""
    return FAMILY[Family.PROVENANCE_PART].uri(framework_id, snapshot_id, f"{part:02d}")


def artifact_uri(framework_id: str, snapshot_id: str, logical_name: str) -> str:
    """One declared artifact by logical name."""
    return FAMILY[Family.ARTIFACT].uri(framework_id, snapshot_id, logical_name)


def validation_uri(framework_id: str, snapshot_id: str) -> str:
    """The validation report."""
    return FAMILY[Family.VALIDATION].uri(framework_id, snapshot_id)


def profile_uri(framework_id: str, snapshot_id: str) -> str:
    """The bound interpretation profile."""
    return FAMILY[Family.PROFILE].uri(framework_id, snapshot_id)


def unresolved_uri(framework_id: str, snapshot_id: str) -> str:
    """The unresolved-items report."""
    return FAMILY[Family.UNRESOLVED].uri(framework_id, snapshot_id)
