"""The HTTP transport's connection limits, against real ``kgfegmcp serve --transport http`` processes.

Silent and slow clients are closed, a flood of idle connections or of clients that never read their
answers cannot lock a real client out, and a process out of descriptors says so in one log line instead
of a traceback per ``accept()``. Waits are generous (the machine is shared); nothing asserts how fast
anything is.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from e2e_support import REPOSITORY_ROOT, HttpServer, fastmcp_caller, http_server, scenario, stop
from fastmcp import Client

from kgfegmcp.core.config import load_settings
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.logging_setup import LogThrottle
from kgfegmcp.http_transport.limits import BoundedCloseTransport

pytestmark = pytest.mark.slow

#: How long a test waits for the server to close a connection it should close (timeouts here are 1 s).
CLOSE_WAIT = 10.0
CLIENT_TIMEOUT = 60.0
SEARCH = {"request": {"query": "fracoes", "limit": 3}}
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
)
#: A request head that announces a 100-byte body.
BODY_HEAD = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n"
)


def port_of(server: HttpServer) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/")[0])


def connect(server: HttpServer, first_bytes: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=10)
    if first_bytes:
        sock.sendall(first_bytes)
    return sock


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (data it sent first, such as a 503, is read and dropped)."""
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        while sock.recv(65536):
            pass
    except BlockingIOError:
        return False
    except ConnectionError:
        return True
    finally:
        sock.settimeout(timeout)
    return True


def read_some(sock: socket.socket) -> bytes:
    sock.settimeout(CLOSE_WAIT)
    return sock.recv(65536)


def wait_for_closes(
    sockets: list[socket.socket], expected: int, on_poll: Callable[[], None] = lambda: None
) -> set[int]:
    """Poll until at least ``expected`` of ``sockets`` are closed by the server, or ``CLOSE_WAIT`` passes."""
    closed: set[int] = set()
    deadline = time.monotonic() + CLOSE_WAIT
    while True:
        closed |= {i for i, sock in enumerate(sockets) if i not in closed and closed_by_peer(sock)}
        if len(closed) >= expected or time.monotonic() > deadline:
            return closed
        on_poll()
        time.sleep(0.2)


