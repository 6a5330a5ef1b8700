"""Shipped overlays and a catalog that excludes one of their frameworks (failed or quarantined)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.config import load_settings
from kgfegmcp.errors import PromptConfigurationError
from package_factory import REPOSITORY_ROOT

CCSS = "us-ccss-ela-literacy-grades-2-4"


def test_overlay_of_an_excluded_framework_is_left_out(default_catalog_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "graph_packages"
    shutil.copytree(default_catalog_root, root)
    (manifest_path,) = root.glob(f"{CCSS}/*/package_manifest.json")
    manifest = json.loads(manifest_path.read_text())
    manifest["validation"]["status"] = "failed"
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    settings = {
        "graph_packages_dir": root,
        "profiles_dir": REPOSITORY_ROOT / "config" / "profiles",
        "prompts_dir": REPOSITORY_ROOT / "config" / "prompts",
    }
    state = build_app_state(load_settings(settings))
    assert CCSS not in state.catalog.framework_ids()
    assert [e.status for e in state.catalog.excluded] == ["failed"]

    shutil.rmtree(manifest_path.parent.parent)  # now the catalog never saw the framework at all
    with pytest.raises(PromptConfigurationError, match=CCSS):
        build_app_state(load_settings(settings))
