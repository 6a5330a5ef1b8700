"""The FTS5 lexical index the server used before tantivy, kept for the side-by-side benchmark.

Each document has its own text and an optional context column (the names of the groupings it sits
directly under, weighted like the text: the source's own classification), so a query naming an
object of knowledge finds the standards beneath it.
Tokens present in more than half of the documents carry no BM25 weight (FTS5 clamps their IDF);
they select matches only when the query has no other token, which keeps ranking identical and
avoids scoring nearly every document for words such as "de" or "the".
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence

TEXT_WEIGHT = 1.0
CONTEXT_WEIGHT = 1.0
SCORE_DECIMALS = 6


class TextIndex:
    """Documents are (position, text[, context]); ranked by BM25, position breaks ties."""

    def __init__(self, documents: Iterable[Sequence[object]]) -> None:
        self._connection = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        rows = []
        for document in documents:
            position, text, *rest = document
            rows.append((position, text, rest[0] if rest else ""))
        with self._connection:
            self._connection.execute(
                "CREATE VIRTUAL TABLE docs USING fts5(body, context, tokenize='unicode61 remove_diacritics 2')"
            )
            self._connection.executemany("INSERT INTO docs(rowid, body, context) VALUES (?, ?, ?)", rows)
            self._connection.execute("INSERT INTO docs(docs) VALUES ('optimize')")
            self._connection.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(docs, 'row')")
            self._document_frequency = dict(self._connection.execute("SELECT term, doc FROM vocab").fetchall())
        self._documents = len(rows)

    @property
    def documents(self) -> int:
        """Indexed documents."""
        return self._documents

    def selecting_tokens(self, folded_tokens: list[str]) -> list[str]:
        """The tokens that select matches: the informative ones, or all when none is informative."""
        informative = [t for t in folded_tokens if 0 < self._document_frequency.get(t, 0) * 2 <= self._documents]
        return informative or [t for t in folded_tokens if self._document_frequency.get(t, 0) > 0]

    @staticmethod
    def _expression(tokens: list[str]) -> str:
        return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)

    def ranked(self, folded_tokens: list[str], limit: int | None = None) -> tuple[list[tuple[int, float]], int]:
        """Best-first ``(position, score)`` rows (at most ``limit``) and the total number of matches."""
        tokens = self.selecting_tokens(folded_tokens)
        if not tokens:
            return [], 0
        expression = self._expression(tokens)
        # Order by exactly the rounded score that is published (then position): callers merge and page
        # on that same key, so a LIMIT here keeps the very rows that rank first there. Ordering by the
        # raw BM25 instead lets near-ties (rounded equal, raw different) swap between page sizes.
        score = f"round(bm25(docs, {TEXT_WEIGHT}, {CONTEXT_WEIGHT}), {SCORE_DECIMALS})"
        with self._lock:
            total = int(
                self._connection.execute("SELECT count(*) FROM docs WHERE docs MATCH ?", (expression,)).fetchone()[0]
            )
            query = f"SELECT rowid, {score} AS score FROM docs WHERE docs MATCH ? ORDER BY score, rowid"
            rows = self._connection.execute(
                query + (" LIMIT ?" if limit is not None else ""),
                (expression, limit) if limit is not None else (expression,),
            ).fetchall()
        # SQLite's BM25 is negative-better; publish it positive (negation is exact, so the order holds).
        return [(int(rowid), -float(score)) for rowid, score in rows], total

    def search(self, folded_tokens: list[str]) -> list[tuple[int, float]]:
        """Every match, best first."""
        return self.ranked(folded_tokens)[0]

    def matches(self, folded_tokens: list[str], position: int) -> bool:
        """Whether one document is among the matches of ``folded_tokens``."""
        tokens = self.selecting_tokens(folded_tokens)
        if not tokens:
            return False
        with self._lock:
            row = self._connection.execute(
                "SELECT 1 FROM docs WHERE docs MATCH ? AND rowid = ?", (self._expression(tokens), position)
            ).fetchone()
        return row is not None
