"""How a canonical tool result is rendered, and so what it weighs.

The five progression tools, ``read_evidence`` and ``get_workflow_instructions`` answer with their
structured content and, as their text block, its canonical JSON (:func:`canonical_text`). The MCP
layer renders them with that function, and the services that must fit a result under the spec's
whole-result ceiling (1 MiB and 100,000 characters, text plus structured content) weigh it with
:func:`rendered_size`, so both read the one rule: the structured content is carried twice, once as
itself and once as the canonical text that parses to exactly it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgfegmcp.core.models import canonical_json

RESULT_MAX_BYTES = 1_048_576
RESULT_MAX_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class ResultSize:
    """Characters and UTF-8 bytes of a whole rendered result (text block plus structured content)."""

    chars: int
    bytes: int

    @property
    def fits(self) -> bool:
        """Whether both ceilings hold."""
        return self.chars <= RESULT_MAX_CHARS and self.bytes <= RESULT_MAX_BYTES


def canonical_text(structured: dict[str, Any]) -> str:
    """The text block of a canonical result: the canonical JSON of its structured content."""
    return canonical_json(structured)


def rendered_size(structured: dict[str, Any]) -> ResultSize:
    """What the rendered result weighs: its text block plus the structured content that text parses to."""
    text = canonical_text(structured)
    return ResultSize(chars=2 * len(text), bytes=2 * len(text.encode("utf-8")))
