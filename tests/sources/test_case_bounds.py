"""What a CFPackage may hold, checked while it is read: the length of every string and of every record, the
values of a record, members it repeats, and the deadline of the command reading it.

Every bound exists so that a build takes memory and time in proportion to its input and writes only a package
that can be served (a record line of at most 1 MiB, a statement code a code search can find). Hostile values
are built small, with the bound scaled down through :class:`ReadLimits`, except where the product's own bound
is cheap to reach.
"""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_case_source import DOC, S1, S2, build, cf_package, write_case

from kgfegmcp.core.errors import ManifestBuildError, SourceFetchError
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseInputOrigin, CaseSource
from kgfegmcp.sources.case.client import FetchDeadline
from kgfegmcp.sources.case.reader import (
    _READ_BYTES,
    MAX_CODE_CHARS,
    MAX_MEMBER_CHARS,
    MAX_RECORD_CHARS,
    MAX_STRING_BYTES,
    CasePackageReader,
    ReadLimits,
    _LongString,
    _Source,
    _StringBound,
)

LABEL = "CASE input x.json"
CJK = "中文字教育課程基準"


def refusal(data: bytes, limits: ReadLimits | None = None) -> str:
    """The one coded line reading ``data`` ends with (every pass read, as a build reads them)."""
    with pytest.raises(ManifestBuildError) as caught:
        reader = CasePackageReader(io.BytesIO(data), LABEL, limits=limits)
        for _ in reader.items():
            pass
        for _ in reader.associations():
            pass
    message = caught.value.public_message
    assert message.startswith(f"manifest_build_error: {LABEL}") and "\n" not in message
    return message


def with_item(**members: Any) -> bytes:
    """The test package with its third CFItem (identifier S1) given ``members``."""
    document = cf_package()
    document["CFItems"][2].update(members)
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


# -- the length of strings, read before the parser is given them -----------------------------------


def test_a_code_longer_than_a_code_search_takes_is_refused_naming_the_item() -> None:
    message = refusal(with_item(humanCodingScheme="PS." + "1" * MAX_CODE_CHARS))
    assert f"CFItems[2] (identifier {S1!r}) has a humanCodingScheme of {MAX_CODE_CHARS + 3} characters" in message
    assert f"a statement code holds at most {MAX_CODE_CHARS}" in message
    assert "Next action: Ask the publisher to correct the CFPackage; a value is never cut short" in message
    assert CasePackageReader(io.BytesIO(with_item(humanCodingScheme="P" * MAX_CODE_CHARS)), LABEL).document
    message = refusal(with_item(humanCodingScheme="P" * 5_000), ReadLimits(max_string_bytes=4_096))
    assert "has a string in humanCodingScheme longer than 4,096 bytes as written; a statement code holds at most" in (
        message
    )


def test_a_member_past_its_bound_is_refused_even_when_the_identifier_comes_after_it() -> None:
    """The record is named when it ends, so an identifier written after the long member still names it."""
    document = cf_package()
    document["CFItems"][2] = {"fullStatement": "x" * (MAX_MEMBER_CHARS + 1), "identifier": S1}
    message = refusal(json.dumps(document).encode("utf-8"))
    assert f"CFItems[2] (identifier {S1!r}) has a fullStatement of {MAX_MEMBER_CHARS + 1:,} characters" in message
    assert f"one member holds at most {MAX_MEMBER_CHARS:,}" in message


def test_nested_text_is_bounded_and_named_by_its_path() -> None:
    document = cf_package()
    document["CFAssociations"][0]["originNodeURI"]["title"] = "t" * (MAX_MEMBER_CHARS + 1)
    message = refusal(json.dumps(document).encode("utf-8"))
    assert "CFAssociations[0] (identifier 'a1') has a originNodeURI.title of 32,769 characters" in message


def test_what_a_record_holds_together_is_bounded() -> None:
    half = MAX_RECORD_CHARS // 2
    message = refusal(with_item(fullStatement="s" * half, notes="n" * half, abbreviatedStatement="a" * 10))
    counted = len(S1) + 2 * half + len("PS.1") + len("Standard") + len("01") + 10
    assert f"CFItems[2] (identifier {S1!r}) holds {counted:,} characters of text in its members" in message
    assert f"a record holds at most {MAX_RECORD_CHARS:,}, so that every line of the package stays" in message


def test_members_the_package_does_not_copy_are_held_only_to_the_reading_bounds() -> None:
    """``extensions`` and unknown members are not read into the package: long text there is no servability
    problem (only a string past the reading bound is refused)."""
    reader = CasePackageReader(io.BytesIO(with_item(extensions={"note": "e" * (2 * MAX_RECORD_CHARS)})), LABEL)
    assert sum(1 for _ in reader.items()) == 6
    message = refusal(with_item(extensions={"note": "e" * (MAX_STRING_BYTES + 1)}))
    assert f"has a string in extensions.note longer than {MAX_STRING_BYTES:,} bytes as written" in message


