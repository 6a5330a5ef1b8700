"""Query and text normalisation shared by every index: case- and accent-insensitive words in every script.

Folding removes only what is safe to remove. Case goes, and so do the diacritics of Latin letters
(``Frações`` = ``fracoes``), as readers type them or not, and so does a script-neutral diacritic no
letter absorbed (a stress mark). The letters of every other script keep their
marks, because there a mark makes another letter: kana voicing (``テ`` is not ``デ``), Devanagari vowel
signs and virama, Cyrillic ``й``, Greek tonos, Arabic hamza. Compatibility forms become their ordinary
letters (Unicode NFKC: full-width Latin and digits, half-width katakana, Arabic presentation forms).
The optional vowel signs of Arabic (tashkeel, and the elongation tatweel, as Lucene's Arabic normaliser
drops them) and Hebrew (niqqud and cantillation) go too: most text omits them, so a vowelled word is the
same word unvowelled.

A word is a run of letters, digits and marks, so a mark never splits one (Devanagari vowel signs are
marks). Han, kana and Hangul are written without spaces between words, so every run of them becomes its
overlapping character pairs (a lone character stays itself), as Lucene's CJK analyzer does: a word of
two or more characters inside a sentence is found through its pairs, in order.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from itertools import pairwise

from kgfegmcp.search import unicode_marks

#: The script-neutral combining diacritics (Combining Diacritical Marks and its Extended and Supplement
#: blocks, those for symbols, half marks): what Latin letters decompose into. Marks of a script's own
#: block (kana voicing, Devanagari, Arabic hamza) are that script's letters' parts and stay.
_SHARED_DIACRITICS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
#: Arabic tashkeel (fathatan to sukun) and tatweel, which Lucene's Arabic normaliser removes, and the
#: Hebrew points and cantillation marks (the marks of U+0591-U+05C7): signs unvowelled text leaves out.
_OPTIONAL_VOWEL_SIGNS = frozenset(
    [
        *map(chr, [*range(0x064B, 0x0653), 0x0640]),
        *(c for c in map(chr, range(0x0591, 0x05C8)) if unicodedata.category(c) == "Mn"),
    ]
)
#: Han, Hiragana, Katakana and Hangul (each with its marks, compatibility forms and supplements): the
#: scripts Lucene's CJK bigram filter pairs. Kana voicing marks U+3099-309C sit in the Hiragana block.
_CJK_RANGES = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3041-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U0001b000-\U0001b16f\U00020000-\U0003ffff"
)
#: Every mark is in the Basic or Supplementary Multilingual Plane or among the variation selectors of
#: plane 14 (``tests/search`` checks this against the whole code space of the running Unicode data).
_MARK_SPACE = (range(0x20000), range(0xE0000, 0xE0200))


def mark_ranges() -> tuple[tuple[int, int], ...]:
    """The marks (Mn, Mc, Me) of the running Unicode data, as inclusive code point ranges."""
    ranges: list[tuple[int, int]] = []
    for space in _MARK_SPACE:
        for code_point in space:
            if unicodedata.category(chr(code_point))[0] == "M":
                if ranges and ranges[-1][1] == code_point - 1:
                    ranges[-1] = (ranges[-1][0], code_point)
                else:
                    ranges.append((code_point, code_point))
    return tuple(ranges)


def _mark_class() -> str:
    """The marks as a regular-expression class body: from the generated table when it is of the running
    Unicode data (classifying every code point would cost each start tens of milliseconds), else computed."""
    current = unicodedata.unidata_version == unicode_marks.UNIDATA_VERSION
    ranges = unicode_marks.MARK_RANGES if current else mark_ranges()
    return "".join(f"{chr(low)}-{chr(high)}" if high > low else re.escape(chr(low)) for low, high in ranges)


_MARKS = _mark_class()
#: ``\w`` is letters, digits and the underscore; marks and the zero-width (non-)joiners join words, as in
#: Unicode's word boundaries.
_TOKEN = re.compile(f"[\\w{_MARKS}\u200c\u200d]+")
_CJK = re.compile(f"[{_CJK_RANGES}]")


@functools.cache
def _cjk_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A CJK character with its marks, and a run of them: compiled on the first CJK text (compiling them
    costs a start that serves none about ten milliseconds)."""
    unit = f"[{_CJK_RANGES}][{_MARKS}]*"
    return re.compile(unit), re.compile(f"(?:{unit})+")


def _shared_diacritic(character: str) -> bool:
    code_point = ord(character)
    return unicodedata.combining(character) != 0 and any(low <= code_point <= high for low, high in _SHARED_DIACRITICS)


def _latin_or_symbol(base: str) -> bool:
    """Whether a decomposition starts with a Latin letter or with no letter at all (a digit, a symbol)."""
    return not unicodedata.category(base).startswith("L") or unicodedata.name(base, "").startswith("LATIN ")


