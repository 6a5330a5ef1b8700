"""Seeded fuzzing of the whole MCP surface over real stateless Streamable HTTP.

Run: scripts/fuzz.sh [--budget-seconds 30 | --cases N [--package-cases M]] [--seed 1]
     [--graph-packages-dir data/graph_packages]

Starts ``kgfegmcp serve --transport http`` on a free 127.0.0.1 port (log level INFO, the default),
discovers the tools, resource templates and prompts it lists, and replays hostile requests as raw
JSON-RPC POSTs: huge names, deep nesting in every JSON input, forged cursors, prompt-argument abuse,
hostile resource addresses and hostile field values. The server gets a ``KGFEGMCP_CURSOR_SECRET`` the
fuzzer generates, so cursors are forged two ways: checksummed with the public catalog fingerprint (all
refused) and sealed with the server's own key, carrying extreme and random positions. One full sweep
(every class against every tool, template and prompt) always runs; seeded random cases then fill the
rest of the budget, so a seed always replays the same cases.

``--cases N`` bounds the run by a count instead of a clock: exactly N cases of each request class (a
seeded sample of the class's sweep cases, spread over its tools, templates and prompts, then seeded
random cases of the class if N exceeds its sweep) and ``--package-cases`` (default N) tampered
packages. The same seed and counts always run the same cases, however loaded the machine is.

Every response must hold these invariants (any breach is printed and makes the exit status 1):

- never ``internal_error``, never an HTTP 5xx, an answer within ``--case-timeout`` seconds;
- every error text of a tool, resource or prompt matches ``^[a-z_]+: `` and is at most
  ``--max-error-chars`` characters; protocol-level refusals by the MCP SDK (parse errors, malformed
  params) are counted apart and must be bounded too;
- no local path (``/work``, ``/home``, ``/tmp``, the repository root, the package root) and no
  ``Traceback`` in any error, and neither the repository root nor ``Traceback`` in any result;
- after each case a cheap call answers within ``--probe-timeout`` seconds, and a background client
  polling throughout is never kept waiting longer than that (one bad call must not freeze the rest);
- the server's stderr never contains a traceback and grows by a bounded amount per request.

The class ``package-tampering`` fuzzes the packages instead of the requests: after the surface classes it
damages and forges copies of real packages of the same catalog and runs ``doctor``, the start-up gate and
``packages validate`` on each (``scripts/fuzz_packages.py``: its scenarios, invariants and matrix).
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import hashlib
import hmac
import http.client
import itertools
import json
import os
import random
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz_packages import TAMPERING, describe, matrix, run_tampering
from pydantic import BaseModel, SecretStr

from kgfegmcp.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR
from kgfegmcp.cursors import CursorCodec, request_fingerprint
from kgfegmcp.prompts.workflows import WORKFLOWS
from kgfegmcp.services import requests as r

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
KGFEGMCP = Path(sys.executable).parent / "kgfegmcp"
PROTOCOL_VERSION = "2025-06-18"
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
}
CODED = re.compile(r"^[a-z_]+: ")
#: JSON-RPC codes the MCP SDK answers before any handler of ours runs.
PROTOCOL_CODES = {-32700, -32600, -32601}
MIB = 1024 * 1024
#: Allowed stderr growth: a fixed slack per case plus this much per request sent meanwhile.
LOG_SLACK_BYTES = 8192
LOG_BYTES_PER_REQUEST = 1024
CLASSES = (
    "huge-names",
    "unknown-names",
    "argument-names",
    "deep-nesting",
    "forged-cursors",
    "prompt-arguments",
    "resource-addresses",
    "value-abuse",
    TAMPERING,
)
#: Tools that accept a cursor, with the request model their fingerprint is computed from.
CURSOR_MODELS: dict[str, type[BaseModel]] = {
    "list_frameworks": r.ListFrameworksRequest,
    "search_standards": r.SearchStandardsRequest,
    "search_learning_components": r.SearchLearningComponentsRequest,
    "get_standard_progressions": r.GetStandardProgressionsRequest,
    "search_learning_progressions": r.SearchLearningProgressionsRequest,
    "read_evidence": r.ReadEvidenceRequest,
}


# -- the server -----------------------------------------------------------------------------------


def free_port() -> int:
    """A loopback port that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    """One ``kgfegmcp serve --transport http`` process and its stderr file."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_bytes(self, start: int) -> bytes:
        with self.log.open("rb") as handle:
            handle.seek(start)
            return handle.read()


@contextlib.contextmanager
def serve(packages: Path, start_timeout: float, cursor_secret: str) -> Iterator[Server]:
    """Start the server over ``packages`` keying cursors by ``cursor_secret``; always stop it."""
    port = free_port()
    scratch = Path(tempfile.mkdtemp(prefix="kgfegmcp-fuzz-"))
    log = scratch / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("KGFEGMCP_")}
    env.update(
        {
            "KGFEGMCP_GRAPH_PACKAGES_DIR": str(packages),
            "KGFEGMCP_PROFILES_DIR": str(SHIPPED_PROFILES_DIR),
            "KGFEGMCP_PROMPTS_DIR": str(SHIPPED_PROMPTS_DIR),
            "KGFEGMCP_CACHE_DIR": os.environ.get("KGFEGMCP_CACHE_DIR") or str(scratch / "cache"),
            "KGFEGMCP_LOG_LEVEL": "INFO",
            "KGFEGMCP_CURSOR_SECRET": cursor_secret,
            "PYTHONUNBUFFERED": "1",
        }
    )
    command = [str(KGFEGMCP), "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=REPOSITORY_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink
        )
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.settimeout(0.5)
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"fuzz: the server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        yield Server(f"http://127.0.0.1:{port}/mcp", process, log)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)


# -- JSON-RPC over HTTP ---------------------------------------------------------------------------


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


# -- the cases ------------------------------------------------------------------------------------


@dataclass
class Case:
    """One hostile request and what it may legitimately get back."""

    cls: str
    label: str
    body: bytes
    #: Outcomes a correct server may give; ``None`` allows any outcome but the forbidden ones.
    allowed: frozenset[str] | None = None


@dataclass
class CursorTarget:
    """One paged request (a tool, or one search mode of it) whose first page the server answered."""

    tool: str
    request: dict[str, Any]
    #: The first page's cursor to its second, when it has one.
    genuine: str | None
    #: The first offset no cursor of this request may carry (results, links scanned or bytes), when known.
    reach: int | None


@dataclass
class Surface:
    """What the server lists, and real identifiers and cursors to aim at."""

    tools: dict[str, dict[str, Any]]
    templates: list[str]
    prompts: dict[str, list[tuple[str, bool]]]
    catalog_fingerprint: str
    framework_id: str
    snapshot_id: str
    node_id: str
    statement_code: str
    component_id: str
    relationship_id: str
    #: The key the fuzzer's server seals cursors with (from the secret the fuzzer gave it).
    codec: CursorCodec
    cursor_targets: dict[str, CursorTarget] = field(default_factory=dict)
    evidence_sha256: str = ""


def tool_call(name: Any, arguments: Any, raw: dict[str, str] | None = None) -> bytes:
    return rpc_body("tools/call", {"name": name, "arguments": arguments}, raw)


def prompt_get(name: Any, arguments: Any, raw: dict[str, str] | None = None) -> bytes:
    return rpc_body("prompts/get", {"name": name, "arguments": arguments}, raw)


def resource_read(uri: Any) -> bytes:
    return rpc_body("resources/read", {"uri": uri})


ALPHABET = "abcXYZ019_-./\\%~\"'` \t\n\r\x00\x1b\x7f\x85\u2028\u00e7\u00e3\u0661\U0001f600{}[]:,"


def hostile_text(rng: random.Random, length: int) -> str:
    """``length`` characters mixing letters, separators, quotes, controls and non-ASCII."""
    if length > 4096:  # long runs of one character, with a little variety at the ends
        return hostile_text(rng, 32) + rng.choice("kx\u00e7") * (length - 64) + hostile_text(rng, 32)
    return "".join(rng.choice(ALPHABET) for _ in range(length))


def huge_length(rng: random.Random) -> int:
    return rng.choice([65, 1000, 40_000, 100_000, MIB])


def base_request(surface: Surface, tool: str) -> dict[str, Any]:
    """A request each tool can accept on the default catalog (or refuse cleanly on another)."""
    framework, code = surface.framework_id, {"frameworkId": surface.framework_id, "nodeId": surface.node_id}
    requests: dict[str, dict[str, Any]] = {
        "list_frameworks": {},
        "get_framework": {"frameworkId": framework},
        "get_capabilities": {},
        "get_framework_statistics": {"frameworkId": framework},
        "search_standards": {"query": "de"},
        "get_standard": code,
        "get_standard_context": code,
        "compare_framework_evidence": {"query": "de", "frameworkIds": sorted({framework, "brazil-bncc-ensino-medio"})},
        "search_learning_components": {"query": "de"},
        "get_learning_component": {"frameworkId": framework, "nodeId": surface.component_id},
        "get_learning_components_for_standard": code,
        "get_standards_for_learning_component": {"frameworkId": framework, "nodeId": surface.component_id},
        "get_standard_progressions": code,
        "search_learning_progressions": {"frameworkId": framework},
        "get_learning_progression": {"frameworkId": framework, "progressionId": surface.relationship_id},
        "traverse_learning_progressions": {**code, "maxDepth": 2},
        "find_learning_progression_paths": {"from": code, "to": code},
        "read_evidence": {"uri": "kgfegmcp://catalog"},
        "get_workflow_instructions": {"workflow": "teacher_guide_draft", "frameworkId": framework, "topic": "x"},
    }
    return dict(requests.get(tool, {}))


def forge(surface: Surface, payload: bytes) -> str:
    """A cursor checksummed with the public catalog fingerprint, as anyone who reads the manifests can."""
    checksum = hmac.new(surface.catalog_fingerprint.encode("ascii"), payload, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(payload + checksum).decode("ascii").rstrip("=")


def seal(surface: Surface, payload: bytes) -> str:
    """A cursor sealed with the server's own key: what a replica, or anyone holding the secret, can make."""
    return surface.codec.seal(payload)


