"""bounded_json_loads: client JSON is measured (size, nesting outside strings) before it is decoded."""

from __future__ import annotations

import pytest

from kgfegmcp.core.bounded_json import ClientJsonError, bounded_json_loads


def loads(document: str | bytes, max_bytes: int = 10_000, max_depth: int = 4) -> object:
    return bounded_json_loads(document, max_bytes=max_bytes, max_depth=max_depth)


def refusal(document: str | bytes, max_bytes: int = 10_000, max_depth: int = 4) -> str:
    with pytest.raises(ClientJsonError) as info:
        loads(document, max_bytes, max_depth)
    return str(info.value)


def test_documents_within_bounds_decode_exactly() -> None:
    assert loads('["a", "b"]') == ["a", "b"]
    assert loads(b'{"p": {"offset": 3}}') == {"p": {"offset": 3}}
    assert loads("[[[[1]]]]") == [[[[1]]]]  # exactly at the depth bound
    assert loads('["[[[[[[", "{{{{{{", "\\"]]]]"]') == ["[[[[[[", "{{{{{{", '"]]]]']  # brackets in strings


@pytest.mark.parametrize("depth", [5, 1_000, 100_000])
def test_nesting_beyond_the_bound_is_refused_not_recursed(depth: int) -> None:
    for document in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth):
        assert refusal(document, max_bytes=10**6) == "is nested deeper than 4 levels"


def test_size_is_measured_in_utf8_bytes() -> None:
    assert refusal('"' + "ç" * 10 + '"', max_bytes=20) == "is larger than 20 bytes"
    assert loads('"' + "ç" * 9 + '"', max_bytes=20) == "ç" * 9
    assert refusal(b"[" + b"1," * 100 + b"1]", max_bytes=100) == "is larger than 100 bytes"


def test_what_is_not_json_text_is_refused() -> None:
    for document in ("[NaN]", "Infinity", "-Infinity", "[1,", "", "'a'", '"\\ud800"', '["\\udfff"]', "\ud800"):
        assert refusal(document) == "is not valid JSON text", document
    assert refusal(b"\xff\xfe") == "is not UTF-8 text"
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"  # a surrogate pair is one character


def test_an_unterminated_string_full_of_quotes_is_linear() -> None:
    # Every second character an escaped quote: a naive scanner would rescan from each one.
    document = '"' + '\\"' * 200_000
    assert refusal(document, max_bytes=10**6) == "is not valid JSON text"


def test_an_object_repeating_a_key_is_refused_without_echoing_it() -> None:
    # json.loads would keep the last value: {"offset": 0} here, whatever the first said.
    assert refusal('{"offset": 9, "offset": 0}') == "repeats a key in an object"
    assert refusal('[{"a": {"private-name": 1, "private-name": 1}}]') == "repeats a key in an object"
    assert loads('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}  # one key in two objects is two keys


def test_depth_is_counted_past_literals_and_escapes() -> None:
    # Literals and escaped quotes outside the brackets' count must neither close nor open a level.
    assert loads('[true, "\\"]]]", [false, [null, "\\\\"]]]') == [True, '"]]]', [False, [None, "\\"]]]
    assert refusal('[true, [false, [null, ["\\"", [1]]]]]') == "is nested deeper than 4 levels"
