"""The word reductions search could use, for ``benchmarks/relevance.py --analysis`` to set side by side.

``lemmas`` is what ``search/analysis.py`` does (simplemma's dictionary lemmas). ``snowball`` is what it
did before: tantivy's Snowball stemmer, after giving a folded Portuguese word the accents of a few
unambiguous endings and turning ``-ões``/``-ens`` plurals singular. ``folded`` reduces nothing (every word
matched as written, folded). Only the reduction differs; stop words, request words and the query
reading are the same in all three, so the measures compare the reductions alone.
"""

from __future__ import annotations

import re

import tantivy

from kgfegmcp.search.analysis import Analyzer
from kgfegmcp.search.normalize import fold

CHOICES = ("lemmas", "snowball", "folded")

_DIGIT = re.compile(r"\d")
_SNOWBALL = {"pt": "portuguese", "en": "english"}
_PORTUGUESE_ENDINGS = (
    ("coes", "ção"),
    ("cao", "ção"),
    ("oes", "ão"),
    ("ao", "ão"),
    ("ens", "em"),
    ("encias", "ência"),
    ("encia", "ência"),
    ("aveis", "ável"),
    ("avel", "ável"),
    ("iveis", "ível"),
    ("ivel", "ível"),
)


def _snowball_stem(analyzer: Analyzer, folded: str) -> str:
    language = analyzer.rules.language if analyzer.rules else ""
    if language not in _SNOWBALL or _DIGIT.search(folded):
        return folded
    word = folded
    if language == "pt" and len(word) >= 4:
        for ending, replacement in _PORTUGUESE_ENDINGS:
            if word.endswith(ending):
                word = word[: -len(ending)] + replacement
                break
    stemmer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(
        tantivy.Filter.stemmer(_SNOWBALL[language])
    )
    produced = stemmer.build().analyze(word)
    return fold(produced[0]) if produced else folded


def use(choice: str) -> None:
    """Make every analyzer reduce words the ``choice`` way (before any index is built). Roots (related
    forms, searched for a word a package holds in no form) stay the server's in all three."""
    if choice == "lemmas":
        return
    original = Analyzer._reduced
    memo: dict[tuple[str, str, str | None], tuple[str, str]] = {}

    def reduced(self: Analyzer, folded: str, written: str | None) -> tuple[str, str]:
        lemma, root = original(self, folded, written)
        if self.rules is None or _DIGIT.search(folded):
            return lemma, root
        key = (self.language, folded, written)
        if key not in memo:
            memo[key] = (_snowball_stem(self, folded) if choice == "snowball" else folded, root)
        return memo[key]

    Analyzer._reduced = reduced  # type: ignore[method-assign]