def envelope(
    surface: Surface, label: str, position: bytes, *, fingerprint: str | None = None, tool: str | None = None
) -> bytes:
    """The server's payload layout for the target's cursor request, with ``position`` spliced in verbatim."""
    target = surface.cursor_targets[label]
    if fingerprint is None:
        fingerprint = request_fingerprint(CURSOR_MODELS[target.tool].model_validate(target.request))
    name = (tool or target.tool).encode()
    return b'{"p":' + position + b',"r":"' + fingerprint[:32].encode() + b'","t":"' + name + b'","v":1}'


def cursor_case(surface: Surface, label: str, case: str, cursor: str, allowed: frozenset[str] | None) -> Case:
    target = surface.cursor_targets[label]
    request = {**target.request, "cursor": cursor}
    return Case("forged-cursors", f"{label}: {case}", tool_call(target.tool, {"request": request}), allowed)


INVALID_CURSOR = frozenset({"invalid_cursor"})
OK_OR_INVALID_CURSOR = frozenset({"ok", "invalid_cursor"})
OK = frozenset({"ok"})
REFUSED = frozenset({"invalid_request"})
#: Offsets beyond anything a catalog holds, and negative ones: a sealed cursor carrying one is refused.
EXTREME_OFFSETS = (2**31 - 1, 2**31, 2**32 + 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**30, 10**300, -1, -(2**63))


