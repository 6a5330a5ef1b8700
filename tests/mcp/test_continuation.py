"""The continuation block: only on non-last pages, defaults omitted, replayable unchanged with no gaps."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from test_search_standards import assert_ranked_by_strata, statement_roles

from default_catalog_ids import DEFAULT_FRAMEWORKS
from kgfegmcp.bootstrap import AppState
from package_factory import TREE
from tool_calls import call, continuation, page_through, structured

EF = "brazil-bncc-ensino-fundamental"


def hit_ids(pages: list[dict[str, Any]]) -> list[str]:
    return [hit["nodeId"] for page in pages for hit in page["hits"]]


def returned(page: dict[str, Any]) -> int:
    """How many items a page holds (its list's length: the page block says only hasMore and nextCursor)."""
    return len(page["hits"] if "hits" in page else page["frameworks"])


def assert_page_shapes(pages: list[dict[str, Any]], limit: int, total: int) -> None:
    """Full pages then a last partial one; hasMore/nextCursor only before the last page."""
    for page in pages[:-1]:
        assert returned(page) == limit and page["page"]["hasMore"] is True
        assert page["page"]["nextCursor"]
    last = pages[-1]["page"]
    assert last["hasMore"] is False and last.get("nextCursor") is None
    assert sum(returned(p) for p in pages) == total
    assert all(p["total"] == total for p in pages)


async def test_search_pages_replay_next_request_unchanged(default_client: Client[Any]) -> None:
    request = {"query": "fracoes", "limit": 3}
    first = await call(default_client, "search_standards", request)
    block = continuation(first)
    assert block is not None
    assert block["continuationTool"] == "search_standards"
    assert block["nextRequest"] == {
        "request": {"query": "fracoes", "limit": 3, "cursor": structured(first)["page"]["nextCursor"]}
    }
    pages = await page_through(default_client, "search_standards", request)
    total = pages[0]["total"]
    assert len(pages) == -(-total // 3) >= 3
    assert_page_shapes(pages, 3, total)
    everything = structured(await call(default_client, "search_standards", {"query": "fracoes", "limit": 100}))
    assert hit_ids(pages) == [hit["nodeId"] for hit in everything["hits"]]
    assert len(set(hit_ids(pages))) == total
    ranks = [hit["rank"] for page in pages for hit in page["hits"]]
    assert ranks == list(range(1, total + 1))


async def test_last_page_has_no_block(default_client: Client[Any]) -> None:
    single = await call(default_client, "search_standards", {"query": "fracoes", "limit": 100})
    assert continuation(single) is None
    assert structured(single)["page"]["hasMore"] is False
    empty = await call(default_client, "search_standards", {"query": "zzyzxqv"})
    assert continuation(empty) is None


async def test_defaults_are_omitted_and_other_fields_kept(default_client: Client[Any]) -> None:
    request = {
        "query": "fracoes",
        "frameworkIds": [EF],
        "searchMode": "auto",
        "codeMatch": "exact",
        "gradeLevels": ["6º ano", "ef-ano-07"],
        "statementTypes": ["Habilidade"],
        "limit": 2,
    }
    block = continuation(await call(default_client, "search_standards", request))
    assert block is not None
    sent = block["nextRequest"]["request"]
    assert set(sent) == {"query", "frameworkIds", "gradeLevels", "statementTypes", "limit", "cursor"}
    assert sent["gradeLevels"] == ["6º ano", "ef-ano-07"] and sent["statementTypes"] == ["Habilidade"]
    pages = await page_through(default_client, "search_standards", request)
    assert_page_shapes(pages, 2, pages[0]["total"])
    for hit in (h for page in pages for h in page["hits"]):
        assert set(hit["gradeLevels"]) & {"6º ano", "7º ano"}
    omitted = {key: value for key, value in request.items() if key not in ("searchMode", "codeMatch")}
    assert hit_ids(await page_through(default_client, "search_standards", omitted)) == hit_ids(pages)


# One hit a page walks the whole result one call at a time: the slow end of the sweep.
@pytest.mark.parametrize("limit", [pytest.param(1, marks=pytest.mark.slow), 7, 25, 100])
async def test_page_size_does_not_change_the_sequence(default_client: Client[Any], limit: int) -> None:
    request = {"query": "leitura escrita", "frameworkIds": [EF]}
    reference = await page_through(default_client, "search_standards", {**request, "limit": 100})
    pages = await page_through(default_client, "search_standards", {**request, "limit": limit})
    total = reference[0]["total"]
    assert total > 100
    assert_page_shapes(pages, limit, total)
    assert hit_ids(pages) == hit_ids(reference)
    assert len(set(hit_ids(pages))) == total


async def test_code_prefix_pages(default_client: Client[Any]) -> None:
    request = {"query": "EF05MA", "searchMode": "code", "codeMatch": "prefix", "limit": 7}
    block = continuation(await call(default_client, "search_standards", request))
    assert block is not None
    assert set(block["nextRequest"]["request"]) == {"query", "searchMode", "codeMatch", "limit", "cursor"}
    pages = await page_through(default_client, "search_standards", request)
    assert [returned(p) for p in pages] == [7, 7, 7, 4]
    codes = [hit["statementCode"] for page in pages for hit in page["hits"]]
    assert codes == sorted(codes) and len(set(codes)) == 25


async def test_list_frameworks_pages(default_client: Client[Any], fixture_client: Client[Any]) -> None:
    first = await call(default_client, "list_frameworks", {"limit": 2})
    block = continuation(first)
    assert block is not None
    assert block == {
        "continuationTool": "list_frameworks",
        "nextRequest": {"request": {"limit": 2, "cursor": structured(first)["page"]["nextCursor"]}},
    }
    pages = await page_through(default_client, "list_frameworks", {"limit": 2})
    count = len(DEFAULT_FRAMEWORKS)
    assert [returned(p) for p in pages] == [2] * (count // 2) + [1] * (count % 2)
    listed = [f["graphPackageId"] for page in pages for f in page["frameworks"]]
    everything = structured(await call(default_client, "list_frameworks", {}))
    assert listed == [f["graphPackageId"] for f in everything["frameworks"]]

    request = {"includeNonCurrent": True, "frameworkIds": [TREE, "fixture-twin"], "limit": 1}
    block = continuation(await call(fixture_client, "list_frameworks", request))
    assert block is not None
    assert set(block["nextRequest"]["request"]) == {"includeNonCurrent", "frameworkIds", "limit", "cursor"}
    pages = await page_through(fixture_client, "list_frameworks", request)
    assert [f["graphPackageId"] for page in pages for f in page["frameworks"]] == [
        f"{TREE}@2025-01",
        f"{TREE}@2026-01",
        "fixture-twin@2026-01",
        "fixture-twin@2026-02",
    ]
    explicit_default = await call(fixture_client, "list_frameworks", {"includeNonCurrent": False, "limit": 1})
    block = continuation(explicit_default)
    assert block is not None and "includeNonCurrent" not in block["nextRequest"]["request"]


async def test_a_big_result_pages_to_the_end(default_client: Client[Any], default_state: AppState) -> None:
    """A query of one stop word is searched as typed; every page continues the one ranking."""
    pages = await page_through(default_client, "search_standards", {"query": "de", "limit": 100})
    total = pages[0]["total"]
    assert total > 1000
    ids = hit_ids(pages)
    assert len(ids) == len(set(ids)) == total
    assert_ranked_by_strata([hit for page in pages for hit in page["hits"]], statement_roles(default_state))
