"""What every refusal must look like, and how tests capture the log it leaves (ours and FastMCP's)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: Longest error text a client may ever receive, whatever it sent.
MAX_ERROR_CHARS = 2000
#: Longest log line a refusal may leave.
MAX_LOG_LINE = 1000
CODED = re.compile(r"^[a-z_]+: ")


def assert_bounded(message: str) -> None:
    """``<code>: <message>``, within the error bound."""
    assert CODED.match(message), message[:200]
    assert len(message) <= MAX_ERROR_CHARS, len(message)


@contextmanager
def all_records(caplog: pytest.LogCaptureFixture, level: int = logging.INFO) -> Iterator[None]:
    """Capture our records and FastMCP's (its logger does not propagate to the root) from ``level`` up."""
    fastmcp_logger = logging.getLogger("fastmcp")
    fastmcp_logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(level), caplog.at_level(level, logger="fastmcp"):
            yield
    finally:
        fastmcp_logger.removeHandler(caplog.handler)


def assert_quiet_log(caplog: pytest.LogCaptureFixture) -> None:
    """Refusals leave no traceback and no long line in the log."""
    assert not [r.getMessage()[:200] for r in caplog.records if r.exc_info], "a refusal was logged with a traceback"
    assert all(len(r.getMessage()) <= MAX_LOG_LINE for r in caplog.records), "a log line echoes client input"
