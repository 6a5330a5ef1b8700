"""One writer per package at a time, and no reader in the middle of a write.

The lock is an advisory ``flock`` on the package directory itself, so it leaves no file in the
closed package tree and is released by the kernel when its holder dies (a killed run never leaves
a stale lock). Writers (``packages validate`` recording a state, ``packages build`` replacing a
package) take it exclusively; start-up takes it shared while it reads a package, so it never sees
a half-recorded state. Where ``fcntl`` does not exist (Windows) there is no lock: run one
``packages validate`` per root at a time there.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

WaitNotice = Callable[[Path], None]


@contextlib.contextmanager
def package_lock(directory: Path, *, shared: bool = False, on_wait: WaitNotice | None = None) -> Iterator[None]:
    """Hold the package's lock for the ``with`` block; ``on_wait`` is told when another process holds it.

    A directory that cannot be opened is not locked: whatever reads it next reports why it is unusable.
    """
    if fcntl is None:
        yield
        return
    try:
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield
        return
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    try:
        try:
            fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(directory)
            fcntl.flock(descriptor, mode)
        yield
    finally:
        os.close(descriptor)  # closing the descriptor releases the lock
