"""Language analysis and query interpretation: one code path for text and queries, read from profile data."""

from __future__ import annotations

import tomllib
from importlib.resources import files
from pathlib import Path

import pytest
import tantivy

from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.search.analysis import Analyzer, analyzer_for
from kgfegmcp.search.languages import rules_for
from kgfegmcp.search.normalize import fold, query_words
from kgfegmcp.search.query import QueryInterpreter

EF = "brazil-bncc-ensino-fundamental"


def stems(analyzer: Analyzer, text: str) -> list[str]:
    return [term.stem for term in analyzer.terms(text)]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("cadeia alimentar", "cadeias alimentares"),
        ("porcentagem", "porcentagens"),
        ("poema", "poemas"),
        ("fração", "frações"),
        ("fracao", "frações"),
        ("divisão", "divisoes"),
        ("ciência", "ciencias"),
        ("ensinar", "ensinando"),
        ("ensina", "ensinar"),
        ("numéricas", "numérico"),
        ("padronizada", "padronizadas"),
        ("escreva", "escrevendo"),
        ("historia", "História"),
        ("pratica", "prática"),
        ("numeros", "número"),
        ("relogio", "relógio"),
        ("multiplicacao", "multiplicação"),
        ("antonimos", "antônimos"),
        ("vacina", "vacinas"),
        ("escala", "escalas"),
    ],
)
def test_portuguese_inflections_and_unaccented_forms_meet(first: str, second: str) -> None:
    analyzer = analyzer_for("pt-BR")
    assert stems(analyzer, first) == stems(analyzer, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ensinar", "ensinamentos"),
        ("letra", "letradas"),
        ("contos", "contar"),
        ("passos", "passado"),
        ("aplicativo", "aplicar"),
        ("identificar", "identificação"),
    ],
)
def test_portuguese_derivations_stay_apart(first: str, second: str) -> None:
    analyzer = analyzer_for("pt-BR")
    assert stems(analyzer, first) != stems(analyzer, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("story", "stories"),
        ("reading", "reads"),
        ("poem", "poems"),
        ("counted", "counting"),
        ("wrote", "write"),
        ("writing", "write"),  # the dictionary has "writing" as a noun only: en.toml reads it as the verb
        ("drawings", "draw"),
    ],
)
def test_english_inflections_meet(first: str, second: str) -> None:
    assert stems(analyzer_for("en"), first) == stems(analyzer_for("en"), second)


@pytest.mark.parametrize(("first", "second"), [("sayings", "says"), ("personal", "person")])
def test_english_derivations_stay_apart(first: str, second: str) -> None:
    assert stems(analyzer_for("en"), first) != stems(analyzer_for("en"), second)


def test_codes_and_numbers_are_never_stemmed() -> None:
    analyzer = analyzer_for("pt-BR")
    assert stems(analyzer, "EF05MA03 5º 2023") == ["ef05ma03", "5o", "2023"]


def test_stop_words_are_dropped_and_exact_forms_kept() -> None:
    analyzer = analyzer_for("pt-BR")
    assert [t.exact for t in analyzer.terms("uma leitura com os mapas")] == ["leitura", "mapas"]
    assert analyzer.words("uma leitura") == ["uma", "leitura"]  # the exact-form field keeps every word


#: Words Snowball's lists drop that statements use as content: negation, degree, comparison, position,
#: time, the pronouns of "O eu, o outro e o nós", and the confused words of CCSS L.4.1.g.
CONTENT_WORDS = {
    "pt": "não nem sem mais muito mesmo depois eu",
    "en": "their there too not no nor more most few same both only above below before after over under up down",
}


@pytest.mark.parametrize("language", ["pt", "en"])
def test_no_content_word_is_a_stop_word(language: str) -> None:
    rules = rules_for(language)
    assert rules is not None
    for word in CONTENT_WORDS[language].split():
        assert fold(word) not in rules.stop_words, word


def test_portuguese_stop_words_are_function_words_only() -> None:
    """Every Portuguese stop word is one tantivy's Snowball filter drops too ("sobre", about, aside)."""
    stop = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.stopword("portuguese"))
    analyzer = stop.build()
    declared = tomllib.loads((files("kgfegmcp") / "shipped" / "languages" / "pt.toml").read_text(encoding="utf-8"))
    for word in declared["stopWords"].split():
        assert word == "sobre" or analyzer.analyze(word) == [], word


def test_unknown_language_is_folded_only() -> None:
    analyzer = analyzer_for("xx")
    assert analyzer.name == "folded" and stems(analyzer, "Frações de uma") == ["fracoes", "de", "uma"]
    assert "no dictionary" in analyzer.described(character_pairs=False)


def interpreter(profiles_root: Path, profile_id: str) -> QueryInterpreter:
    return QueryInterpreter(ProfileRepository(profiles_root).load(profile_id, "2.1").profile)


@pytest.mark.parametrize("query", ["frações 5º ano", "frações 5 ano", "quinto ano frações", "frações 5° ano"])
def test_grade_expressions_leave_the_text(profiles_root: Path, query: str) -> None:
    reading = interpreter(profiles_root, EF).interpret(query_words(query))
    assert reading.grades == ("5º ano",) and [t.exact for t in reading.terms] == ["fracoes"]


def test_ano_alone_is_text_and_stop_words_are_reported(profiles_root: Path) -> None:
    reading = interpreter(profiles_root, EF).interpret(query_words("meses do ano"))
    assert reading.grades == () and [t.exact for t in reading.terms] == ["meses", "ano"]
    assert reading.dropped == ("do",)


