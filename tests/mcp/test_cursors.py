"""Cursors: anything but the exact cursor this catalog issued for this cursor-free request is invalid_cursor."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.cursors import request_fingerprint
from kgfegmcp.services.requests import ListFrameworksRequest, SearchStandardsRequest
from package_factory import DAG, TREE
from served_apps import SERVED
from tool_calls import call, error, structured

SEARCH = {"query": "count number", "frameworkIds": [TREE, DAG], "limit": 1}
LIST = {"includeNonCurrent": True, "limit": 1}
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
INVALID_CURSOR_HINT = "Next action: Repeat the original request without a cursor to start again."


def listed(body: dict[str, Any]) -> list[Any]:
    """A catalog or search page's items (the page block says only hasMore and nextCursor)."""
    return list(body.get("hits", body.get("frameworks", [])))


async def first_cursor(client: Client[Any], tool: str, request: dict[str, Any]) -> str:
    page = structured(await call(client, tool, request))["page"]
    assert page["hasMore"] is True
    cursor = page["nextCursor"]
    assert isinstance(cursor, str)
    return cursor


async def assert_invalid(client: Client[Any], tool: str, request: dict[str, Any]) -> str:
    message = await error(client, tool, request)
    assert message.startswith("invalid_cursor: "), message
    assert message.endswith(INVALID_CURSOR_HINT)
    return message


def replace_char(cursor: str, index: int) -> str:
    old = cursor[index]
    new = ALPHABET[(ALPHABET.index(old) + 1) % len(ALPHABET)]
    position = index % len(cursor)
    return cursor[:position] + new + cursor[position + 1 :]


async def test_cursor_form(fixture_client: Client[Any]) -> None:
    for tool, request in (("search_standards", SEARCH), ("list_frameworks", LIST)):
        cursor = await first_cursor(fixture_client, tool, request)
        assert set(cursor) <= set(ALPHABET) and "=" not in cursor and len(cursor) <= 4096
        second = structured(await call(fixture_client, tool, {**request, "cursor": cursor}))
        assert len(listed(second)) == 1


