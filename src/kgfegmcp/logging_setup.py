"""Process logging: stderr only (STDIO transport owns stdout), level from settings.

Also keeps one known flood out of the log: asyncio reports every failed ``accept()`` while the
process is out of descriptors (or memory) with a full traceback, and Python 3.11 does so once per
backlog slot on every retry, thousands of records a second. :class:`AcceptExhaustionFilter` turns
that into one line, then at most one line per :data:`REPORT_INTERVAL_SECONDS` with a count.
"""

from __future__ import annotations

import errno
import logging
import sys
import threading
import time
from collections.abc import Callable

#: The shortest time between two reports of the same repeated condition.
REPORT_INTERVAL_SECONDS = 60.0

#: What asyncio's ``_accept_connection`` passes to ``loop.call_exception_handler`` when ``accept()`` fails
#: for lack of a system resource (it then stops accepting for a second and retries).
ACCEPT_FAILURE_MESSAGE = "socket.accept() out of system resource"
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def held_back_note(count: int) -> str:
    """`` (N more since the last report)`` for a throttled report; empty for the first one."""
    return f" ({count} more since the last report)" if count else ""


class LogThrottle:
    """Admit one event per ``interval`` seconds and count the ones held back in between."""

    def __init__(self, interval: float = REPORT_INTERVAL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._last: float | None = None
        self._held_back = 0
        self._lock = threading.Lock()

    def admit(self) -> int | None:
        """Count one event: ``None`` to stay quiet, else how many were held back since the last report."""
        with self._lock:
            now = self._clock()
            if self._last is not None and now - self._last < self._interval:
                self._held_back += 1
                return None
            held_back, self._held_back, self._last = self._held_back, 0, now
            return held_back


class AcceptExhaustionFilter(logging.Filter):
    """On the ``asyncio`` logger: a failed ``accept()`` for lack of resources becomes one line, rate-limited.

    Every other record passes unchanged.
    """

    def __init__(self, throttle: LogThrottle | None = None) -> None:
        super().__init__()
        self._throttle = throttle or LogThrottle()

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not (
            isinstance(record.msg, str)
            and record.msg.startswith(ACCEPT_FAILURE_MESSAGE)
            and isinstance(error, OSError)
            and error.errno in RESOURCE_ERRNOS
        ):
            return True
        held_back = self._throttle.admit()
        if held_back is None:
            return False
        record.msg = (
            "Cannot accept new connections: [Errno %d] %s. asyncio stops accepting for a second, then retries; "
            "reported at most every %d s%s."
        )
        record.args = (error.errno, error.strerror, REPORT_INTERVAL_SECONDS, held_back_note(held_back))
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


class ClientDisconnectFilter(logging.Filter):
    """On the MCP SDK's Streamable HTTP logger: a client gone mid-request is one line, rate-limited.

    The SDK logs any failure while handling a POST with a traceback; a client that disconnects (or
    is closed by the body deadline) before its body arrived is the client's doing, and a traceback
    per such connection would let anyone grow the log at their connection rate.
    """

    def __init__(self, throttle: LogThrottle | None = None) -> None:
        super().__init__()
        self._throttle = throttle or LogThrottle()

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None or type(error).__name__ != "ClientDisconnect":
            return True
        held_back = self._throttle.admit()
        if held_back is None:
            return False
        record.msg = "A client disconnected before its request was complete; reported at most every %d s%s."
        record.args = (REPORT_INTERVAL_SECONDS, held_back_note(held_back))
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


#: Loggers of libraries whose records a client can multiply, and the filter that bounds them.
_FLOOD_FILTERS: tuple[tuple[str, type[logging.Filter]], ...] = (
    ("asyncio", AcceptExhaustionFilter),
    ("mcp.server.streamable_http", ClientDisconnectFilter),
)


def configure_logging(level: str) -> None:
    """Plain, timestamped records on stderr; idempotent."""
    root = logging.getLogger()
    if not any(getattr(h, "_kgfegmcp", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._kgfegmcp = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    for name, flood_filter in _FLOOD_FILTERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, flood_filter) for f in logger.filters):
            logger.addFilter(flood_filter())
