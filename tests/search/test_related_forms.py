"""Related forms: a word a package holds in no form of its own is searched by its root, and only such a word."""

from __future__ import annotations

from dataclasses import replace

from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.text_index import TextIndex

DOCUMENTS = [
    (1, "Capitalize holidays, product names, and geographic names."),
    (2, "Use commas in addresses."),
    (3, "Write letters to a friend."),
]


def index() -> TextIndex:
    return TextIndex.build(DOCUMENTS, analyzer_for("en"))


def test_a_word_held_in_no_form_is_related_by_its_root() -> None:
    text = index()
    (capital, letters) = analyzer_for("en").terms("capital letters")
    assert text.absent([capital]) == ("capital",) and text.related([capital, letters]) == ("capital",)
    page = text.ranked([replace(capital, by_root=True), letters])
    assert sorted(row.position for row in page.rows) == [1, 3] and not page.all_terms  # each holds one word
    assert not text.ranked([capital]).rows  # unchanged, the word itself matches nothing


def test_a_word_held_is_never_widened_and_nothing_related_stays_unknown() -> None:
    text = index()
    (comma,) = analyzer_for("en").terms("comma")
    (zebra,) = analyzer_for("en").terms("zebras")
    assert text.related([comma, zebra]) == () and text.absent([zebra]) == ("zebras",)


def test_a_related_form_orders_matches_of_other_words_and_never_makes_one() -> None:
    """A statement holding one query word and another only in a related form ("descartados" for "descarte")
    ranks above one holding the first word alone, and stays an "only some terms" match; a statement holding
    the related form alone is no match at all."""
    analyzer = analyzer_for("pt")
    documents = [
        (1, "Discutir o descarte de objetos."),
        (2, "Classificar objetos."),
        (3, "Comparar objetos descartados e reciclados na escola."),
        (4, "Materiais descartados."),
    ]
    text = TextIndex.build(documents, analyzer)
    page = text.ranked(analyzer.terms("descarte objetos"))
    assert [(row.position, row.complete) for row in page.rows] == [(1, True), (3, False), (2, False)]
    assert (page.all_terms, page.some_terms) == (1, 2)
    assert [row.position for row in text.ranked(analyzer.terms("descarte")).rows] == [1]