@pytest.mark.parametrize("text", ["中", "\\u4e2d", "\\ud83e\\uddea", "a"])
def test_a_long_string_is_refused_before_the_parser_is_given_it(text: str) -> None:
    """The parser (yajl) reads a string cut across its reads again from its start at every read, so its
    work grows with the square of the string: the reader hands it no more than the opening quote of a string
    past the bound, whatever the string's length (one read, not the whole string)."""
    limit = 4096
    head = json.dumps(cf_package())[:-1] + ', "CFRubrics": [{"title": "'
    data = (head + text * 300_000 + '"}]}').encode("utf-8")
    source = _Source(io.BytesIO(data), LABEL, None, True, ReadLimits(max_string_bytes=limit), None)
    given_to_parser = b""
    with pytest.raises(_LongString):
        while chunk := source.read(_READ_BYTES):
            given_to_parser += chunk
    assert given_to_parser == head.encode("utf-8")  # everything before the string, and its opening quote
    message = refusal(data, ReadLimits(max_string_bytes=limit))
    assert "CFRubrics[0] has a string in title longer than 4,096 bytes as written" in message


def test_an_eighteen_megabyte_statement_is_refused_at_once(tmp_path: Path, profiles_root: Path) -> None:
    """18 MB of CJK text in one fullStatement kept a build busy for a minute (the parser's quadratic reread);
    now only the reading bound is read of it."""
    path = tmp_path / "long.json"
    document = json.dumps(cf_package(), ensure_ascii=False).replace("Physical Science", "@@")
    before, after = document.split("@@")
    with path.open("w", encoding="utf-8") as out:
        out.write(before)
        for _ in range(18):
            out.write(CJK * (1_000_000 // 3 // len(CJK)))
        out.write(after)
    assert path.stat().st_size > 17_000_000
    with pytest.raises(ManifestBuildError) as caught:
        CaseSource().build(path, ProfileRepository(profiles_root))
    assert "CFItems[0] (identifier '9a1c0000-0000-4000-8000-000000000010') has a string in fullStatement longer " in (
        caught.value.public_message
    )


def _strings(text: bytes) -> list[tuple[int, int]]:
    """Every JSON string of ``text`` as (offset after its opening quote, length as written), lexed whole."""
    return [(m.start() + 1, m.end() - m.start() - 2) for m in re.finditer(rb'"(?:[^"\\]|\\[\s\S])*"', text)]


_PIECES = [b"a", b"\\\\", b'\\"', b"\\u4e2d", " 中".encode(), b'", "']


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=120), max_size=5),
    limit=st.integers(min_value=1, max_value=12),
)
def test_the_string_bound_agrees_with_lexing_the_whole_text(pieces: list[bytes], cuts: list[int], limit: int) -> None:
    """Whatever the chunking, the first cut falls just after the opening quote of the first string longer than
    the limit (or at the start of the chunk it is found in, when that string began in an earlier one)."""
    text = b'["' + b"".join(pieces) + b'"]'
    strings = _strings(text)
    expected = next((start for start, length in strings if length > limit), None)
    bound = _StringBound(limit)
    start = 0
    found = None
    for cut in [*sorted(c for c in cuts if c <= len(text)), len(text)]:
        if cut <= start:
            continue
        at = bound.cut(text[start:cut])
        if at is not None:
            found = start + at
            break
        start = cut
    if expected is None:
        assert found is None
    else:
        assert found is not None  # at its opening quote, or within the limit after it (an earlier chunk had it)
        assert expected <= found <= expected + limit


# -- the values of a record, and the members of the package ---------------------------------------


def test_a_record_of_too_many_values_is_refused_while_it_is_read() -> None:
    message = refusal(with_item(conceptKeywords=["k"] * 2_000), ReadLimits(max_record_values=1_000))
    assert f"CFItems[2] (identifier {S1!r}) holds more than 1,000 values and member names" in message


def test_a_package_object_of_too_many_members_is_refused() -> None:
    document: dict[str, Any] = cf_package()
    document.update({f"unknown{n}": n for n in range(50)})
    message = refusal(json.dumps(document).encode("utf-8"), ReadLimits(max_package_members=40))
    assert "has more than 40 members in one object of its top level" in message


# -- a member named twice in one object -------------------------------------------------------------


def _repeat(text: str, member: str, first: str, second: str, anchor: str) -> bytes:
    """``text`` with ``"member": first, "member": second`` written just after ``anchor``."""
    repeated = f"{json.dumps(member)}: {first}, {json.dumps(member)}: {second}, "
    assert anchor in text
    return text.replace(anchor, anchor + repeated, 1).encode("utf-8")


