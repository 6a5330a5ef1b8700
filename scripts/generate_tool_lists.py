"""Rewrite the tool lists read outside the server from the tool rows (never edit them by hand): manifest.json's
"tools" (the MCPB bundle) and apps/curriculum-map/src/drawn_tools.json (the tools the curriculum map draws; rebuild
the view afterwards with node apps/curriculum-map/build.mjs).

Run: .venv/bin/python scripts/generate_tool_lists.py [--check]
--check writes nothing and exits 1, naming the stale files, when a committed list differs from the rows.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgfegmcp.mcp.tool_lists import drawn_tools, manifest_with_tools

REPOSITORY = Path(__file__).resolve().parents[1]
MANIFEST = REPOSITORY / "manifest.json"
DRAWN_TOOLS = REPOSITORY / "apps" / "curriculum-map" / "src" / "drawn_tools.json"


def lists() -> dict[Path, str]:
    """Each file written from the rows, and its text."""
    return {MANIFEST: manifest_with_tools(MANIFEST.read_text(encoding="utf-8")), DRAWN_TOOLS: drawn_tools()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Fail if a committed list is stale.")
    arguments = parser.parse_args()
    stale = [path for path, text in lists().items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if arguments.check:
        for path in stale:
            print(f"{path.relative_to(REPOSITORY)} differs from the tool rows: run this script", file=sys.stderr)
        return 1 if stale else 0
    for path, text in lists().items():
        if path in stale:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPOSITORY)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