def _folded(character: str) -> str:
    """One code point of NFKC text, folded (see the module docstring)."""
    if character in _OPTIONAL_VOWEL_SIGNS:
        return ""
    if unicodedata.category(character)[0] == "M":  # a mark its base did not absorb
        return "" if _shared_diacritic(character) else character
    decomposed = unicodedata.normalize("NFKD", character)
    if _latin_or_symbol(decomposed[0]):
        return "".join(part for part in decomposed if not unicodedata.combining(part))
    return character


class _FoldTable(dict[int, str]):
    """``str.translate`` table of :func:`_folded`; each code point is classified once."""

    def __missing__(self, code_point: int) -> str:
        folded = self[code_point] = _folded(chr(code_point))
        return folded


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """Casefold, unify compatibility forms, drop Latin diacritics: ``Frações`` → ``fracoes``, ``ﾓﾃﾞﾙ`` → ``モデル``."""
    folded = text.casefold()
    if folded.isascii():
        return folded
    normal = unicodedata.normalize("NFKC", folded)
    refolded = normal.casefold()  # a compatibility form may stand for a capital (U+03D2 is U+03A5)
    if refolded != normal:
        normal = unicodedata.normalize("NFKC", refolded)
    return normal.translate(_FOLD)


def _split_cjk(word: str) -> list[str]:
    """A word with its runs of Han, kana and Hangul as overlapping pairs (a lone character as itself)."""
    cjk_unit, cjk_run = _cjk_patterns()
    parts: list[str] = []
    start = 0
    for run in cjk_run.finditer(word):
        if run.start() > start:
            parts.append(word[start : run.start()])
        units = cjk_unit.findall(run.group())
        parts += units if len(units) == 1 else [first + second for first, second in pairwise(units)]
        start = run.end()
    if start < len(word):
        parts.append(word[start:])
    return parts


def tokens(text: str) -> list[str]:
    """Folded word tokens in order (duplicates kept; callers decide)."""
    folded = fold(text)
    words = _TOKEN.findall(folded)
    if folded.isascii() or not has_cjk(folded):
        return words
    return [part for word in words for part in (_split_cjk(word) if has_cjk(word) else (word,))]


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds Han, kana or Hangul (searched as character pairs)."""
    return _CJK.search(text) is not None


def query_tokens(text: str) -> list[str]:
    """Distinct folded tokens of a query, first occurrence order."""
    return list(query_words(text).distinct)


def word_forms(text: str) -> list[tuple[str, str]]:
    """Each word of ``text`` as (written, folded): ``folded`` is what :func:`tokens` gives, and ``written``
    the same word casefolded with its accents kept (what a dictionary of the language is keyed by).

    Text holding Han, kana or Hangul is split into character pairs, and each pair is its own written form.
    """
    lowered = unicodedata.normalize("NFKC", text.casefold())
    if not lowered.isascii() and has_cjk(lowered):
        return [(word, word) for word in tokens(text)]
    if lowered.isascii():
        return [(word, word) for word in _TOKEN.findall(lowered)]
    # Folding can drop a whole sign (an optional vowel sign, a lone diacritic): a written word is paired
    # with each folded word it becomes.
    return [(word, folded) for word in _TOKEN.findall(lowered) for folded in _TOKEN.findall(fold(word))]


def cased_words(text: str) -> list[str]:
    """The words of ``text`` as written, case kept, one per :func:`word_forms` entry; empty when they do
    not pair one to one (CJK pairs, a sign folding drops), so a caller reads case only where it can."""
    return list(query_words(text).cased)


@dataclass(frozen=True, slots=True)
class QueryWords:
    """A query's words, split once per request: the request's bounds count them, and every package's
    reading of the query (whatever its profile or language) starts from them."""

    text: str
    #: Each word as (written, folded), as :func:`word_forms` gives them.
    forms: tuple[tuple[str, str], ...]
    #: The words as written, case kept, one per form; empty where they do not pair one to one.
    cased: tuple[str, ...]

    @property
    def distinct(self) -> tuple[str, ...]:
        """Distinct folded words, first occurrence order (the folded forms are :func:`tokens`' words)."""
        return tuple(dict.fromkeys(folded for _, folded in self.forms))


def query_words(text: str) -> QueryWords:
    """``text``'s words, written and folded, and as cased where that pairs."""
    forms = word_forms(text)
    written = _TOKEN.findall(unicodedata.normalize("NFKC", text))
    paired = len(written) == len(forms) and all(
        word.casefold() == form for word, (form, _) in zip(written, forms, strict=True)
    )
    return QueryWords(text, tuple(forms), tuple(written) if paired else ())
