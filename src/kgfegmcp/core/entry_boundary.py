"""The boundary of every entry point (the command line and the server modules): one coded line, never a traceback.

Whatever a command or a server's start-up raises ends here, once. A domain error prints its public
message; an ``OSError`` (a full disk, a read-only mount, a file in the way) becomes
``filesystem_error`` naming the path; anything else is an incident: ``internal_error`` with an
incident id, its traceback logged at DEBUG only (``KGFEGMCP_LOG_LEVEL=DEBUG`` shows it), as the MCP
boundary logs a request's incident. Each is one line on stderr and exit code 2.
"""

from __future__ import annotations

import logging
import os
import sys
import uuid
from collections.abc import Callable
from typing import NoReturn

from kgfegmcp.core import text_safety
from kgfegmcp.core.errors import KgfegmcpError, filesystem_error

log = logging.getLogger("kgfegmcp.entry")

#: The exit code of every failure that reaches the boundary (1 stays "ran, and the answer is no").
FAILURE_EXIT = 2
#: The hint of an incident: how to see what happened.
INCIDENT_HINT = "Run it again with KGFEGMCP_LOG_LEVEL=DEBUG to log the traceback, and report it with the incident id."
#: The hint when the traceback was logged (at DEBUG) just before the line.
LOGGED_HINT = "Report the traceback logged above with the incident id."


def run_entry_point(run: Callable[[], None], what: str = "The command") -> None:
    """Run ``run``; any failure leaves as one ``<error_code>: <message>`` line on stderr and exit code 2."""
    try:
        run()
    except KgfegmcpError as exc:
        fail(exc.public_message)
    except OSError as exc:
        fail(filesystem_error(exc, f"{what} could not read or write a file").public_message)
    except Exception as exc:
        incident = uuid.uuid4().hex[:12]
        logged = _log_incident(incident, exc)
        fail(
            f"internal_error: {what} failed unexpectedly ({type(exc).__name__}; incident {incident}). "
            f"Next action: {LOGGED_HINT if logged else INCIDENT_HINT}"
        )


def fail(line: str) -> NoReturn:
    """Print one error line on stderr (flushed before anything else can interleave) and exit 2; a message may
    quote a file name or a source's text, so its controls are shown escaped, never acted on by a terminal."""
    sys.stderr.write(text_safety.shown(line.replace("\n", " ")) + "\n")
    sys.stderr.flush()
    sys.exit(FAILURE_EXIT)


def _log_incident(incident: str, exc: BaseException) -> bool:
    """The traceback at DEBUG: in a server's log when its level is DEBUG, and for a command run with
    ``KGFEGMCP_LOG_LEVEL=DEBUG`` (commands configure no logging otherwise, so it is dropped).

    Returns whether it was logged.
    """
    if not logging.getLogger().handlers and os.environ.get("KGFEGMCP_LOG_LEVEL", "").upper() == "DEBUG":
        from kgfegmcp.core.logging_setup import configure_logging

        configure_logging("DEBUG", "json" if os.environ.get("KGFEGMCP_LOG_FORMAT") == "json" else "text")
    log.debug("incident %s", incident, exc_info=exc)
    return log.isEnabledFor(logging.DEBUG)