def hostile_positions(surface: Surface, label: str) -> dict[str, bytes]:
    """Payloads no server-issued cursor has: each must be ``invalid_cursor``, however it is sealed."""
    deep = b"[" * 1400 + b"]" * 1400
    sha = surface.evidence_sha256[:32].encode()
    other_tool = "search_standards" if surface.cursor_targets[label].tool == "list_frameworks" else "list_frameworks"
    return {
        "array nested 1,400 deep": deep,
        "position nested 1,400 deep": envelope(surface, label, deep),
        "offset nested 1,000 deep": envelope(surface, label, b'{"offset":' + b"[" * 1000 + b"]" * 1000 + b"}"),
        "object nested 400 deep": b'{"a":' * 400 + b"1" + b"}" * 400,
        "unbalanced": b"[" * 2900,
        "closing first": b"]" * 1400 + b"[" * 1400,
        "not UTF-8": b"\xff\xfe\xfd\xc0\xaf" * 100,
        "huge integer": envelope(surface, label, b'{"offset":' + b"9" * 2900 + b"}"),
        "NaN": envelope(surface, label, b'{"offset":NaN}'),
        "Infinity": envelope(surface, label, b'{"offset":Infinity}'),
        "float offset": envelope(surface, label, b'{"offset":1.0}'),
        "boolean offset": envelope(surface, label, b'{"offset":true}'),
        "string offset": envelope(surface, label, b'{"offset":"1"}'),
        "null offset": envelope(surface, label, b'{"offset":null}'),
        "offset a list of 200": envelope(surface, label, b'{"offset":[' + b",".join([b"2147483647"] * 200) + b"]}"),
        "offset a nested list": envelope(surface, label, b'{"offset":[[9223372036854775808]],"sha256":"' + sha + b'"}'),
        "offset an object": envelope(surface, label, b'{"offset":{"offset":1}}'),
        "position list": envelope(surface, label, b"[1,2]"),
        "position string": envelope(surface, label, b'"p"'),
        "lone surrogate": envelope(surface, label, b'{"offset":1,"sha256":"\\ud800"}'),
        "wrong tool": envelope(surface, label, b'{"offset":1}', tool=other_tool),
        "wrong request": envelope(surface, label, b'{"offset":1}', fingerprint="0" * 64),
        "truncated": b'{"p":{"offset":',
        "empty object": b"{}",
        "bare string": b'"' + b"x" * 2800 + b'"',
        "control bytes": bytes(range(32)) * 20,
    }


def position(surface: Surface, label: str, offset: int) -> bytes:
    """A position the target's cursors have, at ``offset`` (read_evidence's names the resource version)."""
    if surface.cursor_targets[label].tool == "read_evidence":
        return json.dumps({"offset": offset, "sha256": surface.evidence_sha256[:32]}).encode()
    return json.dumps({"offset": offset}).encode()


def expected(surface: Surface, label: str, offset: int) -> frozenset[str]:
    """What a sealed cursor at ``offset`` must get: a page inside the reach, ``invalid_cursor`` outside."""
    target = surface.cursor_targets[label]
    reach = target.reach if target.reach is not None else MAX_OFFSET
    if not 0 <= offset < reach:
        return INVALID_CURSOR
    if target.tool == "read_evidence" or target.reach is None:
        return OK_OR_INVALID_CURSOR  # a window starts after the first, on a character boundary
    return OK


#: Positions also forged with the public fingerprint (besides every genuine payload).
PUBLIC_KEY_PROBES = frozenset({"offset 2147483647", "offset total - 1", "offset 0"})
#: No catalog reaches this far (offsets index in-memory sequences); below it, an unknown reach allows a page.
MAX_OFFSET = 2**31 - 1


def extreme_positions(surface: Surface, label: str) -> dict[str, tuple[bytes, frozenset[str]]]:
    """Sealed positions at the edges: extreme offsets, the reach and just past it, the last position."""
    target = surface.cursor_targets[label]
    offsets = {
        f"offset {offset}" if abs(offset) < 10**20 else f"offset ~1e{len(str(abs(offset))) - 1}": offset
        for offset in EXTREME_OFFSETS
    }
    offsets["offset 0"] = 0
    if target.reach is not None:
        offsets |= {
            "offset at the total": target.reach,
            "offset total + 1": target.reach + 1,
            "offset total + 10**6": target.reach + 10**6,
            "offset total - 1": target.reach - 1,
        }
    cases = {
        name: (envelope(surface, label, position(surface, label, offset)), expected(surface, label, offset))
        for name, offset in offsets.items()
    }
    padded = (
        b'{"offset":1,"pad":['
        + b",".join([b"0"] * 600)
        + b'],"sha256":"'
        + surface.evidence_sha256[:32].encode()
        + b'"}'
    )
    cases["offset 1 beside a list of 600"] = (envelope(surface, label, padded), OK_OR_INVALID_CURSOR)
    return cases


# -- sweep: every class against every tool, template and prompt ------------------------------------


