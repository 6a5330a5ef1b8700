"""JSON-RPC over stateless Streamable HTTP: request bodies (hostile ones included) and raw POSTs of them."""

from __future__ import annotations

import contextlib
import http.client
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
}

RAW = "\u2063raw{}\u2063"  # a placeholder no generated value contains


def rpc_body(method: str, params: Any, raw: dict[str, str] | None = None) -> bytes:
    """A JSON-RPC request; each ``RAW.format(i)`` string in ``params`` is replaced by ``raw[i]`` verbatim.

    Raw splices carry what ``json.dumps`` cannot build (documents nested 100,000 deep, integers with
    thousands of digits) without the fuzzer itself recursing.
    """
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, ensure_ascii=False)
    for key, value in (raw or {}).items():
        text = text.replace(json.dumps(RAW.format(key), ensure_ascii=False), value)
    return text.encode("utf-8", "surrogatepass")


def nested(depth: int, kind: str = "array", leaf: str = "1") -> str:
    """A JSON document nested ``depth`` levels, as text."""
    if kind == "object":
        return '{"a":' * depth + leaf + "}" * depth
    return "[" * depth + leaf + "]" * depth


def tool_call(name: Any, arguments: Any, raw: dict[str, str] | None = None) -> bytes:
    return rpc_body("tools/call", {"name": name, "arguments": arguments}, raw)


def prompt_get(name: Any, arguments: Any, raw: dict[str, str] | None = None) -> bytes:
    return rpc_body("prompts/get", {"name": name, "arguments": arguments}, raw)


def resource_read(uri: Any) -> bytes:
    return rpc_body("resources/read", {"uri": uri})


@dataclass
class Reply:
    """One HTTP answer: status, the JSON-RPC message (when one was parsed), the raw text, the latency."""

    status: int
    message: dict[str, Any] | None
    text: str
    seconds: float


def post(url: str, body: bytes, timeout: float) -> Reply:
    """POST one JSON-RPC body; an HTTP error status is a reply too, a timeout raises ``TimeoutError``."""
    started = time.monotonic()
    request = urllib.request.Request(url, data=body, headers=HEADERS, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # loopback only
            status, content_type, raw = int(response.status), response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as error:
        status, content_type, raw = int(error.code), error.headers.get("content-type", ""), error.read()
    except (OSError, http.client.HTTPException) as error:  # timeouts, and a server gone mid-answer
        raise TimeoutError(f"no answer within {timeout}s ({type(error).__name__})") from None
    text = raw.decode("utf-8", errors="replace")
    message = None
    payload = text
    if "text/event-stream" in content_type:
        # Split on line feeds only: str.splitlines would also split inside JSON text at U+2028, U+0085 ...
        payload = "\n".join(line[5:].strip() for line in text.split("\n") if line.startswith("data:"))
    with contextlib.suppress(ValueError):
        parsed = json.loads(payload) if payload.strip() else None
        message = parsed if isinstance(parsed, dict) else None
    return Reply(status, message, text, time.monotonic() - started)
