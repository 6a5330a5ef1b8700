"""Same packages + same request ⇒ byte-identical results, across calls and across independently built states."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import BackendSettings
from package_factory import DAG
from tool_calls import call, wire

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"

REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("list_frameworks", {"limit": 2}),
    ("list_frameworks", {"graphTypes": ["LearningProgressions"]}),
    ("get_framework", {"frameworkId": EF}),
    ("get_capabilities", {}),
    ("get_capabilities", {"frameworkId": CCSS}),
    ("get_framework_statistics", {"frameworkId": EF}),
    ("search_standards", {"query": "fracoes", "limit": 4}),
    ("search_standards", {"query": "leitura de textos", "gradeLevels": ["ef-ano-03"], "limit": 10}),
    ("search_standards", {"query": "CCR.R.1", "searchMode": "code"}),
    ("search_standards", {"query": "EF0", "searchMode": "code", "codeMatch": "prefix", "limit": 50}),
    ("get_standard", {"frameworkId": CCSS, "statementCode": "RL.3.1"}),
    ("get_standard_context", {"frameworkId": EF, "statementCode": "EF07CI12", "childDepth": 3}),
    ("get_standard_context", {"frameworkId": EF, "statementCode": "EF07CI12", "maxPaths": 3, "maxNodes": 4}),
]


@pytest.fixture(scope="module")
def twin_state(default_settings: BackendSettings) -> AppState:
    """A second AppState built independently from the same catalog directory."""
    return build_app_state(default_settings)


async def test_same_call_twice_is_byte_identical(default_client: Client[Any]) -> None:
    for tool, request in REQUESTS:
        first = await call(default_client, tool, request)
        second = await call(default_client, tool, request)
        assert wire(first) == wire(second), tool


async def test_independent_states_over_one_catalog_agree(
    default_client: Client[Any], default_state: AppState, twin_state: AppState
) -> None:
    assert twin_state is not default_state
    assert twin_state.catalog.fingerprint == default_state.catalog.fingerprint
    async with Client(create_app(twin_state)) as twin:
        for tool, request in REQUESTS:
            assert wire(await call(default_client, tool, request)) == wire(await call(twin, tool, request)), tool
        # Cursors issued by one state continue in the other.
        page = await call(default_client, "search_standards", {"query": "fracoes", "limit": 4})
        assert page.structured_content is not None
        cursor = page.structured_content["page"]["nextCursor"]
        here = await call(default_client, "search_standards", {"query": "fracoes", "limit": 4, "cursor": cursor})
        there = await call(twin, "search_standards", {"query": "fracoes", "limit": 4, "cursor": cursor})
        assert wire(here) == wire(there)


async def test_fixture_results_are_stable(fixture_client: Client[Any]) -> None:
    request = {"frameworkId": DAG, "statementCode": "NF.2"}
    first = await call(fixture_client, "get_standard_context", request)
    for _ in range(3):
        assert wire(await call(fixture_client, "get_standard_context", request)) == wire(first)
