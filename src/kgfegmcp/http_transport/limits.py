"""Connection limits for the HTTP transport that uvicorn does not enforce itself.

uvicorn's h11 protocol arms its keep-alive timer only once a response is complete, so a connection
that never completes a request head (or never sends the body it announced) is held for ever, and
``limit_concurrency`` answers 503 only after a request head has arrived, still holding the socket
until then. Enough silent connections exhaust the process's descriptors and nobody is served. A client
that sends requests but never reads the answers is held for ever too: once the socket's buffers are
full, uvicorn waits for the transport to drain before it writes more, with no deadline, and asyncio's
``close()`` keeps the socket until everything buffered has been sent.

:func:`limited_h11_protocol` returns an ``H11Protocol`` subclass, for ``uvicorn.Config(http=...)``, that
adds four things:

- **header timeout**: a new connection must deliver a complete request head within ``header_timeout``
  seconds of being opened; on a kept-alive connection, within ``header_timeout`` of the first byte
  of its next request (until that byte, uvicorn's ``timeout_keep_alive`` applies). Otherwise it is
  closed. The deadline is total, so trickling a byte at a time does not extend it.
- **body timeout**: once a head has announced a body, all of it must arrive within ``body_timeout``
  seconds; otherwise the connection is closed and the application sees a client disconnect.
- **write timeout**: once the transport stops taking writes (its buffer above the high-water mark: the
  client is not reading), it must start taking them again within ``write_timeout`` seconds; otherwise
  the connection is aborted, and what was buffered for it dropped. A connection closed with data still
  buffered gets the same time to deliver it, then is aborted: nothing holds a socket for ever.
- **connection cap**: at most ``max_connections`` connections are held. A new connection beyond
  the cap closes the oldest connection that is waiting for a request head (fresh or idle between
  requests), so a flood of idle connections cannot lock real clients out. Failing that, it aborts the
  connection making least progress: one whose client is not reading its answers (the one whose writes
  have stalled longest, else the oldest that has sent requests ahead of the answer in progress: HTTP
  pipelining, which no common client uses and a client that never reads uses to stay busy for ever),
  else the one whose announced body has gone longest without a byte. Only when every held connection
  is waiting for the application's answer to a whole request is the new one answered 503 and closed.

uvicorn also answers a request whose body turns out malformed with a 400 while the application may be
answering it too; the second answer then raised inside h11 (an ERROR with a traceback, per request, at
any client's will). Here the application's answer to such a request goes nowhere, as to a client gone.

:func:`descriptor_cap` lowers the cap to what the process's descriptor limit leaves room for.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import socket
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from kgfegmcp.core.logging_setup import REPORT_INTERVAL_SECONDS, LogThrottle, held_back_note

logger = logging.getLogger("kgfegmcp.http")

_REFUSAL_BODY = b"Too many connections; retry shortly.\n"
#: Written to a connection refused at the cap, before any request is read; then the connection is closed.
SERVICE_UNAVAILABLE = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\n"
    b"retry-after: 1\r\n"
    b"content-length: " + str(len(_REFUSAL_BODY)).encode() + b"\r\n\r\n" + _REFUSAL_BODY
)

#: Descriptors kept out of the connection cap: the server's own files, and connections accepted in a
#: burst before the cap can close them (asyncio accepts up to the listen backlog per loop iteration).
MAX_DESCRIPTOR_RESERVE = 256


@dataclass(frozen=True)
class HttpLimits:
    """The limits one HTTP server enforces (seconds; connections)."""

    header_timeout: float
    body_timeout: float
    write_timeout: float
    max_connections: int


class _Phase(enum.Enum):
    NEW = "new"
    WAITING_FOR_HEAD = "waiting for a request head"
    READING_BODY = "reading a request body"
    RESPONDING = "responding"
    RELEASED = "released"


class _Connections:
    """Every connection one server holds, shared by its protocol instances."""

    def __init__(self, limits: HttpLimits) -> None:
        self.limits = limits
        #: Connections waiting for a request head, oldest first (a dict keeps insertion order).
        self.waiting: dict[LimitedH11Protocol, None] = {}
        self.busy: set[LimitedH11Protocol] = set()
        #: Held connections whose transport stopped taking writes, longest stalled first.
        self.stalled: dict[LimitedH11Protocol, None] = {}
        #: Held connections with requests received behind the one being answered, oldest first.
        self.pipelining: dict[LimitedH11Protocol, None] = {}
        #: Held connections receiving a request body, the one that received a byte least recently first.
        self.reading: dict[LimitedH11Protocol, None] = {}
        self._evictions = LogThrottle()
        self._slow_evictions = LogThrottle()
        self._refusals = LogThrottle()
        self._unread = LogThrottle()

    def held(self) -> int:
        return len(self.waiting) + len(self.busy)

    def make_room(self) -> bool:
        """Below the cap: nothing to do. At it: close the oldest waiting connection, else the one making least
        progress (stalled writes, pipelining, a stalled body); ``False`` if every one awaits the application."""
        if self.held() < self.limits.max_connections:
            return True
        slowest = self.stalled or self.pipelining or self.reading
        if not self.waiting and slowest:
            next(iter(slowest)).abort_now()
            held_back = self._slow_evictions.admit()
            if held_back is not None:
                logger.warning(
                    "HTTP connection cap of %d reached with no connection idle: each new connection closes the "
                    "one making least progress (a client not reading its answers, or not sending the body it "
                    "announced); reported at most every %d s%s.",
                    self.limits.max_connections,
                    REPORT_INTERVAL_SECONDS,
                    held_back_note(held_back),
                )
            return True
        if not self.waiting:
            held_back = self._refusals.admit()
            if held_back is not None:
                logger.warning(
                    "HTTP connection cap of %d reached with a request in progress on every connection: "
                    "a new connection is answered 503 and closed; reported at most every %d s%s.",
                    self.limits.max_connections,
                    REPORT_INTERVAL_SECONDS,
                    held_back_note(held_back),
                )
            return False
        next(iter(self.waiting)).close_now()
        held_back = self._evictions.admit()
        if held_back is not None:
            logger.warning(
                "HTTP connection cap of %d reached: each new connection closes the oldest one waiting for a "
                "request; reported at most every %d s%s.",
                self.limits.max_connections,
                REPORT_INTERVAL_SECONDS,
                held_back_note(held_back),
            )
        return True

    def report_unread(self) -> None:
        """One connection was aborted because its client left its answer unread (logged at most once a minute)."""
        held_back = self._unread.admit()
        if held_back is not None:
            logger.info(
                "A client left its answer unread for %g s (KGFEGMCP_HTTP_WRITE_TIMEOUT_SECONDS): its connection "
                "was closed; reported at most every %d s%s.",
                self.limits.write_timeout,
                REPORT_INTERVAL_SECONDS,
                held_back_note(held_back),
            )


class BoundedCloseTransport(asyncio.Transport):
    """A connection's transport whose ``close()`` gives buffered data ``timeout`` seconds to leave, then aborts.

    asyncio closes a socket only once its write buffer has been sent, so a peer that reads nothing would
    hold it, and its descriptor, for ever. Every other call goes to the wrapped transport unchanged.
    """

    def __init__(
        self,
        transport: asyncio.Transport,
        timeout: float,
        loop: asyncio.AbstractEventLoop,
        on_abort: Callable[[], None],
    ) -> None:
        super().__init__()
        self._transport = transport
        self._timeout = timeout
        self._loop = loop
        self._on_abort = on_abort
        self._deadline: asyncio.TimerHandle | None = None

    def close(self) -> None:
        self._transport.close()
        if self._deadline is None and self._transport.get_write_buffer_size() > 0:
            self._deadline = self._loop.call_later(self._timeout, self._give_up)

    def forget(self) -> None:
        """The connection is gone: no deadline is needed any more."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _give_up(self) -> None:
        self._deadline = None
        if self._transport.get_write_buffer_size() > 0:
            self._on_abort()
            self.abort()

    def abort(self) -> None:
        """Close at once; the kernel resets the connection and frees what it still held for the client."""
        self.forget()
        sock = self._transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # SO_LINGER 0: a reset, not a close that waits on the peer
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self._transport.abort()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._transport.write(data)

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        self._transport.writelines(list_of_data)

    def write_eof(self) -> None:
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with header, body and write timeouts and a connection cap (module docstring)."""

    connections_held: ClassVar[_Connections]

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._phase = _Phase.NEW
        self._deadline: asyncio.TimerHandle | None = None
        self._write_deadline: asyncio.TimerHandle | None = None
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if not self.connections_held.make_room():
            self._refused = True
            self.transport = transport
            transport.write(SERVICE_UNAVAILABLE)
            transport.close()
            return
        held = self.connections_held
        bounded = BoundedCloseTransport(transport, held.limits.write_timeout, self.loop, held.report_unread)
        super().connection_made(bounded)
        self._track()

    def connection_lost(self, exc: Exception | None) -> None:
        self._release()
        self._cancel_write_deadline()
        if isinstance(self.transport, BoundedCloseTransport):
            self.transport.forget()
        if not self._refused:
            super().connection_lost(exc)

    def pause_writing(self) -> None:
        """The transport's buffer is above its high-water mark: the client must read within the write timeout."""
        if self._refused:
            return
        super().pause_writing()
        if self._write_deadline is None:
            self._write_deadline = self.loop.call_later(
                self.connections_held.limits.write_timeout, self._write_timed_out
            )
        if self._phase is not _Phase.RELEASED:
            self.connections_held.stalled[self] = None

    def resume_writing(self) -> None:
        if self._refused:
            return
        self._cancel_write_deadline()
        self.connections_held.stalled.pop(self, None)
        super().resume_writing()

    def data_received(self, data: bytes) -> None:
        if self._phase is _Phase.WAITING_FOR_HEAD and self._deadline is None:
            # The first byte of a request on a kept-alive connection (uvicorn stops its keep-alive timer now).
            self._deadline = self.loop.call_later(self.connections_held.limits.header_timeout, self.close_now)
        elif self._phase is _Phase.READING_BODY:
            reading = self.connections_held.reading
            reading.pop(self, None)
            reading[self] = None  # the body progresses: last in line to be closed at the cap
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        """A malformed request (or body): the 400, unless an answer has begun; the application's answer is dropped."""
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # its send() now does nothing, its receive() says the client left
            self.cycle.message_event.set()
        if self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):  # an answer was begun or sent: just end
            self.transport.close()
            return
        super().send_400_response(msg)

    def handle_events(self) -> None:
        super().handle_events()
        self._track()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The connection now belongs to a WebSocket protocol, which has its own timeouts.
        self._release()
        super().handle_websocket_upgrade(event)

    def close_now(self) -> None:
        """Close this connection and give up its place under the cap at once."""
        self._release()
        if not self.transport.is_closing():
            self.transport.close()

    def abort_now(self) -> None:
        """Close this connection at once, dropping what its client has not read, and give up its place."""
        self._release()
        self._cancel_write_deadline()
        self.transport.abort()

    def _write_timed_out(self) -> None:
        self._write_deadline = None
        self.connections_held.report_unread()
        self.abort_now()

    def _track(self) -> None:
        """Follow h11's view of the client: waiting for a head, sending a body, or waiting for our response."""
        if self._phase is _Phase.RELEASED:
            return
        if self.transport.is_closing():
            self._release()
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            phase = _Phase.WAITING_FOR_HEAD
        elif state is h11.SEND_BODY:
            phase = _Phase.READING_BODY
        else:
            phase = _Phase.RESPONDING
        held = self.connections_held
        if phase is _Phase.RESPONDING and self.conn.trailing_data[0]:
            held.pipelining.setdefault(self, None)  # keeps its place while the client stays ahead
        else:
            held.pipelining.pop(self, None)
        if phase is self._phase:
            return
        self._cancel_deadline()
        held.waiting.pop(self, None)
        held.busy.discard(self)
        held.reading.pop(self, None)
        fresh, self._phase = self._phase is _Phase.NEW, phase
        if phase is _Phase.WAITING_FOR_HEAD:
            held.waiting[self] = None
            if fresh:
                self._deadline = self.loop.call_later(held.limits.header_timeout, self.close_now)
        else:
            held.busy.add(self)
            if phase is _Phase.READING_BODY:
                held.reading[self] = None
                self._deadline = self.loop.call_later(held.limits.body_timeout, self.close_now)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _cancel_write_deadline(self) -> None:
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None

    def _release(self) -> None:
        self._cancel_deadline()
        self.connections_held.waiting.pop(self, None)
        self.connections_held.busy.discard(self)
        self.connections_held.stalled.pop(self, None)
        self.connections_held.pipelining.pop(self, None)
        self.connections_held.reading.pop(self, None)
        self._phase = _Phase.RELEASED


