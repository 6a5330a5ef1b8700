"""Prompt refusals over real HTTP: JSON-RPC invalid params with our coded text, and no traceback in the log.

Missing, out-of-range and unknown arguments are the client's mistake (``-32602``, ``invalid_request``);
a framework the catalog does not serve keeps its domain code (``framework_not_found``), also ``-32602``
with the code in ``data.errorCode``. None of them is a server error, and none prints a traceback.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import HttpServer, http_server

pytestmark = pytest.mark.slow

EF = "brazil-bncc-ensino-fundamental"
INVALID_PARAMS = -32602
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}

CASES: list[tuple[dict[str, str], str, str]] = [
    ({"framework_id": EF}, "invalid_request", "topic: is required"),
    ({"framework_id": EF, "topic": "frações", "practice_count": "11"}, "invalid_request", "practice_count"),
    ({"framework_id": EF, "topic": "frações", "no_such_argument": "1"}, "invalid_request", "no_such_argument"),
    ({"framework_id": "no-such-framework", "topic": "frações"}, "framework_not_found", "no-such-framework"),
]


def get_prompt(url: str, arguments: dict[str, str]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "prompts/get",
        "params": {"name": "practice_item_set", "arguments": arguments},
    }
    request = urllib.request.Request(url, json.dumps(body).encode(), HEADERS, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
    payload = text.split("data: ", 1)[1] if text.startswith("event:") else text  # SSE or JSON
    message: dict[str, Any] = json.loads(payload.strip().splitlines()[0])
    return message


@pytest.fixture(scope="module")
def info_server(default_catalog_root: Path) -> Iterator[HttpServer]:
    with http_server(default_catalog_root, {"KGFEGMCP_LOG_LEVEL": "INFO"}) as server:
        yield server


@pytest.mark.parametrize(("arguments", "code", "names"), CASES, ids=[c[1] + "-" + c[2] for c in CASES])
def test_prompt_refusals_are_invalid_params_with_our_code(
    info_server: HttpServer, arguments: dict[str, str], code: str, names: str
) -> None:
    error = get_prompt(info_server.url, arguments)["error"]
    assert error["code"] == INVALID_PARAMS, error
    assert error["message"].startswith(f"{code}: ") and names in error["message"], error
    assert error["data"]["errorCode"] == code


def test_prompt_refusals_print_no_traceback(info_server: HttpServer) -> None:
    for arguments, _code, _names in CASES:
        get_prompt(info_server.url, arguments)
    log = info_server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
