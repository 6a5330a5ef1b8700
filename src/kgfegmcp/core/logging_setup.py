"""Process logging: one handler, one format, stderr only (the STDIO transport owns stdout).

Every record the process writes, ours and the libraries' (FastMCP, the MCP SDK, uvicorn, asyncio),
goes through one root handler in one format: ``text`` (``time LEVEL logger: message``) or ``json``
(one object per line). Libraries that bring handlers of their own (FastMCP's rich console, uvicorn's
formats and its access lines on stdout) are stripped of them, so nothing is written twice or elsewhere.

Also keeps known floods and per-request chatter out of the log: asyncio reports every failed
``accept()`` while the process is out of descriptors (or memory) with a full traceback, and Python
3.11 does so once per backlog slot on every retry, thousands of records a second.
:class:`AcceptExhaustionFilter` turns that into one line, then at most one line per
:data:`REPORT_INTERVAL_SECONDS` with a count. Records a library writes for every request that tell
an operator nothing the request line does not (:data:`_CHATTER`) are lowered to DEBUG, and uvicorn's
warning about each malformed request (:class:`MalformedRequestFilter`) to one INFO line a minute: what
any client can make the server log is never above INFO.
"""

from __future__ import annotations

import errno
import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

from kgfegmcp.core.errors import echo

#: The log formats ``KGFEGMCP_LOG_FORMAT`` selects.
LogFormat = Literal["text", "json"]
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: The record attribute (set through ``extra=``) holding a record's structured fields, written as
#: JSON keys by :class:`JsonFormatter`; a text record carries them in its message already.
FIELDS_ATTRIBUTE = "kgfegmcp_fields"
#: Longest message a record may write. Libraries log at DEBUG what a client sent (FastMCP: every
#: tool name), and no record may grow the log by more than this, whatever the request held.
MAX_RECORD_CHARS = 4000

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
    """On the MCP SDK's Streamable HTTP logger: a client gone mid-request is one INFO line, rate-limited.

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
        record.levelno, record.levelname = logging.INFO, "INFO"  # the client's doing, like any refusal
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


#: How uvicorn's records about one client's malformed request begin: a request it cannot parse (answered
#: 400 and closed), an ``Upgrade`` it does not support, a request refused by ``limit_concurrency``.
MALFORMED_REQUEST_MESSAGES = (
    "Invalid HTTP request received.",
    "Unsupported upgrade request.",
    "No supported WebSocket library detected.",
    "Exceeded concurrency limit.",
)


class MalformedRequestFilter(logging.Filter):
    """On ``uvicorn.error``: a record about a client's malformed request is lowered to INFO and rate-limited.

    uvicorn logs a WARNING for every request it cannot parse, so anyone who can connect could fill the log
    and raise the operator's alerts at will. Each kind (:data:`MALFORMED_REQUEST_MESSAGES`) is written at
    most once per :data:`REPORT_INTERVAL_SECONDS`, with a count of those held back.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._throttles = {message: LogThrottle(clock=clock) for message in MALFORMED_REQUEST_MESSAGES}

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(record.msg, str):
            return True
        kind = next((message for message in self._throttles if record.msg.startswith(message)), None)
        if kind is None:
            return True
        held_back = self._throttles[kind].admit()
        if held_back is None:
            return False
        record.msg = "%s (a client's request); reported at most every %d s%s."
        record.args = (kind, REPORT_INTERVAL_SECONDS, held_back_note(held_back))
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


class ChatterFilter(logging.Filter):
    """Lowers a library's per-request records that start with ``prefix`` to DEBUG (kept, but below INFO).

    The root handler's level is the configured level, so a lowered record is written only at DEBUG.
    """

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG and isinstance(record.msg, str) and record.msg.startswith(self.prefix):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: time (UTC), level, logger, message, the record's fields.

    A traceback, when a record has one, is the ``exception`` string, so even it stays on one line.
    """

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, FIELDS_ATTRIBUTE, None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=True, default=str)


class OneLineFilter(logging.Filter):
    """On the handler: every message on one line (controls escaped) and at most :data:`MAX_RECORD_CHARS` long.

    A traceback is not part of the message: the text format still writes it below, the JSON format as a field.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        bounded = echo(message, MAX_RECORD_CHARS)
        if len(bounded) > MAX_RECORD_CHARS:  # escapes lengthen it: cut again, still naming the original length
            bounded = f"{bounded[:MAX_RECORD_CHARS]}… ({len(message)} characters)"
        if bounded != message:
            record.msg, record.args = bounded, None
        return True


def formatter(log_format: LogFormat) -> logging.Formatter:
    """The one formatter of ``log_format``."""
    return JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)


#: Loggers of libraries whose records a client can multiply, and the filter that bounds them.
_FLOOD_FILTERS: tuple[tuple[str, type[logging.Filter]], ...] = (
    ("asyncio", AcceptExhaustionFilter),
    ("mcp.server.streamable_http", ClientDisconnectFilter),
    ("uvicorn.error", MalformedRequestFilter),
)

#: Records libraries write for every request, lowered to DEBUG: logger, message prefix, and why.
_CHATTER: tuple[tuple[str, str], ...] = (
    # The SDK's stateless HTTP path ends a transport (session id None) after every request.
    ("mcp.server.streamable_http", "Terminating session: "),
    # A rejected argument: the request line says invalid_request and the reply names the field.
    ("fastmcp.server.server", "Invalid arguments for tool "),
    # uvicorn's access line repeats, over HTTP, what the request line says of every MCP request.
    ("uvicorn.access", ""),
)


def _route_library_loggers() -> None:
    """Strip every handler a library installed (FastMCP's rich console, uvicorn's) and let its records propagate."""
    for logger in list(logging.root.manager.loggerDict.values()):
        if isinstance(logger, logging.Logger) and logger.handlers:
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            logger.propagate = True
            logger.setLevel(logging.NOTSET)


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    """One handler on stderr, in ``log_format``, for every record of the process; idempotent.

    Call it after the libraries are imported (FastMCP configures its logger at import) and run them
    without logging settings of their own: uvicorn with ``log_config=None``, FastMCP without ``log_level``.
    """
    root = logging.getLogger()
    handler = next((h for h in root.handlers if getattr(h, "_kgfegmcp", False)), None)
    if handler is None:
        handler = logging.StreamHandler(sys.stderr)
        handler._kgfegmcp = True  # type: ignore[attr-defined]
        handler.addFilter(OneLineFilter())
        root.addHandler(handler)
    handler.setFormatter(formatter(log_format))
    handler.setLevel(level)
    root.setLevel(level)
    _route_library_loggers()
    logging.captureWarnings(True)
    install_library_filters()


def install_library_filters() -> None:
    """The flood and chatter filters on the libraries' loggers; idempotent (they only bound or lower records)."""
    for name, flood_filter in _FLOOD_FILTERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, flood_filter) for f in logger.filters):
            logger.addFilter(flood_filter())
    for name, prefix in _CHATTER:
        logger = logging.getLogger(name)
        if not any(isinstance(f, ChatterFilter) and f.prefix == prefix for f in logger.filters):
            logger.addFilter(ChatterFilter(prefix))
