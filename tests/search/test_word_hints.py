"""Hints for words not found: a text index's own nearest words, read from its term dictionary (real tantivy)."""

from __future__ import annotations

import pytest

from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.normalize import has_cjk
from kgfegmcp.search.text_index import TextIndex
from kgfegmcp.search.word_hints import HINTS_PER_WORD, Vocabulary, hinted_packages, max_edits, shared_needed, word_hints

ENGLISH = analyzer_for("en")

#: Statements and headings of a small framework; how many documents hold each word orders ties.
TEXTS = (
    "Ensure subject-verb agreement.",
    "Explain agreement and disagreement in a discussion.",
    "Agree on rules for discussions.",
    "The students agreed on a plan, for 2 weeks, code RL.3.1.",
    "Read agreeable characters' words.",
    "Write paragraphs; group related paragraphs.",
    "Divide fractions; division of whole numbers; divisibility rules.",
    "Count within 1000.",
    "数学的な見方・考え方を働かせる",
)


@pytest.fixture(scope="module")
def index() -> TextIndex:
    return TextIndex.build(((position, text) for position, text in enumerate(TEXTS)), ENGLISH)


def test_a_misspelling_gets_its_spelling_first_then_the_words_sharing_its_beginning(index: TextIndex) -> None:
    # One edit away: agreement; then the words sharing "agree" (5 letters), the longest shared beginning first,
    # then the word more documents hold, then the alphabet.
    assert word_hints(index, ENGLISH, ["agreemnt"]) == (("agreemnt", ("agreement", "agree", "agreeable", "agreed")),)
    # Sharing a beginning alone: the word more documents hold first ("agreement", in two), then the alphabet.
    assert word_hints(index, ENGLISH, ["agreeful"]) == (("agreeful", ("agreement", "agree", "agreeable", "agreed")),)
    assert word_hints(index, ENGLISH, ["paragrafs"]) == (("paragrafs", ("paragraphs",)),)
    # Neighbours share the first letter, or are the word with its first two letters swapped back.
    assert word_hints(index, ENGLISH, ["tsudents", "rgoup"]) == (("tsudents", ("students",)), ("rgoup", ("group",)))


def test_ties_go_to_the_word_more_documents_hold_then_the_alphabet(index: TextIndex) -> None:
    # "divisibilty" is one edit from "divisibility"; "divis" begins "division" and "divisibility".
    assert word_hints(index, ENGLISH, ["divisibilty"]) == (("divisibilty", ("divisibility",)),)
    assert word_hints(index, ENGLISH, ["divisions"]) == (("divisions", ("division", "divisibility")),)


def test_stop_words_codes_short_words_and_the_word_itself_are_never_hints(index: TextIndex) -> None:
    # "ther" is one edit from "the" (a stop word) and from nothing else held.
    assert word_hints(index, ENGLISH, ["ther"]) == ()
    # Codes and numbers ("rl", "1000") and words holding a digit are never hinted, nor hinted for.
    assert word_hints(index, ENGLISH, ["rl3", "1001", "cod"]) == (("cod", ("code",)),)
    # Under three letters nothing is near enough to say.
    assert word_hints(index, ENGLISH, ["wx"]) == ()


def test_character_pairs_get_no_hints(index: TextIndex) -> None:
    """A CJK query word is searched as overlapping pairs: a pair one edit from another is another word."""
    assert word_hints(index, ENGLISH, ["数字", "見力"]) == ()
    # And no pair is ever a hint for a Latin word.
    assert not any(has_cjk(w) for _, hints in word_hints(index, ENGLISH, ["agreemnt"]) for w in hints)


def test_at_most_a_few_hints_in_a_fixed_order() -> None:
    texts = [f"word{suffix}" for suffix in ("", "s", "y", "ed", "ing", "er", "ers", "ier")] + ["wordy wordy"]
    index = TextIndex.build(((i, t.replace("word", "sword")) for i, t in enumerate(texts)), ENGLISH)
    first = word_hints(index, ENGLISH, ["swordz"])
    (word, hints), *rest = first
    assert word == "swordz" and not rest and len(hints) == HINTS_PER_WORD
    # A fresh vocabulary over the same index reads the same words in the same order.
    assert Vocabulary(index, ENGLISH).hints("swordz") == hints


def test_edit_budget_and_shared_beginning_follow_the_word_length() -> None:
    assert [max_edits(w) for w in ("ab", "abc", "abcde", "abcdef")] == [0, 1, 1, 2]
    assert [shared_needed(w) for w in ("abcd", "abcdefgh", "quilombolas")] == [4, 5, 7]


def test_words_of_the_documents_own_text_only(index: TextIndex) -> None:
    """Hints come from the text field: every document is a statement or a heading, each counted once."""
    assert dict(index.words_with_prefix("agree")) == {"agreement": 2, "agree": 1, "agreed": 1, "agreeable": 1}


def test_hints_go_to_packages_that_read_the_query() -> None:
    assert hinted_packages([(3, ("x",)), (3, ("a", "b", "x"))]) == [True, False]
    assert hinted_packages([(1, ("agreemnt",)), (1, ("agreemnt",))]) == [True, True]  # found nowhere: hint all
    assert hinted_packages([]) == []
