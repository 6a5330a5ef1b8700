"""Exact and prefix statement-code lookup under a profile's normalisation rule."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Literal


class CodeIndex:
    """Maps normalised codes to item positions (file order); prefix search via a sorted key list."""

    def __init__(self, entries: Iterable[tuple[str, int]], normalization: Literal["exact", "casefold"]) -> None:
        self._casefold = normalization == "casefold"
        by_code: dict[str, list[int]] = {}
        for code, position in entries:
            by_code.setdefault(self.normalize(code), []).append(position)
        self._by_code = {code: tuple(positions) for code, positions in by_code.items()}
        self._sorted = sorted(self._by_code)

    def normalize(self, code: str) -> str:
        """The profile's normalisation (``casefold`` or exact), applied to codes and queries alike."""
        stripped = code.strip()
        return stripped.casefold() if self._casefold else stripped

    def exact(self, code: str) -> tuple[int, ...]:
        """Positions whose code equals ``code`` after normalisation."""
        return self._by_code.get(self.normalize(code), ())

    def prefix(self, prefix: str) -> list[int]:
        """Positions whose code starts with ``prefix``, ordered by code then file position."""
        key = self.normalize(prefix)
        start = bisect.bisect_left(self._sorted, key)
        found: list[int] = []
        for code in self._sorted[start:]:
            if not code.startswith(key):
                break
            found.extend(self._by_code[code])
        return found

    def __len__(self) -> int:
        return len(self._by_code)
