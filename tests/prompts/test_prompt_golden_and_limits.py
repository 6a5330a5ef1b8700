"""Golden files pin the exact bytes of two renderings; oversized renderings fail whole, never clipped.

Regenerate the golden files after an intended configuration change with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/prompts -k golden`` and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR
from kgfegmcp.prompts.repository import PromptConfigRepository
from kgfegmcp.services.prompts import PromptService
from mcp import MCPError

GOLDEN = Path(__file__).parent / "golden"
SHIPPED = SHIPPED_PROMPTS_DIR
EF = "brazil-bncc-ensino-fundamental"

CASES: dict[str, tuple[str, dict[str, str]]] = {
    "learning_progression_teaching_sequence__brazil-bncc-ensino-fundamental.txt": (
        "learning_progression_teaching_sequence",
        {
            "framework_id": EF,
            "standard": "EF05MA03",
            "target_standard": "EF06MA07",
            "grade_levels": '["5º ano", "6º ano"]',
            "lesson_duration_minutes": "50",
            "available_materials": "Material dourado, régua, papel quadriculado.",
            "local_context": "Escola municipal rural; turmas de 5º e 6º ano com 18 estudantes.",
        },
    ),
    "practice_item_set__brazil-bncc-ensino-fundamental.txt": (
        "practice_item_set",
        {
            "framework_id": EF,
            "topic": "frações equivalentes",
            "grade_level": "5º ano",
            "practice_count": "4",
            "learner_context": "Estudantes que já comparam frações com o mesmo denominador.",
        },
    ),
}


@pytest.mark.parametrize("filename", sorted(CASES))
async def test_golden_renderings(default_client: Client[Any], filename: str) -> None:
    workflow, arguments = CASES[filename]
    result = await default_client.get_prompt(workflow, arguments)
    rendered = result.messages[0].content.text.encode("utf-8")
    path = GOLDEN / filename
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_bytes(rendered)
    assert rendered == path.read_bytes()
    # The tool serves the same bytes for the same arguments.
    request: dict[str, Any] = {"workflow": workflow}
    for name, raw in arguments.items():
        alias = name.split("_")[0] + "".join(part.capitalize() for part in name.split("_")[1:])
        request[alias] = int(raw) if raw.isdigit() else json.loads(raw) if raw.startswith("[") else raw
    tool = await default_client.call_tool("get_workflow_instructions", {"request": request})
    assert tool.structured_content is not None
    assert tool.structured_content["instructions"].encode("utf-8") == path.read_bytes()


def _bloated_state(base: AppState, tmp_path: Path, extra_chars: int) -> AppState:
    """The default catalog with a practice_item_set configuration carrying ``extra_chars`` more purpose text."""
    root = tmp_path / "prompts"
    shutil.copytree(SHIPPED, root)
    path = root / "workflows" / "practice_item_set" / "1.0.json"
    document = json.loads(path.read_text("utf-8"))
    paragraph = "Plain filler sentence for the size limit test. " * 80  # 3,840 characters
    count = extra_chars // len(paragraph) + 1
    document["purpose"] = [*document["purpose"], *[paragraph.strip()] * count]
    path.write_text(json.dumps(document, ensure_ascii=False), "utf-8")
    registry = PromptConfigRepository(root).load(base.catalog.framework_ids())
    return replace(base, prompts=PromptService(base.catalog, registry))


async def test_rendering_above_64_kib_fails_whole(default_state: AppState, tmp_path: Path) -> None:
    state = _bloated_state(default_state, tmp_path, 70_000)
    arguments = {"framework_id": EF, "topic": "frações"}
    async with Client(create_app(state)) as client:
        with pytest.raises(MCPError) as info:
            await client.get_prompt("practice_item_set", arguments)
        assert str(info.value).startswith("prompt_rendering_error: The rendered instructions would be ")
        assert "65536-byte limit" in str(info.value)
        with pytest.raises(ToolError, match=r"^workflow_instructions_too_large: The rendered instructions"):
            await client.call_tool(
                "get_workflow_instructions",
                {"request": {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}},
            )


async def test_tool_result_ceiling_is_checked_after_the_64_kib_limit(default_state: AppState, tmp_path: Path) -> None:
    """Instructions under 64 KiB whose tool result (text plus structured copy) exceeds 100,000 characters."""
    state = _bloated_state(default_state, tmp_path, 36_000)
    async with Client(create_app(state)) as client:
        prompt = await client.get_prompt("practice_item_set", {"framework_id": EF, "topic": "frações"})
        text = prompt.messages[0].content.text
        assert 50_000 < len(text.encode("utf-8")) <= 64 * 1024
        with pytest.raises(ToolError, match=r"^workflow_instructions_too_large: The complete result would be "):
            await client.call_tool(
                "get_workflow_instructions",
                {"request": {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}},
            )
