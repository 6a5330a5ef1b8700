"""The secret that keys pagination cursors: set for replicas, else made once per install and kept owner-only.

Resolved once at start-up, in this order:

1. ``KGFEGMCP_CURSOR_SECRET``, when set: replicas that must accept each other's cursors share it.
2. ``<KGFEGMCP_CACHE_DIR>/cursor-secret.key``: 32 random bytes as 64 hex digits, made at the first
   start and read on every later one, so cursors outlive restarts and answers stay byte-identical
   for the install. It is written to a private temporary file (mode 0600) and hard-linked into
   place, which never replaces a file already there: replicas starting together on one cache
   directory all end up with the first one's secret, and nobody ever reads a half-written file.
3. Otherwise (the cache is off, or its directory cannot be written) a secret of this process alone,
   with one warning: its cursors stop working when it exits, and no other process accepts them.

A file that is there but unfit (not a regular file, not this user's, open to group or others, or not
one line of 32 to 1024 printable characters) stops start-up with ``configuration_error``: it is
never replaced, since a replica sharing the directory may be using it, and anyone who could read it
could have sealed cursors. The secret itself never appears in a log line, an error or a result.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import secrets
import stat
from pathlib import Path

from pydantic import SecretStr

from kgfegmcp.core.config import MAX_CURSOR_SECRET_CHARS, MIN_CURSOR_SECRET_CHARS, BackendSettings
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.staged_files import staged_beside

log = logging.getLogger(__name__)

#: Beside the cache's entries, which live under ``<framework-id>/``: ids are ``[a-z0-9-]``, never dotted.
SECRET_FILE_NAME = "cursor-secret.key"
_SECRET_BYTES = 32
_SECRET_TEXT = re.compile(rf"[\x21-\x7e]{{{MIN_CURSOR_SECRET_CHARS},{MAX_CURSOR_SECRET_CHARS}}}")
_POSIX = os.name == "posix"
_FIX = (
    "Delete it to have a new one made (cursors in flight become invalid), or set KGFEGMCP_CURSOR_SECRET; "
    "see docs/configuration.md#pagination-cursors-kgfegmcp_cursor_secret."
)


def secret_file(settings: BackendSettings) -> Path | None:
    """Where the install's secret is kept (``None`` with the cache off)."""
    return None if settings.cache_dir is None else settings.cache_dir / SECRET_FILE_NAME


def resolve_cursor_secret(settings: BackendSettings) -> SecretStr:
    """The secret that keys this process's cursors; ``configuration_error`` for an unfit secret file."""
    if settings.cursor_secret is not None:
        return settings.cursor_secret
    path = secret_file(settings)
    if path is None:
        return _process_secret("KGFEGMCP_CACHE_DIR is empty (the cache is off)")
    for _ in range(2):  # read, else make; a file another process made meanwhile is read the second time
        found = read_secret_file(path)
        if found is not None:
            return SecretStr(found)
        try:
            made = _make(path)
        except OSError as exc:
            return _process_secret(f"{path} cannot be written ({exc.strerror or type(exc).__name__})")
        if made is not None:
            log.info("cursor secret: made %s (owner-only); cursors stay valid across restarts", path)
            return SecretStr(made)
    raise ConfigurationError(f"The cursor secret file {path} appeared and vanished again.", hint=_FIX)


def _process_secret(reason: str) -> SecretStr:
    log.warning(
        "cursor secret: %s, so cursors are keyed by a secret of this process alone: they stop working when it "
        "exits and no other process accepts them (set KGFEGMCP_CURSOR_SECRET to keep and share one)",
        reason,
    )
    return SecretStr(secrets.token_bytes(_SECRET_BYTES).hex())


def read_secret_file(path: Path) -> str | None:
    """The secret kept at ``path`` (read only); ``None`` when there is none; ``configuration_error`` when unfit."""
    if not _POSIX and path.is_symlink():
        raise _unfit(path, "is a symbolic link")
    # No symbolic link followed, and a FIFO opened without waiting for a writer: fstat then refuses both.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _unfit(path, "is a symbolic link") from None
        raise _unfit(path, f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise _unfit(path, "is not a regular file")
        if _POSIX and status.st_uid != os.geteuid():
            raise _unfit(path, "belongs to another user")
        if _POSIX and status.st_mode & 0o077:
            raise _unfit(path, f"is open to group or others (mode {stat.S_IMODE(status.st_mode):04o}; 0600 expected)")
        data = b""
        while len(data) <= MAX_CURSOR_SECRET_CHARS + 1:  # one line of at most the bound, and its newline
            chunk = os.read(descriptor, MAX_CURSOR_SECRET_CHARS + 2 - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(descriptor)
    text = data.decode("ascii", errors="replace").removesuffix("\n")
    if _SECRET_TEXT.fullmatch(text) is None:
        bounds = f"{MIN_CURSOR_SECRET_CHARS} to {MAX_CURSOR_SECRET_CHARS}"
        raise _unfit(path, f"is not one line of {bounds} printable characters")
    return text


def _make(path: Path) -> str | None:
    """Make the secret file; ``None`` when another process made one first (then that one is the secret)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = secrets.token_bytes(_SECRET_BYTES).hex()
    with staged_beside(path, text.encode("ascii") + b"\n", ".cursor-secret-", suffix="") as temporary:  # mode 0600
        try:
            os.link(temporary, path)  # atomic, and never over an existing file
        except FileExistsError:
            return None
    return text


def _unfit(path: Path, problem: str) -> ConfigurationError:
    return ConfigurationError(f"The cursor secret file {path} {problem}.", hint=_FIX)
