"""Lexical index on SQLite FTS5 (BM25, ``unicode61 remove_diacritics 2``), one per package."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable


class TextIndex:
    """Documents are (position, text); results rank by BM25 with position as the tie-break."""

    def __init__(self, documents: Iterable[tuple[int, str]]) -> None:
        self._connection = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        with self._connection:
            self._connection.execute(
                "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61 remove_diacritics 2')"
            )
            self._connection.executemany("INSERT INTO docs(rowid, body) VALUES (?, ?)", documents)
            self._connection.execute("INSERT INTO docs(docs) VALUES ('optimize')")

    def search(self, folded_tokens: list[str]) -> list[tuple[int, float]]:
        """Every document matching any token, best first: ``(position, score)`` (higher is better)."""
        if not folded_tokens:
            return []
        expression = " OR ".join('"' + token.replace('"', '""') + '"' for token in folded_tokens)
        with self._lock:
            rows = self._connection.execute(
                "SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid",
                (expression,),
            ).fetchall()
        # BM25 in SQLite is negative-better; publish a positive, rounded score so output is stable.
        return [(int(rowid), round(-float(score), 6)) for rowid, score in rows]
