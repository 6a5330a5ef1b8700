"""What a text query asks for, read the same way for every package of one profile, and reported.

Grade expressions (a profile's grade labels holding a letter, their display names and declared
aliases, longest first) are taken out of the text: a teacher's "5º ano" or "3rd grade" names a grade,
not words to find in statements, where "ano" would match "meses do ano". Stop words are dropped. What
is left is searched, each word by its stem, and the result says all three, and how words were analysed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from kgfegmcp.profiles.model import GradeLabel, InterpretationProfile
from kgfegmcp.search.analysis import Analyzer, Term, analyzer_for
from kgfegmcp.search.normalize import has_cjk, tokens

_LETTER = frozenset("abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class InterpretedQuery:
    """The searched terms, the grades recognised (source labels) and the words dropped."""

    terms: tuple[Term, ...]
    grades: tuple[str, ...]
    dropped: tuple[str, ...]
    analysis: str


def _expressions(label: GradeLabel) -> Iterable[tuple[str, ...]]:
    candidates = [label.display, *label.aliases]
    if _LETTER & set(label.source_label.casefold()):
        candidates.append(label.source_label)  # "KG", "1º ano"; never a bare number such as "03"
    for text in candidates:
        words = tuple(tokens(text))
        if words:
            yield words


class QueryInterpreter:
    """Reads queries for the packages of one profile."""

    def __init__(self, profile: InterpretationProfile) -> None:
        self.analyzer: Analyzer = analyzer_for(profile.in_language)
        grades: dict[tuple[str, ...], str] = {}
        for label in sorted(profile.grade_labels, key=lambda g: (g.order, g.source_label)):
            for words in _expressions(label):
                grades.setdefault(words, label.source_label)
        # Longest expression first, so "5º ano do ensino fundamental" wins over "5º ano".
        self._grades = sorted(grades.items(), key=lambda entry: (-len(entry[0]), entry[0]))
        self._first_words = {words[0] for words in grades}

    def interpret(self, query: str, recognise_grades: bool = True) -> InterpretedQuery:
        """Split ``query`` into searched terms, recognised grades and dropped words."""
        words = tokens(query)
        grades: dict[str, None] = {}
        kept: list[str] = []
        index = 0
        while index < len(words):
            matched = self._grade_at(words, index) if recognise_grades and words[index] in self._first_words else None
            if matched is not None:
                length, label = matched
                grades.setdefault(label, None)
                index += length
                continue
            kept.append(words[index])
            index += 1
        terms: dict[str, Term] = {}
        dropped: dict[str, None] = {}
        for word in kept:
            if self.analyzer.is_stopword(word):
                dropped.setdefault(word, None)
            else:
                terms.setdefault(word, Term(word, self.analyzer.stem(word)))
        if not terms and dropped and not grades:
            # A query of stop words only ("the", "de") still means something: search its words as they are.
            terms = {word: Term(word, word, exact_only=True) for word in dropped}
            dropped = {}
        analysis = self.analyzer.described(character_pairs=any(has_cjk(term) for term in terms))
        return InterpretedQuery(tuple(terms.values()), tuple(grades), tuple(dropped), analysis)

    def grade_named(self, text: str) -> str | None:
        """The grade label ``text`` names as a whole in a query ("quinto ano", "5th grade"), if any."""
        words = tokens(text)
        matched = self._grade_at(words, 0) if words and words[0] in self._first_words else None
        return matched[1] if matched is not None and matched[0] == len(words) else None

    def _grade_at(self, words: list[str], index: int) -> tuple[int, str] | None:
        for expression, label in self._grades:
            if tuple(words[index : index + len(expression)]) == expression:
                return len(expression), label
        return None


@cache
def interpreter_for(profile: InterpretationProfile) -> QueryInterpreter:
    """One interpreter per profile, shared by every index of the packages bound to it."""
    return QueryInterpreter(profile)
