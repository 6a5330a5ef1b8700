"""Fitting a progression result under the whole-result ceiling, weighed as it is rendered (``core/rendering.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kgfegmcp.core.errors import ProgressionResultTooLargeError
from kgfegmcp.core.rendering import RESULT_MAX_BYTES, RESULT_MAX_CHARS, rendered_size
from kgfegmcp.services.views import ResultModel

ResultT = TypeVar("ResultT", bound=ResultModel)


def fit_result(build: Callable[[int], ResultT], count: int, what: str) -> tuple[ResultT, int]:
    """The result holding the most of ``count`` items (in order) that fits the ceiling.

    At least one item must fit when there is one: an oversized single link, edge or first path is
    ``progression_result_too_large``, never an empty result that would hide it. Sizes grow almost
    linearly with the items held, so the search interpolates (falling back to bisection when an
    estimate gains little); it needs a handful of trial builds, not one per item.
    """
    full = build(count)
    full_size = rendered_size(full.to_wire())
    if full_size.fits:
        return full, count
    low = 1 if count else 0
    best = build(low)
    low_size = rendered_size(best.to_wire())
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
        size = rendered_size(candidate.to_wire())
        if size.fits:
            low, low_chars, best = guess, size.chars, candidate
        else:
            high, high_chars = guess, size.chars
        bisect = (high - low) * 2 > width  # the estimate gained little: bisect next time
    return best, low


def ensure_fits(result: ResultT, what: str) -> ResultT:
    """``result`` itself, or ``progression_result_too_large`` when one exact record cannot fit."""
    if not rendered_size(result.to_wire()).fits:
        raise ProgressionResultTooLargeError(
            f"The {what} does not fit in one tool result ({RESULT_MAX_CHARS:,} characters / "
            f"{RESULT_MAX_BYTES:,} bytes, text plus structured content).",
            hint="Open the link's resource or provenance links with read_evidence instead.",
        )
    return result
