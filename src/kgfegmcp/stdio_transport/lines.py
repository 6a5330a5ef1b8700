"""The STDIO transport's input, one JSON-RPC message per line, each line bounded.

The MCP SDK reads stdin a line at a time through a text wrapper, which holds a line whole however long it
grows: a line that never ends makes the server buffer everything written to it. :class:`BoundedLines`
sits under that wrapper. It hands on complete lines of at most ``max_bytes`` bytes and drops a longer one
as it arrives, never holding more than ``max_bytes`` of it, then reads the next line as usual. The SDK
never sees the dropped line (it answers no line it cannot parse either); the drop is logged at INFO, at
most once per :data:`~kgfegmcp.core.logging_setup.REPORT_INTERVAL_SECONDS` with a count.

:func:`bounded_stdin` puts it in place of ``sys.stdin`` before the SDK's ``stdio_server`` reads it; the
SDK then serves that stream as it is, without the library being changed.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from kgfegmcp.core.logging_setup import REPORT_INTERVAL_SECONDS, LogThrottle, held_back_note

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

log = logging.getLogger("kgfegmcp.stdio")

#: How much one read from the source asks for.
CHUNK_BYTES = 64 * 1024


class BoundedLines(io.RawIOBase):
    """A binary stream of the lines ``read`` yields, each at most ``max_bytes`` long (without its newline).

    ``read(n)`` returns up to ``n`` bytes, blocking until some arrive, and ``b""`` at the end. A line longer
    than ``max_bytes`` is dropped whole, newline included, and ``on_drop`` is called once for it as soon as
    it passes the bound. A last line without a newline is handed on at the end, as the SDK would read it.
    """

    def __init__(self, read: Callable[[int], bytes], max_bytes: int, on_drop: Callable[[], None]) -> None:
        super().__init__()
        self._read = read
        self._max_bytes = max_bytes
        self._on_drop = on_drop
        self._line = bytearray()  # the line being read, while within the bound
        self._dropping = False  # inside a line past the bound: discard until its newline
        self._ready = bytearray()  # complete lines, to hand on
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._ready and not self._ended:
            self._take(self._read(CHUNK_BYTES))
        target = memoryview(buffer).cast("B")
        count = min(len(target), len(self._ready))
        target[:count] = self._ready[:count]
        del self._ready[:count]
        return count

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            self._ended = True
            if not self._dropping:
                self._ready += self._line
            self._line = bytearray()
            return
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            stop = len(chunk) if end < 0 else end
            if not self._dropping:
                if len(self._line) + stop - start > self._max_bytes:
                    self._dropping = True
                    self._line = bytearray()  # give its memory back now, not at its newline
                    self._on_drop()
                else:
                    self._line += chunk[start:stop]
            if end < 0:
                return
            if not self._dropping:
                self._ready += self._line
                self._ready += b"\n"
            self._line = bytearray()
            self._dropping = False
            start = end + 1


class _DropReport:
    """Logs a dropped line at INFO, at most once per :data:`REPORT_INTERVAL_SECONDS` with a count."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._throttle = LogThrottle()

    def __call__(self) -> None:
        held_back = self._throttle.admit()
        if held_back is not None:
            log.info(
                "dropped a STDIO line longer than %d bytes (KGFEGMCP_HTTP_MAX_BODY_BYTES): a JSON-RPC message is "
                "one line at most that long; the next line is read as usual; reported at most every %d s%s.",
                self._max_bytes,
                REPORT_INTERVAL_SECONDS,
                held_back_note(held_back),
            )


def bounded_stdin(max_bytes: int, fd: int = 0) -> TextIO:
    """A text stream of descriptor ``fd``'s lines, each at most ``max_bytes`` bytes (longer ones dropped).

    UTF-8 with replacement, as the SDK decodes stdin; set it as ``sys.stdin`` before serving over STDIO.
    """
    source = BoundedLines(functools.partial(os.read, fd), max_bytes, _DropReport(max_bytes))
    return io.TextIOWrapper(io.BufferedReader(source), encoding="utf-8", errors="replace")


def use_bounded_stdin(max_bytes: int) -> None:
    """Replace ``sys.stdin`` with :func:`bounded_stdin` of descriptor 0 (nothing has read it yet)."""
    sys.stdin = bounded_stdin(max_bytes)
