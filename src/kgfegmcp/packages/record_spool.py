"""JSON records of a package being built, kept in a private temporary SQLite file instead of in memory.

A package's provenance, source details and unresolved report are several times the size of its
graph. The builder spools them here as canonical JSON; the writer streams them back in identifier
order (the order of the provenance documents) or in the order they were added (the unresolved
report), so the memory a build takes does not grow with them. SQLite deletes the file when the
spool is closed or collected (``sqlite3.connect("")`` is a private temporary database).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from kgfegmcp.core.models import canonical_json


class RecordSpool:
    """JSON objects by key, on disk; keys iterate in code-point order (SQLite compares UTF-8 bytes)."""

    def __init__(self) -> None:
        self._db = sqlite3.connect("", isolation_level=None)
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-8192", "temp_store=FILE"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.execute("CREATE TABLE record (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
        self._db.execute("BEGIN")  # one transaction for the spool's life: nothing here is ever committed to last
        self._count = 0

    def add(self, key: str, record: Mapping[str, Any]) -> bool:
        """Store ``record`` under a new ``key``; ``False`` (nothing stored) when the key is taken."""
        added = self._db.execute(
            "INSERT OR IGNORE INTO record (key, body) VALUES (?, ?)", (key, canonical_json(record))
        ).rowcount
        self._count += added
        return added == 1

    def replace(self, key: str, record: Mapping[str, Any]) -> None:
        """Store ``record`` under an existing ``key``, keeping its place in the order of addition."""
        if self._db.execute("UPDATE record SET body = ? WHERE key = ?", (canonical_json(record), key)).rowcount != 1:
            raise KeyError(key)

    def get(self, key: str) -> dict[str, Any] | None:
        """A fresh copy of the record under ``key``, or ``None``."""
        row = self._db.execute("SELECT body FROM record WHERE key = ?", (key,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def __contains__(self, key: object) -> bool:
        return self._db.execute("SELECT 1 FROM record WHERE key = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        return self._count

    def by_key(self) -> Iterator[tuple[str, str]]:
        """``(key, canonical JSON)`` of every record, keys in code-point order."""
        yield from self._db.execute("SELECT key, body FROM record ORDER BY key")

    def in_order_added(self) -> Iterator[str]:
        """The canonical JSON of every record, in the order the records were added."""
        for (body,) in self._db.execute("SELECT body FROM record ORDER BY rowid"):
            yield body

    def close(self) -> None:
        """Drop the spool now (its file is deleted)."""
        self._db.close()

    @classmethod
    def of(cls, records: Mapping[str, Mapping[str, Any]]) -> RecordSpool:
        """``records`` as a spool: the same one when they are already spooled."""
        if isinstance(records, SpooledRecords):
            return records.spool
        spool = cls()
        for key, record in records.items():
            spool.add(key, record)
        return spool


class SpooledRecords(Mapping[str, Mapping[str, Any]]):
    """A read-only mapping view of a spool (each read decodes a fresh copy)."""

    def __init__(self, spool: RecordSpool) -> None:
        self.spool = spool

    def __getitem__(self, key: str) -> Mapping[str, Any]:
        record = self.spool.get(key)
        if record is None:
            raise KeyError(key)
        return record

    def __iter__(self) -> Iterator[str]:
        return (key for key, _body in self.spool.by_key())

    def __len__(self) -> int:
        return len(self.spool)

    def __contains__(self, key: object) -> bool:
        return key in self.spool


class SpooledList(Sequence[Mapping[str, Any]]):
    """A read-only sequence view of a spool, in the order its records were added."""

    def __init__(self, spool: RecordSpool) -> None:
        self.spool = spool

    @overload
    def __getitem__(self, index: int) -> Mapping[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> Mapping[str, Any] | Sequence[Mapping[str, Any]]:
        if isinstance(index, slice):
            return list(self)[index]
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError(index)
        return next(itertools.islice(iter(self), position, None))

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return (json.loads(body) for body in self.spool.in_order_added())

    def __len__(self) -> int:
        return len(self.spool)
