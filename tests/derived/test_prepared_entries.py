"""Entries stored by the command that recorded the packages: the first start after it is warm, serves what a cold
start serves, and no entry is stored for bytes other than those judged and recorded."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_derived_cache import CACHE_LOG, answers, entries, stored

from kgfegmcp.catalog.prepared import store_derived_indexes
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.package_files import MANIFEST_FILENAME
from kgfegmcp.derived.cache import CONTENT, DerivedIndexCache
from kgfegmcp.packages.lifecycle import LifecycleOutcome, PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import DAG, LC, TREE, FixtureWorld, build_all, standard_world, state_for

SECRET = {"cursor_secret": "prepared-entries-test-cursor-secret-of-40"}


def _recorded(world: FixtureWorld) -> list[LifecycleOutcome]:
    """Each fixture package built pending, then validated and recorded, as ``catalog init`` does."""
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    outcomes = [lifecycle.validate(location) for location in build_all(world).values()]
    assert all(o.result == "passed" and o.recorded_manifest_sha256 is not None for o in outcomes)
    return outcomes


async def test_the_first_start_after_a_recording_is_warm_and_serves_what_a_cold_start_serves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    world = standard_world(tmp_path / "world")
    prepared, cold = tmp_path / "prepared", tmp_path / "cold"
    ids = store_derived_indexes(_recorded(world), world.profiles(), DerivedIndexCache(prepared))
    assert sorted(i.split("@")[0] for i in ids) == sorted([TREE, DAG, LC])
    assert len(entries(prepared)) == 3

    caplog.set_level(logging.INFO, logger=CACHE_LOG)
    warm_state = state_for(world, cache_dir=prepared, **SECRET)
    assert stored(caplog) == []  # every package came from the entry the recording's pass stored
    assert {p.runtime.gate for p in warm_state.catalog.packages} == {"cached_verdict"}
    cold_state = state_for(world, cache_dir=cold, **SECRET)
    assert len(stored(caplog)) == 3
    assert await answers(warm_state) == await answers(cold_state)
    # The records an entry holds are the same bytes whichever pass stored them (tantivy names its segments anew).
    assert [(e / CONTENT).read_bytes() for e in entries(prepared)] == [
        (e / CONTENT).read_bytes() for e in entries(cold)
    ]


def test_a_package_changed_after_its_recording_gets_no_entry(tmp_path: Path) -> None:
    world = standard_world(tmp_path / "world")
    outcomes = _recorded(world)
    changed = next(o for o in outcomes if o.outcome.graph_package_id.startswith(TREE + "@"))
    manifest = changed.outcome.location.path / MANIFEST_FILENAME
    manifest.write_bytes(manifest.read_bytes() + b"\n")  # the same manifest, other bytes than those recorded
    cache = tmp_path / "cache"
    ids = store_derived_indexes(outcomes, world.profiles(), DerivedIndexCache(cache))
    assert sorted(i.split("@")[0] for i in ids) == sorted([DAG, LC])
    assert sorted(e.parts[-3] for e in entries(cache)) == sorted([DAG, LC])
    confirmed = PackageValidator(world.profiles()).confirm_recording(
        changed.outcome, str(changed.recorded_manifest_sha256)
    )
    assert confirmed.passed and confirmed.gate == "cached_verdict"  # served, but judged cold by the next start


def test_only_a_pass_through_every_rule_can_be_confirmed(tmp_path: Path) -> None:
    world = standard_world(tmp_path / "world")
    outcomes = _recorded(world)
    validator = PackageValidator(world.profiles())
    recorded = outcomes[0]
    assert recorded.recorded_manifest_sha256 is not None
    again = validator.validate(recorded.outcome.location, verdict=recorded.outcome.content)
    assert again.gate == "cached_verdict"
    with pytest.raises(ValueError, match="every rule"):
        validator.confirm_recording(again, recorded.recorded_manifest_sha256)
    # A package that was already passed is checked read-only and records nothing: no entry comes of it.
    lifecycle = PackageLifecycle(validator, PackageWriter(), InvalidPackagePolicy.FAIL)
    reread = [lifecycle.validate(o.outcome.location) for o in outcomes]
    assert all(o.result == "passed" and o.recorded_manifest_sha256 is None for o in reread)
    assert store_derived_indexes(reread, world.profiles(), DerivedIndexCache(tmp_path / "cache")) == []
