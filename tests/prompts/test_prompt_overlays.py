"""An overlay's text appears only in renderings for its own framework."""

from __future__ import annotations

import json
from typing import Any

from fastmcp import Client
from prompt_cases import DEFAULT_FRAMEWORKS, PROMPTS, minimal_arguments

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR
from kgfegmcp.prompts.model import OverlayConfig

OVERLAYS = SHIPPED_PROMPTS_DIR / "overlays"


def overlay_texts(framework_id: str) -> list[str]:
    """Every piece of text the overlay contributes (terms, context, warnings, output guidance)."""
    overlay = OverlayConfig.model_validate_json((OVERLAYS / framework_id / "1.0.json").read_text("utf-8"))
    texts = [*overlay.context, *overlay.warnings, *overlay.output_guidance]
    texts += [t.meaning for t in overlay.terminology]
    return texts


def workflow_texts(framework_id: str, workflow: str) -> list[str]:
    overlay = OverlayConfig.model_validate_json((OVERLAYS / framework_id / "1.0.json").read_text("utf-8"))
    part = overlay.workflows.get(workflow)  # type: ignore[call-overload]
    return [*part.context, *part.warnings, *part.output_guidance] if part else []


def test_every_default_framework_has_an_overlay() -> None:
    assert sorted(p.name for p in OVERLAYS.iterdir()) == sorted(DEFAULT_FRAMEWORKS)


async def test_overlay_text_only_for_its_framework(default_client: Client[Any], default_state: AppState) -> None:
    rendered: dict[tuple[str, str], str] = {}
    for workflow in PROMPTS:
        if workflow == "cross_framework_comparison":
            continue
        for framework_id in DEFAULT_FRAMEWORKS:
            result = await default_client.get_prompt(workflow, minimal_arguments(default_state, workflow, framework_id))
            rendered[(workflow, framework_id)] = result.messages[0].content.text
    for owner in DEFAULT_FRAMEWORKS:
        general = overlay_texts(owner)
        assert general
        for (workflow, framework_id), text in rendered.items():
            own = framework_id == owner
            header = f"## Framework guidance for `{owner}`"
            assert (header in text) is own
            for piece in general:
                assert (piece in text) is own, (owner, workflow, framework_id, piece[:60])
            for piece in workflow_texts(owner, workflow):
                assert (piece in text) is own, (owner, workflow, framework_id, piece[:60])
    # Workflow-specific overlay parts appear only in that workflow.
    ei_practice = workflow_texts("brazil-bncc-educacao-infantil", "practice_item_set")
    assert ei_practice
    for piece in ei_practice:
        assert piece in rendered[("practice_item_set", "brazil-bncc-educacao-infantil")]
        assert piece not in rendered[("teacher_guide_draft", "brazil-bncc-educacao-infantil")]


async def test_comparison_carries_the_overlays_of_the_selected_frameworks_only(default_client: Client[Any]) -> None:
    selected = ["brazil-bncc-ensino-fundamental", "us-ccss-ela-literacy-grades-2-4"]
    result = await default_client.get_prompt(
        "cross_framework_comparison", {"framework_ids": json.dumps(selected), "topic": "main idea"}
    )
    text = result.messages[0].content.text
    for framework_id in DEFAULT_FRAMEWORKS:
        inside = framework_id in selected
        assert all((piece in text) is inside for piece in overlay_texts(framework_id)), framework_id
    # In the order requested, each with its own package facts.
    assert text.index("overlay brazil-bncc-ensino-fundamental") < text.index("overlay us-ccss-ela-literacy-grades-2-4")


async def test_framework_specific_disclosures_are_data(default_client: Client[Any]) -> None:
    """The Mapa de Foco disclosure and the CCSS anchor-standard note come from overlays, per framework."""
    ef = await default_client.get_prompt(
        "learning_progression_support_plan",
        {"framework_id": "brazil-bncc-ensino-fundamental", "standard": "EF05MA03"},
    )
    ccss = await default_client.get_prompt(
        "practice_item_set", {"framework_id": "us-ccss-ela-literacy-grades-2-4", "topic": "main idea"}
    )
    ef_text, ccss_text = ef.messages[0].content.text, ccss.messages[0].content.text
    assert "Mapa de Foco disclosure:" in ef_text and "Mapa de Foco disclosure:" not in ccss_text
    assert "CCSS anchor-standard note:" in ccss_text and "CCSS anchor-standard note:" not in ef_text
    assert "**habilidade**" in ef_text and "**campo de experiência**" not in ef_text
