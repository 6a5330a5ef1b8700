"""The one way to open and read a file of a graph package (and of a profiles or prompts root).

Whatever stands where a package declares a file is data from outside the process: a FIFO, whose
``open`` and ``read`` block forever; a device, a socket, a directory or a symlink; bytes far larger
than declared; JSON nested past the interpreter's recursion limit, or saying one key twice (where
``json.loads`` silently keeps the last). So every such file is opened here, and only here:

- the file is opened with ``O_NOFOLLOW`` (a symlink is refused by ``open`` itself; so is a
  symlinked directory on the way) and ``O_NONBLOCK`` (a FIFO does not block), and the opened
  descriptor must be a regular file (``fstat``): what is checked is what is read, with no window
  between a check and an open;
- its size (``fstat`` of that descriptor) is known before a byte is read: compared with the size
  the manifest declares, or with the caller's bound; no more than that size plus one byte (to see
  a file that grew) is ever read;
- a JSON document is decoded within :data:`MAX_JSON_DEPTH` and refused when an object repeats a key
  (:mod:`kgfegmcp.core.bounded_json`, the same decoder client JSON goes through); a JSONL line is read
  within :data:`MAX_LINE_BYTES` (``kgfegmcp.packages.decoder.iter_physical_lines``);
- every failure is a :class:`PackageFileError` with the finding code that says why, never an
  ``OSError`` or a ``RecursionError``.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Any

from kgfegmcp.core.bounded_json import NOT_UTF8, BoundedJsonError, decode_bounded
from kgfegmcp.core.finding_codes import FindingCode

MANIFEST_FILENAME = "package_manifest.json"

#: Deepest nesting of arrays and objects in any package JSON document or JSONL record (the deepest a
#: package writes is 7: the bundle); deeper is refused before it is decoded.
MAX_JSON_DEPTH = 64
#: Longest JSONL line (the longest a real package writes is about 4 KB); a longer one is refused
#: without being held.
MAX_LINE_BYTES = 1 << 20
READ_CHUNK = 1 << 20

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class PackageFileError(Exception):
    """A package file that cannot be used as it stands; ``code`` is the finding that says why.

    ``reason`` completes a sentence about the file ("the manifest <reason>") and names no local path.
    """

    def __init__(self, code: FindingCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _open_failure(exc: OSError) -> PackageFileError:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return PackageFileError(FindingCode.MISSING_ARTIFACT, "is missing")
    if exc.errno == errno.ELOOP:
        return PackageFileError(FindingCode.UNSAFE_PATH, "is or passes through a symlink, which is never followed")
    if exc.errno in (errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP):  # a socket, or a device without a driver
        return PackageFileError(FindingCode.UNSAFE_PATH, "is not a regular file")
    return PackageFileError(FindingCode.UNREADABLE_FILE, f"cannot be opened ({exc.strerror or type(exc).__name__})")


def _open_descriptor(root: Path, relative: str) -> int:
    """A read-only, non-blocking descriptor of ``root/relative``; no symlink inside ``root`` is followed.

    The file is opened with ``O_NOFOLLOW``; the directories on the way are looked at (``lstat``) just
    before. What is read is judged on the descriptor alone (its type and size, then its checksum), so
    a directory swapped for a symlink in between can only lead to bytes that must still match.
    """
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
        raise PackageFileError(FindingCode.UNSAFE_PATH, "is not a relative path inside its root")
    directory = root
    for part in parts[:-1]:
        directory = directory / part
        if stat.S_ISLNK(os.lstat(directory).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    return os.open(root.joinpath(*parts), os.O_RDONLY | _NONBLOCK | _NOFOLLOW | _CLOEXEC | _BINARY)


class PackageFile:
    """One opened regular file of a package: its size is known before any byte of it is read.

    Reads hand out at most ``size + 1`` bytes in all, so a file that grew after it was opened shows
    as a size that differs, and never as an unbounded read. A failing read (``EIO``) is a
    :class:`PackageFileError`.
    """

    def __init__(self, descriptor: int, size: int) -> None:
        self._descriptor = descriptor
        self.size = size
        self._handed = 0

    @classmethod
    def open(cls, root: Path, relative: str, *, expected_bytes: int | None = None) -> PackageFile:
        """Open ``root/relative`` as a regular file; with ``expected_bytes``, refuse another size unread."""
        try:
            descriptor = _open_descriptor(root, relative)
        except OSError as exc:
            raise _open_failure(exc) from None
        try:
            mode = os.fstat(descriptor)
            if not stat.S_ISREG(mode.st_mode):
                raise PackageFileError(FindingCode.UNSAFE_PATH, f"is {_kind(mode.st_mode)}, not a regular file")
            if expected_bytes is not None and mode.st_size != expected_bytes:
                raise PackageFileError(
                    FindingCode.CHECKSUM_MISMATCH,
                    f"has {mode.st_size} bytes where the manifest declares {expected_bytes} (not read)",
                )
        except OSError as exc:
            os.close(descriptor)
            raise PackageFileError(FindingCode.UNREADABLE_FILE, f"cannot be read ({exc.strerror})") from None
        except PackageFileError:
            os.close(descriptor)
            raise
        return cls(descriptor, mode.st_size)

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes (``-1``: the rest); short reads are allowed, as for a raw file.

        Never more than ``self.size + 1`` bytes in all, nor more than :data:`READ_CHUNK` at once.
        """
        if size < 0:
            return self.read_all()
        return self._read(min(size, READ_CHUNK))

    def read_all(self) -> bytes:
        """Every byte (``size``, or one more if the file grew since it was opened), read in one piece
        when the system allows, so the file is held once and not again as its parts."""
        parts = []
        while chunk := self._read(self.size + 1 - self._handed):
            parts.append(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _read(self, size: int) -> bytes:
        wanted = min(size, self.size + 1 - self._handed)
        if wanted <= 0:
            return b""
        try:
            chunk = os.read(self._descriptor, wanted)
        except OSError as exc:
            raise PackageFileError(FindingCode.UNREADABLE_FILE, f"cannot be read ({exc.strerror})") from None
        self._handed += len(chunk)
        return chunk

    def rewind(self) -> None:
        """Read again from the first byte (of this same opened file, whatever its path names now)."""
        try:
            os.lseek(self._descriptor, 0, os.SEEK_SET)
        except OSError as exc:
            raise PackageFileError(FindingCode.UNREADABLE_FILE, f"cannot be read ({exc.strerror})") from None
        self._handed = 0

    def close(self) -> None:
        """Release the descriptor (idempotent)."""
        if self._descriptor >= 0:
            os.close(self._descriptor)
            self._descriptor = -1

    def __enter__(self) -> PackageFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def read_package_file(root: Path, relative: str, *, expected_bytes: int | None = None) -> bytes:
    """All bytes of ``root/relative``, opened as :meth:`PackageFile.open` opens it."""
    with PackageFile.open(root, relative, expected_bytes=expected_bytes) as handle:
        return handle.read_all()


def shown_key(key: str) -> str:
    """A repeated key as a finding names it: quoted, escaped, and cut short when long."""
    return json.dumps(key[:80]) + ("…" if len(key) > 80 else "")


def _json_problem(exc: BoundedJsonError) -> str:
    """Why a package JSON text was refused, naming the repeated key when that is the reason."""
    if exc.repeated_key is not None:
        return f"repeats the key {shown_key(exc.repeated_key)} in one object"
    return exc.reason if exc.detail is None else f"{exc.reason} ({exc.detail})"


class PackageJsonError(ValueError):
    """A package JSON text refused: not UTF-8 (``not_utf8``), not JSON, nested too deeply, or a repeated key."""

    def __init__(self, reason: str, *, not_utf8: bool = False) -> None:
        super().__init__(reason)
        self.not_utf8 = not_utf8


def parse_package_json(data: bytes | str) -> Any:
    """``data`` decoded as package JSON, or :class:`PackageJsonError` saying why not (the key, if repeated).

    Its length is bounded where it was read (a declared size, the line bound or a file bound).
    """
    try:
        return decode_bounded(data, max_bytes=None, max_depth=MAX_JSON_DEPTH)
    except BoundedJsonError as exc:
        raise PackageJsonError(_json_problem(exc), not_utf8=exc.reason == NOT_UTF8) from None


def path_problem(path: str) -> str | None:
    """Why a declared artifact path is unsafe, or ``None`` when it stays inside the package."""
    if "\\" in path:
        return "uses a backslash"
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return "is absolute"
    if "\x00" in path or any(ord(c) < 32 for c in path):
        return "contains control characters"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "is not a normalised relative path (empty, '.' or '..' segment)"
    if path == MANIFEST_FILENAME:
        return "names the manifest itself"
    return None
