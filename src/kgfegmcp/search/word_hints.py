"""Hints for a searched word a framework never uses: the framework's own nearest words, shown, never searched.

A word not found (``TextIndex.absent``) can match nothing in that package, and a host can only rephrase
it. What helps is the package's own spelling of the idea, so each such word gets at most
:data:`HINTS_PER_WORD` words of the package's statements and headings (as its text index holds them,
folded, each with how many items use it):

1. its spelling neighbours: the words within the edit distance Elasticsearch's ``AUTO`` fuzziness
   allows (one edit for 3-5 letters, two from 6 on; a transposition is one edit, rapidfuzz's OSA
   distance) that begin with its first letter, or with its first two letters swapped, nearest first:
   ``agreemnt`` → ``agreement``, ``tsatement`` → ``statement``;
2. then the words sharing its beginning, at least 5 letters of it and three fifths of it (the whole word
   when shorter): the derivations a light analysis keeps apart, ``quilombolas`` → ``quilombos``,
   ``reescrita`` → ``reescrever``; the longest shared beginning first.

Ties go to the word more items use, then the alphabet, so the hints are the same on every call. Stop
words, words holding a digit (codes) and words under 3 letters are never hints. A word holding Han, kana
or Hangul gets none: it is searched as overlapping character pairs, and the pairs one edit away from a
pair are unrelated words, not its spelling. A package whose rights withhold statement text gives none:
a hint is a word of that text.

Cost: nothing at start-up and no artifact of its own: the words are read from the text index's term
dictionary (already in the derived-index cache), and the spelling neighbours sought among the words of
the same first letter (the candidates Lucene's ``DirectSpellChecker`` considers by default, ``minPrefix``
1) and of a length within the edit budget. Each first letter's words are read on the first word not
found that starts with it, and kept while the index is served; the shared beginnings are a range of the
dictionary, read per word. The cost follows the package's distinct words, not its items: a letter's
words are read in milliseconds and a word's hints found in under one for the two hundred thousand words
of a large framework, where reading the whole dictionary (or loading a persisted copy) would cost every
first use far more (``benchmarks/word_hints.py``, docs/performance.md).
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.search.analysis import Analyzer
from kgfegmcp.search.normalize import has_cjk
from kgfegmcp.search.text_index import TextIndex

#: The most hints one word gets.
HINTS_PER_WORD = 5
#: Words shorter than this get no hints and are never given as one.
_MIN_LETTERS = 3
#: A shared beginning counts from this many letters (or the whole word, when it is shorter)...
_MIN_SHARED = 5
#: ... and from this share of the word's letters.
_SHARED_FRACTION = 0.6
_DIGIT = re.compile(r"\d")

#: One word and its hints, for each word not found that has any, in the order searched.
WordHints = tuple[tuple[str, tuple[str, ...]], ...]


def max_edits(word: str) -> int:
    """Elasticsearch's ``AUTO`` fuzziness: no edit under 3 letters, one for 3-5, two from 6 on."""
    return 0 if len(word) < _MIN_LETTERS else (1 if len(word) <= 5 else 2)


def shared_needed(word: str) -> int:
    """How many leading letters a word must share with ``word`` to be hinted for its beginning."""
    return min(len(word), max(_MIN_SHARED, math.ceil(_SHARED_FRACTION * len(word))))


def _shared(first: str, second: str) -> int:
    count = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class _Initial:
    """The hintable words of one first letter by length (an edit changes a length by one at most), each list
    most used first, then alphabetically."""

    words: dict[int, list[str]]
    #: How many documents hold each word, in the same places as ``words``.
    frequencies: dict[int, list[int]]


