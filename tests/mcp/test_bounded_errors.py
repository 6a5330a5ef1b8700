"""Every error text is coded and bounded: client-supplied names are clipped, never echoed whole.

The in-memory client exercises the same handlers the transports do; over HTTP the fuzz test
(tests/e2e/test_fuzz.py) checks the same invariants on every surface.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastmcp import Client

from bounded_refusals import all_records, assert_bounded, assert_quiet_log
from kgfegmcp.core import errors
from kgfegmcp.mcp.tools import TOOLS
from mcp import MCPError
from tool_calls import error

EF = "brazil-bncc-ensino-fundamental"
HUGE = 1_000_000


def test_echo_clips_with_an_ellipsis_and_the_original_length() -> None:
    echo = errors.echo
    assert echo("frameworkId") == "frameworkId"
    clipped = echo("k" * HUGE)
    assert clipped.startswith("k" * 20) and clipped.endswith(f"… ({HUGE} characters)") and len(clipped) < 120
    assert echo("a\nb\x00c\u2028d") == "a\\nb\\x00c\\u2028d"  # one log line, whatever the client sent


@pytest.mark.parametrize("tool", [tool.name for tool in TOOLS])
async def test_huge_unknown_field_names_are_clipped_in_every_tool(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture, tool: str
) -> None:
    with all_records(caplog):
        message = await error(default_client, tool, {"k" * HUGE: 1})
    assert_bounded(message)
    assert message.startswith("invalid_request: ") and "request.kkkk" in message
    assert f"({HUGE} characters): not a field of this request; accepted: " in message
    assert_quiet_log(caplog)


async def test_many_nested_problems_stay_bounded(default_client: Client[Any]) -> None:
    request = {f"{'x' * 50_000}{i:02d}": {"nested": [1, 2]} for i in range(50)}
    message = await error(default_client, "search_standards", {"query": "x", **request, "limit": "1"})
    assert_bounded(message)
    assert "more problems" in message


async def test_unknown_tool_names_are_coded_and_bounded(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture
) -> None:
    for name in ("no_such_tool", "t" * HUGE, "bad\nname"):
        # MCP: an unknown tool is a JSON-RPC error (-32602, invalid params), not a tool result.
        with all_records(caplog), pytest.raises(MCPError) as refused:
            await default_client.call_tool(name, {}, raise_on_error=False)
        assert refused.value.error.code == -32602
        assert refused.value.error.data == {"errorCode": "invalid_request"}
        message = refused.value.error.message
        assert_bounded(message)
        assert message.startswith("invalid_request: Unknown tool ")
        assert "Next action: Call tools/list" in message
        assert_quiet_log(caplog)


async def test_huge_resource_uris_are_coded_and_bounded(default_client: Client[Any]) -> None:
    base = f"kgfegmcp://framework/{EF}/snapshot/dados-2026-07-1"
    for uri in ("kgfegmcp://" + "u" * HUGE, f"{base}/standard/{'s' * HUGE}", "x" * HUGE, f"{base}/standard/a..b"):
        with pytest.raises(MCPError) as info:
            await default_client.session.read_resource(uri)  # sent exactly as written
        assert_bounded(info.value.error.message)
        assert info.value.error.message.startswith("resource_not_found: ")


async def test_tool_and_resource_refusals_never_log_a_traceback(
    default_client: Client[Any], caplog: pytest.LogCaptureFixture
) -> None:
    missing = f"kgfegmcp://framework/{EF}/snapshot/dados-2026-07-1/standard/no-such-node"
    with all_records(caplog, logging.DEBUG):
        assert (await error(default_client, "get_framework", {"frameworkId": "no-such-framework"})).startswith(
            "framework_not_found: "
        )
        with pytest.raises(MCPError) as info:
            await default_client.read_resource(missing)
        assert info.value.error.message.startswith("resource_not_found: ")
        with pytest.raises(MCPError):
            await default_client.session.read_resource("kgfegmcp://" + "u" * 5000)
    assert not [r.getMessage()[:200] for r in caplog.records if r.exc_info], "a refusal was logged with a traceback"
    refusals = [r.getMessage() for r in caplog.records if r.name == "kgfegmcp.mcp" and " refused: " in r.getMessage()]
    assert len(refusals) == 2 and all(len(line) <= 1000 for line in refusals), refusals
