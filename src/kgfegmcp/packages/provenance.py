"""Entity provenance partitioning: one entity's evidence lives in exactly one checked part."""

from __future__ import annotations

import hashlib

from kgfegmcp.packages.artifact_roles import PROVENANCE_PARTS


def provenance_part_of(entity_id: str) -> int:
    """Part index = first byte of SHA-256(entity id) mod 64."""
    return hashlib.sha256(entity_id.encode("utf-8")).digest()[0] % PROVENANCE_PARTS
