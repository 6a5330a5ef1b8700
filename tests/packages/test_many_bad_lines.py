"""Many bad lines in a delivery artifact: one finding per kind, with a count and the first line numbers.

A forger can re-seal a nodes artifact made of a gigabyte of newlines; each line used to be a finding of
its own, decoded one by one, which kept validate, doctor and start-up busy for hours. These tests hold
the number of findings to the number of kinds (they do not time anything: the work is bounded by
construction, and ``benchmarks/bad_lines.py`` measures it).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from corrupt import artifact_path, rewrite_bytes

from checkout import REPOSITORY_ROOT
from kgfegmcp.packages.decoder import CHUNK_BYTES, iter_physical_lines
from kgfegmcp.packages.delivery import LISTED_LINES, MAX_DECODED_BAD_LINES
from kgfegmcp.packages.validator import PackageValidator
from package_factory import TREE, FixtureWorld, base_graph


def test_runs_of_blank_lines_are_handed_on_whole_with_their_line_numbers() -> None:
    data = b'{"a":1}\n' + b"\n" * (CHUNK_BYTES + 5) + b'{"b":2}\n\n\n{"c":3}'
    runs: list[tuple[int, int]] = []
    lines = list(iter_physical_lines(io.BytesIO(data), on_blank=lambda first, count: runs.append((first, count))))
    assert lines == [(1, b'{"a":1}'), (CHUNK_BYTES + 7, b'{"b":2}'), (CHUNK_BYTES + 10, b'{"c":3}')]
    # A run that crosses a chunk boundary may come in pieces; together they are exactly the blank lines.
    assert runs[0][0] == 2 and sum(count for _first, count in runs[:-1]) == CHUNK_BYTES + 5
    assert runs[-1] == (CHUNK_BYTES + 8, 2)
    assert len(runs) <= 4
    # Without the callback every line is yielded, blank ones too, as before.
    assert len(list(iter_physical_lines(io.BytesIO(data)))) == CHUNK_BYTES + 10


def test_megabytes_of_newlines_are_one_finding(world: FixtureWorld) -> None:
    location = world.write(base_graph(TREE))
    rewrite_bytes(location, "nodes", lambda data: b"\n" * (3 * CHUNK_BYTES))
    outcome = PackageValidator(world.profiles()).validate(location)
    (finding,) = outcome.findings
    assert (finding.code, finding.artifact, finding.location) == ("invalid_json_line", "nodes", "line 1")
    assert finding.message.startswith(f"{3 * CHUNK_BYTES:,} lines of nodes (lines 1, 2, 3, 4, 5, …); the first:")
    assert "blank" in finding.message
    assert not outcome.omitted and not outcome.passed


def test_two_hundred_thousand_bad_lines_are_a_finding_per_kind(world: FixtureWorld) -> None:
    """Blank, not JSON, and a wrong property encoding: three kinds, three findings, each with its count."""
    location = world.write(base_graph(TREE))
    nodes = artifact_path(location, "nodes").read_bytes().splitlines()
    wrong_boolean = nodes[1].replace(b'"isCurrent":"true"', b'"isCurrent":"True"')
    assert wrong_boolean != nodes[1]
    body = b"\n".join([*nodes, *[b"", b"", b"not json", wrong_boolean] * 50_000, b""])
    rewrite_bytes(location, "nodes", lambda _data: body)
    outcome = PackageValidator(world.profiles()).validate(location)
    assert not outcome.omitted
    by_kind = {(f.code, f.message.split(":", 1)[0]): f for f in outcome.findings}
    assert len(outcome.findings) == 3, [f.message[:120] for f in outcome.findings]
    first_bad = len(nodes) + 1
    blank = next(f for f in outcome.findings if "blank" in f.message)
    assert blank.location == f"line {first_bad}"
    # Counted until decoding stopped: two blank lines for each two decoded bad ones.
    blank_lines = ", ".join(str(first_bad + offset) for offset in (0, 1, 4, 5, 8))
    assert blank.message.startswith(f"{MAX_DECODED_BAD_LINES:,} lines of nodes (lines {blank_lines}, …)")
    assert {code for code, _ in by_kind} == {"invalid_json_line", "invalid_encoding"}
    # Decoding stopped after MAX_DECODED_BAD_LINES decoded bad lines; every finding says so.
    assert all("decoding stopped after 1,000 bad lines" in f.message for f in outcome.findings)
    encoding = next(f for f in outcome.findings if f.code == "invalid_encoding")
    listed = ", ".join(str(first_bad + 3 + 4 * index) for index in range(LISTED_LINES))
    assert f"{MAX_DECODED_BAD_LINES // 2:,} lines of nodes (lines {listed}, …)" in encoding.message


def test_the_command_line_reports_them_in_a_bounded_report(world: FixtureWorld) -> None:
    location = world.write(base_graph(TREE))
    rewrite_bytes(location, "relationships", lambda data: data + b"\n" * 200_000 + b"x\n" * 600)
    run = subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", "packages", "validate", "--json", str(location.path)],
        capture_output=True,
        cwd=REPOSITORY_ROOT,
        env={**os.environ, "KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert report["omittedFindings"] == {}
    assert [(f["code"], f["artifact"]) for f in report["findings"]] == [("invalid_json_line", "relationships")] * 2
    messages = sorted(f["message"] for f in report["findings"])
    assert messages[0].startswith("200,000 lines of relationships (lines")
    assert messages[1].startswith("600 lines of relationships (lines")
    assert "decoding stopped" not in "".join(messages)  # fewer bad lines than the bound: each one decoded
    assert len(run.stdout) < 4000