def read_by_server(server: HttpServer, sock: socket.socket) -> bool:
    """Whether the server process has read every byte sent on ``sock`` so far.

    The kernel's table of TCP sockets (``/proc/net/tcp``) holds, for each end of the connection, the bytes
    sent but not yet acknowledged (the client's end: none, so all of it reached the server) and the bytes
    received but not yet read by the process (the server's end: none).
    """
    client, server_port = sock.getsockname()[1], port_of(server)
    queues: dict[tuple[int, int], tuple[int, int]] = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        ends = (int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16))
        unsent, unread = (int(queue, 16) for queue in fields[4].split(":"))
        queues[ends] = (unsent, unread)
    return queues.get((client, server_port), (1, 0))[0] == 0 and queues.get((server_port, client), (0, 1))[1] == 0


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Poll ``condition`` until it holds; ``CLOSE_WAIT`` is only a ceiling against a hang."""
    deadline = time.monotonic() + CLOSE_WAIT
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {CLOSE_WAIT} s"
        time.sleep(0.02)


def round_trip(server: HttpServer) -> None:
    """One whole request on a new connection that the server closes: once it is answered, the server has
    handled every connection event that came before it (closes included) and released those connections."""
    sock = connect(server, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    sock.settimeout(CLOSE_WAIT)
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    sock.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


async def search_answers(server: HttpServer) -> None:
    """A real MCP client over HTTP gets a search answer."""
    async with asyncio.timeout(CLIENT_TIMEOUT), Client(server.url) as client:
        result = await client.call_tool("search_standards", SEARCH, raise_on_error=False, timeout=CLIENT_TIMEOUT)
        assert not result.is_error and result.structured_content, result.content


# -- the body cap ---------------------------------------------------------------------------------


def test_a_body_over_the_cap_is_answered_413_even_while_the_client_still_sends(default_catalog_root: Path) -> None:
    """The 413 reaches a client that is still sending its body: the server reads the rest (and drops it) first.

    Answering at once and closing with the body unread resets the connection, and the client then sees a
    broken pipe or a reset instead of the answer.
    """
    cap = 2 * 1024 * 1024
    body = b"x" * (cap * 3)  # what is left to send after the pause is more than the socket buffers hold
    # urllib and many clients send Connection: close, after which the server closes once it has answered.
    head = BODY_HEAD.replace(b"Content-Length: 100", f"Connection: close\r\nContent-Length: {len(body)}".encode())
    with http_server(default_catalog_root, {"KGFEGMCP_HTTP_MAX_BODY_BYTES": str(cap)}) as server:
        for _ in range(2):
            sock = connect(server, head + body[:1000])
            # A client on a slow link pauses mid-body: the rest goes only once the server has read the head.
            wait_until(functools.partial(read_by_server, server, sock), "the server reads the head")
            try:
                sock.sendall(body[1000:])
                answer = read_some(sock)
            except ConnectionError as error:
                pytest.fail(f"the client got {type(error).__name__} instead of the 413")
            finally:
                sock.close()
            assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        # A body announced far beyond what is drained is still refused at once.
        sock = connect(server, BODY_HEAD.replace(b"Content-Length: 100", b"Content-Length: 999999999"))
        assert read_some(sock).startswith(b"HTTP/1.1 413")
        sock.close()


# -- timeouts -------------------------------------------------------------------------------------


#: Longer than uvicorn's own keep-alive default (5 s) and the header timeout (1 s) below: what a kept-alive
#: connection must outlive while idle under a keep-alive timeout of 30 s. A duration under test, not a wait.
IDLE_SECONDS = 7.0
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def initialized(connection: http.client.HTTPConnection) -> None:
    """One ``initialize`` answered 200 on ``connection`` (kept alive afterwards)."""
    connection.request("POST", "/mcp", INITIALIZE, HEADERS)
    response = connection.getresponse()
    assert response.status == 200
    response.read()
    assert connection.sock is not None


def test_silent_and_slow_clients_are_closed(default_catalog_root: Path) -> None:
    settings = {
        "KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS": "1",
        "KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS": "1",
        "KGFEGMCP_HTTP_KEEPALIVE_TIMEOUT_SECONDS": "30",
    }
    with http_server(default_catalog_root, settings) as server:
        # Between requests a connection is idle under the keep-alive timeout (30 s here), not the header
        # timeout, and outlives uvicorn's own default of 5 s: after its first request, and after a second
        # one on the kept-alive connection. Both idle while the silent clients below are closed.
        after_one = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=10)
        after_two = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=10)
        initialized(after_one)
        initialized(after_two)
        initialized(after_two)
        idle_since = time.monotonic()

        silent = connect(server)
        half_head = connect(server, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        half_body = connect(server, BODY_HEAD + b'{"jsonrpc"')
        trickle = connect(server)
        head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000

        def trickle_one_byte() -> None:  # the header deadline is total: a byte at a time does not extend it
            nonlocal head
            with contextlib.suppress(OSError):
                trickle.sendall(head[:1])
            head = head[1:]

        sockets = [silent, half_head, half_body, trickle]
        closed = wait_for_closes(sockets, expected=len(sockets), on_poll=trickle_one_byte)
        assert closed == {0, 1, 2, 3}, f"still open: {[i for i in range(len(sockets)) if i not in closed]}"
        for sock in sockets:
            sock.close()
        # A body that never came is the client's doing: at most one line about it, never a traceback.
        log = server.log.read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]
        assert log.count("disconnected before its request was complete") <= 1, log[-3000:]

        time.sleep(max(0.0, idle_since + IDLE_SECONDS - time.monotonic()))
        for kept in (after_one, after_two):
            assert kept.sock is not None and not closed_by_peer(kept.sock)
        initialized(after_one)  # still in service after the idle time
        after_one.close()
        after_two.close()


# -- the connection cap ---------------------------------------------------------------------------


#: One ``tools/list`` (an answer of about 100 KB): a few dozen of them fill any socket's buffers.
TOOLS_LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
TOOLS_LIST_REQUEST = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n"
    b"Content-Length: " + str(len(TOOLS_LIST)).encode() + b"\r\n\r\n" + TOOLS_LIST
)


#: Written by the server process once its ``sitecustomize`` has wrapped the middleware: Python reports a failing
#: ``sitecustomize`` only on stderr and carries on, so without it a stale import would hold nothing, silently.
HELD_PATCHED = "held-patched"


def held_requests(directory: Path, release: Path) -> dict[str, str]:
    """Settings whose server's application awaits, without blocking anything else, until ``release`` exists (a
    minute at most) before it answers a POST to ``/mcp?held``: a slow application, as far as connections go.
    ``sitecustomize`` runs first in the server process; it wraps the request-body middleware every MCP request
    passes through (``RequestBodyCap``, which is not under test here)."""
    (directory / "sitecustomize.py").write_text(
        "import asyncio, os, time\n"
        "from kgfegmcp.http_transport import limits as http_limits\n\n"
        "_answer = http_limits.RequestBodyCap.__call__\n\n"
        "async def _held(self, scope, receive, send):\n"
        "    if scope['type'] == 'http' and scope['query_string'] == b'held':\n"
        "        until = time.monotonic() + 60\n"
        f"        while not os.path.exists({str(release)!r}) and time.monotonic() < until:\n"
        "            await asyncio.sleep(0.02)\n"
        "    await _answer(self, scope, receive, send)\n\n"
        "http_limits.RequestBodyCap.__call__ = _held\n"
        f"open({str(directory / HELD_PATCHED)!r}, 'w').close()\n"
    )
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))}


#: A whole ``tools/list`` request, which ``held_requests`` holds until the test lets it go.
HELD_REQUEST = (
    BODY_HEAD.replace(b"POST /mcp ", b"POST /mcp?held ").replace(
        b"Content-Length: 100", b"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: " + str(len(TOOLS_LIST)).encode()
    )
    + TOOLS_LIST
)


async def test_idle_flood_beyond_the_cap_cannot_lock_a_client_out(default_catalog_root: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    settings = {
        "KGFEGMCP_HTTP_MAX_CONNECTIONS": "20",
        "KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS": "600",  # only the cap may close anything here
        "KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS": "600",
        **held_requests(tmp_path, release),
    }
    with http_server(default_catalog_root, settings) as server:
        assert (tmp_path / HELD_PATCHED).exists(), "the server holds no request: " + server.log.read_text()[-2000:]
        await asyncio.to_thread(round_trip, server)  # the start-up probe's connection is released
        idle = [connect(server) for _ in range(30)]
        closed = await asyncio.to_thread(wait_for_closes, idle, 10)
        assert closed == set(range(10)), "beyond the cap, the oldest idle connections are closed"

        # A real client's connection takes the place of an idle one, and it is served.
        await search_answers(server)

        # Every held connection awaits the application's answer to a whole request, sent alone (the server holds
        # each call until the test lets it go): a new connection is refused at once, and none of them is closed.
        for sock in idle:
            sock.close()
        await asyncio.to_thread(round_trip, server)  # every idle connection is released
        busy = [connect(server, HELD_REQUEST) for _ in range(20)]
        for sock in busy:
            await asyncio.to_thread(wait_until, functools.partial(read_by_server, server, sock), "the call is read")
        refused = connect(server)
        refused.settimeout(CLOSE_WAIT)
        assert refused.recv(12) == b"HTTP/1.1 503"
        assert await asyncio.to_thread(wait_for_closes, [refused], 1) == {0}
        assert not any(reset_or_closed(sock) for sock in busy)
        release.touch()
        for sock in busy:  # each is answered
            assert (await asyncio.to_thread(read_some, sock)).startswith(b"HTTP/1.1 200")

        # Once the flood is gone, normal service continues.
        for sock in [*busy, refused]:
            sock.close()
        async with asyncio.timeout(CLIENT_TIMEOUT), Client(server.url) as client:
            names = [tool.name for tool in await client.list_tools()]
            await scenario(names, fastmcp_caller(client))
        log = server.log.read_text(errors="replace")
    # Reported once per kind (the interval is a minute), not once per connection.
    assert 1 <= log.count("HTTP connection cap of 20 reached: each new connection closes") <= 2, log[-3000:]
    assert log.count("HTTP connection cap of 20 reached with a request in progress") == 1, log[-3000:]


# -- clients that never read their answers --------------------------------------------------------

#: The most a socket's send buffer grows to on this machine (bytes), and the requests each non-reading client
#: sends at once: twice as many answers (of about 100 KB) as that and its own small receive buffer hold, so the
#: server's writes stall whatever the machine.
SEND_BUFFER_MAX = int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
PIPELINED = 2 * SEND_BUFFER_MAX // 100_000 + 10
#: A well-behaved client's requests while the non-reading ones hold the cap, and the pause between them.
ROUNDS = 8
ROUND_SECONDS = 0.25


def non_reader(server: HttpServer) -> socket.socket:
    """A connection that sends many requests at once and never reads an answer, its receive buffer shrunk so
    the server's writes stall soon; returned once the server has begun answering (peeking reads nothing)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(CLOSE_WAIT)
    sock.connect(("127.0.0.1", port_of(server)))
    sock.sendall(TOOLS_LIST_REQUEST * PIPELINED)
    assert sock.recv(1, socket.MSG_PEEK), "the server closed a non-reading client before answering it"
    return sock


