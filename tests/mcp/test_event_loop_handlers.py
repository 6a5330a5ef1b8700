"""Tool and resource handlers run on the event loop: no call starts a worker thread.

FastMCP runs a plain function in a worker thread per call. Each such thread allocated from a glibc
malloc arena of its own, whose freed pages stayed resident: under 32 concurrent HTTP clients the
server's resident memory grew by 1-3 MB per thousand traversals while the Python heap stayed flat
(``docs/performance.md``, "HTTP load through a balancer"). The handlers are CPU-bound and bounded,
so ``register.py`` registers them as coroutine functions and they run on the loop's one thread.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from fastmcp import Client
from mcp.types import ResourceLink

EF = "brazil-bncc-ensino-fundamental"


def thread_ids() -> set[int]:
    """Every live thread of this process."""
    return {thread.ident for thread in threading.enumerate() if thread.ident is not None}


async def test_concurrent_tool_and_resource_calls_start_no_thread(default_client: Client[Any]) -> None:
    standard = await default_client.call_tool(
        "get_standard", {"request": {"frameworkId": EF, "statementCode": "EF05MA03"}}
    )
    link = next(block for block in standard.content if isinstance(block, ResourceLink))
    before = thread_ids()
    calls = [
        default_client.call_tool("search_standards", {"request": {"query": "frações", "limit": 5}}),
        default_client.call_tool("get_standard_context", {"request": {"frameworkId": EF, "statementCode": "EF05MA03"}}),
        default_client.call_tool(
            "traverse_learning_progressions", {"request": {"frameworkId": EF, "statementCode": "EF01MA05"}}
        ),
        default_client.call_tool(
            "traverse_learning_progressions",
            {"request": {"frameworkId": EF, "statementCode": "EF01CI03", "direction": "both"}},
        ),
        default_client.read_resource(str(link.uri)),
        # A refusal takes the same path as an answer.
        default_client.call_tool(
            "get_standard", {"request": {"frameworkId": EF, "statementCode": "XX00XX00"}}, raise_on_error=False
        ),
    ]
    answers = await asyncio.gather(*calls * 4)
    assert all(answer for answer in answers)
    started = {thread.name for thread in threading.enumerate() if thread.ident not in before}
    assert not started, f"tool or resource calls started threads: {sorted(started)}"
