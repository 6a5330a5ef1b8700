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
