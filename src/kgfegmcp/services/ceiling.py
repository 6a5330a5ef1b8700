"""The whole-result ceiling shared by the progression tools: 1 MiB and 100,000 characters, and fitting under it.

A progression tool result carries its structured content twice: once as structured content and once
as the canonical JSON text block that parses to exactly that content. Both copies count, so the
size of a result is twice the size of its canonical JSON, measured in characters and in UTF-8 bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from kgfegmcp.errors import ProgressionResultTooLargeError
from kgfegmcp.models import canonical_json
from kgfegmcp.services.views import ResultModel

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


ResultT = TypeVar("ResultT", bound=ResultModel)


def fit_result(build: Callable[[int], ResultT], count: int, what: str) -> tuple[ResultT, int]:
    """The result holding the most of ``count`` items (in order) that fits the ceiling.

    At least one item must fit when there is one: an oversized single link, edge or first path is
    ``progression_result_too_large``, never an empty result that would hide it. Sizes grow almost
    linearly with the items held, so the search interpolates (falling back to bisection when an
    estimate gains little); it needs a handful of trial builds, not one per item.
    """
    full = build(count)
    full_size = whole_result_size(full.to_wire())
    if full_size.fits:
        return full, count
    low = 1 if count else 0
    best = build(low)
    low_size = whole_result_size(best.to_wire())
    if low >= count or not low_size.fits:
        raise ProgressionResultTooLargeError(
            f"Even {'one ' + what if count else 'this result'} does not fit in one tool result "
            f"({RESULT_MAX_CHARS:,} characters / {RESULT_MAX_BYTES:,} bytes, text plus structured content).",
            hint="Open the link's resource or provenance links with read_evidence instead.",
        )
    high, high_chars, low_chars = count, full_size.chars, low_size.chars
    bisect = False
    while high - low > 1:
        if bisect or high_chars <= low_chars:
            guess = (low + high) // 2
        else:
            guess = low + (RESULT_MAX_CHARS - low_chars) * (high - low) // (high_chars - low_chars)
        guess = min(max(guess, low + 1), high - 1)
        width = high - low
        candidate = build(guess)
        size = whole_result_size(candidate.to_wire())
        if size.fits:
            low, low_chars, best = guess, size.chars, candidate
        else:
            high, high_chars = guess, size.chars
        bisect = (high - low) * 2 > width  # the estimate gained little: bisect next time
    return best, low


def ensure_fits(result: ResultT, what: str) -> ResultT:
    """``result`` itself, or ``progression_result_too_large`` when one exact record cannot fit."""
    if not whole_result_size(result.to_wire()).fits:
        raise ProgressionResultTooLargeError(
            f"The {what} does not fit in one tool result ({RESULT_MAX_CHARS:,} characters / "
            f"{RESULT_MAX_BYTES:,} bytes, text plus structured content).",
            hint="Open the link's resource or provenance links with read_evidence instead.",
        )
    return result