@pytest.mark.parametrize("tool", ["search_standards", "list_frameworks"])
async def test_tampered_cursors(fixture_client: Client[Any], tool: str) -> None:
    request = SEARCH if tool == "search_standards" else LIST
    cursor = await first_cursor(fixture_client, tool, request)
    for index in (0, 1, len(cursor) // 3, len(cursor) // 2, -2, -1):
        await assert_invalid(fixture_client, tool, {**request, "cursor": replace_char(cursor, index)})
    await assert_invalid(fixture_client, tool, {**request, "cursor": cursor[::-1]})
    await assert_invalid(fixture_client, tool, {**request, "cursor": cursor[1:] + cursor[0]})


@pytest.mark.parametrize("tool", ["search_standards", "list_frameworks"])
async def test_truncated_cursors(fixture_client: Client[Any], tool: str) -> None:
    request = SEARCH if tool == "search_standards" else LIST
    cursor = await first_cursor(fixture_client, tool, request)
    for cut in (
        cursor[:-1],
        cursor[:-2],
        cursor[:-3],
        cursor[:-22],
        cursor[: len(cursor) // 2],
        cursor[:4],
        cursor[:1],
    ):
        await assert_invalid(fixture_client, tool, {**request, "cursor": cut})
    await assert_invalid(fixture_client, tool, {**request, "cursor": ""})


@pytest.mark.parametrize("tool", ["search_standards", "list_frameworks"])
async def test_padded_and_non_base64url_cursors(fixture_client: Client[Any], tool: str) -> None:
    request = SEARCH if tool == "search_standards" else LIST
    cursor = await first_cursor(fixture_client, tool, request)
    for variant in (
        cursor + "=",
        cursor + "==",
        cursor + "===",
        cursor[:5] + "+" + cursor[6:],
        cursor[:5] + "/" + cursor[6:],
        f" {cursor}",
        f"{cursor}\n",
        cursor[:10] + "." + cursor[10:],
    ):
        await assert_invalid(fixture_client, tool, {**request, "cursor": variant})


@pytest.mark.parametrize("tool", ["search_standards", "list_frameworks"])
async def test_over_long_cursors(fixture_client: Client[Any], tool: str) -> None:
    request = SEARCH if tool == "search_standards" else LIST
    cursor = await first_cursor(fixture_client, tool, request)
    for variant in (cursor + "A" * (4097 - len(cursor)), "A" * 4097, "A" * 20000):
        assert len(variant) > 4096
        await assert_invalid(fixture_client, tool, {**request, "cursor": variant})
    # Within the length bound but not one of ours.
    await assert_invalid(fixture_client, tool, {**request, "cursor": "A" * 4096})
    await assert_invalid(fixture_client, tool, {**request, "cursor": cursor + "AAAA"})


async def test_replay_with_a_changed_request(fixture_client: Client[Any]) -> None:
    cursor = await first_cursor(fixture_client, "search_standards", SEARCH)
    for changed in (
        {"query": "count"},
        {"query": "Count Number"},
        {"limit": 2},
        {"frameworkIds": [DAG, TREE]},
        {"frameworkIds": [TREE]},
        {"gradeLevels": ["2"]},
        {"statementTypes": ["Standard"]},
        {"academicSubjects": ["Mathematics"]},
        {"searchMode": "text"},
        {"snapshotIds": ["2026-01"]},
    ):
        message = await assert_invalid(fixture_client, "search_standards", {**SEARCH, **changed, "cursor": cursor})
        assert "only the cursor may change" in message
    listing = await first_cursor(fixture_client, "list_frameworks", LIST)
    for changed in (
        {"limit": 2},
        {"includeNonCurrent": False},
        {"graphTypes": ["AcademicStandards"]},
        {"frameworkIds": [TREE]},
    ):
        await assert_invalid(fixture_client, "list_frameworks", {**LIST, **changed, "cursor": listing})
    # A cursor of one tool does not continue another.
    await assert_invalid(fixture_client, "list_frameworks", {**LIST, "cursor": cursor})
    await assert_invalid(fixture_client, "search_standards", {**SEARCH, "cursor": listing})


async def test_replay_against_a_different_catalog(fixture_client: Client[Any], other_state: AppState) -> None:
    cursor = await first_cursor(fixture_client, "search_standards", SEARCH)
    listing = await first_cursor(fixture_client, "list_frameworks", {"limit": 1})
    async with SERVED.client(other_state) as other:
        own = await first_cursor(other, "search_standards", SEARCH)
        assert len(listed(structured(await call(other, "search_standards", {**SEARCH, "cursor": own})))) == 1
        message = await assert_invalid(other, "search_standards", {**SEARCH, "cursor": cursor})
        assert "another catalog" in message
        await assert_invalid(other, "list_frameworks", {"limit": 1, "cursor": listing})
        other_listing = await first_cursor(other, "list_frameworks", {"limit": 1})
    await assert_invalid(fixture_client, "search_standards", {**SEARCH, "cursor": own})
    await assert_invalid(fixture_client, "list_frameworks", {"limit": 1, "cursor": other_listing})


async def test_checksummed_cursor_with_an_impossible_position(
    fixture_client: Client[Any], fixture_state: AppState
) -> None:
    """A cursor sealed with the server's own key (a replica's, or a leaked secret) that points nowhere,
    or at the end of the result, is still invalid_cursor."""
    codec = fixture_state.cursors
    search = request_fingerprint(SearchStandardsRequest.model_validate(SEARCH))
    listing = request_fingerprint(ListFrameworksRequest.model_validate(LIST))
    searched = structured(await call(fixture_client, "search_standards", SEARCH))["total"]
    frameworks = structured(await call(fixture_client, "list_frameworks", LIST))["total"]
    positions: list[dict[str, Any]] = [{"offset": "1"}, {"offset": None}, {}, {"offset": -1}, {"offset": 10**9}]
    for position in [*positions, {"offset": searched}, {"offset": searched + 1}]:
        await assert_invalid(
            fixture_client, "search_standards", {**SEARCH, "cursor": codec.encode("search_standards", search, position)}
        )
    for position in [*positions, {"offset": True}, {"offset": 1.5}, {"offset": frameworks}]:
        await assert_invalid(
            fixture_client, "list_frameworks", {**LIST, "cursor": codec.encode("list_frameworks", listing, position)}
        )
    # The same codec with a sound position is accepted: the rejections above are about the position.
    good = codec.encode("list_frameworks", listing, {"offset": 1})
    assert len(listed(structured(await call(fixture_client, "list_frameworks", {**LIST, "cursor": good})))) == 1
    last = codec.encode("list_frameworks", listing, {"offset": frameworks - 1})
    assert len(listed(structured(await call(fixture_client, "list_frameworks", {**LIST, "cursor": last})))) == 1