@pytest.mark.parametrize(
    ("anchor", "member", "named"),
    [
        (f'{{"identifier": "{S1}", ', "humanCodingScheme", f"CFItems[2] (identifier {S1!r}) repeats the member "),
        ('"originNodeURI": {', "identifier", "CFAssociations[0] (identifier 'a1') repeats the member originNodeURI."),
        ('"CFDocument": {', "title", f"CFDocument (identifier {DOC!r}) repeats the member "),
        ('"licenseURI": {', "uri", f"CFDocument (identifier {DOC!r}) repeats the member licenseURI."),
    ],
)
def test_a_member_named_twice_in_a_record_is_refused_not_resolved_by_order(
    anchor: str, member: str, named: str
) -> None:
    data = _repeat(json.dumps(cf_package()), member, '"first"', '"second"', anchor)
    message = refusal(data)
    assert named + member in message and "which of its values counts is not decided here" in message


def test_a_definition_named_twice_is_refused() -> None:
    document = cf_package()
    document["CFDefinitions"] = {"CFLicenses": []}
    data = _repeat(json.dumps(document), "CFLicenses", "[]", '[{"identifier": "lic-1"}]', '"CFDefinitions": {')
    assert "CFDefinitions repeats the member CFLicenses" in refusal(data)


def test_the_same_name_in_sibling_objects_is_no_repeat() -> None:
    document = cf_package()
    document["CFItems"][2]["CFItemTypeURI"] = {"identifier": "t", "title": "Standard"}
    document["CFItems"][2]["licenseURI"] = {"identifier": "t", "title": "Licence"}
    reader = CasePackageReader(io.BytesIO(json.dumps(document).encode("utf-8")), LABEL)
    assert sum(1 for _ in reader.items()) == 6


# -- a package at every bound is servable -----------------------------------------------------------


def test_a_record_at_its_bounds_builds_into_a_package_that_validates(tmp_path: Path, profiles_root: Path) -> None:
    """Text at the member and record bounds, in characters that take the most bytes in a line (four-byte
    characters, quotes that are escaped): the package holds it and validates."""
    statement = ("\U0001f9ea" + '"') * (MAX_MEMBER_CHARS // 2)
    counted = len(S2) + len("Standard") + len("PS.2") + len(statement)
    notes = "\u00e9" * (MAX_RECORD_CHARS - counted)
    document = cf_package()
    item = document["CFItems"][3]
    item.update(fullStatement=statement, notes=notes, identifier=S2, humanCodingScheme="PS.2")
    del item["educationLevel"]
    content, result = build(write_case(tmp_path / "full.json", document), profiles_root, tmp_path / "out")
    assert result.accepted, result.outcome.findings
    assert {i.description for i in content.items} >= {statement}
    item["notes"] = notes + "\u00e9"
    over = write_case(tmp_path / "over.json", document)
    with pytest.raises(ManifestBuildError, match=f"a record holds at most {MAX_RECORD_CHARS:,}"):
        CaseSource().build(over, ProfileRepository(profiles_root))


# -- the deadline of the command reading it ----------------------------------------------------------


def _large(items: int) -> bytes:
    document = cf_package(items=[])
    document["CFItems"] = [
        {
            "identifier": f"9a1c0000-0000-4000-8000-{number:012d}",
            "fullStatement": f"Statement {number}: describe the properties of matter and energy.",
            "humanCodingScheme": f"G.{number}",
            "CFItemType": "Standard",
        }
        for number in range(1000, 1000 + items)
    ]
    return json.dumps(document).encode("utf-8")


def test_a_build_is_stopped_by_a_deadline_that_has_passed(profiles_root: Path) -> None:
    """The deadline is checked before every read: once it has passed, the next read ends the build."""
    data = _large(3_000)
    stream = io.BytesIO(data)
    passed = FetchDeadline(0.5, time.monotonic())
    origin = CaseInputOrigin.fetched("https://case.test/ims/case/v1p0/CFPackages/x", "https://case.test/x")
    with pytest.raises(SourceFetchError) as caught:
        CaseSource().build_stream(stream, origin, ProfileRepository(profiles_root), None, lambda: passed.check("h"))
    message = caught.value.public_message
    assert message.startswith(
        "source_fetch_error: Building the CFPackage fetched from h took longer than the deadline of 0.5 s "
        "(--deadline bounds the download and the build together); nothing was written."
    )
    assert stream.tell() <= 3 + _READ_BYTES  # the byte-order-mark probe and one read at most


def test_the_deadline_is_checked_at_every_read_of_every_pass(profiles_root: Path) -> None:
    data = _large(3_000)
    calls = 0

    def checkpoint() -> None:
        nonlocal calls
        calls += 1

    origin = CaseInputOrigin.fetched("https://case.test/ims/case/v1p0/CFPackages/x", "https://case.test/x")
    (content,) = CaseSource().build_stream(io.BytesIO(data), origin, ProfileRepository(profiles_root), None, checkpoint)
    assert len(content.items) == 3_000
    reads = len(data) // _READ_BYTES
    assert calls >= 3 * reads  # the first pass, the vocabulary's pass over the items, the items' pass, and more