def sweep(surface: Surface, rng: random.Random) -> Iterator[Case]:
    tools = sorted(surface.tools)
    for tool in tools:
        name = "k" * MIB
        yield Case("huge-names", f"{tool}: 1 MiB field name", tool_call(tool, {"request": {name: 1}}), REFUSED)
        yield Case(
            "huge-names",
            f"{tool}: 1 MiB argument name",
            tool_call(tool, {"request": base_request(surface, tool), name: 1}),
            REFUSED,
        )
        many = {f"{i:04d}{hostile_text(rng, 40)}{'n' * 1000}": i for i in range(500)}
        yield Case("huge-names", f"{tool}: 500 long field names", tool_call(tool, {"request": many}), REFUSED)
    for name in ("no_such_tool", "t" * MIB, "list_frameworks\n", hostile_text(rng, 300), f"{tools[0]}{'x' * 5000}"):
        yield Case("unknown-names", f"tool name of {len(name)} chars", tool_call(name, {}), REFUSED)
    for name in ("no_such_prompt", "p" * MIB, "teacher_guide_draft\x00", hostile_text(rng, 300)):
        yield Case("unknown-names", f"prompt name of {len(name)} chars", prompt_get(name, {}), REFUSED)
    for bad in (12, None, ["x" * 1000], {"a": "b" * 1000}):
        yield Case("unknown-names", f"tool name {type(bad).__name__}", tool_call(bad, {}))
        yield Case("unknown-names", f"prompt name {type(bad).__name__}", prompt_get(bad, {}))
        yield Case("unknown-names", f"resource uri {type(bad).__name__}", resource_read(bad))
    for uri in ("kgfegmcp://" + "u" * MIB, "x" * MIB, "kgfegmcp://nothing", "file:///etc/passwd", "kgfegmcp:///tmp"):
        yield Case(
            "unknown-names", f"resource uri of {len(uri)} chars", resource_read(uri), frozenset({"resource_not_found"})
        )
    for prompt, arguments in sorted(surface.prompts.items()):
        for length in (40_000, MIB):
            yield Case(
                "argument-names",
                f"{prompt}: argument name of {length} chars",
                prompt_get(prompt, {"x" * length: "v"}),
                REFUSED,
            )
        many = {f"{i:04d}{'y' * 2000}{hostile_text(rng, 20)}": "v" for i in range(400)}
        yield Case("argument-names", f"{prompt}: 400 unknown names", prompt_get(prompt, many), REFUSED)
        camel = {"".join(w.capitalize() if i else w for i, w in enumerate(n.split("_"))): "x" for n, _ in arguments}
        yield Case("argument-names", f"{prompt}: camelCase names", prompt_get(prompt, camel), REFUSED)
    for tool in tools:
        request = base_request(surface, tool)
        first = next(iter(surface.tools[tool].get("properties", {}).get("request", {}).get("properties", {})), "x")
        # Up to ~200 levels the transport parses the body and validation sees it; beyond, the transport refuses.
        for depth, kind, where in ((150, "array", first), (150, "object", "zz"), (100_000, "array", first)):
            raw = {"0": nested(depth, kind)}
            yield Case(
                "deep-nesting",
                f"{tool}: {where} nested {depth} ({kind})",
                tool_call(tool, {"request": {**request, where: RAW.format(0)}}, raw),
            )
        yield Case(
            "deep-nesting",
            f"{tool}: request nested 190",
            tool_call(tool, {"request": RAW.format(0)}, {"0": nested(190, "object")}),
        )
    for prompt in sorted(surface.prompts):
        spec = WORKFLOWS.get(prompt)
        lists = [use.spec.name for use in spec.arguments if use.spec.is_list] if spec else []
        for name in lists:
            for depth in (2, 9, 100, 1000, 30_000):
                yield Case(
                    "deep-nesting",
                    f"{prompt}: {name} nested {depth}",
                    prompt_get(prompt, {**prompt_base(surface, prompt), name: nested(depth, leaf='"a"')}),
                    REFUSED,
                )
            yield Case(
                "deep-nesting",
                f"{prompt}: {name} nested objects",
                prompt_get(prompt, {**prompt_base(surface, prompt), name: nested(20_000, "object")}),
                REFUSED,
            )
    hostile_for: set[str] = set()
    for label, target in sorted(surface.cursor_targets.items()):
        # Sealed with the server's key, so the position itself is what is refused (or served). Payload
        # parsing does not depend on the search mode: hostile payloads once per tool, positions per mode.
        if target.tool not in hostile_for:
            hostile_for.add(target.tool)
            for name, payload in hostile_positions(surface, label).items():
                yield cursor_case(surface, label, f"{name} (sealed)", seal(surface, payload), INVALID_CURSOR)
        for name, (payload, allowed) in extreme_positions(surface, label).items():
            yield cursor_case(surface, label, f"{name} (sealed)", seal(surface, payload), allowed)
            if name in PUBLIC_KEY_PROBES:  # the checksum alone refuses these: a few suffice
                yield cursor_case(surface, label, f"{name} (public key)", forge(surface, payload), INVALID_CURSOR)
        if target.genuine:
            yield cursor_case(surface, label, "genuine", target.genuine, OK)
            payload = base64.urlsafe_b64decode(target.genuine + "=" * (-len(target.genuine) % 4))[:-16]
            yield cursor_case(surface, label, "genuine payload (public key)", forge(surface, payload), INVALID_CURSOR)
            for variant in (target.genuine[:-1], target.genuine[::-1], target.genuine + "A", target.genuine[:10]):
                yield cursor_case(surface, label, "altered genuine", variant, INVALID_CURSOR)
    values = prompt_values(rng)
    for prompt, arguments in sorted(surface.prompts.items()):
        base = prompt_base(surface, prompt)
        for index, (name, _required) in enumerate(arguments):
            for step in range(4):  # four values per argument, rotating, so every prompt meets every value
                label, value = values[(4 * index + step) % len(values)]
                yield Case("prompt-arguments", f"{prompt}: {name} {label}", prompt_get(prompt, {**base, name: value}))
        yield Case("prompt-arguments", f"{prompt}: no arguments", prompt_get(prompt, {}), REFUSED)
        yield Case("prompt-arguments", f"{prompt}: arguments null", prompt_get(prompt, None))
        yield Case("prompt-arguments", f"{prompt}: non-string value", prompt_get(prompt, {**base, "topic": 5}))
        yield Case("prompt-arguments", f"{prompt}: valid", prompt_get(prompt, base), frozenset({"ok"}))
    for workflow in sorted(w for w, spec in WORKFLOWS.items() if spec.served_as_tool):
        for label, value, raw in typed_values(rng):
            request = {"workflow": workflow, "frameworkId": surface.framework_id, "topic": value}
            yield Case(
                "prompt-arguments",
                f"get_workflow_instructions {workflow}: topic {label}",
                tool_call("get_workflow_instructions", {"request": request}, raw),
            )
    addresses = address_values(rng)
    for index, template in enumerate(surface.templates):
        for step in range(4):
            label, value = addresses[(4 * index + step) % len(addresses)]
            uri = fill(template, surface, value)
            yield Case("resource-addresses", f"{template}: {label}", resource_read(uri))
            yield Case(
                "resource-addresses",
                f"read_evidence {template}: {label}",
                tool_call("read_evidence", {"request": {"uri": uri}}),
            )
    for tool in tools:
        for _ in range(4):
            yield value_abuse(surface, rng, tool)


def prompt_base(surface: Surface, prompt: str) -> dict[str, str]:
    """Arguments that render ``prompt`` on the default catalog (refused cleanly elsewhere)."""
    framework = surface.framework_id
    if prompt == "cross_framework_comparison":
        return {"framework_ids": json.dumps(sorted({framework, "brazil-bncc-computacao"})), "topic": "algoritmos"}
    base = {"framework_id": framework, "topic": "frações"}
    if prompt == "multigrade_lesson_plan":
        base["grade_levels"] = '["4º ano", "5º ano"]'
    if prompt == "learning_progression_curriculum_review":
        base = {"framework_id": framework, "standards": json.dumps([surface.statement_code])}
    if prompt == "administrator_alignment_review":
        base = {"framework_id": framework}
    return base