#: ``tcpi_state`` of an open connection (Linux ``TCP_INFO``); a close or a reset from the server ends it.
TCP_ESTABLISHED = 1


def reset_or_closed(sock: socket.socket) -> bool:
    """Whether the server has closed or reset ``sock``, read from the kernel's state of it: reading what the
    server sent would let its writes go on."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != TCP_ESTABLISHED


def healthz(server: HttpServer) -> int:
    """A well-behaved client's request on a new connection: its status (503 when refused at the cap)."""
    connection = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=CLOSE_WAIT)
    try:
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_clients_that_never_read_their_answers_cannot_lock_a_client_out(default_catalog_root: Path) -> None:
    """Every held connection sends requests ahead and reads nothing: a new client still gets in, each time.

    Such connections used to stay busy for ever (uvicorn waits for a full socket to drain, with no deadline),
    so at the cap every other client was answered 503. Now each one counts as closable at the cap, and a
    stalled write is closed after the write timeout.
    """
    cap = 4
    settings = {
        "KGFEGMCP_HTTP_MAX_CONNECTIONS": str(cap),
        "KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS": "1",
        "KGFEGMCP_LOG_LEVEL": "INFO",
    }
    with http_server(default_catalog_root, settings) as server:
        round_trip(server)  # the start-up probe's connection is released
        held: list[socket.socket] = []
        statuses = []
        try:
            for _ in range(ROUNDS):
                # The cap is full of connections that read nothing, whatever the server closed since.
                for sock in [sock for sock in held if reset_or_closed(sock)]:
                    held.remove(sock)
                    sock.close()
                held += [non_reader(server) for _ in range(cap - len(held))]
                statuses.append(healthz(server))
                time.sleep(ROUND_SECONDS)  # the rounds span the write timeout: both ways out are taken
            assert statuses == [200] * ROUNDS, statuses
            # Stalled writes are closed after the write timeout (1 s), whether or not anyone needed the room.
            wait_until(lambda: all(reset_or_closed(sock) for sock in held), "the stalled connections are closed")
        finally:
            for sock in held:
                sock.close()
        log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    assert log.count("with no connection idle: each new connection closes the one making least") == 1, log[-3000:]

    assert log.count("left its answer unread for 1 s (KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS)") == 1, log[-3000:]
    assert " INFO kgfegmcp.http: A client left its answer unread" in log


