"""Language-aware text analysis, one code path for documents and queries.

A package's profile declares its language (``inLanguage``); its primary subtag selects the language's
declared rules (``search.languages``). Every word is folded (case and accents, ``search.normalize``)
for its exact form, and, where the language has a dictionary, reduced to its lemma for matching, so an
index built today and a query typed tomorrow can never disagree about a word. Words holding a digit
(statement codes, years) are never reduced. A language without rules (Japanese, Chinese, Korean,
Hindi, Arabic, …) is folded only: no stop words, no lemmas, every word matched as written, and each
reading of a query says so.

Lemmas rather than stems: a dictionary conflates inflection and leaves derivation apart, where a
Snowball stemmer cuts both (``ensinar``/``ensinamentos``, ``letra``/``letradas``, ``contos``/``contar``,
``sayings``/``says`` each became one stem and matched one another). ``benchmarks/relevance.py
--analysis`` measures the two side by side. The dictionary is simplemma's, read in its low-memory
form (about 13 MB resident for Portuguese rather than 100 MB) and looked up once per distinct word.

A dictionary is keyed by accented words, so a word typed without its accents (``fracoes``,
``numeros``, ``historia``, which is also a form of ``historiar``) is first given them back where the
language declares how: the first declared ending that fits, else one letter accented among the last
few vowels' (the leftmost the dictionary knows). Documents go through the same step, so a
word reads alike with or without its accents. The lemma is folded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import tantivy

from kgfegmcp.search.languages import LanguageRules, rules_for
from kgfegmcp.search.normalize import fold, tokens, word_forms

_DIGIT = re.compile(r"\d")
#: Accents are given back only to words at least this long, so short words keep their own form.
_MIN_RESTORED = 4
_VOWELS = frozenset("aeiou")
#: Distinct words whose lemma is remembered: a vocabulary, not an unbounded memo of every query typed.
_MEMO = 200_000


@cache
def _simplemma() -> ModuleType:
    """simplemma, imported when the first analyzer of a language with a dictionary is made (a served
    package's), never by a start that serves none: importing it costs about 100 ms."""
    import simplemma

    return simplemma


def _lemmatize(word: str, language: str) -> str:
    """The dictionary's lemma of ``word`` (the word itself when it has none), from its low-memory form."""
    return str(_simplemma().lemmatize(word, language, low_memory=True))


def _is_known(word: str, language: str) -> bool:
    return bool(_simplemma().is_known(word, language, low_memory=True))


@dataclass(frozen=True, slots=True)
class Term:
    """One analysed word: its folded form (exact matches) and its folded lemma (every inflection).

    ``exact_only`` terms (stop words searched because a query holds nothing else) match the folded
    words as written, since lemmas leave stop words out. The attribute keeps the name ``stem``: it is
    what the index's ``*_stems`` fields hold.
    """

    exact: str
    stem: str
    exact_only: bool = False
    #: The Snowball stem of the lemma, which the word's derivations share ("" where none applies):
    #: related forms, never a match of the word itself.
    root: str = ""
    #: Searched by its related forms (its root), as a word the package holds in no form of its own is.
    by_root: bool = False


class Analyzer:
    """Folding, stop words and lemmas for one language; the same for index and query."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.rules: LanguageRules | None = rules_for(language)
        self._dictionary = self.rules.language if self.rules and self.rules.lemmas else None
        self._lemma_of = dict(self.rules.lemma_of) if self.rules else {}
        if self._dictionary is not None:
            _simplemma()  # at start, with the package: a request never imports
        self._roots = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
            .filter(tantivy.Filter.stemmer(self.rules.roots))
            .build()
            if self.rules and self.rules.roots
            else None
        )
        self._lemmas: dict[str, tuple[str, str]] = {}
        self._terms: dict[tuple[str, str | None], Term] = {}

    @property
    def name(self) -> str:
        """The analysis applied: dictionary lemmas, or folding only."""
        return f"{self._dictionary}-lemmas" if self._dictionary else "folded"

    def described(self, character_pairs: bool) -> str:
        """What a reading of a query reports as its analysis: :attr:`name`, then ``character_pairs`` (a
        query holding Han, kana or Hangul, searched as overlapping pairs), then that no lemmas apply."""
        described = self.name + (", CJK as overlapping character pairs" if character_pairs else "")
        if self._dictionary is None:
            described += f"; no dictionary for language {self.language!r}: words are matched as written"
        return described

    def is_stopword(self, folded: str) -> bool:
        """Whether a folded word carries no meaning for search in this language."""
        return self.rules is not None and folded in self.rules.stop_words

    def stem(self, folded: str, written: str | None = None) -> str:
        """The folded lemma of a word, from its ``written`` form (accents kept) where known; the folded
        word itself when it holds a digit or the language has no dictionary."""
        return self._reduced(folded, written)[0]

    def root(self, folded: str, written: str | None = None) -> str:
        """The folded root of a word (its lemma's Snowball stem), or "" where the language has none."""
        return self._reduced(folded, written)[1]

    def _reduced(self, folded: str, written: str | None) -> tuple[str, str]:
        key = written if written is not None else folded
        found = self._lemmas.get(key)
        if found is not None:
            return found
        lemma, root = folded, ""
        if not _DIGIT.search(folded):
            accented = self._lemma(key) if self._dictionary is not None else key
            lemma = fold(accented)
            if self._roots is not None:
                produced = self._roots.analyze(accented)
                root = fold(produced[0]) if produced else lemma
        reduced = (lemma, root)
        if len(self._lemmas) < _MEMO:
            self._lemmas[key] = reduced
        return reduced

    def _lemma(self, written: str) -> str:
        assert self._dictionary is not None and self.rules is not None
        if self.rules.accents and not written.isascii() and not self._known(written):
            # An accented word the dictionary lacks reads as its unaccented form does, so that a query
            # typed either way meets it (antônimos is not in it; antonimos finds antónimos).
            written = fold(written)
        if written.isascii() and self.rules.accents:
            written = self._accented(written) or written
        lemma = _lemmatize(written, self._dictionary)
        lemma = self._lemma_of.get(lemma, lemma)
        plural = self.rules.noun_plural
        if plural and lemma != written and _lemmatize(written + plural, self._dictionary) == written:
            # The dictionary gives one lemma per form, and a form that is both a noun and a verb form
            # gets the verb's (vacina -> vacinar, escala -> escalar) while its plural gets the noun
            # (vacinas -> vacina): a word whose plural reads back to it is that noun, and stays itself.
            return written
        return lemma

    def _known(self, word: str) -> bool:
        assert self._dictionary is not None
        return _is_known(word, self._dictionary) or _lemmatize(word, self._dictionary) != word

    def _accented(self, word: str) -> str | None:
        """The accented word an unaccented one stands for, when the dictionary knows it: a declared
        ending first, else one letter accented among the last vowels' (the leftmost known)."""
        assert self.rules is not None
        if len(word) < _MIN_RESTORED:
            return None
        for ending, replacement in self.rules.unaccented_endings:
            if word.endswith(ending):
                candidate = word[: -len(ending)] + replacement
                if self._known(candidate):
                    return candidate
                break
        # Right to left, the leftmost accent the dictionary knows: an unaccented proparoxytone
        # (historia, pratica) is far more often the noun than the verb form accented on its end. A word
        # the dictionary knows as it is takes no accent on its last letter: that reading is a verb form
        # written only before a pronoun ("vaciná-lo"), where an unknown word may need it (cafe).
        accents = dict(self.rules.accents)
        found: str | None = None
        vowels = 0
        last = len(word) - (2 if self._known(word) else 1)
        for index in range(len(word) - 1, -1, -1):
            if index > last:
                vowels += word[index] in _VOWELS
                continue
            for letter in accents.get(word[index], ""):
                candidate = word[:index] + letter + word[index + 1 :]
                if self._known(candidate):
                    found = candidate
                    break
            vowels += word[index] in _VOWELS
            if vowels == self.rules.accent_window_vowels:
                break
        return found

    def terms(self, text: str) -> list[Term]:
        """Every non-stop word of ``text`` in order, duplicates kept."""
        return [self.term(folded, written) for written, folded in word_forms(text) if not self.is_stopword(folded)]

    def term(self, folded: str, written: str | None = None) -> Term:
        """One word analysed: its folded form, lemma and root (one shared, immutable ``Term`` per word)."""
        key = (folded, written)
        found = self._terms.get(key)
        if found is None:
            lemma, root = self._reduced(folded, written)
            found = Term(folded, lemma, root=root)
            if len(self._terms) < _MEMO:
                self._terms[key] = found
        return found

    def words(self, text: str) -> list[str]:
        """Every folded word of ``text`` in order, stop words included (the exact-form field)."""
        return tokens(text)


@cache
def analyzer_for(language: str) -> Analyzer:
    """One shared analyzer per declared language tag."""
    return Analyzer(language)
