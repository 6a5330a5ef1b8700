"""docs/tools.md is generated from the registered surface and must match it."""

from __future__ import annotations

from checkout import REPOSITORY_ROOT
from kgfegmcp.mcp.reference import render_reference

DOC = REPOSITORY_ROOT / "docs" / "tools.md"


def test_tools_doc_matches_the_registered_surface() -> None:
    assert DOC.read_text(encoding="utf-8") == render_reference(), (
        "docs/tools.md is stale: run .venv/bin/python scripts/generate_tools_doc.py"
    )
