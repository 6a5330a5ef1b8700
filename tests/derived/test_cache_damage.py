"""A damaged derived-index cache is a cache miss, whatever the damage: it never stops start-up.

The entry's files are replaced with arbitrary bytes, arbitrary JSON, and well-formed ledgers that
lie about their files; every shape must end in the entry being discarded (and rebuilt by the next
start), never in an exception escaping the cache.
"""

from __future__ import annotations

import json
import logging
import marshal
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.models import sha256_hex
from kgfegmcp.derived.cache import CONTENT, LEDGER, DerivedIndexCache
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import FixtureWorld, build_all, standard_world, state_for
from tool_calls import call, wire

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)
MARSHALABLE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | st.binary(max_size=20),
    lambda children: st.lists(children, max_size=6) | st.tuples(children, children) | st.tuples(*[children] * 6),
    max_leaves=30,
)
LEDGER_KEYS = ("format", "graphPackageId", "manifestSha256", "derivation", "files")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[FixtureWorld, Path]:
    """A sealed fixture world and a cache filled by one real start (copied per example)."""
    world = standard_world(tmp_path_factory.mktemp("damage") / "world")
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in build_all(world).values():
        assert lifecycle.validate(location).accepted
    cache = world.base / "pristine-cache"
    state_for(world, cache_dir=cache)
    assert len(list(cache.rglob(LEDGER))) == 3
    return world, cache


def fresh_copy(pristine: Path, target: Path) -> list[Path]:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(pristine, target)
    return sorted(p.parent for p in target.rglob(LEDGER))


def identity(entry: Path) -> tuple[str, str]:
    ledger = json.loads((entry / LEDGER).read_text(encoding="utf-8"))
    return ledger["graphPackageId"], ledger["manifestSha256"]


def assert_a_miss(cache_root: Path, entry: Path, package: tuple[str, str]) -> None:
    cache = DerivedIndexCache(cache_root)
    assert cache.content(*package) is None
    assert not entry.exists()  # discarded, so the next start stores it again


@pytest.mark.parametrize("ledger", [b"null", b"[]", b'"x"', b"42", b"{}", b"", b"\xff\xfe", b"[" * 100_000])
async def test_start_up_survives_every_shape_of_ledger(
    pristine: tuple[FixtureWorld, Path], tmp_path: Path, ledger: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    world, cache = pristine
    entries = fresh_copy(cache, tmp_path / "cache")
    for entry in entries:
        (entry / LEDGER).write_bytes(ledger)
    caplog.set_level(logging.WARNING, logger="kgfegmcp.derived.cache")
    state = state_for(world, cache_dir=tmp_path / "cache")
    assert sum("discarding the entry" in r.getMessage() for r in caplog.records) == 3
    assert len(list((tmp_path / "cache").rglob(LEDGER))) == 3  # rebuilt
    from fastmcp import Client

    from kgfegmcp.app import create_app

    async with Client(create_app(state)) as client:
        assert wire(await call(client, "list_frameworks", {}))


@pytest.mark.slow  # a property sweep
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_arbitrary_ledger_bytes_are_a_miss(pristine: tuple[FixtureWorld, Path], tmp_path: Path, data: bytes) -> None:
    _, cache = pristine
    entry = fresh_copy(cache, tmp_path / "cache")[0]
    package = identity(entry)
    (entry / LEDGER).write_bytes(data)
    assert_a_miss(tmp_path / "cache", entry, package)


@pytest.mark.slow  # a property sweep
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON, keep=st.sets(st.sampled_from(LEDGER_KEYS)))
def test_arbitrary_ledger_json_is_a_miss(
    pristine: tuple[FixtureWorld, Path], tmp_path: Path, value: Any, keep: set[str]
) -> None:
    """Any JSON value, and real ledgers with some fields replaced by arbitrary JSON."""
    _, cache = pristine
    entry = fresh_copy(cache, tmp_path / "cache")[0]
    package = identity(entry)
    original = json.loads((entry / LEDGER).read_text(encoding="utf-8"))
    for replaced in (value, {k: (original[k] if k in keep else value) for k in LEDGER_KEYS}):
        if replaced == original:
            continue
        (entry / LEDGER).write_text(json.dumps(replaced), encoding="utf-8")
        assert_a_miss(tmp_path / "cache", entry, package)
        entry = fresh_copy(cache, tmp_path / "cache")[0]


@pytest.mark.slow  # a property sweep
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.binary(max_size=400) | MARSHALABLE.map(marshal.dumps))
def test_records_that_match_their_ledger_but_do_not_decode_are_a_miss(
    pristine: tuple[FixtureWorld, Path], tmp_path: Path, payload: bytes
) -> None:
    """Even a ledger rewritten to vouch for arbitrary records only ever yields a miss."""
    _, cache = pristine
    entry = fresh_copy(cache, tmp_path / "cache")[0]
    package = identity(entry)
    (entry / CONTENT).write_bytes(payload)
    ledger = json.loads((entry / LEDGER).read_text(encoding="utf-8"))
    for listed in ledger["files"]:
        if listed["path"] == CONTENT:
            listed.update(bytes=len(payload), sha256=sha256_hex(payload))
    (entry / LEDGER).write_text(json.dumps(ledger), encoding="utf-8")
    assert_a_miss(tmp_path / "cache", entry, package)


def test_entry_paths_of_the_wrong_kind_are_a_miss(pristine: tuple[FixtureWorld, Path], tmp_path: Path) -> None:
    _, cache = pristine
    entry = fresh_copy(cache, tmp_path / "cache")[0]
    package = identity(entry)
    (entry / LEDGER).unlink()
    (entry / LEDGER).mkdir()
    assert_a_miss(tmp_path / "cache", entry, package)
    entry = fresh_copy(cache, tmp_path / "cache")[0]
    shutil.rmtree(entry)
    entry.write_bytes(b"not a directory")
    assert DerivedIndexCache(tmp_path / "cache").content(*package) is None
