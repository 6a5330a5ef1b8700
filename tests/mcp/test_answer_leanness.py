"""A 10-hit search costs little beyond the statements it returns, in either view.

Beyond the statement texts (UTF-8) and the attribution texts of the packages it cites, a
10-hit ``search_standards`` answer may spend at most 150 bytes per statement plus 600 per answer in
its text view (the text blocks), and at most 250 bytes per statement plus 1,200 per answer in its
structured view (``structuredContent`` as compact JSON, ``ensure_ascii=False``). Byte counts of one
deterministic answer: no timing involved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from host_views import PackageFacts, compact_json, overhead, package_facts

SEARCHES = {
    "frações in Ensino Fundamental": {"query": "frações", "frameworkIds": ["brazil-bncc-ensino-fundamental"]},
    "main idea in CCSS ELA": {"query": "main idea", "frameworkIds": ["us-ccss-ela-literacy-grades-2-4"]},
}
HITS = 10
TEXT_PER_STATEMENT, TEXT_PER_ANSWER = 150, 600
STRUCTURED_PER_STATEMENT, STRUCTURED_PER_ANSWER = 250, 1_200


@pytest.fixture(scope="module")
def facts(default_catalog_root: Path) -> dict[str, PackageFacts]:
    return package_facts(default_catalog_root)


@pytest.mark.parametrize("name", SEARCHES)
async def test_a_ten_hit_search_is_lean_in_both_views(
    default_client: Client[Any], facts: dict[str, PackageFacts], name: str
) -> None:
    result = await default_client.call_tool_mcp("search_standards", {"request": {**SEARCHES[name], "limit": HITS}})
    structured = result.structured_content
    assert isinstance(structured, dict)
    text = "".join(block.text for block in result.content if block.type == "text")
    in_text = overhead(text, structured, facts)
    in_json = overhead(compact_json(structured), structured, facts)
    assert in_text.statements == HITS, f"{name}: {in_text.statements} statements, expected {HITS}"
    # A view that drops or clips statements is not lean, only incomplete: measure complete views only.
    for view, measured in (("text", in_text), ("structured", in_json)):
        assert measured.statement_bytes == in_json.statement_bytes_total, (
            f"{name}: the {view} view holds {measured.statement_bytes:,} of the "
            f"{in_json.statement_bytes_total:,} bytes of statement text verbatim ({measured.view_bytes:,} B in all)"
        )
    text_bound = TEXT_PER_STATEMENT * HITS + TEXT_PER_ANSWER
    structured_bound = STRUCTURED_PER_STATEMENT * HITS + STRUCTURED_PER_ANSWER
    assert in_text.overhead <= text_bound and in_json.overhead <= structured_bound, (
        f"{name}: beyond statements and attributions, the text view spends {in_text.overhead:,} B "
        f"(bound {text_bound:,}; view {in_text.view_bytes:,} B, statements {in_text.statement_bytes:,}, "
        f"attributions {in_text.rights_bytes:,}) and the structured view {in_json.overhead:,} B "
        f"(bound {structured_bound:,}; view {in_json.view_bytes:,} B, statements {in_json.statement_bytes:,}, "
        f"attributions {in_json.rights_bytes:,})"
    )
