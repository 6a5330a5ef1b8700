"""The ``slow-clients`` class of ``scripts/fuzz.py``: connections that hold the server instead of asking it.

A server of its own is started with short limits (:data:`LIMITS`: a 2 s write deadline, 16 connections), so
each attack outlasts them within seconds. Each named attack opens as many connections as the server may hold
and misuses them for :data:`ATTACK_SECONDS`, while a well-behaved client asks for the capabilities every
half second on a connection of its own. The invariants, for every attack:

- every try of the well-behaved client is answered (HTTP 200 with a result) within ``--probe-timeout``;
- the server stays up, writes no traceback, and logs nothing at WARNING or above for what a client sent
  (malformed requests are the client's doing: INFO at most; the connection cap's own report, throttled, is
  the operator's);
- its log grows by at most an INFO line per request or connection sent, so no client writes the log.
"""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from .classes import SLOW, seeded_sample
from .rpc import HEADERS, post, tool_call
from .server import Server, serve

#: The limits the attacked server runs with: short, so an attack that outlasts them takes seconds.
LIMITS = {
    "KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS": "2",
    "KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS": "2",
    "KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS": "3",
    "KGFEGMCP_HTTP_MAX_CONNECTIONS": "16",
}
CONNECTIONS = int(LIMITS["KGFEGMCP_HTTP_MAX_CONNECTIONS"])
#: How long each attack lasts: more than twice every limit above.
ATTACK_SECONDS = 7.0
#: Log bytes allowed per request or connection an attack sent (an INFO line each at most), and in all.
LOG_BYTES_PER_REQUEST = 1024
LOG_SLACK_BYTES = 8192
#: WARNING lines an attack may cause: the connection cap's own report, throttled to one a minute per kind.
MAX_WARNINGS = 2


@dataclass
class Sent:
    """What an attack sent: each request and each connection may make the server log a line."""

    requests: int = 0


@dataclass
class SlowOutcome:
    """What one attack did to the well-behaved client and to the log."""

    name: str
    what: str
    tries: int = 0
    served: int = 0
    slowest: float = 0.0
    log_bytes: int = 0
    violations: list[str] = field(default_factory=list)


def _connect(host: str, port: int, receive_buffer: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)  # fills fast: the answers stay unread
    sock.settimeout(5)
    sock.connect((host, port))
    return sock


def _request(path: str, host: str, body: bytes) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in HEADERS.items())
    return head.encode("ascii") + b"\r\n" + body


def _slow_readers(url: str, stop: threading.Event, rng: random.Random, sent: Sent) -> None:
    """Pipeline large answers on every connection and never read them."""
    parts = urlsplit(url)
    body = tool_call("search_standards", {"request": {"query": "number", "limit": 50}})
    burst = _request(parts.path, parts.netloc, body) * 200
    sockets = []
    for _ in range(CONNECTIONS):
        with contextlib.suppress(OSError):
            sock = _connect(parts.hostname or "127.0.0.1", parts.port or 80, receive_buffer=4096)
            sock.settimeout(0.2)
            with contextlib.suppress(OSError):
                sock.sendall(burst)
            sent.requests += 200
            sockets.append(sock)
    stop.wait()
    for sock in sockets:
        sock.close()


def _trickled_heads(url: str, stop: threading.Event, rng: random.Random, sent: Sent) -> None:
    """Send request heads a byte at a time, reopening each connection the server closes."""
    parts = urlsplit(url)
    head = _request(parts.path, parts.netloc, b"{}")
    while not stop.is_set():
        sockets = []
        for _ in range(CONNECTIONS):
            with contextlib.suppress(OSError):
                sockets.append(_connect(parts.hostname or "127.0.0.1", parts.port or 80))
        sent.requests += len(sockets)
        for index in range(len(head)):
            if stop.wait(0.3):
                break
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.send(head[index : index + 1])
        for sock in sockets:
            sock.close()


def _stalled_bodies(url: str, stop: threading.Event, rng: random.Random, sent: Sent) -> None:
    """Announce a 1 MB body and never send it."""
    parts = urlsplit(url)
    head = _request(parts.path, parts.netloc, b"").replace(b"Content-Length: 0", b"Content-Length: 1000000")
    while not stop.is_set():
        sockets = []
        for _ in range(CONNECTIONS):
            with contextlib.suppress(OSError):
                sock = _connect(parts.hostname or "127.0.0.1", parts.port or 80)
                sock.sendall(head + b"{")
                sockets.append(sock)
        sent.requests += len(sockets)
        stop.wait(4)
        for sock in sockets:
            sock.close()


def _idle_flood(url: str, stop: threading.Event, rng: random.Random, sent: Sent) -> None:
    """Open ten times as many connections as the server may hold, and say nothing on them."""
    parts = urlsplit(url)
    sockets = []
    for _ in range(10 * CONNECTIONS):
        with contextlib.suppress(OSError):
            sockets.append(_connect(parts.hostname or "127.0.0.1", parts.port or 80))
    sent.requests += len(sockets)
    stop.wait()
    for sock in sockets:
        sock.close()


#: Bytes no HTTP/1.1 parser accepts, each sent on a connection of its own.
MALFORMED = (
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,  # a TLS hello on the plain port
    b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /\x00 HTTP/1.1\r\n\r\n",
    b"\r\n\r\n\r\nNOT HTTP AT ALL\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
)


