"""Query and text normalisation shared by every index: accent- and case-insensitive tokens."""

from __future__ import annotations

import re
import unicodedata

MAX_QUERY_TOKENS = 32
_TOKEN = re.compile(r"\w+", flags=re.UNICODE)


class _CombiningMarks(dict[int, int | None]):
    """``str.translate`` table deleting combining marks; each code point is classified once."""

    def __missing__(self, code_point: int) -> int | None:
        kept = None if unicodedata.combining(chr(code_point)) else code_point
        self[code_point] = kept
        return kept


_STRIP_MARKS = _CombiningMarks()


def fold(text: str) -> str:
    """Casefold and strip combining marks, so ``Frações`` and ``fracoes`` compare equal."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return decomposed if decomposed.isascii() else decomposed.translate(_STRIP_MARKS)


def tokens(text: str) -> list[str]:
    """Folded word tokens in order (duplicates kept; callers decide)."""
    return _TOKEN.findall(fold(text))


def query_tokens(text: str) -> list[str]:
    """Distinct folded tokens of a query, first occurrence order."""
    seen: dict[str, None] = {}
    for token in tokens(text):
        seen.setdefault(token, None)
    return list(seen)
