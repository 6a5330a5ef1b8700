"""The whole-result ceiling shared by the progression tools: 1 MiB and 100,000 characters.

A progression tool result carries its structured content twice: once as structured content and once
as the canonical JSON text block that parses to exactly that content. Both copies count, so the
size of a result is twice the size of its canonical JSON, measured in characters and in UTF-8 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgfegmcp.models import canonical_json

RESULT_MAX_BYTES = 1_048_576
RESULT_MAX_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class ResultSize:
    """Characters and UTF-8 bytes of a whole result (text block plus structured content)."""

    chars: int
    bytes: int

    @property
    def fits(self) -> bool:
        """Whether both ceilings hold."""
        return self.chars <= RESULT_MAX_CHARS and self.bytes <= RESULT_MAX_BYTES


def whole_result_size(structured: dict[str, Any]) -> ResultSize:
    """Size of the text block (canonical JSON) plus the structured content it parses to."""
    text = canonical_json(structured)
    return ResultSize(chars=2 * len(text), bytes=2 * len(text.encode("utf-8")))