def test_a_stalled_write_is_closed_after_the_write_timeout(default_catalog_root: Path) -> None:
    with http_server(default_catalog_root, {"KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS": "1"}) as server:
        round_trip(server)
        descriptors = len(list(Path(f"/proc/{server.process.pid}/fd").iterdir()))
        readers = [non_reader(server) for _ in range(3)]
        try:
            wait_until(lambda: all(reset_or_closed(sock) for sock in readers), "the stalled connections are closed")
            round_trip(server)  # every close has been handled: the descriptors are given back
            assert len(list(Path(f"/proc/{server.process.pid}/fd").iterdir())) == descriptors
        finally:
            for sock in readers:
                sock.close()
        # A client that reads its answers is never closed for being slow: the timeout is on a stall.
        asyncio.run(search_answers(server))


async def test_a_closed_connection_cannot_hold_its_socket_while_the_peer_reads_nothing() -> None:
    """asyncio closes a socket only once its buffer is sent; a peer that never reads kept it for ever."""
    lost = asyncio.Event()
    aborted: list[bool] = []

    class Answer(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            bounded = BoundedCloseTransport(transport, 0.5, asyncio.get_running_loop(), lambda: aborted.append(True))
            bounded.write(b"x" * (16 * 1024 * 1024))  # far more than any socket buffer
            bounded.close()

        def connection_lost(self, exc: Exception | None) -> None:
            lost.set()

    server = await asyncio.get_running_loop().create_server(Answer, "127.0.0.1", 0)
    peer = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        await asyncio.to_thread(peer.connect, server.sockets[0].getsockname())
        async with asyncio.timeout(CLOSE_WAIT):
            await lost.wait()  # the socket is given up although the peer read nothing
        assert aborted == [True]
        assert reset_or_closed(peer)
    finally:
        peer.close()
        server.close()
        await server.wait_closed()


def test_bodies_announced_and_never_sent_cannot_lock_a_client_out(default_catalog_root: Path) -> None:
    """Every held connection announced a body and sends none of it: a new client still gets in, each time, long
    before the body timeout (here ten minutes) would close them."""
    cap = 4
    settings = {"KGFEGMCP_HTTP_MAX_CONNECTIONS": str(cap), "KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS": "600"}
    with http_server(default_catalog_root, settings) as server:
        round_trip(server)
        held: list[socket.socket] = []
        statuses = []
        try:
            for _ in range(ROUNDS):
                for sock in [sock for sock in held if reset_or_closed(sock)]:
                    held.remove(sock)
                    sock.close()
                for _ in range(cap - len(held)):
                    held.append(connect(server, BODY_HEAD + b'{"jsonrpc"'))
                    wait_until(functools.partial(read_by_server, server, held[-1]), "the head and a byte are read")
                statuses.append(healthz(server))
            assert statuses == [200] * ROUNDS, statuses
        finally:
            for sock in held:
                sock.close()
        log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    assert log.count("with no connection idle: each new connection closes the one making least") == 1, log[-3000:]


# -- descriptor exhaustion ------------------------------------------------------------------------


def low_descriptor_limit(soft: int) -> Callable[[], None]:
    def apply() -> None:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return apply


def exhaustion_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "Too many open files" in line or "out of system resource" in line]