def _malformed_requests(url: str, stop: threading.Event, rng: random.Random, sent: Sent) -> None:
    """Malformed requests, one per connection, as fast as they are answered."""
    parts = urlsplit(url)
    while not stop.is_set():
        with contextlib.suppress(OSError), _connect(parts.hostname or "127.0.0.1", parts.port or 80) as sock:
            sock.sendall(rng.choice(MALFORMED))
            sent.requests += 1
            sock.settimeout(1)
            with contextlib.suppress(OSError):
                sock.recv(4096)
        stop.wait(0.01)


@dataclass(frozen=True)
class SlowAttack:
    name: str
    what: str
    run: Callable[[str, threading.Event, random.Random, Sent], None]


SLOW_ATTACKS: tuple[SlowAttack, ...] = (
    SlowAttack(
        "slow-readers",
        f"{CONNECTIONS} connections pipelining 200 searches each, never reading an answer",
        _slow_readers,
    ),
    SlowAttack("trickled-heads", f"{CONNECTIONS} connections sending request heads a byte at a time", _trickled_heads),
    SlowAttack(
        "stalled-bodies", f"{CONNECTIONS} connections announcing a 1 MB body, sending one byte", _stalled_bodies
    ),
    SlowAttack("idle-flood", f"{10 * CONNECTIONS} connections opened and left silent", _idle_flood),
    SlowAttack("malformed-requests", "malformed HTTP requests, one per connection, back to back", _malformed_requests),
)


@contextlib.contextmanager
def _attacking(attack: SlowAttack, url: str, rng: random.Random) -> Iterator[Sent]:
    stop = threading.Event()
    sent = Sent()
    thread = threading.Thread(target=attack.run, args=(url, stop, rng, sent), daemon=True)
    thread.start()
    try:
        yield sent
    finally:
        stop.set()
        thread.join(timeout=30)


def _judge(outcome: SlowOutcome, server: Server, log_start: int, probe_timeout: float, sent: Sent) -> None:
    grown = server.log_bytes(log_start)
    outcome.log_bytes = len(grown)
    text = grown.decode("utf-8", "replace")
    if outcome.served < outcome.tries:
        outcome.violations.append(f"the well-behaved client was served {outcome.served} of {outcome.tries} tries")
    if outcome.slowest > probe_timeout:
        outcome.violations.append(f"the well-behaved client waited {outcome.slowest:.1f} s")
    if server.process.poll() is not None:
        outcome.violations.append(f"the server exited with {server.process.returncode}")
    if "Traceback" in text:
        outcome.violations.append("the server logged a traceback")
    loud = [
        line for line in text.splitlines() if any(f" {level} " in line for level in ("WARNING", "ERROR", "CRITICAL"))
    ]
    # A refusal is the client's doing (INFO at most); the cap's report is the operator's, throttled.
    by_client = [line for line in loud if " uvicorn" in line or " ERROR " in line or " CRITICAL " in line]
    if by_client or len(loud) > MAX_WARNINGS:
        example = (by_client or loud)[0][:200]
        outcome.violations.append(f"{len(loud)} log lines at WARNING or above, for example {example!r}")
    allowance = LOG_SLACK_BYTES + LOG_BYTES_PER_REQUEST * (sent.requests + 2 * outcome.tries)
    if len(grown) > allowance:
        outcome.violations.append(f"the server log grew {len(grown)} bytes (allowance {allowance})")


def run_slow_clients(
    packages: Path,
    *,
    seed: int,
    start_timeout: float,
    probe_timeout: float,
    log: Callable[[str], None],
    cases: int | None = None,
) -> list[SlowOutcome]:
    """Each named attack once (with ``cases``, a seeded sample of that many), against one server."""
    attacks = seeded_sample(SLOW_ATTACKS, cases, f"slow-{seed}")
    rng = random.Random(seed)
    outcomes = []
    probe = tool_call("get_capabilities", {"request": {}})
    with serve(packages, start_timeout, "slow-clients-" + "k" * 40, LIMITS) as server:
        for attack in attacks:
            outcome = SlowOutcome(attack.name, attack.what)
            log_start = server.log_size()
            with _attacking(attack, server.url, rng) as sent:
                ends = time.monotonic() + ATTACK_SECONDS
                time.sleep(0.5)  # the attack is under way
                while time.monotonic() < ends:
                    outcome.tries += 1
                    try:
                        reply = post(server.url, probe, probe_timeout)
                    except TimeoutError:
                        outcome.slowest = max(outcome.slowest, probe_timeout)
                        continue
                    outcome.slowest = max(outcome.slowest, reply.seconds)
                    if reply.status == 200 and reply.message is not None and "result" in reply.message:
                        outcome.served += 1
                    time.sleep(0.5)
            time.sleep(1)  # what the attack's last connections make the server log
            _judge(outcome, server, log_start, probe_timeout, sent)
            outcomes.append(outcome)
            log(describe(outcome))
    return outcomes


def describe(outcome: SlowOutcome) -> str:
    line = (
        f"{SLOW} {outcome.name}: served {outcome.served}/{outcome.tries}, slowest {outcome.slowest:.2f}s, "
        f"log +{outcome.log_bytes} bytes"
    )
    return line + "".join(f"\n  VIOLATION {v}" for v in outcome.violations)


def table(outcomes: list[SlowOutcome]) -> str:
    """The attacks as a markdown table (docs/reliability.md)."""
    rows = [
        "| attack | what the attacker does | well-behaved client served | slowest answer | log growth |",
        "|---|---|---|---|---|",
    ]
    rows += [
        f"| `{o.name}` | {o.what} | {o.served} of {o.tries} | {o.slowest:.2f} s | {o.log_bytes:,} bytes |"
        for o in outcomes
    ]
    return "\n".join(rows)
