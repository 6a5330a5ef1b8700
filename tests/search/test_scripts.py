"""Folding and word splitting in every script: only Latin diacritics fold, marks never split words, CJK pairs."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkout import REPOSITORY_ROOT
from kgfegmcp.search import normalize
from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.normalize import cased_words, fold, query_tokens, tokens, word_forms


def previous_fold(text: str) -> str:
    """Folding as it was for every script: compatibility decomposition, every combining mark stripped."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(character for character in decomposed if not unicodedata.combining(character))


@pytest.mark.parametrize(
    ("voiced", "unvoiced"),
    [("モデル", "モテル"), ("できる", "てきる"), ("ガ", "カ"), ("パン", "ハン"), ("ぷ", "ふ")],
)
def test_kana_voicing_marks_are_never_folded(voiced: str, unvoiced: str) -> None:
    assert fold(voiced) == voiced and fold(voiced) != fold(unvoiced)
    assert tokens(voiced) != tokens(unvoiced)


@pytest.mark.parametrize(
    ("typed", "folded"),
    [
        ("ﾓﾃﾞﾙ", "モデル"),  # half-width katakana, voicing mark apart
        ("ﾊﾟﾝ", "パン"),
        ("\uff21\uff22\uff23\uff11\uff12\uff13", "abc123"),  # full-width Latin and digits
        ("㌀", "アパート"),  # a squared katakana word keeps its handakuten
        ("ﻛﺘﺎﺏ", "كتاب"),  # Arabic presentation forms
        ("Frações", "fracoes"),
        ("İstanbul", "istanbul"),
        ("Ångström ﬁnal", "angstrom final"),
    ],
)
def test_compatibility_forms_become_ordinary_letters(typed: str, folded: str) -> None:
    assert fold(typed) == folded


@pytest.mark.parametrize(
    "text",
    [
        "분수의 의미를 이해하고",  # Hangul syllables stay syllables, not conjoining jamo
        "भिन्नों का अर्थ समझना",  # vowel signs, virama, anusvara
        "क़लम",  # nukta (its composed form is excluded from NFC: the letter and its nukta stay)
        "أإآؤئ",  # hamza letters
        "ёлка й",  # Cyrillic letters with diacritics are other letters
        "μαθηματικά",
    ],
)
def test_non_latin_letters_keep_their_marks(text: str) -> None:
    assert unicodedata.normalize("NFC", fold(text)) == unicodedata.normalize("NFC", text.casefold())


def test_optional_vowel_signs_are_dropped_and_letters_kept() -> None:
    assert tokens("فَهْمُ مَعْنَى الكُسُورِ") == tokens("فهم معنى الكسور") == ["فهم", "معنى", "الكسور"]
    assert fold("كتـــاب") == "كتاب"  # tatweel only stretches a word
    assert fold("הַמָּתֵמָטִיקָה") == "המתמטיקה"


def test_marks_never_split_words() -> None:
    assert tokens("भिन्नों का अर्थ समझना।") == ["भिन्नों", "का", "अर्थ", "समझना"]
    assert tokens("ภาษาไทย") == ["ภาษาไทย"]  # Thai vowel and tone marks
    assert tokens("می\u200cروم") == ["می\u200cروم"]  # a zero-width non-joiner joins a Persian word


def test_cjk_runs_are_overlapping_pairs() -> None:
    assert tokens("分数の意味を理解し、図を用いて説明できる。") == [
        *("分数", "数の", "の意", "意味", "味を", "を理", "理解", "解し"),  # the comma ends a run
        *("図を", "を用", "用い", "いて", "て説", "説明", "明で", "でき", "きる"),
    ]
    assert tokens("분수의 의미") == ["분수", "수의", "의미"]  # a space ends a run
    assert tokens("図") == ["図"] and tokens("5年生 abc漢") == ["5", "年生", "abc", "漢"]
    assert tokens("コンピューター") == ["コン", "ンピ", "ピュ", "ュー", "ータ", "ター"]  # the long vowel mark is kana


def test_a_cjk_word_inside_a_sentence_is_found_by_its_pairs_in_order() -> None:
    sentence = tokens("理解分数的意义并能用图表说明")
    for word in ("分数", "意义", "图表说明"):
        pairs = tokens(word)
        assert any(sentence[i : i + len(pairs)] == pairs for i in range(len(sentence))), word
    assert query_tokens("分数 分数") == ["分数"]


