"""What a text query asks for, read the same way for every package of one profile, and reported.

A query is read as a teacher writes it, left to right, longest expression first at each word:

* **grades**: a profile's grade labels holding a letter, their display names and declared aliases. A
  teacher's "5º ano" or "3rd grade" names a grade, not words to find in statements, where "ano" would
  match "meses do ano". An alias written as one word in capitals ("EM") is an abbreviation, read only
  where the query writes it so: "em" stays the preposition it is.
* **subjects**: the subject names the package's items carry, or their leading words before the first
  stop word ("Matemática e suas Tecnologias" is named by "matemática"). A name of several words is
  read wherever it stands ("educação física" is not "educação" and "física"); a one-word name only
  beside a request word ("aula de história", "math lesson"), since alone it is often a topic ("ler
  uma história").
* **request words**: what the language's data declares as the request's own ("como ensinar",
  "atividade", "lesson plan"), set aside.
* **stop words** are dropped.

What is left is searched, each word by its lemma; the result says all of it. Words set aside come
back as searched words when nothing else is left to search (a query of request words only), and a
query of stop words only is searched as typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from kgfegmcp.profiles.model import GradeLabel, InterpretationProfile
from kgfegmcp.search.analysis import Analyzer, Term, analyzer_for
from kgfegmcp.search.normalize import QueryWords, has_cjk, tokens

_LETTER = frozenset("abcdefghijklmnopqrstuvwxyz")
#: An alias of one word, all capitals, at most this long, is an abbreviation matched as written.
_ABBREVIATION_LENGTH = 4


@dataclass(frozen=True, slots=True)
class InterpretedQuery:
    """The searched terms, the grades and subjects recognised, and the words set aside."""

    terms: tuple[Term, ...]
    grades: tuple[str, ...]
    dropped: tuple[str, ...]
    analysis: str
    #: Words of the request itself ("how to teach", "activity", "lesson"), set aside and reported.
    request_words: tuple[str, ...] = ()
    #: Subject names the query names (as the package's items carry them), taken out of the text.
    subjects: tuple[str, ...] = ()


def _abbreviation(text: str) -> bool:
    return text.isalpha() and text.isupper() and len(text) <= _ABBREVIATION_LENGTH and " " not in text


def _expressions(label: GradeLabel) -> Iterable[tuple[str, ...]]:
    candidates = [label.display, *label.aliases]
    if _LETTER & set(label.source_label.casefold()):
        candidates.append(label.source_label)  # "KG", "1º ano"; never a bare number such as "03"
    for text in candidates:
        if _abbreviation(text):
            continue
        words = tuple(tokens(text))
        if words:
            yield words


@dataclass(frozen=True, slots=True)
class _Expression:
    """A run of folded words that names something, and what it names."""

    words: tuple[str, ...]
    kind: str  # "grade", "subject", "request"
    names: str


def _subject_expressions(analyzer: Analyzer, subjects: Sequence[str]) -> list[_Expression]:
    """Each subject's whole name and its leading words before the first stop word."""
    found: dict[tuple[str, ...], str] = {}
    for subject in sorted(subjects):
        words = tuple(tokens(subject))
        leading: list[str] = []
        for word in words:
            if analyzer.is_stopword(word):
                break
            leading.append(word)
        for expression in (words, tuple(leading)):
            if expression:
                found.setdefault(expression, subject)
    return [_Expression(words, "subject", subject) for words, subject in found.items()]


def _by_first_word(expressions: Iterable[_Expression]) -> dict[str, list[_Expression]]:
    """Expressions by their first word, longest first at each ("5º ano do ensino fundamental" over "5º ano")."""
    found: dict[str, list[_Expression]] = {}
    for expression in sorted(expressions, key=lambda e: (-len(e.words), e.words, e.kind)):
        found.setdefault(expression.words[0], []).append(expression)
    return found