def prompt_values(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("70,000 chars", "v" * 70_000),
        ("65,536 chars", "w" * 65_536),
        ("controls", "ok\x00\x07\x1b[31m\u2028x"),
        ("lone-surrogate escape in an array", '["\\ud800"]'),
        ("lone-surrogate escape pair", '["\\udfff\\ud800"]'),
        ("exponent", "1e999"),
        ("eleven digits", "99999999999"),
        ("negative", "-1"),
        ("arabic digit", "\u0663"),
        ("empty", ""),
        ("blank", " \t\n"),
        ("empty array", "[]"),
        ("duplicates", '["a", "a"]'),
        ("10,000 elements", json.dumps(["e"] * 10_000)),
        ("mixed element types", '["a", 1, null, {"x": []}]'),
        ("path traversal", "../../../etc/passwd"),
        ("percent-encoded", "%2e%2e%2f%00"),
        ("NaN", "[NaN]"),
        ("random", hostile_text(rng, rng.randrange(1, 600))),
    ]


def typed_values(rng: random.Random) -> list[tuple[str, Any, dict[str, str] | None]]:
    """Typed JSON values for a text field of get_workflow_instructions (label, value, raw splices)."""
    return [
        ("1 MiB", "q" * MIB, None),
        ("int", 5, None),
        ("huge int", RAW.format(0), {"0": "9" * 5000}),
        ("float", 1.5, None),
        ("list", ["a"] * 1000, None),
        ("object", {"a": "b"}, None),
        ("null", None, None),
        ("random", hostile_text(rng, 200), None),
    ]


def address_values(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("1 MiB segment", "s" * MIB),
        ("300 chars", "a" * 300),
        ("dot-dot", ".."),
        ("encoded dot-dot", "%2e%2e"),
        ("slash traversal", "a/../../etc"),
        ("absolute", "/etc/passwd"),
        ("controls", "a\x00b\n"),
        ("unicode", "fra\u00e7\u00e3o"),
        ("uppercase", "ABC"),
        ("dots inside", "a..b"),
        ("random", hostile_text(rng, 80)),
    ]


def fill(template: str, surface: Surface, hostile: str) -> str:
    """The template with one hostile parameter (the last) and real values for the others."""
    names = re.findall(r"\{([a-z_]+)\}", template)
    real = {
        "framework_id": surface.framework_id,
        "snapshot_id": surface.snapshot_id,
        "node_id": surface.node_id,
        "relationship_id": surface.relationship_id,
        "part": "00",
        "logical_name": "packageManifest",
    }
    uri = template
    for index, name in enumerate(names):
        uri = uri.replace("{" + name + "}", hostile if index == len(names) - 1 else real.get(name, "x"))
    return uri


def value_abuse(surface: Surface, rng: random.Random, tool: str) -> Case:
    """The tool's base request with one field set to a hostile JSON value."""
    request = base_request(surface, tool)
    schema = surface.tools[tool].get("properties", {}).get("request", {}).get("properties", {})
    fields = sorted(schema) or ["query"]
    target = rng.choice(fields)
    choices: list[tuple[str, Any, dict[str, str] | None]] = [
        ("1 MiB string", hostile_text(rng, MIB), None),
        ("long random string", hostile_text(rng, rng.randrange(200, 5000)), None),
        ("huge integer", RAW.format(0), {"0": "9" * rng.choice([20, 400, 5000])}),
        ("negative", -rng.randrange(1, 10**12), None),
        ("float", rng.random() * 1e308, None),
        ("bool", True, None),
        ("null", None, None),
        ("100,000 items", ["x"] * 100_000, None),
        ("object", {"a": [1, {"b": None}]}, None),
        ("control string", "\x00\x01\u2028", None),
    ]
    label, value, raw = rng.choice(choices)
    return Case(
        "value-abuse", f"{tool}: {target} {label}", tool_call(tool, {"request": {**request, target: value}}, raw)
    )