async def test_server_out_of_descriptors_logs_once_and_keeps_serving(default_catalog_root: Path) -> None:
    with http_server(default_catalog_root, {}, preexec_fn=low_descriptor_limit(64)) as server:
        flood = [connect(server) for _ in range(200)]  # far more than the 64 descriptors the server may open
        await search_answers(server)  # queued behind the whole burst, and served
        for sock in flood:
            sock.close()
        await search_answers(server)
        log = server.log.read_text(errors="replace")
    assert len(exhaustion_lines(log)) <= 2, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


#: A plain asyncio server that holds every connection, with kgfegmcp's logging and 32 descriptors. It
#: ends once asyncio has failed to accept in ``argv[1]`` waves (the first failure, then a retry wave each
#: second: asyncio stops accepting for a second after a failure), or after ``argv[2]`` seconds, a ceiling
#: against a hang. The failures are counted before kgfegmcp's filter sees them; records more than half a
#: second after the one before start a new wave.
HOLDING_SERVER = """
import asyncio, logging, resource, sys
from kgfegmcp.core.logging_setup import ACCEPT_FAILURE_MESSAGE, configure_logging

resource.setrlimit(resource.RLIMIT_NOFILE, (32, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
configure_logging("WARNING")
held = []
enough = asyncio.Event()

class Hold(asyncio.Protocol):
    def connection_made(self, transport):
        held.append(transport)

class CountWaves(logging.Filter):
    waves = 0
    last = None

    def filter(self, record):
        if str(record.msg).startswith(ACCEPT_FAILURE_MESSAGE):
            now = asyncio.get_running_loop().time()
            if self.last is None or now - self.last > 0.5:
                self.waves += 1
            self.last = now
            if self.waves >= int(sys.argv[1]):
                enough.set()
        return True

waves = CountWaves()
logging.getLogger("asyncio").filters.insert(0, waves)

async def main():
    server = await asyncio.get_running_loop().create_server(Hold, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    try:
        await asyncio.wait_for(enough.wait(), float(sys.argv[2]))
    except TimeoutError:
        sys.exit(f"accept() failed in {waves.waves} waves within {sys.argv[2]} s, not {sys.argv[1]}")

asyncio.run(main())
"""


