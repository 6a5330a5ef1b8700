"""The published text patterns mean exactly what the server checks, character for character.

``pattern`` is read by clients as ECMA-262 and checked here with Python ``re``; the character classes
are written with ``\\uXXXX`` escapes only, which both read the same way.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgfegmcp.core.errors import InvalidRequestError
from kgfegmcp.core.limits import MAX_QUERY_TOKENS
from kgfegmcp.prompts.arguments import validate_arguments
from kgfegmcp.prompts.workflows import WORKFLOWS
from kgfegmcp.search.normalize import query_tokens
from kgfegmcp.services.requests import SearchLearningComponentsRequest
from kgfegmcp.services.schema_rules import NOT_BLANK_PATTERN, SPACE_CODE_POINTS, WORKFLOW_TEXT_PATTERN

ALL_CODE_POINTS = range(0x110000)
# The characters the rules are about (whitespace, controls) and their neighbours, plus anything.
BOUNDARY = st.sampled_from([chr(c) for c in (*range(0x00, 0x21), *range(0x7E, 0xA2), 0x1680, 0x2000, 0x200B, 0x3000)])
# Strings a JSON client can send: no lone surrogates (pydantic refuses those as not Unicode).
TEXT = st.text(st.one_of(BOUNDARY, st.characters(codec="utf-8")), min_size=1, max_size=40)


def _workflow_text_accepted(text: str) -> bool:
    """What the prompt argument rules (shared by the tool and the prompts) say about one text value."""
    try:
        validate_arguments(WORKFLOWS["practice_item_set"], {"framework_id": "some-framework", "topic": text})
    except InvalidRequestError:
        return False
    return True


def _published_workflow_text(text: str) -> bool:
    # ECMA-262: ``$`` without the m flag is the end of input; in Python ``re`` that is ``\Z``.
    return re.search(WORKFLOW_TEXT_PATTERN.removesuffix("$") + r"\Z", text) is not None


def test_space_code_points_are_what_strip_removes() -> None:
    assert {c for c in ALL_CODE_POINTS if chr(c).isspace()} == SPACE_CODE_POINTS


def test_not_blank_pattern_is_what_the_query_check_enforces() -> None:
    pattern = re.compile(NOT_BLANK_PATTERN)
    assert all((pattern.search(chr(c)) is None) == (chr(c).strip() == "") for c in ALL_CODE_POINTS)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_query_is_accepted_exactly_when_the_published_pattern_matches(text: str) -> None:
    matches = re.search(NOT_BLANK_PATTERN, text) is not None
    if matches and len(query_tokens(text)) <= MAX_QUERY_TOKENS:
        SearchLearningComponentsRequest.model_validate({"query": text})
    elif not matches:
        with pytest.raises(ValueError, match="other than whitespace"):
            SearchLearningComponentsRequest.model_validate({"query": text})


def test_workflow_text_pattern_is_the_argument_rule_for_every_single_character() -> None:
    for c in (*range(0x3100), 0xFEFF, 0xFFFD, 0x10FFFF):
        assert _published_workflow_text(chr(c)) == _workflow_text_accepted(chr(c)), hex(c)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_workflow_text_pattern_is_the_argument_rule(text: str) -> None:
    assert _published_workflow_text(text) == _workflow_text_accepted(text)
