"""Language-aware text analysis, one code path for documents and queries.

A package's profile declares its language (``inLanguage``); its primary subtag selects the rules
below. Every word is folded (case and accents, ``search.normalize``), then, where the language has
rules, reduced to its Snowball stem with tantivy's own stemmer, so an index built today and a query
typed tomorrow can never disagree about a word. Words holding a digit (statement codes, years) are
never stemmed. A language without rules (Japanese, Chinese, Korean, Hindi, Arabic, …) is folded only:
no stop words, no stems, every word matched as written, and each reading of a query says so.

Folding first means a query typed without accents meets an accented text, but Snowball's Portuguese
rules expect accents (``-ção``, ``-ões``), and would stem ``identificacao`` apart from
``identificar``. So before stemming, folded Portuguese words get the canonical accents of a few
unambiguous endings back, and the plural ``-ões``/``-ens`` becomes its singular, which Snowball leaves
apart: ``fracoes`` → ``fração`` → ``fraca``, the stem of ``fração`` too. The stem is folded again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

import tantivy

from kgfegmcp.search.normalize import fold, tokens

#: Snowball's Portuguese stop words (the list tantivy's ``stopword("portuguese")`` filter applies),
#: written folded, since matching happens on folded words.
_PORTUGUESE_STOPWORDS = """
a ao aos aquela aquelas aquele aqueles aquilo as ate com como da das de dela delas dele deles depois do
dos e ela elas ele eles em entre era eram eramos essa essas esse esses esta estamos estao estas estava
estavam estavamos este esteja estejam estejamos estes esteve estive estivemos estiver estivera
estiveram estiveramos estiverem estivermos estivesse estivessem estivessemos estou eu foi fomos for
fora foram foramos forem formos fosse fossem fossemos fui ha haja hajam hajamos hao havemos hei houve
houvemos houver houvera houvera houveram houveramos houverao houverei houverem houveremos houveria
houveriam houveriamos houvermos houvesse houvessem houvessemos isso isto ja lhe lhes mais mas me mesmo
meu meus minha minhas muito na nas nem no nos nossa nossas nosso nossos num numa nao o os ou para pela
pelas pelo pelos por qual quando que quem se seja sejam sejamos sem serei seremos seria seriam sera
serao seriamos seu seus somos sou sua suas sao so tambem te tem temos tenha tenham tenhamos tenho
terei teremos teria teriam tera terao teriamos teu teus teve tinha tinham tive tivemos tiver tivera
tiveram tivermos tiverem tivesse tivessem tiveramos tivessemos tu tua tuas tinhamos um uma voce voces
vos
"""

#: Snowball's English stop words, folded (apostrophes split words, so the contracted forms are gone).
_ENGLISH_STOPWORDS = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves what which who whom this that these those am
is are was were be been being have has had having do does did doing would should could ought a an the
and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so than too
very s t can will just don now
"""


@dataclass(frozen=True, slots=True)
class LanguageRules:
    """How one language's words are reduced: a Snowball stemmer, stop words, endings restored first."""

    stemmer: str
    stopwords: frozenset[str]
    #: (folded ending, replacement) pairs, the first that fits applies, before stemming.
    endings: tuple[tuple[str, str], ...] = field(default=())


LANGUAGES: dict[str, LanguageRules] = {
    "pt": LanguageRules(
        "portuguese",
        frozenset(_PORTUGUESE_STOPWORDS.split()),
        (
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
        ),
    ),
    "en": LanguageRules("english", frozenset(_ENGLISH_STOPWORDS.split())),
}

_DIGIT = re.compile(r"\d")
#: Endings are restored only on words at least this long, so short words keep their own form.
_MIN_RESTORED = 4


@dataclass(frozen=True, slots=True)
class Term:
    """One analysed word: its folded form (exact matches) and its stem (every inflection).

    ``exact_only`` terms (stop words searched because a query holds nothing else) match the folded
    words as written, since stems leave stop words out.
    """

    exact: str
    stem: str
    exact_only: bool = False


class Analyzer:
    """Folding, stop words and stemming for one language; the same for index and query."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.rules = LANGUAGES.get(language.split("-", 1)[0].casefold())
        self._stemmer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
            .filter(tantivy.Filter.stemmer(self.rules.stemmer))
            .build()
            if self.rules
            else None
        )
        self._stems: dict[str, str] = {}

    @property
    def name(self) -> str:
        """The analysis applied: a Snowball stemmer, or folding only."""
        return f"{self.rules.stemmer}-snowball" if self.rules else "folded"

    def described(self, character_pairs: bool) -> str:
        """What a reading of a query reports as its analysis: :attr:`name`, then ``character_pairs`` (a
        query holding Han, kana or Hangul, searched as overlapping pairs), then that no stemmer applies."""
        described = self.name + (", CJK as overlapping character pairs" if character_pairs else "")
        if self.rules is None:
            described += f"; no stemmer for language {self.language!r}: words are matched as written"
        return described

    def is_stopword(self, folded: str) -> bool:
        """Whether a folded word carries no meaning for search in this language."""
        return self.rules is not None and folded in self.rules.stopwords

    def stem(self, folded: str) -> str:
        """The folded stem of a folded word (the word itself when it holds a digit or no rules apply)."""
        found = self._stems.get(folded)
        if found is not None:
            return found
        stem = folded
        if self._stemmer is not None and self.rules is not None and not _DIGIT.search(folded):
            word = folded
            if len(word) >= _MIN_RESTORED:
                for ending, replacement in self.rules.endings:
                    if word.endswith(ending):
                        word = word[: -len(ending)] + replacement
                        break
            produced = self._stemmer.analyze(word)
            stem = fold(produced[0]) if produced else folded
        if len(self._stems) < 200_000:  # a vocabulary, not an unbounded memo of every query typed
            self._stems[folded] = stem
        return stem

    def terms(self, text: str) -> list[Term]:
        """Every non-stop word of ``text`` in order, duplicates kept."""
        return [Term(word, self.stem(word)) for word in tokens(text) if not self.is_stopword(word)]

    def words(self, text: str) -> list[str]:
        """Every folded word of ``text`` in order, stop words included (the exact-form field)."""
        return tokens(text)


@cache
def analyzer_for(language: str) -> Analyzer:
    """One shared analyzer per declared language tag."""
    return Analyzer(language)
