"""Exact and prefix statement-code lookup under a profile's normalisation rule."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable
from typing import Literal


class CodeIndex:
    """Normalised codes in sorted order beside their item positions: both lookups are a bisection.

    Two parallel columns (a list of codes, mostly the items' own string objects, and an array of
    positions) rather than a dict of tuples: a million codes cost a pointer and four bytes each.
    """

    def __init__(self, entries: Iterable[tuple[str, int]], normalization: Literal["exact", "casefold"]) -> None:
        self._casefold = normalization == "casefold"
        ordered = sorted((self.normalize(code), position) for code, position in entries)
        self._codes = [code for code, _ in ordered]
        self._positions = array("I", (position for _, position in ordered))

    def normalize(self, code: str) -> str:
        """The profile's normalisation (``casefold`` or exact), applied to codes and queries alike."""
        stripped = code.strip()
        if not self._casefold:
            return stripped
        folded = stripped.casefold()
        return stripped if folded == stripped else folded  # the code's own object when folding changes nothing

    def exact(self, code: str) -> tuple[int, ...]:
        """Positions whose code equals ``code`` after normalisation, file order."""
        key = self.normalize(code)
        start = bisect.bisect_left(self._codes, key)
        end = bisect.bisect_right(self._codes, key, lo=start)
        return tuple(self._positions[start:end])

    def prefix(self, prefix: str) -> list[int]:
        """Positions whose code starts with ``prefix``, ordered by code then file position."""
        key = self.normalize(prefix)
        start = end = bisect.bisect_left(self._codes, key)
        while end < len(self._codes) and self._codes[end].startswith(key):
            end += 1
        return list(self._positions[start:end])
