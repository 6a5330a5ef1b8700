"""Lexical index on tantivy (BM25, top-k with pruning), one per package and document kind.

Each document has its own text and an optional context column (the names of the groupings it sits
directly under, weighted like the text: the source's own classification), so a query naming an
object of knowledge finds the standards beneath it. Text is folded and tokenised here, in Python,
exactly as queries are (``search.normalize``), and tantivy only splits on the spaces between those
tokens, so index and query can never disagree about a word.

Tokens present in more than half of the documents carry almost no BM25 weight; they select matches
only when the query has no other token, which keeps ranking stable and avoids scoring nearly every
document for words such as "de" or "the". Documents are added in position order into one segment,
so a document's tantivy id is its index in that order; ties break by position.
"""

from __future__ import annotations

import marshal
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import tantivy

from kgfegmcp.search.normalize import tokens

SCORE_DECIMALS = 6
_FIELDS = ("body", "context")
_TOKENIZER = "kgfegmcp_words"
_STATISTICS = "statistics.marshal"
_STATISTICS_FORMAT = 1
#: tantivy's per-thread ceiling (just under 4 GiB). The writer takes memory as documents arrive and
#: flushes a segment only when this fills, so every package up to tens of millions of items is
#: indexed as the one segment that keeps document ids in position order.
_WRITER_HEAP_BYTES = 4_000_000_000


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for field in _FIELDS:
        builder.add_text_field(field, tokenizer_name=_TOKENIZER)
    builder.add_integer_field("position", indexed=True, fast=True)
    builder.add_text_field("facet", tokenizer_name="raw")
    return builder.build()


def _register_tokenizer(index: tantivy.Index) -> None:
    """Tokenizers are not stored with an index: register ours on every index built or opened."""
    index.register_tokenizer(_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())


class TextIndex:
    """Documents are (position, text[, context[, facet terms]]); ranked by BM25, position breaks ties.

    Facet terms are exact strings (a grade label, a statement type, …) that filters require without
    affecting the score, so a filtered page costs what an unfiltered one does. An index lives in
    memory, or in a directory (the derived-index cache) from which :meth:`open` serves it again.
    """

    def __init__(self, index: tantivy.Index, positions: list[int], document_frequency: dict[str, int]) -> None:
        _register_tokenizer(index)
        index.reload()
        self._schema = index.schema
        self._searcher = index.searcher()
        if positions and self._searcher.num_segments != 1:
            raise ValueError("a text index must be one segment so document ids follow positions")
        if self._searcher.num_docs != len(positions):
            raise ValueError("a text index must hold one document per position")
        self._positions = positions
        self._document_frequency = document_frequency

    @classmethod
    def build(cls, documents: Iterable[Sequence[object]], directory: Path | None = None) -> TextIndex:
        """Index ``documents`` in memory, or into the empty ``directory`` (then :meth:`open` serves it)."""
        index = tantivy.Index(_schema(), path=None if directory is None else str(directory), reuse=False)
        _register_tokenizer(index)
        writer = index.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        positions: list[int] = []
        frequency: Counter[str] = Counter()
        for document in documents:
            position, text, *rest = document
            assert isinstance(position, int)
            body = tokens(str(text))
            context = tokens(str(rest[0])) if rest else []
            facets = sorted(str(term) for term in rest[1]) if len(rest) > 1 else []  # type: ignore[attr-defined]
            frequency.update(set(body) | set(context))
            writer.add_document(
                tantivy.Document(body=" ".join(body), context=" ".join(context), position=position, facet=facets)
            )
            positions.append(position)
        writer.commit()
        writer.wait_merging_threads()
        statistics = dict(frequency)
        if directory is not None:
            (directory / _STATISTICS).write_bytes(marshal.dumps((_STATISTICS_FORMAT, positions, statistics)))
        return cls(index, positions, statistics)

    @classmethod
    def open(cls, directory: Path) -> TextIndex:
        """Serve an index :meth:`build` wrote into ``directory``; ``ValueError`` when it is not one.

        The caller vouches for the directory's bytes (the derived-index cache checks every file's
        SHA-256 against its ledger first): marshal, like the index files, is not for untrusted input.
        """
        try:
            format_, positions, statistics = marshal.loads((directory / _STATISTICS).read_bytes())
        except (OSError, EOFError, TypeError, ValueError) as exc:
            raise ValueError(f"text index statistics unreadable: {type(exc).__name__}") from None
        if format_ != _STATISTICS_FORMAT or not isinstance(positions, list) or not isinstance(statistics, dict):
            raise ValueError("text index statistics have another format")
        return cls(tantivy.Index.open(str(directory)), positions, statistics)

    @property
    def documents(self) -> int:
        """Indexed documents."""
        return len(self._positions)

    def selecting_tokens(self, folded_tokens: list[str]) -> list[str]:
        """The tokens that select matches: the informative ones, or all when none is informative."""
        total = len(self._positions)
        informative = [t for t in folded_tokens if 0 < self._document_frequency.get(t, 0) * 2 <= total]
        return informative or [t for t in folded_tokens if self._document_frequency.get(t, 0) > 0]

    def _query(self, selecting: list[str], required: Sequence[frozenset[str]] = ()) -> tantivy.Query:
        text = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, field, token))
                for token in selecting
                for field in _FIELDS
            ]
        )
        if not required:
            return text
        clauses = [(tantivy.Occur.Must, text)]
        for group in required:  # each group: at least one of its terms; groups are ANDed; no score
            terms = [(tantivy.Occur.Should, tantivy.Query.term_query(self._schema, "facet", t)) for t in sorted(group)]
            clauses.append((tantivy.Occur.Must, tantivy.Query.boost_query(tantivy.Query.boolean_query(terms), 0.0)))
        return tantivy.Query.boolean_query(clauses)

    def ranked(
        self, folded_tokens: list[str], limit: int | None = None, required: Sequence[frozenset[str]] = ()
    ) -> tuple[list[tuple[int, float]], int]:
        """Best-first ``(position, score)`` rows (at most ``limit``) and the total number of matches.

        ``required`` lists facet groups a match must satisfy (one term of each group).
        """
        selecting = self.selecting_tokens(folded_tokens)
        if not selecting:
            return [], 0
        if limit == 0:
            return [], self._count(self._query(selecting, required))
        size = len(self._positions) if limit is None else min(limit, len(self._positions))
        result = self._searcher.search(self._query(selecting, required), size, count=True)
        rows = sorted(((-score, self._positions[address.doc]) for score, address in result.hits))
        return [(position, round(-negative, SCORE_DECIMALS)) for negative, position in rows], int(
            getattr(result, "count", 0) or 0
        )

    def _count(self, query: tantivy.Query) -> int:
        return int(getattr(self._searcher.search(query, 1, count=True), "count", 0) or 0)

    def search(self, folded_tokens: list[str]) -> list[tuple[int, float]]:
        """Every match, best first."""
        return self.ranked(folded_tokens)[0]

    def matches(self, folded_tokens: list[str], position: int, required: Sequence[frozenset[str]] = ()) -> bool:
        """Whether one document is among the matches of ``folded_tokens`` (and ``required``)."""
        selecting = self.selecting_tokens(folded_tokens)
        if not selecting:
            return False
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, self._query(selecting, required)),
                (tantivy.Occur.Must, tantivy.Query.term_query(self._schema, "position", position)),
            ]
        )
        return self._count(query) > 0
