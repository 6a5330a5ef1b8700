"""One typed hierarchy for every expected failure.

Each error carries a stable public code, a public message, an optional recovery hint and
internal details. Only :attr:`KgfegmcpError.public_message` ever crosses a public boundary;
``details`` is for logs and diagnostics. Public messages are bounded whatever a client sent: names
it supplied are repeated only through :func:`echo`, lists of problems through
:func:`problem_list`, and every message body is clipped.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from kgfegmcp.core import text_safety

#: Longest client-supplied fragment (a field name or location, a tool, prompt or argument name) a
#: message or log line repeats; the rest is replaced by an ellipsis and the original length.
ECHO_CHARS = 64
#: Longest message body a public error carries (code and hint are server-authored and short).
MAX_MESSAGE_CHARS = 1500
#: Characters of a problem list (``a; b; …``) before the remaining problems are only counted.
PROBLEMS_CHARS = 1000
#: Problems listed at most, however short.
MAX_PROBLEMS = 10


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marked with an ellipsis and the original length."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def echo(fragment: object, limit: int = ECHO_CHARS) -> str:
    """A client-supplied fragment fit for a message or a one-line log record: clipped, controls escaped.

    Errors repeat the names a client sent (never its values) so it can find its mistake; a name may
    be a megabyte long or carry line breaks, so it is repeated only this way.
    """
    text = str(fragment)
    escaped = text_safety.shown(text[:limit])
    return escaped if len(text) <= limit else f"{escaped}… ({len(text)} characters)"


def has_unprintable(text: str) -> bool:
    """Whether ``text`` holds a character :func:`echo` would escape (a control or bidirectional formatting one)."""
    return text_safety.has_unprintable(text)


def problem_list(problems: Sequence[str], total: int | None = None) -> str:
    """``a; b; c`` within a fixed budget, then only how many problems were left out.

    ``total`` counts problems beyond the ones given (a caller keeps only the first few of many).
    """
    shown: list[str] = []
    used = 0
    for problem in problems[:MAX_PROBLEMS]:
        if shown and used + len(problem) > PROBLEMS_CHARS:
            break
        shown.append(clip(problem, PROBLEMS_CHARS))
        used += len(shown[-1]) + 2
    left_out = max(len(problems), total or 0) - len(shown)
    if left_out:
        shown.append(f"{left_out} more problem{'s' if left_out > 1 else ''}")
    return "; ".join(shown)


class KgfegmcpError(Exception):
    """Base of all expected domain failures."""

    code: ClassVar[str] = "internal_error"
    default_hint: ClassVar[str | None] = None

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        self.details: dict[str, Any] = dict(details or {})

    @property
    def public_message(self) -> str:
        """``<error_code>: <message>`` plus `` Next action: <hint>`` when a hint exists (always bounded)."""
        text = f"{self.code}: {clip(self.message, MAX_MESSAGE_CHARS)}"
        if self.hint:
            text += f" Next action: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.public_message


class AlignmentNotFoundError(KgfegmcpError):
    """Requested derived alignment unavailable."""

    code = "alignment_not_found"


class AmbiguousFrameworkError(KgfegmcpError):
    """Framework selector matches multiple eligible snapshots."""

    code = "ambiguous_framework"
    default_hint = "Pass snapshotId to select one snapshot."


class AmbiguousGraphNodeError(KgfegmcpError):
    """Exact identifier resolves to multiple graph nodes."""

    code = "ambiguous_graph_node"
    default_hint = "Select the node by nodeId instead."


class CapabilityUnavailableError(KgfegmcpError):
    """Selected package does not provide requested behaviour."""

    code = "capability_unavailable"
    default_hint = "Call get_capabilities to see what this package supports."


class CatalogError(KgfegmcpError):
    """Catalog loading or lookup inconsistency."""

    code = "catalog_error"


class ConfigurationError(KgfegmcpError):
    """Runtime settings cannot be resolved safely."""

    code = "configuration_error"


class DeliveryPropertyDecodingError(KgfegmcpError):
    """A delivery record cannot be decoded."""

    code = "delivery_property_decoding_error"


class FilesystemError(KgfegmcpError):
    """A file or directory a command or start-up needs could not be read or written (see :func:`filesystem_error`)."""

    code = "filesystem_error"


class FrameworkNotFoundError(KgfegmcpError):
    """Framework or snapshot route unavailable."""

    code = "framework_not_found"
    default_hint = "Call list_frameworks to see the accepted frameworks and snapshots."


class GraphNodeNotFoundError(KgfegmcpError):
    """Graph node unavailable."""

    code = "graph_node_not_found"


class InvalidComparisonSelectionError(KgfegmcpError):
    """Cross-framework selection is inconsistent."""

    code = "invalid_comparison_selection"


class LearningProgressionNotFoundError(KgfegmcpError):
    """Exact learning-progression id missing or not a progression link."""

    code = "learning_progression_not_found"


class InvalidProgressionRequestError(KgfegmcpError):
    """Learning-progression filters or selection invalid."""

    code = "invalid_progression_request"


class ProgressionResultTooLargeError(KgfegmcpError):
    """Exact link, single edge or first path exceeds the result ceiling."""

    code = "progression_result_too_large"


class InvalidEvidenceUriError(KgfegmcpError):
    """``read_evidence`` URI is not one exact supported address."""

    code = "invalid_evidence_uri"


class UnsupportedEvidenceFormatError(KgfegmcpError):
    """Authorised resource bytes are not UTF-8 text."""

    code = "unsupported_evidence_format"


class EvidenceResultTooLargeError(KgfegmcpError):
    """No evidence content fits beside its metadata."""

    code = "evidence_result_too_large"


class WorkflowInstructionsTooLargeError(KgfegmcpError):
    """Complete workflow instructions exceed the result ceiling."""

    code = "workflow_instructions_too_large"


class InvalidRequestError(KgfegmcpError):
    """Arguments do not match the published schema (raised at the MCP boundary, never coerced)."""

    code = "invalid_request"


class InvalidCursorError(KgfegmcpError):
    """Pagination cursor malformed, stale, or request-mismatched."""

    code = "invalid_cursor"
    default_hint = "Repeat the original request without a cursor to start again."


class JsonlParsingError(KgfegmcpError):
    """Package JSONL record invalid."""

    code = "jsonl_parsing_error"


class ManifestBuildError(KgfegmcpError):
    """Pending manifest cannot be built safely."""

    code = "manifest_build_error"


class PackageValidationError(KgfegmcpError):
    """Graph package fails validation."""

    code = "package_validation_error"


class ProfileValidationError(KgfegmcpError):
    """Interpretation profile invalid."""

    code = "profile_validation_error"


class PromptAccessDeniedError(KgfegmcpError):
    """Rights block a generated-derivative prompt."""

    code = "prompt_access_denied"


class PromptConfigurationError(KgfegmcpError):
    """Prompt configuration invalid."""

    code = "prompt_configuration_error"


class PromptRenderingError(KgfegmcpError):
    """Prompt rendering fails safely."""

    code = "prompt_rendering_error"


class ResourceAccessDeniedError(KgfegmcpError):
    """Rights, exposure or size policy blocks a resource."""

    code = "resource_access_denied"


class ResourceNotFoundError(KgfegmcpError):
    """Resource cannot be resolved or exposed."""

    code = "resource_not_found"


class SourceFetchError(KgfegmcpError):
    """A source could not be downloaded from its publisher (network, TLS, HTTP status, size, redirects, time)."""

    code = "source_fetch_error"


class StandardNotFoundError(KgfegmcpError):
    """Exact standard cannot be resolved."""

    code = "standard_not_found"


class UnsupportedSearchModeError(KgfegmcpError):
    """Requested search mode is unsupported."""

    code = "unsupported_search_mode"


#: Longest path a filesystem error repeats (paths are the operator's own, but may hold control characters).
PATH_CHARS = 512
_NO_SPACE = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_DENIED = frozenset({errno.EACCES, errno.EPERM})


def _filesystem_problem(exc: OSError, at: str) -> tuple[str, str]:
    """(what went wrong, what to do) for one ``OSError``; ``at`` is `` (<path>)`` or empty."""
    if exc.errno in _NO_SPACE:
        return f"no space is left on the device{at}", "Free space on that device, or choose a directory on another one."
    if exc.errno in _DENIED:
        return f"permission denied{at}", "Give this user access to it, or choose another directory."
    if exc.errno == errno.EROFS:
        return f"the file system is read-only{at}", "Choose a writable directory, or mount that file system read-write."
    if exc.errno == errno.ENOTDIR:
        return (
            f"a part of the path is a file, not a directory{at}",
            "Remove or rename that file, or choose another path.",
        )
    if exc.errno == errno.EEXIST:
        return f"a file is in the way where a directory is needed{at}", "Remove or rename it, or choose another path."
    if exc.errno == errno.EISDIR:
        return f"a directory is in the way where a file is needed{at}", "Remove or rename it, or choose another path."
    if exc.errno == errno.ENOENT:
        return f"no such file or directory{at}", "Check the path."
    return f"{exc.strerror or type(exc).__name__}{at}", "Check the path and its device, then run it again."


def filesystem_error(exc: OSError, action: str) -> FilesystemError:
    """``filesystem_error: <action>: <what went wrong> (<path>).`` with the fix, for the operator (never a client).

    Names the path the system call failed on, not the call: the full disk, the read-only mount, the
    missing permission or the file in the way is what the operator has to act on.
    """
    at = f" ({echo(exc.filename, PATH_CHARS)})" if exc.filename is not None else ""
    problem, hint = _filesystem_problem(exc, at)
    return FilesystemError(f"{action}: {problem}.", hint=hint, details={"errno": exc.errno})


def _all_error_classes() -> dict[str, type[KgfegmcpError]]:
    found: dict[str, type[KgfegmcpError]] = {}
    pending = list(KgfegmcpError.__subclasses__())
    while pending:
        cls = pending.pop()
        found[cls.code] = cls
        pending.extend(cls.__subclasses__())
    return dict(sorted(found.items()))


#: Every public domain error code, mapped to its class.
ERROR_CLASSES: Mapping[str, type[KgfegmcpError]] = _all_error_classes()

#: Fixed public messages for unexpected failures, per MCP boundary.
INTERNAL_ERROR_MESSAGES: Mapping[str, str] = {
    "tool": "internal_error: The server could not complete the request.",
    "resource": "internal_error: The server could not read the resource.",
    "prompt": "internal_error: The server could not render the prompt.",
}
