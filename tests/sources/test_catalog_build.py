"""The default catalog as a whole: validation, rebuild determinism, statistics and the generated doc."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from package_view import open_package, tree_digest

from checkout import REPOSITORY_ROOT
from default_catalog_ids import DEFAULT_PACKAGES
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.stats import package_statistics, render_markdown
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.default_catalog import write_default_catalog

pytestmark = pytest.mark.slow


def test_every_default_package_passes_the_validator(default_catalog_root: Path, profiles_root: Path) -> None:
    discovery = discover_packages(default_catalog_root)
    assert not discovery.root_findings
    assert [p.graph_package_id for p in discovery.packages] == list(DEFAULT_PACKAGES)
    validator = PackageValidator(ProfileRepository(profiles_root))
    for location in discovery.packages:
        outcome = validator.validate(location)
        assert outcome.passed, (location.graph_package_id, outcome.findings)
        manifest = json.loads((location.path / MANIFEST_FILENAME).read_text(encoding="utf-8"))
        assert manifest["validation"]["status"] == "passed"


def test_rebuilding_yields_identical_bytes(default_catalog_root: Path, profiles_root: Path, tmp_path: Path) -> None:
    """Written twice into one root, then validated there as ``build_default_catalog`` validates what it writes:
    the same pending bytes both times, then the bytes of the run's default catalog, built in another process."""
    profiles = ProfileRepository(profiles_root)
    root = tmp_path / "catalog"
    write_default_catalog(root, profiles)
    pending = tree_digest(root)
    locations = write_default_catalog(root, profiles)  # the same root again: replaces every package
    assert tree_digest(root) == pending
    lifecycle = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert all(lifecycle.validate(location).accepted for location in locations)
    assert tree_digest(root) == tree_digest(default_catalog_root)
    assert not any(name.startswith(".") for name in tree_digest(root))


def test_stats_agree_with_the_manifests(default_catalog_root: Path, profiles_root: Path) -> None:
    profiles = ProfileRepository(profiles_root)
    for location in discover_packages(default_catalog_root).packages:
        stats = package_statistics(location, profiles)
        manifest = json.loads((location.path / MANIFEST_FILENAME).read_text(encoding="utf-8"))
        counts = manifest["counts"]
        assert stats.items == counts["standards"]["items"]
        assert {t.statement_type: t.items for t in stats.types} == counts["standards"]["itemsByStatementType"]
        assert stats.components == counts["learningComponents"]["components"]
        assert stats.links == counts["relationships"]
        assert stats.unresolved == counts["unresolvedItems"]
        # Every standard with a grade is counted under each of its grades (MEXT's provisions without a grade
        # digit, and the whole upper-secondary table, have none).
        view = open_package(default_catalog_root, location.framework_id)
        standard_types = {t.statement_type for t in stats.types if t.role == "standard"}
        graded = sum(1 for item in view.items if item.statement_type in standard_types and item.grade_level)
        assert sum(g.standards for g in stats.grades) >= graded


def test_frameworks_doc_is_generated_from_the_default_catalog(default_catalog_root: Path, profiles_root: Path) -> None:
    profiles = ProfileRepository(profiles_root)
    stats = [package_statistics(p, profiles) for p in discover_packages(default_catalog_root).packages]
    doc = REPOSITORY_ROOT / "docs" / "frameworks.md"
    assert doc.read_text(encoding="utf-8") == render_markdown(stats), (
        "docs/frameworks.md is stale: run scripts/generate_frameworks_doc.py after scripts/setup.sh"
    )


def _cli(*args: str, profiles_root: Path) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("kgfegmcp", path=str(Path(sys.executable).parent))
    assert executable, "the console script is installed with the project"
    env = {**os.environ, "KGFEGMCP_PROFILES_DIR": str(profiles_root)}
    return subprocess.run([executable, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_stats_command_prints_tables_and_the_markdown(default_catalog_root: Path, profiles_root: Path) -> None:
    table = _cli("packages", "stats", str(default_catalog_root), profiles_root=profiles_root)
    assert table.returncode == 0, table.stderr
    for package in DEFAULT_PACKAGES:
        assert package in table.stdout
    assert "Objeto de conhecimento" in table.stdout and "buildsTowards" in table.stdout
    markdown = _cli("packages", "stats", str(default_catalog_root), "--markdown", profiles_root=profiles_root)
    assert markdown.returncode == 0, markdown.stderr
    profiles = ProfileRepository(profiles_root)
    stats = [package_statistics(p, profiles) for p in discover_packages(default_catalog_root).packages]
    assert markdown.stdout == render_markdown(stats)
    empty = _cli("packages", "stats", str(default_catalog_root / "nothing-here"), profiles_root=profiles_root)
    assert empty.returncode != 0
