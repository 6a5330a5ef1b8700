"""A malformed prompt configuration stops start-up with ``prompt_configuration_error``; a valid overlay
for a framework outside the accepted catalog is skipped with one log line."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR, BackendSettings
from kgfegmcp.core.errors import PromptConfigurationError
from kgfegmcp.prompts.repository import PromptConfigRepository, copy_generic_configs

SHIPPED = SHIPPED_PROMPTS_DIR


@pytest.fixture
def prompts_copy(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(SHIPPED, target)
    return target


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    document = json.loads(path.read_text("utf-8"))
    change(document)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2), "utf-8")


def test_the_shipped_configuration_loads(default_state: AppState) -> None:
    registry = PromptConfigRepository(SHIPPED).load(default_state.catalog.framework_ids())
    assert list(registry.workflows) == [
        "teacher_guide_draft",
        "student_handbook_section",
        "multigrade_lesson_plan",
        "practice_item_set",
        "learning_progression_teaching_sequence",
        "learning_progression_support_plan",
        "learning_progression_curriculum_review",
        "administrator_alignment_review",
        "cross_framework_comparison",
    ]
    assert sorted(registry.overlays) == sorted(default_state.catalog.framework_ids())


def _step_text(doc: dict[str, Any], text: str) -> None:
    doc["steps"][0]["text"] = text


def _unknown_overlay(root: Path, damage: Callable[[dict[str, Any]], None] | None = None) -> None:
    """An overlay for a framework the catalog does not serve: valid in itself unless ``damage`` is given."""
    shutil.copytree(root / "overlays/brazil-bncc-ensino-medio", root / "overlays/zz-unknown-framework")
    _edit(root / "overlays/zz-unknown-framework/1.0.json", lambda d: d.update(frameworkId="zz-unknown-framework"))
    if damage is not None:
        _edit(root / "overlays/zz-unknown-framework/1.0.json", damage)


WORKFLOW = "workflows/practice_item_set/1.0.json"
OVERLAY = "overlays/brazil-bncc-ensino-medio/1.0.json"

CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "not json": lambda root: (root / WORKFLOW).write_text("{ not json", "utf-8"),
    "not utf-8": lambda root: (root / WORKFLOW).write_bytes(b'{"schemaVersion": "\xff"}'),
    "unknown field": lambda root: _edit(root / WORKFLOW, lambda d: d.update(colour="red")),
    "missing field": lambda root: _edit(root / WORKFLOW, lambda d: d.pop("steps")),
    "wrong type": lambda root: _edit(root / WORKFLOW, lambda d: d.update(usesProgressions="yes")),
    "unknown tool": lambda root: _edit(root / WORKFLOW, lambda d: d["steps"][0]["calls"][0].update(tool="drop_db")),
    "unknown placeholder": lambda root: _edit(root / WORKFLOW, lambda d: _step_text(d, "About {{nothing}}.")),
    "unguarded optional placeholder": lambda root: _edit(root / WORKFLOW, lambda d: _step_text(d, "{{grade_level}}")),
    "context argument interpolated": lambda root: _edit(
        root / WORKFLOW, lambda d: _step_text(d, "{{learner_context}}")
    ),
    "malformed placeholder": lambda root: _edit(root / WORKFLOW, lambda d: _step_text(d, "{{ topic }}")),
    "placeholder inside request text": lambda root: _edit(
        root / WORKFLOW, lambda d: d["steps"][0]["calls"][0]["request"].update(frameworkId="id {{framework_id}}")
    ),
    "snake_case request field": lambda root: _edit(
        root / WORKFLOW, lambda d: d["steps"][0]["calls"][0]["request"].update(framework_id="x")
    ),
    "selector of a non-standard argument": lambda root: _edit(
        root / WORKFLOW, lambda d: d["steps"][0]["calls"][0]["request"].update({"$selector": "topic"})
    ),
    "forEach over a scalar": lambda root: _edit(
        root / WORKFLOW, lambda d: d["steps"][0]["calls"][0].update(forEach="topic")
    ),
    "condition on an unknown argument": lambda root: _edit(
        root / WORKFLOW, lambda d: d["steps"][0].update(when=["colour"])
    ),
    "unknown capability": lambda root: _edit(
        root / WORKFLOW, lambda d: d["steps"][0].update(capabilities={"teleportation": True})
    ),
    "workflow in the wrong folder": lambda root: _edit(
        root / WORKFLOW, lambda d: d.update(workflow="teacher_guide_draft")
    ),
    "version differs from file name": lambda root: _edit(root / WORKFLOW, lambda d: d.update(version="1.1")),
    "bad version file name": lambda root: (root / WORKFLOW).rename(root / "workflows/practice_item_set/latest.json"),
    "missing workflow": lambda root: shutil.rmtree(root / "workflows/practice_item_set"),
    "unknown workflow folder": lambda root: shutil.copytree(
        root / "workflows/practice_item_set", root / "workflows/quiz"
    ),
    "missing common": lambda root: shutil.rmtree(root / "common"),
    "stray file": lambda root: (root / "workflows" / "notes.txt").write_text("x", "utf-8"),
    "stray top-level entry": lambda root: (root / "extra").mkdir(),
    "malformed overlay": lambda root: _edit(root / OVERLAY, lambda d: d.update(warnings="not a list")),
    "overlay with a placeholder": lambda root: _edit(root / OVERLAY, lambda d: d["warnings"].append("See {{topic}}.")),
    "overlay framework id differs from folder": lambda root: _edit(
        root / OVERLAY, lambda d: d.update(frameworkId="brazil-bncc-computacao")
    ),
    "malformed overlay for an unknown framework": lambda root: _unknown_overlay(
        root, lambda d: d.update(warnings="not a list")
    ),
    "overlay for an unknown framework with a placeholder": lambda root: _unknown_overlay(
        root, lambda d: d["warnings"].append("See {{topic}}.")
    ),
    "overlay workflow name unknown": lambda root: _edit(root / OVERLAY, lambda d: d.update(workflows={"quiz": {}})),
    "malformed old version": lambda root: (root / "workflows/practice_item_set/0.9.json").write_text("{}", "utf-8"),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_bad_configuration_is_refused(name: str, prompts_copy: Path, default_state: AppState) -> None:
    CORRUPTIONS[name](prompts_copy)
    with pytest.raises(PromptConfigurationError) as info:
        PromptConfigRepository(prompts_copy).load(default_state.catalog.framework_ids())
    message = info.value.public_message
    assert message.startswith("prompt_configuration_error: ")
    assert str(prompts_copy) not in message  # names the file inside the prompts root, never a local path


def test_a_newer_version_wins_and_is_named_in_the_rendering(prompts_copy: Path, default_state: AppState) -> None:
    newer = prompts_copy / "workflows/practice_item_set/1.10.json"
    shutil.copy(prompts_copy / WORKFLOW, newer)
    _edit(newer, lambda d: d.update(version="1.10", title="Practice item set, revised"))
    registry = PromptConfigRepository(prompts_copy).load(default_state.catalog.framework_ids())
    assert registry.workflows["practice_item_set"].version == "1.10"
    assert registry.workflows["practice_item_set"].title == "Practice item set, revised"


def test_a_valid_overlay_naming_an_unknown_framework_is_skipped(
    prompts_copy: Path, default_settings: BackendSettings, caplog: pytest.LogCaptureFixture
) -> None:
    _unknown_overlay(prompts_copy)
    with caplog.at_level(logging.WARNING, logger="kgfegmcp.prompts.repository"):
        state = build_app_state(default_settings.model_copy(update={"prompts_dir": prompts_copy}))
    assert "zz-unknown-framework" not in state.prompts.registry.overlays
    assert sorted(state.prompts.registry.overlays) == sorted(state.catalog.framework_ids())
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert [line for line in lines if "skipped prompt overlay" in line] == [
        f"skipped prompt overlay {(prompts_copy / 'overlays/zz-unknown-framework').resolve()}: framework "
        "zz-unknown-framework has no package under KGFEGMCP_GRAPH_PACKAGES_DIR (the overlay is valid; it applies "
        "once served)"
    ]


def test_start_up_stops_for_a_malformed_file_or_a_missing_root(
    prompts_copy: Path, default_settings: BackendSettings, tmp_path: Path
) -> None:
    (prompts_copy / WORKFLOW).write_text("[]", "utf-8")
    with pytest.raises(PromptConfigurationError, match="malformed"):
        build_app_state(default_settings.model_copy(update={"prompts_dir": prompts_copy}))
    with pytest.raises(PromptConfigurationError, match="does not exist"):
        build_app_state(default_settings.model_copy(update={"prompts_dir": tmp_path / "nowhere"}))


def test_generic_copy_has_no_overlays(tmp_path: Path, default_state: AppState) -> None:
    root = copy_generic_configs(SHIPPED, tmp_path / "generic")
    assert sorted(p.name for p in root.iterdir()) == ["common", "workflows"]
    registry = PromptConfigRepository(root).load(default_state.catalog.framework_ids())
    assert registry.overlays == {}
