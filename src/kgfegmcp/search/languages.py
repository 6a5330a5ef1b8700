"""Each language's declared reading rules (``shipped/languages/<tag>.toml``): data, not code.

A language file says whether words are reduced to dictionary lemmas, which words are function words
(stop words), which words and phrases belong to a teacher's request rather than to what is taught,
and how an unaccented word gets its accents back. A language without a file is folded only. Every
word here is stored folded (``search.normalize.fold``), as matching happens on folded words, and a
request phrase as its tuple of folded words.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgfegmcp.search.normalize import fold, tokens


class LanguageFile(BaseModel):
    """One ``shipped/languages/<tag>.toml`` as written (camelCase keys, nothing else accepted)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    lemmas: Literal["simplemma"] | None = None
    roots: Literal["portuguese", "english"] | None = None
    unaccented_endings: tuple[tuple[str, str], ...] = Field((), alias="unaccentedEndings")
    accents: dict[str, str] = Field(default_factory=dict)
    accent_window_vowels: int = Field(0, ge=0, le=8, alias="accentWindowVowels")
    noun_plural: str = Field("", max_length=4, alias="nounPlural")
    lemma_of: dict[str, str] = Field(default_factory=dict, alias="lemmaOf")
    stop_words: str = Field("", alias="stopWords")
    request_words: tuple[str, ...] = Field((), alias="requestWords")


class LanguageRules(BaseModel):
    """A language's rules, folded for matching."""

    model_config = ConfigDict(frozen=True)

    language: str
    lemmas: Literal["simplemma"] | None
    #: The Snowball algorithm whose stem of a lemma is the word's root (its related forms share it).
    roots: Literal["portuguese", "english"] | None
    #: (folded ending, accented replacement), the first that fits applies.
    unaccented_endings: tuple[tuple[str, str], ...]
    #: Unaccented letter → the accented letters it may stand for (the language writes accents when any).
    accents: tuple[tuple[str, str], ...]
    #: Accents are given back among the letters from this many vowels before the end.
    accent_window_vowels: int
    #: A word whose form with this ending reads back to it is a noun and keeps its own form.
    noun_plural: str
    #: A dictionary lemma → the lemma it is read as (a verb's activity the dictionary has as a noun only).
    lemma_of: tuple[tuple[str, str], ...]
    stop_words: frozenset[str]
    #: Request words and phrases, each as its folded words, longest first.
    request_phrases: tuple[tuple[str, ...], ...]

    @staticmethod
    def of(language: str, declared: LanguageFile) -> LanguageRules:
        phrases = {tuple(tokens(entry)) for entry in declared.request_words} - {()}
        return LanguageRules(
            language=language,
            lemmas=declared.lemmas,
            roots=declared.roots,
            unaccented_endings=declared.unaccented_endings,
            accents=tuple(sorted(declared.accents.items())),
            accent_window_vowels=declared.accent_window_vowels,
            noun_plural=declared.noun_plural,
            lemma_of=tuple(sorted(declared.lemma_of.items())),
            stop_words=frozenset(fold(word) for word in declared.stop_words.split()),
            request_phrases=tuple(sorted(phrases, key=lambda words: (-len(words), words))),
        )


def declared_languages() -> tuple[str, ...]:
    """The primary language subtags with a rules file, sorted."""
    folder = resources.files("kgfegmcp") / "shipped" / "languages"
    return tuple(sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml")))


@functools.cache
def rules_for(language_tag: str) -> LanguageRules | None:
    """The rules of a declared language tag's primary subtag (``pt-BR`` → ``pt``), or ``None``."""
    primary = language_tag.split("-", 1)[0].casefold()
    if primary not in declared_languages():
        return None
    text = (resources.files("kgfegmcp") / "shipped" / "languages" / f"{primary}.toml").read_text(encoding="utf-8")
    return LanguageRules.of(primary, LanguageFile.model_validate(tomllib.loads(text)))