def test_every_mark_lies_where_the_word_pattern_looks() -> None:
    """The word pattern lists marks from ``_MARK_SPACE`` only: every mark of this Unicode is there."""
    scanned = {code_point for space in normalize._MARK_SPACE for code_point in space}
    marks = [c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c))[0] == "M"]
    assert marks and all(c in scanned for c in marks)


#: Latin, its diacritics (composed and combining), digits, spaces, punctuation and symbols: Portuguese and
#: English text, which folds exactly as it always did. Not U+0345, the Greek iota subscript: it casefolds
#: to the Greek letter iota, which then keeps the marks that follow it.
LATIN_TEXT = st.text(
    st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x24F),
        st.characters(min_codepoint=0x1E00, max_codepoint=0x1EFF),
        st.characters(min_codepoint=0x300, max_codepoint=0x36F, exclude_characters="\u0345"),
        st.characters(min_codepoint=0x2000, max_codepoint=0x206F),
        st.sampled_from("ºª°½²ﬁﬂᵒ€→≠≥π"),
    ),
    max_size=40,
)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(LATIN_TEXT)
def test_latin_text_folds_as_it_always_did(text: str) -> None:
    assert fold(text) == previous_fold(text)


#: Every script this module treats apart, mixed with Latin, marks and punctuation.
MIXED_TEXT = st.text(
    st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x24F),
        st.characters(min_codepoint=0x300, max_codepoint=0x36F),
        st.characters(min_codepoint=0x370, max_codepoint=0x4FF),
        st.characters(min_codepoint=0x590, max_codepoint=0x6FF),
        st.characters(min_codepoint=0x900, max_codepoint=0x97F),
        st.characters(min_codepoint=0x3000, max_codepoint=0x30FF),
        st.characters(min_codepoint=0x4E00, max_codepoint=0x4E80),
        st.characters(min_codepoint=0xAC00, max_codepoint=0xAC80),
        st.characters(min_codepoint=0xFF00, max_codepoint=0xFFEF),
    ),
    max_size=30,
)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(MIXED_TEXT)
def test_folding_twice_is_folding_once(text: str) -> None:
    """A query typed in folded form meets the text it was folded from."""
    assert fold(fold(text)) == fold(text)
    assert tokens(fold(text)) == tokens(text)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.one_of(LATIN_TEXT, MIXED_TEXT))
def test_written_forms_pair_with_the_folded_words(text: str) -> None:
    """The dictionary reads the written form of exactly the words the index holds folded."""
    forms = word_forms(text)
    assert [folded for _, folded in forms] == tokens(text)
    assert all(fold(written) == folded or not written.isascii() for written, folded in forms)
    cased = cased_words(text)
    assert not cased or [word.casefold() for word in cased] == [written for written, _ in forms]


@pytest.mark.parametrize(
    ("language", "analysis"),
    [
        ("pt-BR", "pt-lemmas"),
        ("en", "en-lemmas"),
        ("hi", "folded; no dictionary for language 'hi': words are matched as written"),
        ("ar", "folded; no dictionary for language 'ar': words are matched as written"),
    ],
)
def test_the_analysis_says_when_no_dictionary_applies(language: str, analysis: str) -> None:
    assert analyzer_for(language).described(character_pairs=False) == analysis


def test_no_dictionary_means_no_stop_words_and_words_as_written() -> None:
    analyzer = analyzer_for("hi")
    assert [(t.exact, t.stem) for t in analyzer.terms("भिन्नों का अर्थ")] == [
        ("भिन्नों", "भिन्नों"),
        ("का", "का"),
        ("अर्थ", "अर्थ"),
    ]
    assert analyzer_for("ja").described(character_pairs=True) == (
        "folded, CJK as overlapping character pairs; no dictionary for language 'ja': words are matched as written"
    )


def test_the_generated_mark_table_is_the_running_unicode_data() -> None:
    """The committed table is what ``scripts/generate_unicode_marks.py`` writes from this Python's data."""
    import unicodedata
    from pathlib import Path

    from kgfegmcp.search import normalize, unicode_marks

    if unicodedata.unidata_version != unicode_marks.UNIDATA_VERSION:
        pytest.skip("another Unicode version: normalize computes the ranges itself")
    assert normalize.mark_ranges() == unicode_marks.MARK_RANGES
    generator = REPOSITORY_ROOT / "scripts" / "generate_unicode_marks.py"
    namespace: dict[str, object] = {"__name__": "generate_unicode_marks", "__file__": str(generator)}
    exec(compile(generator.read_text(encoding="utf-8"), str(generator), "exec"), namespace)
    render = namespace["render"]
    assert callable(render)
    assert render() == Path(unicode_marks.__file__).read_text(encoding="utf-8")
