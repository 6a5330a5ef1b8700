"""A file written whole beside where it goes, so that it appears there whole or not at all.

The bytes go to a fresh temporary file in the target's own directory (same file system, so a link or a rename
is atomic), flushed and synced; the caller then links it into place (never over an existing file) or replaces
the target with it. Whatever happens, the temporary name is gone afterwards.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def staged_beside(target: Path, data: bytes, prefix: str, suffix: str = ".tmp") -> Iterator[str]:
    """The path of a synced temporary file holding ``data`` beside ``target`` (mode 0600, created exclusively),
    for the caller to ``os.link`` or ``os.replace`` into place; removed on the way out if still there."""
    handle, staging = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        yield staging
    finally:
        with contextlib.suppress(OSError):
            os.unlink(staging)
