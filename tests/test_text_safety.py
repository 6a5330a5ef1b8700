"""The one definition of unsafe text (``kgfegmcp.core.text_safety``): replaced at build, escaped for a terminal,
found in a package's bytes whatever way JSON writes it and wherever a read cuts it."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kgfegmcp.core.text_safety import (
    REPLACEMENT,
    UNSAFE_TEXT,
    UnsafeBytesScan,
    UnsafeTextTally,
    has_unprintable,
    safe_text,
    shown,
    shown_json,
)

#: Characters that make the hard cases: every kind of unsafe one, the allowed controls and marks, backslashes
#: and the letters of an escape (so a literal ``\\u202e`` in text is generated too), and multi-byte text.
ALPHABET = st.sampled_from(
    [
        *"\x00\x01\x07\x08\x0b\x0c\x1b\x1c\x1f\x7f\x80\x85\x9b\x9f",
        *"\u202a\u202d\u202e\u2066\u2069",
        *"\t\n\r\u200e\u200f\u061c\u2028",
        *"\\\\\\u0uu2e02f6b",
        *"a \u00e9\u2013\u2019\u201c\u2026\u3042\u00a0\ufffd",
    ]
)


def test_each_kind_of_unsafe_character_is_replaced_and_the_marks_are_kept() -> None:
    text = "A\x00B\x1b[31mC\x1b]8;;http://x\x1b\\D\u202eE\u2066F\x85G\x0cH\x7fI\x9bJ\u200fK\u061cL\tM\nN\rO"
    safe = safe_text(text)
    assert UNSAFE_TEXT.search(safe) is None
    # NEL and FF are whitespace to Python: a space, so a collapsed copy stays a copy; the rest U+FFFD.
    assert safe == (
        f"A{REPLACEMENT}B{REPLACEMENT}[31mC{REPLACEMENT}]8;;http://x{REPLACEMENT}\\D{REPLACEMENT}E{REPLACEMENT}F G H"
        f"{REPLACEMENT}I{REPLACEMENT}J\u200fK\u061cL\tM\nN\rO"
    )


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=40))
def test_replacing_commutes_with_collapsing_whitespace(text: str) -> None:
    """A description is its source text collapsed; both made safe, they are still each other's copy."""
    assert " ".join(safe_text(text).split()) == safe_text(" ".join(text.split()))
    assert len(safe_text(text)) == len(text)


def test_a_terminal_sees_escapes_never_the_characters() -> None:
    text = "code\x1b[31m\u202e\x00\n\u200f"
    assert shown(text) == "code\\x1b[31m\\u202e\\x00\\n\\u200f"
    assert not has_unprintable(shown(text))
    document = json.dumps({"title": text}, ensure_ascii=False)
    assert json.loads(shown_json(document)) == {"title": text}
    assert not has_unprintable(shown_json(document))


def test_a_tally_counts_per_member_not_per_occurrence() -> None:
    tally = UnsafeTextTally()
    for index in range(1000):
        tally.safe("StandardsFrameworkItem.description", f"item-{index}", "x\x1b[31m\x1b[0m")
    tally.safe("StandardsFrameworkItem.statementCode", "item\x1b-0", "EF\u202e01")
    assert [(m.member, m.values, sorted(m.code_points)) for m in tally.members()] == [
        ("StandardsFrameworkItem.description", 1000, ["U+001B"]),
        ("StandardsFrameworkItem.statementCode", 1, ["U+202E"]),
    ]
    description, code = tally.members()
    assert description.examples == ["item-0", "item-1", "item-2"]
    assert code.examples == ["item\\x1b-0"]  # an example is escaped too
    assert not has_unprintable(description.summary() + code.summary())


def _unsafe_in(strings: list[str]) -> int:
    return sum(len(UNSAFE_TEXT.findall(text)) for text in strings)


@settings(max_examples=400, deadline=None)
@given(
    strings=st.lists(st.text(ALPHABET, max_size=12), max_size=8),
    ensure_ascii=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_a_byte_scan_counts_what_the_json_strings_hold(strings: list[str], ensure_ascii: bool, cuts: list[int]) -> None:
    """Raw or escaped, cut anywhere, a literal backslash before ``u202e`` is text and not counted."""
    data = json.dumps(strings, ensure_ascii=ensure_ascii).encode("utf-8")
    scan = UnsafeBytesScan()
    start = 0
    for cut in sorted({min(cut, len(data)) for cut in cuts}):
        scan.feed(data[start:cut])
        start = cut
    scan.feed(data[start:])
    assert scan.count == _unsafe_in(strings)


def test_a_byte_scan_reads_a_backslash_run_longer_than_its_chunks() -> None:
    text = "\\" * 20 + "u202e and \u202e"  # 20 backslashes (even): the text is a literal \u202e, then a real one
    data = json.dumps([text, "\\b"], ensure_ascii=True).encode()
    scan = UnsafeBytesScan()
    for index in range(len(data)):
        scan.feed(data[index : index + 1])
    assert scan.count == 1
