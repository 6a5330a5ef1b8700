"""Regenerate docs/tools.md from the registered MCP surface (never edit that page by hand).

Run: .venv/bin/python scripts/generate_tools_doc.py [--check]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kgfegmcp.mcp.reference import render_reference

DOC = Path(__file__).resolve().parents[1] / "docs" / "tools.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Fail if docs/tools.md is stale.")
    args = parser.parse_args()
    page = render_reference()
    if args.check:
        return 0 if DOC.read_text(encoding="utf-8") == page else 1
    DOC.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
