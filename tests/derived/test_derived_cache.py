"""The derived-index cache: warm starts serve exactly what cold starts serve, and never trust bytes it has not verified."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from checkout import REPOSITORY_ROOT
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import USER_CACHE_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.errors import CatalogError, ConfigurationError
from kgfegmcp.derived.cache import CONTENT, LEDGER, DerivedIndexCache, cacheable
from kgfegmcp.derived.content_codec import decode_content, encode_content
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import DecodedPackage
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.package_indexes import PackageTextIndexes
from kgfegmcp.search.text_index import TextIndex
from package_factory import DAG, LC, TREE, FixtureWorld, build_all, standard_world, state_for
from tool_calls import call, wire

CACHE_LOG = "kgfegmcp.derived.cache"

REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("search_standards", {"query": "fractions", "limit": 5}),
    ("search_standards", {"query": "NF", "searchMode": "code", "codeMatch": "prefix"}),
    ("search_standards", {"query": "numbers", "gradeLevels": ["3"], "limit": 3}),
    ("get_standard_context", {"frameworkId": DAG, "statementCode": "NF.2"}),
    ("search_learning_components", {"query": "fractions"}),
    ("list_frameworks", {}),
]


@pytest.fixture
def sealed_world(tmp_path: Path) -> FixtureWorld:
    """The three fixture packages, validated and sealed as passed (only those are cached)."""
    world = standard_world(tmp_path / "world")
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in build_all(world).values():
        assert lifecycle.validate(location).accepted
    return world


async def answers(state: AppState) -> list[str]:
    async with Client(create_app(state)) as client:
        return [wire(await call(client, tool, request)) for tool, request in REQUESTS]


def stored(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == CACHE_LOG and "stored" in r.getMessage()]


def entries(cache_root: Path) -> list[Path]:
    return sorted(p.parent for p in cache_root.rglob(LEDGER))


async def test_cold_and_warm_starts_serve_byte_identical_results(
    sealed_world: FixtureWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache_root = tmp_path / "cache"
    caplog.set_level(logging.INFO, logger=CACHE_LOG)
    # One cursor secret for all three: without the cache there is no file to keep the install's secret in,
    # so an uncached start would key its cursors by a secret of its own (tests/mcp/test_cursor_secret.py).
    secret = {"cursor_secret": "derived-cache-test-cursor-secret-of-40-chars"}
    uncached = await answers(state_for(sealed_world, cache_dir=None, **secret))
    assert not cache_root.exists()

    cold = await answers(state_for(sealed_world, cache_dir=cache_root, **secret))
    assert len(stored(caplog)) == 3 and len(entries(cache_root)) == 3
    caplog.clear()

    warm_state = state_for(sealed_world, cache_dir=cache_root, **secret)
    assert stored(caplog) == []  # every package came from its entry
    warm = await answers(warm_state)
    assert uncached == cold == warm


def test_a_warm_start_does_not_decode_packages(
    sealed_world: FixtureWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_root = tmp_path / "cache"
    state_for(sealed_world, cache_dir=cache_root)
    decoded: list[str] = []
    original = PackageValidator._decode_delivery

    def counting(reader: Any, out: Any) -> Any:
        decoded.append("decoded")
        return original(reader, out)

    monkeypatch.setattr(PackageValidator, "_decode_delivery", staticmethod(counting))
    state = state_for(sealed_world, cache_dir=cache_root)
    assert decoded == []
    assert {p.graph_package_id.split("@")[0] for p in state.catalog.packages} == {TREE, DAG, LC}


def test_changed_package_bytes_stop_start_up_even_with_a_warm_cache(sealed_world: FixtureWorld, tmp_path: Path) -> None:
    cache_root = tmp_path / "cache"
    state_for(sealed_world, cache_dir=cache_root)
    nodes = next((sealed_world.packages / TREE).rglob("delivery/*nodes*.jsonl"))
    nodes.write_bytes(nodes.read_bytes().replace(b"fractions", b"fractionz", 1))
    with pytest.raises(CatalogError, match="checksum_mismatch"):
        state_for(sealed_world, cache_dir=cache_root)


@pytest.mark.parametrize("victim", [CONTENT, "standards/statistics.marshal", "components/meta.json", LEDGER])
async def test_an_edited_entry_is_rebuilt_never_served(
    sealed_world: FixtureWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture, victim: str
) -> None:
    cache_root = tmp_path / "cache"
    expected = await answers(state_for(sealed_world, cache_dir=cache_root))
    (entry,) = [e for e in entries(cache_root) if e.parts[-3] == LC]
    target = entry / victim
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    caplog.set_level(logging.INFO, logger=CACHE_LOG)
    caplog.clear()
    state = state_for(sealed_world, cache_dir=cache_root)
    messages = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == CACHE_LOG]
    assert [m for level, m in messages if level == logging.WARNING] == [
        next(m for level, m in messages if level == logging.WARNING and "discarding the entry of " + LC in m)
    ]
    assert [m for _, m in messages if "stored" in m] == [f"derived-index cache: stored {LC}@2026-01"]
    assert await answers(state) == expected
    # The rebuilt entry took the damaged one's place and verifies again.
    assert [e for e in entries(cache_root) if e.parts[-3] == LC] == [entry]
    assert target.read_bytes() != bytes(data)
    runtime = next(p.runtime for p in state.catalog.packages if p.framework_id == LC)
    assert DerivedIndexCache(cache_root).lookup(runtime.graph_package_id, runtime.manifest_sha256) is not None


def test_an_unwritable_cache_only_costs_the_warm_start(
    sealed_world: FixtureWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache root should be")
    caplog.set_level(logging.WARNING, logger=CACHE_LOG)
    state = state_for(sealed_world, cache_dir=blocker)
    assert len(state.catalog.packages) == 3
    assert any("indexing in memory" in r.getMessage() for r in caplog.records)


def test_pending_packages_are_served_but_never_cached(tmp_path: Path) -> None:
    world = standard_world(tmp_path / "world")
    build_all(world)
    cache_root = tmp_path / "cache"
    state = state_for(world, cache_dir=cache_root)
    assert {p.runtime.accepted_from for p in state.catalog.packages} == {"pending"}
    assert not any(cacheable(p.runtime) for p in state.catalog.packages)
    assert entries(cache_root) == []


def test_storing_prunes_stale_entries_and_tolerates_a_concurrent_replica(
    sealed_world: FixtureWorld, tmp_path: Path
) -> None:
    cache_root = tmp_path / "cache"
    state = state_for(sealed_world, cache_dir=cache_root)
    runtime = next(p.runtime for p in state.catalog.packages if p.framework_id == LC)
    final = DerivedIndexCache(cache_root).entry_directory(runtime.graph_package_id, runtime.manifest_sha256)
    stale = final.parent / ("0" * 64)
    shutil.copytree(final, stale)
    shutil.rmtree(final)

    cache = DerivedIndexCache(cache_root)
    store = GraphStore(runtime)
    first = cache.text_indexes(store)
    assert final.is_dir() and not stale.exists()
    # Another replica that raced to the same entry finds it in place and serves it (the rename-conflict path).
    again = DerivedIndexCache(cache_root)._store(store)
    assert again.directory == final
    assert first.components is not None
    assert again.text_indexes(runtime).components is not None
    assert [p.name for p in final.parent.iterdir()] == [final.name]


def test_content_round_trips_and_refuses_foreign_bytes(sealed_world: FixtureWorld) -> None:
    state = state_for(sealed_world, cache_dir=None)
    for runtime in state.catalog.packages:
        content = _content(runtime)
        decoded = decode_content(encode_content(content))
        assert (decoded.framework, decoded.items, decoded.components) == (
            content.framework,
            content.items,
            content.components,
        )
        assert list(decoded.relationships) == list(content.relationships)
    for foreign in (b"", b"not marshal", encode_content(_content(state.catalog.packages[0]))[:-7]):
        with pytest.raises(ValueError):
            decode_content(foreign)
    with pytest.raises(ValueError, match="framework"):
        encode_content(DecodedPackage())


def test_text_index_open_refuses_a_directory_it_did_not_write(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        TextIndex.open(tmp_path)
    (tmp_path / "index").mkdir()
    analyzer = analyzer_for("pt-BR")
    built = TextIndex.build([(0, "frações"), (1, "números")], analyzer, tmp_path / "index")
    terms = analyzer.terms("fracoes")
    assert TextIndex.open(tmp_path / "index").ranked(terms) == built.ranked(terms)
    assert [row.position for row in built.ranked(terms).rows] == [0]
    with pytest.raises(ValueError, match="differ"):
        PackageTextIndexes.open(_runtime_without_components(tmp_path), tmp_path)


def test_cache_dir_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGFEGMCP_CACHE_DIR", raising=False)
    assert load_settings().cache_dir == USER_CACHE_DIR
    monkeypatch.setenv("KGFEGMCP_CACHE_DIR", "")
    assert load_settings().cache_dir is None
    monkeypatch.setenv("KGFEGMCP_CACHE_DIR", "/srv/kgfegmcp-cache")
    assert load_settings().cache_dir == Path("/srv/kgfegmcp-cache")
    # Entries under the package root would be discovered as packages.
    monkeypatch.setenv("KGFEGMCP_GRAPH_PACKAGES_DIR", "/srv/packages")
    for inside in ("/srv/packages", "/srv/packages/cache"):
        monkeypatch.setenv("KGFEGMCP_CACHE_DIR", inside)
        with pytest.raises(ConfigurationError) as refused:
            load_settings()
        assert refused.value.public_message.startswith(
            "configuration_error: Invalid settings: KGFEGMCP_CACHE_DIR: must not be inside KGFEGMCP_GRAPH_PACKAGES_DIR"
        )


def _content(runtime: PackageRuntime) -> DecodedPackage:
    return DecodedPackage(runtime.framework, list(runtime.items), list(runtime.components), list(runtime.relationships))


def _runtime_without_components(tmp_path: Path) -> PackageRuntime:
    world = standard_world(tmp_path / "w")
    build_all(world)
    return next(p for p in state_for(world, cache_dir=None).catalog.packages if p.framework_id == TREE)


RACE = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from package_factory import FixtureWorld, state_for
state = state_for(FixtureWorld(Path(sys.argv[2])), cache_dir=Path(sys.argv[3]))
print(len(state.catalog.packages))
"""


def test_replicas_starting_together_on_a_cold_cache_share_one_entry_each(
    sealed_world: FixtureWorld, tmp_path: Path
) -> None:
    cache_root = tmp_path / "cache"
    tests_dir = str(REPOSITORY_ROOT / "tests")
    command = [sys.executable, "-c", RACE, tests_dir, str(sealed_world.base), str(cache_root)]
    replicas = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for replica in replicas:
        stdout, stderr = replica.communicate(timeout=120)
        assert replica.returncode == 0, stderr
        assert stdout.strip() == "3"
    assert len(entries(cache_root)) == 3
    assert not [p for p in cache_root.rglob(".staging-*")]
    cache = DerivedIndexCache(cache_root)
    for package in state_for(sealed_world, cache_dir=None).catalog.packages:
        assert cache.lookup(package.graph_package_id, package.runtime.manifest_sha256) is not None