def random_case(surface: Surface, rng: random.Random, cls: str | None = None) -> Case:
    """One seeded random case of ``cls``, or of any class."""
    cls = cls or rng.choice(CLASSES)
    tool = rng.choice(sorted(surface.tools))
    prompt = rng.choice(sorted(surface.prompts))
    if cls == "huge-names":
        name = hostile_text(rng, huge_length(rng))
        return Case(cls, f"{tool}: random field name", tool_call(tool, {"request": {name: 1}}), REFUSED)
    if cls == "unknown-names":
        name = hostile_text(rng, huge_length(rng))
        kind = rng.choice(["tool", "prompt", "resource"])
        if kind == "tool":
            return Case(cls, "random tool name", tool_call(name, {}), REFUSED)
        if kind == "prompt":
            return Case(cls, "random prompt name", prompt_get(name, {}), REFUSED)
        return Case(cls, "random resource uri", resource_read("kgfegmcp://" + name), frozenset({"resource_not_found"}))
    if cls == "argument-names":
        names = {hostile_text(rng, huge_length(rng) // 10 + 1): "v" for _ in range(rng.randrange(1, 20))}
        return Case(
            cls, f"{prompt}: random argument names", prompt_get(prompt, {**prompt_base(surface, prompt), **names})
        )
    if cls == "deep-nesting":
        depth = rng.choice([10, 100, 190, 300, 3000, 200_000])
        raw = {"0": nested(depth, rng.choice(["array", "object"]))}
        return Case(cls, f"{tool}: random nesting {depth}", tool_call(tool, {"request": RAW.format(0)}, raw))
    if cls == "forged-cursors" and surface.cursor_targets:
        return random_cursor(surface, rng)
    if cls == "prompt-arguments":
        spec = rng.choice(sorted(surface.prompts[prompt]))[0]
        label, value = rng.choice(prompt_values(rng))
        return Case(cls, f"{prompt}: {spec} {label}", prompt_get(prompt, {**prompt_base(surface, prompt), spec: value}))
    if cls == "resource-addresses":
        template = rng.choice(surface.templates)
        label, value = rng.choice(address_values(rng))
        return Case(cls, f"{template}: {label}", resource_read(fill(template, surface, value)))
    return value_abuse(surface, rng, tool)


def random_offset(rng: random.Random, reach: int | None) -> int:
    """Small, near the reach, anywhere inside it, powers of two and ten up to 2**64, or negative."""
    near = [] if reach is None else [reach - 1, reach, reach + 1, rng.randrange(max(1, reach))]
    return int(
        rng.choice(
            [
                rng.randrange(0, 30),
                *near,
                2 ** rng.randrange(20, 65),
                2 ** rng.randrange(20, 65) - 1,
                10 ** rng.randrange(1, 40),
                -rng.randrange(1, 2**63),
            ]
        )
    )


def random_cursor(surface: Surface, rng: random.Random) -> Case:
    """One seeded forged-cursors case: a sealed or public-key position, random bytes, or an altered cursor."""
    label = rng.choice(sorted(surface.cursor_targets))
    target = surface.cursor_targets[label]
    choice = rng.randrange(5)
    if choice in (0, 1):
        offset = random_offset(rng, target.reach)
        payload = envelope(surface, label, position(surface, label, offset))
        if choice == 0:
            return cursor_case(
                surface, label, f"offset {offset} (sealed)", seal(surface, payload), expected(surface, label, offset)
            )
        return cursor_case(surface, label, f"offset {offset} (public key)", forge(surface, payload), INVALID_CURSOR)
    if choice == 2:
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
        sealed = rng.random() < 0.5
        cursor = seal(surface, payload) if sealed else forge(surface, payload)
        return cursor_case(
            surface, label, f"random bytes ({'sealed' if sealed else 'public key'})", cursor, INVALID_CURSOR
        )
    if choice == 3:
        junk = rng.choice(
            [
                {"offset": [rng.randrange(2**63) for _ in range(rng.randrange(1, 150))]},
                {"offset": {"offset": rng.randrange(100)}},
                {"offset": str(rng.randrange(100))},
                {"offset": rng.random() * 10 ** rng.randrange(1, 300)},
                {"offset": 1, "sha256": hostile_text(rng, rng.randrange(1, 64)), "x": [None] * rng.randrange(1, 300)},
                {},
            ]
        )
        payload = envelope(surface, label, json.dumps(junk).encode())
        return cursor_case(surface, label, "junk position (sealed)", seal(surface, payload), OK_OR_INVALID_CURSOR)
    genuine = target.genuine or seal(surface, envelope(surface, label, position(surface, label, 1)))
    index = rng.randrange(len(genuine))
    flipped = genuine[:index] + rng.choice("AQgw_-09") + genuine[index + 1 :]
    return cursor_case(surface, label, "flipped character", flipped, OK_OR_INVALID_CURSOR)


# -- what a run sends -----------------------------------------------------------------------------


def budgeted(surface: Surface, rng: random.Random, budget_seconds: float, started: float) -> Iterator[Case]:
    """The whole sweep, then seeded random cases of any class until ``budget_seconds`` have passed."""
    yield from sweep(surface, rng)
    while time.monotonic() - started <= budget_seconds:
        yield random_case(surface, rng)


def counted(surface: Surface, rng: random.Random, classes: set[str], per_class: int, seed: int) -> list[Case]:
    """Exactly ``per_class`` cases of each class in ``classes``, whatever the time they take.

    The sweep is built in full, so each case kept is byte for byte the one a full run sends; a seeded
    reservoir keeps ``per_class`` of each class's cases (spread over its tools, templates and prompts),
    in sweep order. A class whose sweep is shorter is topped up with seeded random cases of that class.
    """
    picker = random.Random(f"sample-{seed}")
    kept: dict[str, list[tuple[int, Case]]] = {cls: [] for cls in CLASSES if cls in classes and cls != TAMPERING}
    seen: collections.Counter[str] = collections.Counter()
    for index, case in enumerate(sweep(surface, rng)):
        if case.cls not in kept:
            continue
        seen[case.cls] += 1
        reservoir = kept[case.cls]
        if len(reservoir) < per_class:
            reservoir.append((index, case))
        elif (slot := picker.randrange(seen[case.cls])) < per_class:
            reservoir[slot] = (index, case)
    cases = [case for _, case in sorted((pair for pair in itertools.chain(*kept.values())), key=lambda p: p[0])]
    for cls, reservoir in kept.items():
        for _ in range(per_class - len(reservoir)):
            case = random_case(surface, rng, cls)
            if case.cls != cls:  # no random case of this class on this catalog (no cursor to forge)
                break
            cases.append(case)
    return cases


# -- checking -------------------------------------------------------------------------------------


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


# -- discovery ------------------------------------------------------------------------------------


def call(url: str, method: str, params: Any) -> dict[str, Any]:
    reply = post(url, rpc_body(method, params), 60)
    if reply.message is None or "result" not in reply.message:
        raise SystemExit(f"fuzz: {method} failed: {reply.text[:500]}")
    result = reply.message["result"]
    assert isinstance(result, dict)
    return result


def structured(url: str, tool: str, request: dict[str, Any]) -> dict[str, Any]:
    result = call(url, "tools/call", {"name": tool, "arguments": {"request": request}})
    content = result.get("structuredContent")
    return content if isinstance(content, dict) and not result.get("isError") else {}


def discover(url: str, cursor_secret: str) -> Surface:
    """What the server lists, plus real ids and genuine cursors (fallback ids where none exist)."""
    tools = {t["name"]: t.get("inputSchema", {}) for t in call(url, "tools/list", {})["tools"]}
    templates = [t["uriTemplate"] for t in call(url, "resources/templates/list", {})["resourceTemplates"]]
    prompts = {
        p["name"]: [(a["name"], bool(a.get("required"))) for a in p.get("arguments", [])]
        for p in call(url, "prompts/list", {})["prompts"]
    }
    catalog = json.loads(call(url, "resources/read", {"uri": "kgfegmcp://catalog"})["contents"][0]["text"])
    frameworks = structured(url, "list_frameworks", {"limit": 100}).get("frameworks", [])
    # A listed package names itself once, as '<frameworkId>@<snapshotId>'.
    packages = [str(f.get("graphPackageId", "")).partition("@")[::2] for f in frameworks]
    preferred = [p for p in packages if p[0] == "brazil-bncc-ensino-fundamental"] or packages
    framework_id, snapshot_id = preferred[0] if preferred else ("no-framework", "no-snapshot")
    hits = structured(url, "search_standards", {"query": "de", "frameworkIds": [framework_id], "limit": 1}).get(
        "hits", []
    )
    standard = hits[0] if hits else {"nodeId": "no-node", "statementCode": "NO1"}
    components = structured(url, "search_learning_components", {"query": "de", "limit": 1}).get("hits", [])
    links = structured(url, "search_learning_progressions", {"frameworkId": framework_id, "limit": 1}).get("links", [])
    surface = Surface(
        tools=tools,
        templates=templates,
        prompts=prompts,
        catalog_fingerprint=str(catalog.get("catalogFingerprint", "")),
        framework_id=framework_id,
        snapshot_id=snapshot_id,
        node_id=standard["nodeId"],
        statement_code=standard.get("statementCode") or "NO1",
        component_id=components[0]["nodeId"] if components else "no-component",
        relationship_id=links[0]["relationshipId"] if links else "no-link",
        codec=CursorCodec(str(catalog.get("catalogFingerprint", "")), SecretStr(cursor_secret)),
    )
    # EF05MA03 has several progression links in the default catalog; elsewhere any standard will do.
    progressing = {"statementCode": "EF05MA03"} if framework_id == "brazil-bncc-ensino-fundamental" else {}
    requests: dict[str, tuple[str, dict[str, Any]]] = {
        "list_frameworks": ("list_frameworks", {"limit": 1}),
        "search_standards auto": ("search_standards", {"query": "de", "limit": 1}),
        "search_standards text": ("search_standards", {"query": "de", "searchMode": "text", "limit": 1}),
        "search_standards code": (
            "search_standards",
            {"query": surface.statement_code[:3], "searchMode": "code", "codeMatch": "prefix", "limit": 1},
        ),
        "search_learning_components": ("search_learning_components", {"query": "de", "limit": 1}),
        "get_standard_progressions": (
            "get_standard_progressions",
            {"frameworkId": framework_id, **(progressing or {"nodeId": surface.node_id}), "limit": 1},
        ),
        "search_learning_progressions": ("search_learning_progressions", {"frameworkId": framework_id, "limit": 1}),
        "read_evidence": ("read_evidence", {"uri": "kgfegmcp://catalog", "windowBytes": 64}),
    }
    links_of = {str(f.get("graphPackageId")): f.get("learningProgressionLinks") for f in frameworks}
    for label, (tool, request) in requests.items():
        page = structured(url, tool, request)
        if not page:  # this catalog cannot answer the request: no cursor of it to forge
            continue
        cursor = (page.get("page") or {}).get("nextCursor")
        reach = page.get("total", page.get("totalLinks"))
        if tool == "search_learning_progressions":  # the links scanned, of every kind
            reach = links_of.get(f"{framework_id}@{snapshot_id}")
        if tool == "read_evidence":
            surface.evidence_sha256 = str((page.get("resource") or {}).get("sha256", ""))
            reach = (page.get("resource") or {}).get("byteLength")
        surface.cursor_targets[label] = CursorTarget(
            tool, request, cursor if isinstance(cursor, str) else None, reach if isinstance(reach, int) else None
        )
    return surface


# -- the run --------------------------------------------------------------------------------------


class BackgroundProbe:
    """A second client polling a cheap call throughout: its longest wait shows any stall of the server."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url, self.timeout = url, timeout
        self.longest = 0.0
        self.failures: list[str] = []
        self.requests = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> BackgroundProbe:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.timeout + 10)

    def _run(self) -> None:
        body = tool_call("get_capabilities", {"request": {}})
        while not self._stop.wait(0.25):
            self.requests += 1
            try:
                reply = post(self.url, body, self.timeout)
            except TimeoutError as exc:
                self.failures.append(str(exc))
                continue
            self.longest = max(self.longest, reply.seconds)
            if reply.seconds > self.timeout or reply.message is None or "result" not in reply.message:
                self.failures.append(f"background call answered in {reply.seconds:.1f}s: {reply.text[:160]!r}")


@dataclass
class Tally:
    cases: int = 0
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    violations: int = 0
    slowest: float = 0.0


def run(args: argparse.Namespace) -> int:
    classes = set(args.classes.split(",")) if args.classes else set(CLASSES)
    if classes - set(CLASSES):
        raise SystemExit(f"fuzz: unknown classes {sorted(classes - set(CLASSES))}; known: {', '.join(CLASSES)}")
    limits = Limits(args.max_error_chars, args.case_timeout, args.probe_timeout)
    packages = Path(args.graph_packages_dir).resolve()
    tallies: dict[str, Tally] = {cls: Tally() for cls in CLASSES}
    violations: list[str] = []
    started = time.monotonic()
    log_size, longest_wait = 0, 0.0
    if classes - {TAMPERING}:
        log_size, longest_wait = run_surface(args, classes, limits, packages, tallies, violations, started)
    if TAMPERING in classes:
        run_package_tampering(args, packages, tallies[TAMPERING], violations, started)
    elapsed = time.monotonic() - started
    report(tallies, violations, elapsed, args, log_size, longest_wait)
    return 1 if violations else 0


def run_package_tampering(
    args: argparse.Namespace, packages: Path, tally: Tally, violations: list[str], started: float
) -> None:
    """The named tampering scenarios, then random ones until the budget is spent or the count is reached
    (``fuzz_packages.py``)."""
    remaining = max(0.0, args.budget_seconds - (time.monotonic() - started))
    outcomes = run_tampering(
        packages,
        budget_seconds=remaining,
        cases=args.package_cases,
        seed=args.seed,
        case_timeout=args.case_timeout,
        log=print,
    )
    for outcome in outcomes:
        tally.cases += 1
        tally.outcomes["ok" if outcome.validate_status == "passed" else "refused"] += 1
        tally.slowest = max([tally.slowest, *(gate.seconds for gate in outcome.gates)])
        if outcome.violations:
            tally.violations += 1
            violations.append(f"[{TAMPERING}] {describe(outcome)}"[:800])
    if args.matrix:
        print(matrix(outcomes))


def run_surface(
    args: argparse.Namespace,
    classes: set[str],
    limits: Limits,
    packages: Path,
    tallies: dict[str, Tally],
    violations: list[str],
    started: float,
) -> tuple[int, float]:
    """The request classes against one server; returns its log size and the longest background wait."""
    rng = random.Random(args.seed)
    leaks = ("Traceback", "/work", "/home", "/tmp", tempfile.gettempdir(), str(REPOSITORY_ROOT), str(packages))
    strict_leaks = ("Traceback", str(REPOSITORY_ROOT), str(packages))
    cursor_secret = secrets.token_urlsafe(48)  # the fuzzer's server keys cursors by it, so it can seal them
    with serve(packages, args.start_timeout, cursor_secret) as server:
        surface = discover(server.url, cursor_secret)
        print(f"forged-cursors targets: {', '.join(sorted(surface.cursor_targets)) or 'none'}")
        probe_body = tool_call("get_capabilities", {"request": {}})
        with BackgroundProbe(server.url, limits.probe_timeout) as background:
            if args.cases is None:
                cases: Iterator[Case] = budgeted(surface, rng, args.budget_seconds, started)
            else:
                cases = iter(counted(surface, rng, classes, args.cases, args.seed))
            for case in cases:
                if case.cls not in classes:
                    continue
                log_start, requests_before = server.log_size(), background.requests
                try:
                    reply = post(server.url, case.body, max(limits.case_timeout, 60.0))
                    outcome, problems = check(case, reply, limits, leaks, strict_leaks)
                    seconds = reply.seconds
                except TimeoutError as exc:
                    outcome, problems, seconds = "timeout", [str(exc)], limits.case_timeout
                try:
                    after = post(server.url, probe_body, limits.probe_timeout + 30)
                    if after.seconds > limits.probe_timeout or after.message is None or "result" not in after.message:
                        problems.append(f"the next cheap call answered in {after.seconds:.1f}s: {after.text[:160]!r}")
                except TimeoutError as exc:
                    problems.append(f"the next cheap call: {exc}")
                if server.process.poll() is not None:
                    problems.append(f"the server exited with {server.process.returncode}")
                grown = server.log_bytes(log_start)
                allowance = LOG_SLACK_BYTES + LOG_BYTES_PER_REQUEST * (2 + background.requests - requests_before)
                if b"Traceback" in grown:
                    problems.append("the server logged a traceback: " + grown.decode(errors="replace")[:300])
                if len(grown) > allowance:
                    problems.append(f"the server log grew {len(grown)} bytes (allowance {allowance})")
                problems.extend(background.failures)
                background.failures.clear()
                tally = tallies[case.cls]
                tally.cases += 1
                tally.outcomes[outcome] += 1
                tally.slowest = max(tally.slowest, seconds)
                if problems:
                    tally.violations += 1
                    violations.append(f"[{case.cls}] {case.label[:120]!r}: {'; '.join(problems)[:600]}")
                if server.process.poll() is not None or any("the next cheap call" in p for p in problems):
                    violations.append("stopped early: the server no longer answers")
                    break
        return server.log_size(), background.longest


def report(
    tallies: dict[str, Tally],
    violations: list[str],
    elapsed: float,
    args: argparse.Namespace,
    log_size: int,
    wait: float,
) -> None:
    total = sum(t.cases for t in tallies.values())
    print(
        f"{'class':<20}{'cases':>8}{'ok':>7}{'refused':>9}{'protocol':>10}{'violations':>12}{'slowest s':>11}  outcomes"
    )
    for cls, tally in tallies.items():
        ok = tally.outcomes["ok"]
        protocol = tally.outcomes["protocol_rejected"] + tally.outcomes["transport_rejected"]
        refused = tally.cases - ok - protocol
        codes = ", ".join(f"{code} {n}" for code, n in sorted(tally.outcomes.items()))
        counts = f"{tally.cases:>8}{ok:>7}{refused:>9}{protocol:>10}{tally.violations:>12}"
        print(f"{cls:<20}{counts}{tally.slowest:>11.2f}  {codes}")
    print(
        f"fuzz: {total} cases in {elapsed:.0f}s, seed {args.seed}, server log {log_size} bytes, "
        f"longest background wait {wait:.2f}s, {len(violations)} violations"
    )
    for line in violations[:25]:
        print("VIOLATION " + line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--budget-seconds", type=float, default=None, help="random cases after the sweep until then (default 30)"
    )
    parser.add_argument(
        "--cases", type=int, default=None, help="instead of a budget: exactly this many cases of each request class"
    )
    parser.add_argument(
        "--package-cases", type=int, default=None, help="with --cases: this many tampered packages (default: --cases)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--classes", default="", help=f"comma-separated subset of: {', '.join(CLASSES)}")
    parser.add_argument("--graph-packages-dir", default=str(REPOSITORY_ROOT / "data" / "graph_packages"))
    parser.add_argument("--max-error-chars", type=int, default=2000)
    parser.add_argument("--case-timeout", type=float, default=30.0, help="generous: the machine may be shared")
    parser.add_argument("--probe-timeout", type=float, default=10.0)
    parser.add_argument("--start-timeout", type=float, default=120.0)
    parser.add_argument("--matrix", action="store_true", help="print the tampering scenarios as a markdown table")
    args = parser.parse_args(argv)
    if args.cases is not None and args.budget_seconds is not None:
        parser.error("--cases and --budget-seconds exclude each other: a run is bounded by a count or by a clock")
    if args.package_cases is not None and args.cases is None:
        parser.error("--package-cases goes with --cases")
    if any(count is not None and count < 0 for count in (args.cases, args.package_cases)):
        parser.error("--cases and --package-cases count cases: 0 or more")
    if args.cases is not None and args.package_cases is None:
        args.package_cases = args.cases
    if args.budget_seconds is None:
        args.budget_seconds = 0.0 if args.cases is not None else 30.0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