def test_accept_failures_for_lack_of_descriptors_are_one_log_line() -> None:
    """asyncio retries ``accept()`` every second; each retry used to log thousands of tracebacks."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDING_SERVER, "3", "60"],  # the first failure and two retries
        cwd=REPOSITORY_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        sockets = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(100)]
        _, stderr = process.communicate(timeout=120)
        for sock in sockets:
            sock.close()
    finally:
        stop(process)
    log = stderr.decode(errors="replace")
    assert process.returncode == 0, log[-3000:]
    assert len(exhaustion_lines(log)) == 1, log[-3000:]
    assert "ERROR asyncio: Cannot accept new connections: [Errno 24] Too many open files." in log
    assert "Traceback" not in log


def test_log_throttle_reports_once_per_interval_with_a_count() -> None:
    now = [0.0]
    throttle = LogThrottle(interval=60, clock=lambda: now[0])
    assert throttle.admit() == 0
    assert [throttle.admit() for _ in range(3)] == [None, None, None]
    now[0] = 59.9
    assert throttle.admit() is None
    now[0] = 60.0
    assert throttle.admit() == 4
    now[0] = 200.0
    assert throttle.admit() == 0


# -- settings -------------------------------------------------------------------------------------


def test_limit_settings_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    assert settings.http_header_timeout_seconds == 10
    assert settings.http_body_timeout_seconds == 30
    assert settings.http_write_timeout_seconds == 30
    assert settings.http_keepalive_timeout_seconds == 5
    assert settings.http_max_connections == 512
    monkeypatch.setenv("KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS", "2.5")
    monkeypatch.setenv("KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS", "3600")
    monkeypatch.setenv("KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS", "0.5")
    monkeypatch.setenv("KGFEGMCP_HTTP_KEEPALIVE_TIMEOUT_SECONDS", "0.1")
    monkeypatch.setenv("KGFEGMCP_HTTP_MAX_CONNECTIONS", "1")
    settings = load_settings()
    assert settings.http_header_timeout_seconds == 2.5
    assert settings.http_body_timeout_seconds == 3600
    assert settings.http_write_timeout_seconds == 0.5
    assert settings.http_keepalive_timeout_seconds == 0.1
    assert settings.http_max_connections == 1


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS", "0"),
        ("KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS", "-1"),
        ("KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS", "soon"),
        ("KGFEGMCP_HTTP_HEADER_TIMEOUT_SECONDS", "nan"),
        ("KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS", "inf"),
        ("KGFEGMCP_HTTP_BODY_TIMEOUT_SECONDS", "3601"),
        ("KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS", "0"),
        ("KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS", "inf"),
        ("KGFEGMCP_HTTP_KEEPALIVE_TIMEOUT_SECONDS", "0.05"),
        ("KGFEGMCP_HTTP_MAX_CONNECTIONS", "0"),
        ("KGFEGMCP_HTTP_MAX_CONNECTIONS", "1.5"),
        ("KGFEGMCP_HTTP_MAX_CONNECTIONS", "1000001"),
    ],
)
def test_bad_limit_settings_are_configuration_errors(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert caught.value.public_message.startswith(f"configuration_error: Invalid settings: {variable}: ")