def limited_h11_protocol(limits: HttpLimits) -> type[LimitedH11Protocol]:
    """A protocol class for ``uvicorn.Config(http=...)``; its connections share one cap."""

    class ServerH11Protocol(LimitedH11Protocol):
        connections_held = _Connections(limits)

    return ServerH11Protocol


def _descriptors_in_use() -> int | None:
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(listing)) - 1  # minus the descriptor the listing itself used
        except OSError:
            continue
    return None


def descriptor_cap(requested: int, *, explicit: bool) -> int:
    """``requested``, lowered (and logged) when the descriptor limit (``ulimit -n``) leaves less room.

    Connections may take at most what is left after the descriptors in use now and a reserve of half the
    limit (at most :data:`MAX_DESCRIPTOR_RESERVE`), so held connections alone never exhaust descriptors.
    """
    if sys.platform == "win32":
        return requested
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    in_use = _descriptors_in_use()
    if soft == resource.RLIM_INFINITY or in_use is None:
        return requested
    allowed = max(1, soft - in_use - min(MAX_DESCRIPTOR_RESERVE, soft // 2))
    if allowed >= requested:
        return requested
    logger.log(
        logging.WARNING if explicit else logging.INFO,
        "HTTP connection cap lowered from %d to %d: the descriptor limit is %d (ulimit -n) and %d are in use. "
        "Raise the limit or lower KGFEGMCP_HTTP_MAX_CONNECTIONS.",
        requested,
        allowed,
        soft,
        in_use,
    )
    return allowed


#: How much of a refused body is read and dropped (a multiple of the cap) so the client can read the 413.
DRAIN_FACTOR = 4


class RequestBodyCap:
    """ASGI middleware: a request body larger than ``max_bytes`` is answered ``413`` before the app sees it.

    MCP requests are small JSON-RPC messages, so the body is read (up to the cap) before the app runs
    and handed on whole; a client cannot make the server hold more than the cap per request, whatever
    its ``Content-Length`` says or omits.

    A refused body is read on and discarded, up to ``DRAIN_FACTOR`` times the cap, before the 413 is
    sent: a server that answers and closes while the client is still sending resets the connection,
    and the client then sees a broken pipe instead of the answer. Draining holds nothing, and the body
    deadline still bounds how long it may take; a body announced beyond that is answered at once.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            if int(declared) <= self.max_bytes * DRAIN_FACTOR:
                await _drain(receive, self.max_bytes * DRAIN_FACTOR)
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            more = message.get("more_body", False)
            if size > self.max_bytes:
                if more:
                    await _drain(receive, self.max_bytes * DRAIN_FACTOR - size)
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([whole], receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = PlainTextResponse(
            f"Request body larger than {self.max_bytes} bytes (KGFEGMCP_HTTP_MAX_BODY_BYTES).", status_code=413
        )
        await response(scope, receive, send)


async def _drain(receive: Receive, limit: int) -> None:
    """Read and drop the rest of a request body, up to ``limit`` bytes or until the client stops sending."""
    drained = 0
    while drained <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return
        drained += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that returns ``messages`` first, then the connection's own."""
    queue = list(messages)

    async def replayed() -> Message:
        return queue.pop(0) if queue else await receive()

    return replayed
