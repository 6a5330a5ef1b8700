"""Peak memory and time of `kgfegmcp packages build --source case` on hostile and on normal CFPackages.

Run: .venv/bin/python benchmarks/build_memory.py [--cases code120,statement30,cjk18,large,...]
         [--code after=src --code before=/tmp/before/src] [--large-items 100000]
         [--scratch /tmp/kgfegmcp-build-memory] [--timeout 1800] [--out benchmarks/results/build_memory.json]

Each case is a CFPackage generated into ``--scratch`` (once; later runs reuse it):

- ``code120``: one CFItem whose ``humanCodingScheme`` is 120 MB of ASCII (a ~130 KB gzip body under the
  fetch's 128 MiB cap inflates to it);
- ``statement30``: one ``fullStatement`` of 30 MB of ASCII words;
- ``cjk18``: one ``fullStatement`` of 18 MB of CJK text (6 million three-byte characters);
- ``cjk1``, ``cjk4``, ``cjk16``: one CJK ``fullStatement`` of 1, 4 and 16 MB (how time grows with one long
  string: the parser re-read a string cut across its reads from its start, so time grew with its square);
- ``cjkmany1``, ``cjkmany4``, ``cjkmany16``: 1, 4 and 16 MB of CJK text in statements of 30,000 characters
  each (under the member bound: every one is built), for time against size on text a package can hold;
- ``types6000``, ``types12000``, ``types24000``: that many CFItems, each of its own statement type, all
  with the same slug (``Widget``, ``Widget!``, ``Widget!!`` …): the derived profile's unique slugs;
- ``large``: a normal framework of ``--large-items`` CFItems (``benchmarks/case_fetch.py``'s generator,
  ``full`` records), the scale a build is made for;
- ``minimal``: 1,000,000 CFItems (the most a package is built from) of an identifier, a short statement and
  a type each, the most records an input byte can hold: what a build holds per item, at its item bound;
- ``dense``: the same with statements of about 420 characters (about 500 MB, under the build's 512 MiB
  input cap): the largest input at the item bound.

With ``--slug-counts 6000,12000,24000,48000`` it also times, in each code tree, the derived profile's unique
slugs alone (``sources/case/derived_profile._unique_slugs``) for that many types of one slug: the work the
build did for similar types, apart from what a profile can hold.

For each ``--code NAME=SRC`` (a source tree; several run side by side), a fresh process puts SRC first on
``sys.path``, imports the command line, notes its resident size (VmRSS), runs ``packages build --source
case`` on the case, and reports its peak (VmHWM), its time and its outcome (``built`` or the coded line it
ended with). ``peakOverInput`` is (peak - resident size after the imports) ÷ input bytes. A child that
outlives ``--timeout`` is stopped and reported as such. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent
DOC = "9a1c0000-0000-4000-8000-000000000001"
MB = 1_000_000
CJK = "中文字教育課程基準理解表現"  # three UTF-8 bytes each
MAX_ITEMS = 1_000_000  # the most CFItems a package is built from (sources/case/reader.py, MAX_CF_ITEMS)


def _item(number: int, **members: Any) -> dict[str, Any]:
    return {
        "identifier": f"9a1c0000-0000-4000-8000-{number:012d}",
        "fullStatement": f"Describe matter ({number}).",
        "CFItemType": "Standard",
        **members,
    }


def _document(title: str) -> dict[str, Any]:
    return {"identifier": DOC, "title": title, "version": "1", "lastChangeDateTime": "2025-01-15T08:00:00Z"}


def write_long_member(path: Path, member: str, size: int, text: str) -> None:
    """A CFPackage of two CFItems, the second with ``member`` of ``size`` bytes of ``text`` repeated."""
    marker = "@@LONG@@"
    head = {"CFDocument": _document("Long Member Benchmark"), "CFItems": [_item(20, humanCodingScheme="PS.1")]}
    second = json.dumps(_item(21, **{member: marker}), ensure_ascii=False)
    before, after = second.split(marker)
    unit = text.encode("utf-8")
    piece = unit * max(1, MB // len(unit))
    with path.open("wb") as out:
        out.write(json.dumps(head)[:-2].encode() + b", " + before.encode("utf-8"))
        left = size
        while left > 0:
            taken = piece[: min(left, len(piece)) // len(unit) * len(unit)] or unit
            out.write(taken)
            left -= len(taken)
        out.write(after.encode("utf-8") + b'], "CFAssociations": []}')


def write_many_statements(path: Path, size: int, chars: int = 30_000) -> None:
    """``size`` bytes of CJK text in statements of ``chars`` characters each."""
    statement = (CJK * (chars // len(CJK) + 1))[:chars]
    count = max(1, size // len(statement.encode("utf-8")))
    items = [_item(100 + n, fullStatement=statement[:-8] + f"{n:08d}") for n in range(count)]
    document = {"CFDocument": {**_document("Many Statements Benchmark"), "language": "ja"}, "CFItems": items}
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")


def similar_types(count: int) -> list[str]:
    """``count`` statement types that all have the slug ``widget``: ``Widget!``, ``Widget?`` … ``Widget!?`` …"""
    marks = "!?.,;:*+"

    def mark(number: int) -> str:
        found = ""
        while True:
            found += marks[number % len(marks)]
            number //= len(marks)
            if not number:
                return found

    return [f"Widget{mark(n)}" for n in range(count)]


def write_similar_types(path: Path, count: int) -> None:
    """``count`` CFItems, each of its own CFItemType, every type with the slug ``widget``."""
    items = [_item(1000 + n, CFItemType=kind) for n, kind in enumerate(similar_types(count))]
    path.write_text(json.dumps({"CFDocument": _document("Similar Types Benchmark"), "CFItems": items}), "utf-8")


def write_minimal(path: Path, items: int, statement_chars: int = 0) -> None:
    """``items`` CFItems of an identifier, a statement (short, or of about ``statement_chars``) and a type each."""
    words = "describe the properties of matter and energy in systems "
    text = (words * (statement_chars // len(words) + 1))[:statement_chars]
    with path.open("w", encoding="utf-8") as out:
        out.write('{"CFDocument": ' + json.dumps(_document("Minimal Records Benchmark")) + ', "CFItems": [')
        for n in range(items):
            out.write(("," if n else "") + json.dumps(_item(10_000_000 + n, fullStatement=f"{text}S{n}.")))
        out.write("]}")


def write_large(path: Path, items: int) -> None:
    sys.path.insert(0, str(HERE))
    from case_fetch import generate

    generate(path, items, "full")


def _long_cjk(path: Path, size: int) -> None:
    write_long_member(path, "fullStatement", size * MB, CJK)


def _many_cjk(path: Path, size: int) -> None:
    write_many_statements(path, size * MB)


def _types(path: Path, count: int) -> None:
    write_similar_types(path, count)


def cases(large_items: int) -> dict[str, Callable[[Path], None]]:
    found: dict[str, Callable[[Path], None]] = {
        "code120": lambda p: write_long_member(p, "humanCodingScheme", 120 * MB, "A"),
        "statement30": lambda p: write_long_member(p, "fullStatement", 30 * MB, "describe matter "),
        "cjk18": lambda p: write_long_member(p, "fullStatement", 18 * MB, CJK),
        "large": lambda p: write_large(p, large_items),
        "minimal": lambda p: write_minimal(p, MAX_ITEMS),
        "dense": lambda p: write_minimal(p, MAX_ITEMS, 420),
    }
    for size in (1, 4, 16):
        found[f"cjk{size}"] = partial(_long_cjk, size=size)
        found[f"cjkmany{size}"] = partial(_many_cjk, size=size)
    for count in (6000, 12000, 24000):
        found[f"types{count}"] = partial(_types, count=count)
    return found


# -- the child (its own process) ------------------------------------------------------------------


def status_kib(field: str) -> int:
    """A ``/proc/self/status`` field (VmRSS, VmHWM) in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def child_build(source: Path, out: Path, profiles: Path) -> dict[str, Any]:
    import importlib

    import kgfegmcp.cli as cli
    from kgfegmcp.core.errors import KgfegmcpError

    for module in ("kgfegmcp.packages.writer", "kgfegmcp.sources.case"):
        importlib.import_module(module)  # the command imports them itself: before the baseline, they are not counted
    baseline = status_kib("VmRSS")
    started = time.perf_counter()
    outcome = "built"
    try:
        arguments = ["packages", "build", "--source", "case", str(source), "--out", str(out)]
        cli.app([*arguments, "--profiles-dir", str(profiles)], standalone_mode=False)
    except KgfegmcpError as exc:
        outcome = exc.public_message[:400]
    return {
        "seconds": round(time.perf_counter() - started, 3),
        "baselineKiB": baseline,
        "peakKiB": status_kib("VmHWM"),
        "outcome": outcome,
    }


