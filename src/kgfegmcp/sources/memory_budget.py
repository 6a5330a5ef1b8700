"""A ceiling on the memory one build may add, enforced by the operating system.

Some readers expand their input by a factor no byte count predicts: pdfminer inflates every compressed stream
whole (a few KB of deflate can declare gigabytes) and lays each page's characters out as objects of about a
kilobyte each; rdflib and a CFPackage's million items cost many times their bytes. Counting cannot bound what
happens inside them, so while one input is read and converted the process's address space is capped at what
it already uses plus the budget (``RLIMIT_AS``, lowered for the build and raised back after it; the hard limit
is never touched). Passing the budget is a ``MemoryError`` somewhere inside, answered as one coded line
instead of a machine that swaps or a process the kernel kills.

On a platform without ``RLIMIT_AS`` or ``/proc`` the step runs unbounded, as it would anyway.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

from kgfegmcp.core.errors import ManifestBuildError

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]

#: What reading and converting one input may add to the process: with the interpreter, under 1 GiB.
BUILD_BUDGET_BYTES = 768 * 1024 * 1024
_STATUS = Path("/proc/self/status")


def _address_space_in_use() -> int | None:
    """The process's virtual size now (bytes), or ``None`` where the kernel does not say."""
    try:
        match = re.search(r"^VmSize:\s+(\d+) kB$", _STATUS.read_text(encoding="ascii"), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) * 1024 if match else None


def _caused_by_memory(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, MemoryError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


@contextlib.contextmanager
def memory_budget(what: str, hint: str, budget_bytes: int = BUILD_BUDGET_BYTES) -> Iterator[None]:
    """Run the block with at most ``budget_bytes`` more address space; past it, ``manifest_build_error``
    saying that building from ``what`` needed more (``hint`` says what to do)."""
    in_use = _address_space_in_use()
    if resource is None or in_use is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = in_use + budget_bytes
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    if soft != resource.RLIM_INFINITY and soft < ceiling:
        ceiling = soft  # an operator's own, lower ceiling stays
    exhausted = False
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    try:
        yield
    except Exception as exc:  # a reader may wrap the MemoryError in its own (pdfplumber does)
        if not _caused_by_memory(exc):
            raise
        exhausted = True  # raised below, once the frames holding what was allocated are gone
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    if exhausted:
        raise ManifestBuildError(
            f"Building from {what} needed more than the {budget_bytes // (1024 * 1024)} MiB a build may add for "
            "one input; it was stopped.",
            hint=hint,
        )