@pytest.mark.parametrize(
    ("query", "grade"),
    [
        ("main idea 3rd grade", "03"),
        ("grade 3 main idea", "03"),
        ("third grade main idea", "03"),
        ("kindergarten main idea", "KG"),
    ],
)
def test_english_grade_expressions(profiles_root: Path, query: str, grade: str) -> None:
    reading = interpreter(profiles_root, "us-ccss-ela-literacy").interpret(query_words(query))
    assert reading.grades == (grade,) and [t.exact for t in reading.terms] == ["main", "idea"]


def test_bare_numbers_are_never_grades(profiles_root: Path) -> None:
    """CCSS labels are "03": a number in a query stays text."""
    reading = interpreter(profiles_root, "us-ccss-ela-literacy").interpret(query_words("03 idea"))
    assert reading.grades == () and [t.exact for t in reading.terms] == ["03", "idea"]


def test_only_stop_words_are_searched_as_typed(profiles_root: Path) -> None:
    reading = interpreter(profiles_root, EF).interpret(query_words("uma com"))
    assert [t.exact for t in reading.terms] == ["uma", "com"] and reading.dropped == ()
    assert all(t.exact_only for t in reading.terms)


def test_grades_can_stay_text_where_there_are_no_grades(profiles_root: Path) -> None:
    reading = interpreter(profiles_root, EF).interpret(query_words("frações 5º ano"), recognise_grades=False)
    assert reading.grades == () and [t.exact for t in reading.terms] == ["fracoes", "5o", "ano"]


EF_SUBJECTS = ("Arte", "Ciências", "Educação Física", "Geografia", "História", "Língua Portuguesa", "Matemática")


def latest(profiles_root: Path, profile_id: str, version: str) -> QueryInterpreter:
    return QueryInterpreter(ProfileRepository(profiles_root).load(profile_id, version).profile)


def test_request_words_are_set_aside_and_reported(profiles_root: Path) -> None:
    reading = latest(profiles_root, EF, "2.3").interpret(query_words("como ensinar a tabuada para o 3º ano"))
    assert [t.exact for t in reading.terms] == ["tabuada"] and reading.grades == ("3º ano",)
    assert reading.request_words == ("como ensinar",) and reading.dropped == ("a", "para", "o")


def test_a_request_of_request_words_only_is_searched(profiles_root: Path) -> None:
    reading = latest(profiles_root, EF, "2.3").interpret(query_words("atividades"))
    assert [t.exact for t in reading.terms] == ["atividades"] and reading.request_words == ()


def test_english_request_words(profiles_root: Path) -> None:
    reading = latest(profiles_root, "us-ccss-ela-literacy", "2.1").interpret(
        query_words("how to teach their and there 3rd grade")
    )
    assert [t.exact for t in reading.terms] == ["their", "there"] and reading.request_words == ("how to teach",)
    assert reading.grades == ("03",)


@pytest.mark.parametrize(
    ("query", "subjects", "terms"),
    [
        ("educação física 7º ano jogos", ("Educação Física",), ["jogos"]),
        ("aula de história sobre quilombos", ("História",), ["quilombos"]),
        ("ler uma história para crianças", (), ["ler", "historia", "criancas"]),
        ("matemática frações", (), ["matematica", "fracoes"]),
        ("plano de aula de matemática frações", ("Matemática",), ["fracoes"]),
    ],
)
def test_subjects_named_in_a_query(
    profiles_root: Path, query: str, subjects: tuple[str, ...], terms: list[str]
) -> None:
    """A subject of several words is read wherever it stands; one word only beside a request word."""
    reading = latest(profiles_root, EF, "2.3").interpret(query_words(query), subjects=EF_SUBJECTS)
    assert reading.subjects == subjects and [t.exact for t in reading.terms] == terms


def test_a_subject_is_named_by_its_leading_words(profiles_root: Path) -> None:
    reading = latest(profiles_root, "brazil-bncc-ensino-medio", "2.2").interpret(
        query_words("aula de matemática funções"), subjects=("Matemática e suas Tecnologias", "Língua Portuguesa")
    )
    assert reading.subjects == ("Matemática e suas Tecnologias",) and [t.exact for t in reading.terms] == ["funcoes"]


@pytest.mark.parametrize(
    ("query", "grades", "terms"),
    [
        ("funções quadráticas 3º ano do EM", ("Ensino Médio",), ["funcoes", "quadraticas"]),
        ("funções quadráticas EM", ("Ensino Médio",), ["funcoes", "quadraticas"]),
        ("funções em problemas", (), ["funcoes", "problemas"]),
    ],
)
def test_stage_abbreviations_are_read_only_as_written(
    profiles_root: Path, query: str, grades: tuple[str, ...], terms: list[str]
) -> None:
    """ "EM" in capitals is Ensino Médio; "em" is the preposition, a stop word."""
    reading = latest(profiles_root, "brazil-bncc-ensino-medio", "2.2").interpret(query_words(query))
    assert reading.grades == grades and [t.exact for t in reading.terms] == terms


def test_ensino_fundamental_abbreviation_in_a_grade(profiles_root: Path) -> None:
    reading = latest(profiles_root, EF, "2.3").interpret(query_words("frações 5º ano do EF"))
    assert reading.grades == ("5º ano",) and [t.exact for t in reading.terms] == ["fracoes"]
