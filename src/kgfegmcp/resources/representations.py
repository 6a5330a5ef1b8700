"""The two representations a resource document can have, and the epistemic labels it carries.

``raw_source`` is the exact retained bytes of one artifact (checked against its SHA-256 before it is
served); ``deterministic_derived`` is canonical JSON the server produces from accepted runtime state
(sorted keys, no insignificant whitespace, UTF-8), so the same packages always give the same bytes.
"""

from __future__ import annotations

from typing import Any, Literal

from kgfegmcp.core.epistemic import EPISTEMIC_LABELS
from kgfegmcp.core.models import canonical_bytes

Representation = Literal["raw_source", "deterministic_derived"]
RAW_SOURCE: Representation = "raw_source"
DETERMINISTIC_DERIVED: Representation = "deterministic_derived"

JSON_MIME = "application/json"


def derived_bytes(document: Any) -> bytes:
    """The canonical bytes of a derived document."""
    return canonical_bytes(document)


def epistemic_labels(*labels: str | None) -> list[str]:
    """Known labels only, sorted and unique (an unknown label in source data is not repeated as ours)."""
    return sorted({label for label in labels if label is not None and label in EPISTEMIC_LABELS})
