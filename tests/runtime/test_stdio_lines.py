"""The STDIO transport's bounded lines, read through a real pipe as the SDK reads stdin: whole lines within
the bound pass unchanged, wherever the reads split them; a longer one is dropped whole and reported."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator

import pytest

from kgfegmcp.stdio_transport.lines import bounded_stdin

BOUND = 16


def lines_through_a_pipe(writes: list[bytes], max_bytes: int = BOUND) -> list[str]:
    """What a text reader of :func:`bounded_stdin` reads, line by line, when ``writes`` go into a pipe one by
    one (each a separate write, so the reads may split lines anywhere)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        for data in writes:
            os.write(write_end, data)
        os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        stream = bounded_stdin(max_bytes, read_end)
        lines = list(iter(stream.readline, ""))
    finally:
        writer.join(timeout=10)
        os.close(read_end)
    return lines


def split_everywhere(data: bytes) -> Iterator[list[bytes]]:
    """``data`` as two writes, split at every position."""
    for cut in range(len(data) + 1):
        yield [data[:cut], data[cut:]]


def drops(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "kgfegmcp.stdio" and "dropped a STDIO line" in r.getMessage()]


def test_lines_within_the_bound_pass_unchanged_wherever_the_reads_split_them(caplog: pytest.LogCaptureFixture) -> None:
    data = b'{"a": 1}\n' + b"x" * BOUND + b"\n\n" + "é".encode() * 8 + b"\n"
    expected = ['{"a": 1}\n', "x" * BOUND + "\n", "\n", "é" * 8 + "\n"]
    for writes in split_everywhere(data):
        assert lines_through_a_pipe(writes) == expected, writes
    assert drops(caplog) == []


def test_a_longer_line_is_dropped_whole_and_the_next_one_read(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kgfegmcp.stdio")
    data = b"first\n" + b"y" * (BOUND + 1) + b"\nnext\n"
    for writes in split_everywhere(data):
        assert lines_through_a_pipe(writes) == ["first\n", "next\n"], writes
    assert len(drops(caplog)) == len(data) + 1  # one report per stream, each stream dropped one line
    assert all(record.levelno == logging.INFO for record in drops(caplog))


def test_a_line_far_past_the_bound_is_dropped_as_it_arrives_and_reported_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="kgfegmcp.stdio")
    writes = [b"z" * 4096] * 256 + [b"\n", b"after\n", b"w" * 100 + b"\n", b"last\n"]  # 1 MiB, then 100 bytes
    assert lines_through_a_pipe(writes) == ["after\n", "last\n"]
    (report,) = drops(caplog)  # the second drop falls within the report interval
    assert "longer than 16 bytes (KGFEGMCP_HTTP_MAX_BODY_BYTES)" in report.getMessage()


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"short", ["short"]), (b"z" * (BOUND + 1), []), (b"", []), (b"exactly-16-bytes", ["exactly-16-bytes"])],
)
def test_a_last_line_without_a_newline_is_read_when_within_the_bound(data: bytes, expected: list[str]) -> None:
    """The SDK reads a last unterminated line too; one past the bound is dropped like any other."""
    assert lines_through_a_pipe([data]) == expected