class QueryInterpreter:
    """Reads queries for the packages of one profile."""

    def __init__(self, profile: InterpretationProfile) -> None:
        self.analyzer: Analyzer = analyzer_for(profile.in_language)
        grades: dict[tuple[str, ...], str] = {}
        abbreviations: dict[str, str] = {}
        for label in profile.grades_in_order:
            for words in _expressions(label):
                grades.setdefault(words, label.source_label)
            for alias in label.aliases:
                if _abbreviation(alias):
                    abbreviations.setdefault(alias, label.source_label)
        self._grades = [_Expression(words, "grade", label) for words, label in grades.items()]
        self._grades_by_first_word = _by_first_word(self._grades)
        self._abbreviations = abbreviations
        rules = self.analyzer.rules
        phrases = rules.request_phrases if rules else ()
        self._requests = [_Expression(words, "request", " ".join(words)) for words in phrases]
        self._request_words = {word for words in phrases if len(words) == 1 for word in words}
        self._by_subjects: dict[tuple[bool, tuple[str, ...]], dict[str, list[_Expression]]] = {}

    def interpret(
        self, query: QueryWords, recognise_grades: bool = True, subjects: Sequence[str] = ()
    ) -> InterpretedQuery:
        """Split ``query`` into searched terms, recognised grades and subjects (of ``subjects``, the names a
        package's items carry), request words and dropped words."""
        forms, cased = query.forms, query.cased
        words = [folded for _, folded in forms]
        expressions = self._expressions_for(recognise_grades, subjects)
        read: dict[str, dict[str, None]] = {"grade": {}, "subject": {}, "request": {}}
        kept: list[int] = []
        index = 0
        while index < len(words):
            abbreviation = self._abbreviations.get(cased[index]) if recognise_grades and cased else None
            if abbreviation is not None:
                read["grade"].setdefault(abbreviation, None)
                index += 1
                continue
            matched = self._expression_at(expressions, words, index)
            if matched is not None and (
                matched.kind != "subject" or len(matched.words) > 1 or self._beside_request(words, index)
            ):
                read[matched.kind].setdefault(matched.names, None)
                index += len(matched.words)
                continue
            kept.append(index)
            index += 1
        terms: dict[str, Term] = {}
        dropped: dict[str, None] = {}
        for position in kept:
            written, word = forms[position]
            if self.analyzer.is_stopword(word):
                dropped.setdefault(word, None)
            elif word not in terms:
                term = self.analyzer.term(word, written)
                # Two inflections of one word ("words", "word") are one term: searched twice, its
                # weight would double and every other word's halve.
                if all(other.stem != term.stem for other in terms.values()):
                    terms[word] = term
        request_words = tuple(read["request"])
        if not terms and request_words:
            # A request of request words only ("atividades") means them: search them after all.
            for written, word in forms:
                if word in self._request_words and word not in terms:
                    terms[word] = self.analyzer.term(word, written)
            request_words = tuple(phrase for phrase in request_words if phrase not in terms)
        if not terms and dropped and not read["grade"] and not read["subject"]:
            # A query of stop words only ("the", "de") still means something: search its words as they are.
            terms = {word: Term(word, word, exact_only=True) for word in dropped}
            dropped = {}
        analysis = self.analyzer.described(character_pairs=any(has_cjk(term) for term in terms))
        return InterpretedQuery(
            tuple(terms.values()),
            tuple(read["grade"]),
            tuple(dropped),
            analysis,
            request_words,
            tuple(read["subject"]),
        )

    def grade_named(self, text: str) -> str | None:
        """The grade label ``text`` names as a whole in a query ("quinto ano", "5th grade"), if any."""
        words = tokens(text)
        abbreviation = self._abbreviations.get(text.strip())
        if abbreviation is not None:
            return abbreviation
        matched = self._expression_at(self._grades_by_first_word, words, 0) if words else None
        return matched.names if matched is not None and len(matched.words) == len(words) else None

    def _expressions_for(self, recognise_grades: bool, subjects: Sequence[str]) -> dict[str, list[_Expression]]:
        """Every expression to look for (``_by_first_word``), built once per package's subjects."""
        key = (recognise_grades, tuple(subjects))
        found = self._by_subjects.get(key)
        if found is None:
            expressions = [
                *(self._grades if recognise_grades else ()),
                *(_subject_expressions(self.analyzer, subjects) if self.analyzer.rules else ()),
                *self._requests,
            ]
            found = _by_first_word(expressions)
            if len(self._by_subjects) < 64:  # one entry per package's subject list
                self._by_subjects[key] = found
        return found

    @staticmethod
    def _expression_at(expressions: dict[str, list[_Expression]], words: list[str], index: int) -> _Expression | None:
        for expression in expressions.get(words[index], ()):
            if tuple(words[index : index + len(expression.words)]) == expression.words:
                return expression
        return None

    def _beside_request(self, words: list[str], index: int) -> bool:
        """Whether a request word stands next to ``words[index]``, stop words between them aside."""
        for step in (-1, 1):
            at = index + step
            while 0 <= at < len(words) and self.analyzer.is_stopword(words[at]):
                at += step
            if 0 <= at < len(words) and words[at] in self._request_words:
                return True
        return False


@cache
def interpreter_for(profile: InterpretationProfile) -> QueryInterpreter:
    """One interpreter per profile, shared by every index of the packages bound to it."""
    return QueryInterpreter(profile)


class QueryReadings:
    """One request's readings of its query: packages read alike (one profile's interpreter, the same
    subject names) share one reading, so a query is read once per way of reading it, not once per package."""

    def __init__(self, words: QueryWords) -> None:
        self.words = words
        self._read: dict[tuple[int, bool, tuple[str, ...]], tuple[QueryInterpreter, InterpretedQuery]] = {}

    def by(
        self, interpreter: QueryInterpreter, recognise_grades: bool = True, subjects: Sequence[str] = ()
    ) -> InterpretedQuery:
        """The query as ``interpreter`` reads it for a package naming ``subjects``."""
        key = (id(interpreter), recognise_grades, tuple(subjects))
        found = self._read.get(key)
        if found is None:
            # The interpreter is kept beside its reading, so its id cannot be reused within the request.
            found = (interpreter, interpreter.interpret(self.words, recognise_grades, subjects))
            self._read[key] = found
        return found[1]
