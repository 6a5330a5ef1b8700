"""Build, validate and serve a directory of real CASE exports with no hand-written profile.

The share of real exports the CASE importer takes as they are (docs/case-providers.md, "Real exports tried"):
each file is built with ``kgfegmcp packages build --source case``, validated, and served, a
``search_standards`` for the longest word of its statements through the real application state. The exports
are third-party files and are not in this repository; pass the directory you collected them in.

    .venv/bin/python benchmarks/case_exports.py DIR [--kgfegmcp .venv/bin/kgfegmcp]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SERVE = """
import sys
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.services.requests import SearchStandardsRequest
state = build_app_state(load_settings({"graph_packages_dir": sys.argv[1], "cache_dir": None}))
request = SearchStandardsRequest.model_validate({"query": sys.argv[2]})
print(state.standards.search_standards(request).total)
"""


def longest_word(path: Path) -> str:
    """The longest word of the file's statements (a word the built package must be found by)."""
    try:
        items = json.loads(path.read_bytes()).get("CFItems") or []
    except (ValueError, AttributeError):
        return "standard"
    words = [
        w for item in items if isinstance(item, dict) for w in re.findall(r"\w{3,}", item.get("fullStatement") or "")
    ]
    return max(words, key=len, default="standard")


def try_export(path: Path, work: Path, command: str, env: dict[str, str]) -> tuple[str, str]:
    """(outcome, detail) of one export."""
    out = work / path.stem
    built = subprocess.run(
        [command, "packages", "build", "--source", "case", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if built.returncode:
        return "refused", (built.stderr.strip().splitlines() or [""])[-1]
    validated = subprocess.run(
        [command, "packages", "validate", str(out)], capture_output=True, text=True, env=env, check=False
    )
    if validated.returncode:
        return "validation failed", validated.stdout.strip().splitlines()[-1] if validated.stdout.strip() else ""
    word = longest_word(path)
    served = subprocess.run(
        [sys.executable, "-c", SERVE, str(out), word], capture_output=True, text=True, env=env, check=False
    )
    if served.returncode or served.stdout.strip() in ("", "0"):
        return "not found when served", f"search {word!r}: {served.stdout.strip() or served.stderr.strip()[-200:]}"
    return "passed", f"search {word!r}: {served.stdout.strip()} hits"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exports", type=Path, help="a directory of CASE JSON files")
    parser.add_argument("--kgfegmcp", default=str(Path(sys.executable).with_name("kgfegmcp")), help="the command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="case-exports-") as scratch:
        work = Path(scratch)
        # Derived profiles go to the scratch directory: the run leaves nothing behind.
        env = {**os.environ, "KGFEGMCP_DERIVED_PROFILES_DIR": str(work / "profiles"), "COLUMNS": "200"}
        outcomes = [
            (path.name, *try_export(path, work, args.kgfegmcp, env)) for path in sorted(args.exports.glob("*.json"))
        ]
    for name, outcome, detail in outcomes:
        print(f"{name} | {outcome} | {detail}")
    passed = sum(outcome == "passed" for _, outcome, _ in outcomes)
    print(f"{passed} of {len(outcomes)} built, validated and served with no hand-written profile")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
