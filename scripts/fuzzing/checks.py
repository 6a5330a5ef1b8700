"""The invariants of one reply: its outcome, a coded and bounded error text, no leak, no late answer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .cases import Case
from .rpc import Reply

CODED = re.compile(r"^[a-z_]+: ")
#: JSON-RPC codes the MCP SDK answers before any handler of ours runs.
PROTOCOL_CODES = {-32700, -32600, -32601}


@dataclass
class Limits:
    max_error_chars: int
    case_timeout: float
    probe_timeout: float


def classify(case: Case, reply: Reply) -> tuple[str, str | None, list[str]]:
    """(outcome, error text, violations) of one reply."""
    problems: list[str] = []
    if reply.status >= 500:
        return "http_5xx", None, [f"HTTP {reply.status}"]
    message = reply.message
    if message is None:
        if 400 <= reply.status < 500:
            return "transport_rejected", reply.text, []
        return "unparsed", reply.text, [f"HTTP {reply.status} with no JSON-RPC message"]
    if "error" in message:
        error = message["error"] if isinstance(message["error"], dict) else {}
        code, text = error.get("code"), str(error.get("message", ""))
        sdk = code in PROTOCOL_CODES or (code == -32602 and text == "Invalid request parameters")
        if sdk:
            return "protocol_rejected", text + " " + json.dumps(error.get("data")), []
        return coded(text, problems), text, problems
    result = message.get("result")
    if isinstance(result, dict) and result.get("isError"):
        content = result.get("content") or [{}]
        text = str(content[0].get("text", "")) if isinstance(content[0], dict) else ""
        return coded(text, problems), text, problems
    return "ok", None, problems


def coded(text: str, problems: list[str]) -> str:
    if not CODED.match(text):
        problems.append(f"error text not '<code>: ': {text[:160]!r}")
        return "uncoded"
    return text.split(":", 1)[0]


def check(
    case: Case, reply: Reply, limits: Limits, leaks: tuple[str, ...], strict_leaks: tuple[str, ...]
) -> tuple[str, list[str]]:
    outcome, error_text, problems = classify(case, reply)
    if outcome == "internal_error":
        problems.append("internal_error")
    if error_text is not None and len(error_text) > limits.max_error_chars:
        problems.append(f"error text of {len(error_text)} characters (bound {limits.max_error_chars})")
    for token in leaks if error_text is not None else strict_leaks:
        if token in reply.text:
            problems.append(f"response contains {token!r}")
    if (
        case.allowed is not None
        and outcome not in case.allowed
        and outcome not in ("protocol_rejected", "transport_rejected")
    ):
        problems.append(f"outcome {outcome}, expected one of {sorted(case.allowed)}")
    if reply.seconds > limits.case_timeout:
        problems.append(f"answered after {reply.seconds:.1f}s (bound {limits.case_timeout}s)")
    return outcome, problems
