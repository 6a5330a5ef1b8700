"""Language analysis and query interpretation: one code path for text and queries, read from profile data."""

from __future__ import annotations

from pathlib import Path

import pytest
import tantivy

from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.search.analysis import LANGUAGES, Analyzer, analyzer_for
from kgfegmcp.search.normalize import fold
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
        ("identificar", "identificação"),
        ("identificacao", "identificar"),
        ("multiplicar", "multiplicacoes"),
        ("divisão", "divisoes"),
        ("ciência", "ciencias"),
    ],
)
def test_portuguese_inflections_and_unaccented_forms_meet(first: str, second: str) -> None:
    analyzer = analyzer_for("pt-BR")
    assert stems(analyzer, first) == stems(analyzer, second)


@pytest.mark.parametrize(("first", "second"), [("story", "stories"), ("reading", "reads"), ("poem", "poems")])
def test_english_inflections_meet(first: str, second: str) -> None:
    assert stems(analyzer_for("en"), first) == stems(analyzer_for("en"), second)


def test_codes_and_numbers_are_never_stemmed() -> None:
    analyzer = analyzer_for("pt-BR")
    assert stems(analyzer, "EF05MA03 5º 2023") == ["ef05ma03", "5o", "2023"]


def test_stop_words_are_dropped_and_exact_forms_kept() -> None:
    analyzer = analyzer_for("pt-BR")
    assert [t.exact for t in analyzer.terms("uma leitura com os mapas")] == ["leitura", "mapas"]
    assert analyzer.words("uma leitura") == ["uma", "leitura"]  # the exact-form field keeps every word


#: The accented forms of the listed stop words whose folded form differs.
ACCENTED = (
    "até está estão estávamos éramos estivéramos estivéssemos fôramos fôssemos há hão houverá houverão "
    "houveríamos houvéramos houvéssemos já não nós será serão seríamos são só também terá terão teríamos "
    "tínhamos tivéramos tivéssemos você vocês às tém"
)


def test_portuguese_stop_words_are_tantivys_snowball_list() -> None:
    """Every listed (folded) word is one that tantivy's own Portuguese stop filter removes."""
    stop = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.stopword("portuguese"))
    analyzer = stop.build()
    accented = {fold(word): word for word in ACCENTED.split()}
    for word in LANGUAGES["pt"].stopwords:
        assert analyzer.analyze(accented.get(word, word)) == [], word


def test_unknown_language_is_folded_only() -> None:
    analyzer = analyzer_for("xx")
    assert analyzer.name == "folded" and stems(analyzer, "Frações de uma") == ["fracoes", "de", "uma"]


def interpreter(profiles_root: Path, profile_id: str) -> QueryInterpreter:
    return QueryInterpreter(ProfileRepository(profiles_root).load(profile_id, "2.1").profile)


@pytest.mark.parametrize("query", ["frações 5º ano", "frações 5 ano", "quinto ano frações", "frações 5° ano"])
def test_grade_expressions_leave_the_text(profiles_root: Path, query: str) -> None:
    reading = interpreter(profiles_root, EF).interpret(query)
    assert reading.grades == ("5º ano",) and [t.exact for t in reading.terms] == ["fracoes"]


def test_ano_alone_is_text_and_stop_words_are_reported(profiles_root: Path) -> None:
    reading = interpreter(profiles_root, EF).interpret("meses do ano")
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
    reading = interpreter(profiles_root, "us-ccss-ela-literacy").interpret(query)
    assert reading.grades == (grade,) and [t.exact for t in reading.terms] == ["main", "idea"]


def test_bare_numbers_are_never_grades(profiles_root: Path) -> None:
    """CCSS labels are "03": a number in a query stays text."""
    reading = interpreter(profiles_root, "us-ccss-ela-literacy").interpret("03 idea")
    assert reading.grades == () and [t.exact for t in reading.terms] == ["03", "idea"]


def test_only_stop_words_are_searched_as_typed(profiles_root: Path) -> None:
    reading = interpreter(profiles_root, EF).interpret("uma com")
    assert [t.exact for t in reading.terms] == ["uma", "com"] and reading.dropped == ()
    assert all(t.exact_only for t in reading.terms)


def test_grades_can_stay_text_where_there_are_no_grades(profiles_root: Path) -> None:
    reading = interpreter(profiles_root, EF).interpret("frações 5º ano", recognise_grades=False)
    assert reading.grades == () and [t.exact for t in reading.terms] == ["fracoes", "5o", "ano"]
