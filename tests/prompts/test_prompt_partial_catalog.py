"""The shipped prompts root serves any subset of the catalog: overlays of frameworks that are not served
(absent from the package root, or excluded) are validated, then skipped with one log line each."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from default_catalog_ids import DEFAULT_FRAMEWORKS
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, load_settings
from kgfegmcp.core.errors import PromptConfigurationError

CCSS = "us-ccss-ela-literacy-grades-2-4"
COMPUTACAO = "brazil-bncc-computacao"
SHIPPED = SHIPPED_PROMPTS_DIR
PROMPTS_LOG = "kgfegmcp.prompts.repository"


def settings_for(root: Path, prompts: Path = SHIPPED) -> dict[str, Path]:
    return {"graph_packages_dir": root, "profiles_dir": SHIPPED_PROFILES_DIR, "prompts_dir": prompts}


def skipped_overlays(caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    """Framework id → its one skip line (a second line for the same framework fails the test)."""
    lines: dict[str, str] = {}
    for record in caplog.records:
        message = record.getMessage()
        if record.name == PROMPTS_LOG and message.startswith("skipped prompt overlay"):
            assert record.levelno == logging.WARNING
            framework_id = message.split(": framework ", 1)[1].split(" ", 1)[0]
            assert framework_id not in lines, f"two lines for {framework_id}"
            lines[framework_id] = message
    return lines


def test_only_computacao_starts_with_the_shipped_prompts(
    default_catalog_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "graph_packages"
    shutil.copytree(default_catalog_root / COMPUTACAO, root / COMPUTACAO)
    with caplog.at_level(logging.WARNING, logger=PROMPTS_LOG):
        state = build_app_state(load_settings(settings_for(root)))
    assert state.catalog.framework_ids() == (COMPUTACAO,)
    assert list(state.prompts.registry.overlays) == [COMPUTACAO]
    others = sorted(p.name for p in (SHIPPED / "overlays").iterdir() if p.name != COMPUTACAO)
    assert len(others) == len(DEFAULT_FRAMEWORKS) - 1  # every other default framework has its overlay
    lines = skipped_overlays(caplog)
    assert sorted(lines) == others
    for framework_id, line in lines.items():
        assert line.startswith(f"skipped prompt overlay {SHIPPED.resolve() / 'overlays' / framework_id}: ")
        assert "has no package under KGFEGMCP_GRAPH_PACKAGES_DIR" in line


def test_an_overlay_is_validated_even_when_its_framework_is_not_served(
    default_catalog_root: Path, tmp_path: Path
) -> None:
    root = tmp_path / "graph_packages"
    shutil.copytree(default_catalog_root / COMPUTACAO, root / COMPUTACAO)
    prompts = tmp_path / "prompts"
    shutil.copytree(SHIPPED, prompts)
    overlay = prompts / "overlays" / CCSS / "1.0.json"
    document = json.loads(overlay.read_text("utf-8"))
    document["warnings"] = "not a list"
    overlay.write_text(json.dumps(document), "utf-8")
    with pytest.raises(PromptConfigurationError, match=f"overlays/{CCSS}/1.0.json is malformed"):
        build_app_state(load_settings(settings_for(root, prompts)))


def test_overlays_of_excluded_and_absent_frameworks_are_skipped_alike(
    default_catalog_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "graph_packages"
    shutil.copytree(default_catalog_root, root)
    (manifest_path,) = root.glob(f"{CCSS}/*/package_manifest.json")
    manifest = json.loads(manifest_path.read_text())
    manifest["validation"]["status"] = "failed"
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    with caplog.at_level(logging.WARNING, logger=PROMPTS_LOG):
        state = build_app_state(load_settings(settings_for(root)))
    assert CCSS not in state.catalog.framework_ids()
    assert [e.status for e in state.catalog.excluded] == ["failed"]
    assert CCSS not in state.prompts.registry.overlays
    assert "is excluded from the catalog" in skipped_overlays(caplog)[CCSS]

    caplog.clear()
    shutil.rmtree(manifest_path.parent.parent)  # now the catalog never saw the framework at all
    with caplog.at_level(logging.WARNING, logger=PROMPTS_LOG):
        state = build_app_state(load_settings(settings_for(root)))
    assert CCSS not in state.prompts.registry.overlays
    assert list(skipped_overlays(caplog)) == [CCSS]
    assert "has no package under KGFEGMCP_GRAPH_PACKAGES_DIR" in skipped_overlays(caplog)[CCSS]