class Vocabulary:
    """The hintable words of one text index, read from its term dictionary one first letter at a time."""

    def __init__(self, index: TextIndex, analyzer: Analyzer) -> None:
        self._index = index
        self._analyzer = analyzer
        self._initials: dict[str, _Initial] = {}
        self._lock = threading.Lock()

    def _hintable(self, word: str) -> bool:
        if len(word) < _MIN_LETTERS or self._analyzer.is_stopword(word):
            return False
        if word.isascii():
            return word.isalpha()
        return not _DIGIT.search(word) and not has_cjk(word)

    def _words(self, prefix: str) -> list[tuple[str, int]]:
        return [(w, n) for w, n in self._index.words_with_prefix(prefix) if self._hintable(w)]

    def _initial(self, letter: str) -> _Initial:
        found = self._initials.get(letter)
        if found is None:
            words: dict[int, list[str]] = {}
            frequencies: dict[int, list[int]] = {}
            for word, frequency in self._words(letter):
                words.setdefault(len(word), []).append(word)
                frequencies.setdefault(len(word), []).append(frequency)
            found = _Initial(words, frequencies)
            with self._lock:
                found = self._initials.setdefault(letter, found)
        return found

    def hints(self, word: str) -> tuple[str, ...]:
        """At most :data:`HINTS_PER_WORD` words of this index for ``word`` (folded), nearest first."""
        edits = max_edits(word)
        if not edits or has_cjk(word) or _DIGIT.search(word):
            return ()
        initial = self._initial(word[0])
        spelled = sorted(
            (distance, -initial.frequencies[length][at], near)
            for length in range(len(word) - edits, len(word) + edits + 1)
            for near, distance, at in process.extract(
                word, initial.words.get(length, ()), scorer=OSA.distance, score_cutoff=edits, limit=None
            )
            if near != word
        )
        # The one neighbour another first letter can give for one edit: the first two letters swapped.
        swapped = word[1] + word[0] + word[2:]
        if swapped != word:
            spelled += [(1, -n, w) for w, n in self._words(swapped) if w == swapped]
            spelled.sort()
        begun = sorted((-_shared(word, w), -n, w) for w, n in self._words(word[: shared_needed(word)]) if w != word)
        hinted: dict[str, None] = {}
        for *_, w in [*spelled, *begun]:
            hinted.setdefault(w, None)
        return tuple(hinted)[:HINTS_PER_WORD]


_VOCABULARIES: weakref.WeakKeyDictionary[TextIndex, Vocabulary] = weakref.WeakKeyDictionary()
_VOCABULARIES_LOCK = threading.Lock()


def vocabulary_of(index: TextIndex, analyzer: Analyzer) -> Vocabulary:
    """The one vocabulary of ``index`` (kept as long as the index is)."""
    with _VOCABULARIES_LOCK:
        found = _VOCABULARIES.get(index)
        if found is None:
            found = _VOCABULARIES[index] = Vocabulary(index, analyzer)
        return found


def word_hints(index: TextIndex, analyzer: Analyzer, words: Sequence[str]) -> WordHints:
    """Each of ``words`` (folded, as searched and not found) that has hints in ``index``, with them."""
    if not words:
        return ()
    vocabulary = vocabulary_of(index, analyzer)
    found = ((word, vocabulary.hints(word)) for word in words)
    return tuple((word, hints) for word, hints in found if hints)


def hinted_packages(readings: Sequence[tuple[int, Sequence[str]]]) -> list[bool]:
    """Which packages' words not found get hints, each reading given as (terms searched, terms not found):
    those that found some of the query's words, or every one when none did (a misspelt query). A package
    that finds none of them while another finds some is in another language or on another subject, and
    its nearest words would be noise ("para" near "paragraphs")."""
    found_some = [len(unknown) < searched for searched, unknown in readings]
    return [found or not any(found_some) for found in found_some]


def package_word_hints(
    runtime: PackageRuntime, index: TextIndex, analyzer: Analyzer, words: Sequence[str]
) -> WordHints:
    """:func:`word_hints` for a package's index, and none where its rights withhold statement text: a
    hint is a word of that text."""
    if not words or runtime.rights.full_text_denial() is not None:
        return ()
    return word_hints(index, analyzer, words)
