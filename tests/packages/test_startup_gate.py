"""Start-up re-runs every rule of the gate unless a verdict the package directory cannot forge exists.

The seal in a manifest is an unkeyed SHA-256 of its own content: anyone who can write a package can
recompute it. A package whose bytes were changed and whose manifest was refreshed and resealed must
therefore still be refused by every start: without a cache, with a cold cache, and with a cache that
holds an entry for the package's earlier (genuine) bytes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from corrupt import edit_manifest, edit_records

from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.catalog import CatalogLoader
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import PackageManifest
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, seal_of
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.prompts.repository import copy_generic_configs
from package_factory import DAG, FixtureWorld, build_all, standard_world, state_for

COMPUTACAO = "brazil-bncc-computacao"
PROFILES_ROOT = SHIPPED_PROFILES_DIR
PROMPTS_ROOT = SHIPPED_PROMPTS_DIR


def reseal(location: PackageLocation) -> None:
    """What a forger does after editing a passed package: recompute the manifest's seal."""

    def seal(manifest: dict[str, Any]) -> None:
        manifest["validation"]["sealSha256"] = seal_of(PackageManifest.model_validate_json(json.dumps(manifest)))

    edit_manifest(location, seal)


def drop_one_has_child(location: PackageLocation) -> None:
    """Remove one hasChild record from the delivery relationships, refresh its checksum, reseal."""

    def drop(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        index = next(i for i, r in enumerate(records) if r.get("label") == "hasChild")
        return records[:index] + records[index + 1 :]

    edit_records(location, "relationships", drop)
    reseal(location)


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[FixtureWorld, dict[str, PackageLocation]]:
    world = standard_world(tmp_path / "world")
    built = build_all(world)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in built.values():
        assert lifecycle.validate(location).accepted
    return world, built


def load(world: FixtureWorld, cache: Path | None) -> None:
    cache_object = DerivedIndexCache(cache) if cache is not None else None
    CatalogLoader(world.packages, world.profiles(), InvalidPackagePolicy.FAIL, cache_object).load()


def test_the_forgery_keeps_the_seal_valid(sealed: tuple[FixtureWorld, dict[str, PackageLocation]]) -> None:
    """The premise: after the forgery, only the rules (not bytes, tree or seal) can tell."""
    world, built = sealed
    drop_one_has_child(built[DAG])
    outcome = PackageValidator(world.profiles()).validate(built[DAG])
    codes = {f.code for f in outcome.findings if f.severity == "error"}
    assert codes and "checksum_mismatch" not in codes and "validation_state_mismatch" not in codes


@pytest.mark.parametrize("cache", ["none", "cold", "warm"])
def test_start_up_refuses_a_resealed_tampered_package(
    sealed: tuple[FixtureWorld, dict[str, PackageLocation]], tmp_path: Path, cache: str
) -> None:
    world, built = sealed
    cache_root = None if cache == "none" else tmp_path / "cache"
    if cache == "warm":  # an entry for the genuine bytes exists before the forgery
        state_for(world, cache_dir=cache_root)
        assert list((tmp_path / "cache").rglob("ledger.json"))
    drop_one_has_child(built[DAG])
    with pytest.raises(CatalogError, match="no longer validates") as caught:
        load(world, cache_root)
    assert f"{DAG}@2026-01" in caught.value.public_message


def test_every_rule_runs_without_a_cache_entry_and_only_an_entry_spares_them(
    sealed: tuple[FixtureWorld, dict[str, PackageLocation]],
    tmp_path: Path,
    validator_gates: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world, _ = sealed
    gates = validator_gates
    load(world, None)
    assert gates == ["every_rule"] * 3
    gates.clear()
    state_for(world, cache_dir=tmp_path / "cache")  # cold: every rule, then entries are stored
    assert gates == ["every_rule"] * 3
    gates.clear()
    state_for(world, cache_dir=tmp_path / "cache")  # warm: the entries' verdicts, bytes still verified
    assert gates == ["cached_verdict"] * 3
    gates.clear()
    monkeypatch.setattr("kgfegmcp.catalog.loader.VALIDATOR_VERSION", "0.0.0-older")
    load(world, tmp_path / "cache")  # sealed by another validator version: never trusted
    assert gates == ["every_rule"] * 3


def test_the_default_catalog_refuses_the_audited_forgery(default_catalog_root: Path, tmp_path: Path) -> None:
    """The audit's reproduction on a real package: drop one hasChild line of Computação, reseal."""
    root = tmp_path / "graph_packages"
    source = next((default_catalog_root / COMPUTACAO).iterdir())
    shutil.copytree(source, root / COMPUTACAO / source.name)
    location = PackageLocation(COMPUTACAO, source.name, root / COMPUTACAO / source.name)
    prompts = tmp_path / "prompts"
    copy_generic_configs(PROMPTS_ROOT, prompts)
    settings = {"graph_packages_dir": root, "profiles_dir": PROFILES_ROOT, "prompts_dir": prompts}
    build_app_state(load_settings({**settings, "cache_dir": tmp_path / "cache"}))  # genuine bytes: a warm entry
    drop_one_has_child(location)
    manifest = json.loads((location.path / "package_manifest.json").read_text(encoding="utf-8"))
    assert manifest["validation"]["status"] == "passed"
    for cache in (None, tmp_path / "cache", tmp_path / "cold-cache"):
        with pytest.raises(CatalogError, match="no longer validates"):
            build_app_state(load_settings({**settings, "cache_dir": cache}))