def child_slugs(count: int) -> dict[str, Any]:
    from kgfegmcp.sources.case.derived_profile import _unique_slugs

    values = similar_types(count)
    started = time.perf_counter()
    slugs = _unique_slugs(values, {}, "type")
    return {"seconds": round(time.perf_counter() - started, 3), "distinctSlugs": len(set(slugs.values()))}


def run_child(code: Path, timeout: float, *arguments: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", *arguments]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, check=False, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": round(time.perf_counter() - started, 3), "outcome": f"stopped after {timeout:g} s"}
    if done.returncode != 0:
        return {"seconds": round(time.perf_counter() - started, 3), "outcome": f"crashed: {done.stderr[-600:]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="code120,statement30,cjk18,large", help="comma-separated case names")
    parser.add_argument("--code", action="append", help="NAME=SRC: a source tree to measure (default after=src)")
    parser.add_argument("--large-items", type=int, default=100_000)
    parser.add_argument("--profiles", type=Path, default=REPOSITORY / "src" / "kgfegmcp" / "shipped" / "profiles")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/kgfegmcp-build-memory"))
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds one build may take")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "build_memory.json")
    parser.add_argument("--slug-counts", default="", help="comma-separated type counts to time unique slugs for")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--child-slugs", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        source, out, profiles = (Path(value) for value in args.child)
        print(json.dumps(child_build(source, out, profiles)))
        return
    if args.child_slugs:
        print(json.dumps(child_slugs(args.child_slugs)))
        return

    known = cases(args.large_items)
    chosen = [name.strip() for name in args.cases.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise SystemExit(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(known)}")
    codes = [entry.split("=", 1) for entry in (args.code or [f"after={REPOSITORY / 'src'}"])]
    args.scratch.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for case in chosen:
        path = args.scratch / (f"{case}-{args.large_items}.json" if case == "large" else f"{case}.json")
        if not path.exists():
            known[case](path)
        size = path.stat().st_size
        for name, code in codes:
            profiles = args.scratch / f"profiles-{name}"  # derived profiles are stored here, not in the shipped root
            shutil.rmtree(profiles, ignore_errors=True)
            shutil.copytree(args.profiles, profiles)
            out = args.scratch / f"packages-{name}"
            shutil.rmtree(out, ignore_errors=True)
            result = run_child(Path(code).resolve(), args.timeout, str(path), str(out), str(profiles))
            shutil.rmtree(out, ignore_errors=True)
            row = {"case": case, "code": name, "inputBytes": size, **result}
            if "peakKiB" in result:
                row["peakMiB"] = round(result["peakKiB"] / 1024, 1)
                row["peakOverInput"] = round((result["peakKiB"] - result["baselineKiB"]) * 1024 / size, 2)
            rows.append(row)
            print(
                f"{case} ({size / MB:.1f} MB) {name}: {row['seconds']:.1f} s, peak {row.get('peakMiB', '?')} MiB, "
                f"(peak - imports)/input {row.get('peakOverInput', '?')}; {row['outcome'][:160]}",
                flush=True,
            )
    slugs: list[dict[str, Any]] = []
    for count in [int(value) for value in args.slug_counts.split(",") if value.strip()]:
        for name, code in codes:
            env = {**os.environ, "PYTHONPATH": str(Path(code).resolve())}
            command = [sys.executable, str(Path(__file__).resolve()), "--child-slugs", str(count)]
            done = subprocess.run(command, check=True, capture_output=True, text=True, env=env, timeout=args.timeout)
            timed = {"types": count, "code": name, **json.loads(done.stdout.strip().splitlines()[-1])}
            slugs.append(timed)
            print(f"unique slugs of {count} similar types, {name}: {timed['seconds']:.2f} s", flush=True)
    summary: dict[str, Any] = {"machine": platform.platform(), "python": platform.python_version(), "rows": rows}
    if args.out.exists():  # what other runs measured is kept unless measured again
        earlier = json.loads(args.out.read_text(encoding="utf-8"))
        fresh = {(row["case"], row["code"]) for row in rows}
        summary["rows"] = [row for row in earlier.get("rows", []) if (row["case"], row["code"]) not in fresh] + rows
        timed_again = {(row["types"], row["code"]) for row in slugs}
        slugs = [row for row in earlier.get("slugs", []) if (row["types"], row["code"]) not in timed_again] + slugs
    summary["slugs"] = slugs
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
