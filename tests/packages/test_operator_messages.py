"""Start-up refusals name the thing to fix and say what to do: the root, each excluded package, the profile.

These messages reach the operator only (stderr and the log of the starting process), so they name
paths; the end-to-end twins in ``tests/e2e/test_startup_failures.py`` check them on a real process.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from corrupt import artifact_path

from kgfegmcp.catalog import CatalogLoader
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import DAG, LC, TREE, FixtureWorld, base_graph

LOADER_LOG = "kgfegmcp.catalog.loader"


def validate(world: FixtureWorld, *locations: PackageLocation) -> None:
    """Record a terminal state for each package, as `kgfegmcp packages validate` does."""
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in locations:
        lifecycle.validate(location)


def load(
    world: FixtureWorld, root: Path | None = None, policy: InvalidPackagePolicy = InvalidPackagePolicy.FAIL
) -> None:
    CatalogLoader(root or world.packages, world.profiles(), policy).load()


def broken(world: FixtureWorld, snapshot_id: str) -> PackageLocation:
    """A non-current TREE snapshot whose grade label the profile does not declare (``unknown_grade_label``)."""
    graph = base_graph(TREE)
    graph.items = [replace(item, grade_level=("99",)) for item in graph.items]
    return world.write(graph, snapshot_id=snapshot_id, is_current=False)


def refusal(world: FixtureWorld, **kwargs: object) -> str:
    with pytest.raises(CatalogError) as caught:
        load(world, **kwargs)  # type: ignore[arg-type]
    return caught.value.public_message


def test_a_missing_root_is_named_resolved_and_told_apart_from_an_empty_one(
    world: FixtureWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative root, as `--root data/graph_packages` is
    missing = refusal(world, root=Path("no-such-root"))
    assert missing.startswith("catalog_error: No accepted graph package: ")
    assert f"KGFEGMCP_GRAPH_PACKAGES_DIR {tmp_path.resolve() / 'no-such-root'} does not exist" in missing
    assert "kgfegmcp catalog init" in missing and "holds no package" not in missing

    (tmp_path / "empty-root").mkdir()
    empty = refusal(world, root=Path("empty-root"))
    assert f"{tmp_path.resolve() / 'empty-root'} holds no package" in empty
    assert "does not exist" not in empty


def test_each_excluded_package_is_named_with_its_state_and_codes(
    built: dict[str, PackageLocation], world: FixtureWorld, caplog: pytest.LogCaptureFixture
) -> None:
    validate(world, *built.values())
    failed = broken(world, "2025-01")
    validate(world, failed)  # recorded `failed`
    quarantined = broken(world, "2025-02")  # pending; excluded by the quarantine policy
    with caplog.at_level(logging.WARNING, logger=LOADER_LOG):
        load(world, policy=InvalidPackagePolicy.QUARANTINE)
    lines = [r.getMessage() for r in caplog.records if r.name == LOADER_LOG and r.levelno == logging.WARNING]
    assert len(lines) == 2, lines
    failed_line = next(line for line in lines if f"{TREE}@2025-01" in line)
    assert "recorded failed (unknown_grade_label)" in failed_line
    assert f"kgfegmcp packages validate {failed.path.absolute()}" in failed_line
    quarantined_line = next(line for line in lines if f"{TREE}@2025-02" in line)
    assert str(quarantined.path.absolute()) in quarantined_line
    assert "pending and does not validate (unknown_grade_label)" in quarantined_line
    assert "KGFEGMCP_INVALID_PACKAGE_POLICY=quarantine" in quarantined_line


def test_with_no_package_left_the_error_names_every_excluded_one(world: FixtureWorld) -> None:
    first, second = broken(world, "2025-01"), broken(world, "2025-02")
    validate(world, first, second)
    message = refusal(world)
    assert message.startswith("catalog_error: No accepted graph package: ")
    assert f"every package under {world.packages.resolve()} is excluded" in message
    assert f"{TREE}@2025-01 (failed: unknown_grade_label)" in message
    assert f"{TREE}@2025-02 (failed: unknown_grade_label)" in message
    assert "empty catalog" in message

    shutil.rmtree(second.path)  # one package left: its own remedy is the hint
    only = refusal(world)
    assert f"({TREE}@2025-01 (failed: unknown_grade_label))" in only
    assert f"kgfegmcp packages validate {first.path.absolute()}" in only.split(" Next action: ", 1)[1]


@pytest.mark.parametrize("change", ["deleted", "edited"])
def test_a_broken_bound_profile_is_named_with_its_path(
    built: dict[str, PackageLocation], world: FixtureWorld, change: str
) -> None:
    validate(world, *built.values())
    profile = world.profiles_root / TREE / "1.0.json"
    if change == "deleted":
        profile.unlink()
    else:
        profile.write_bytes(profile.read_bytes() + b"\n")
    message = refusal(world)
    assert f"Package {TREE}@2026-01 is marked passed but no longer validates (profile_binding_mismatch)" in message
    hint = message.split(" Next action: ", 1)[1]
    assert f"Restore {profile.absolute()} (profile {TREE} version 1.0, SHA-256 " in hint
    assert "rebuild" in hint and "against the current profile" in hint
    assert "files of" in hint and "still match its manifest" in hint
    assert "restore its validated bytes" not in hint and str(built[TREE].path) not in hint


def test_a_package_damaged_besides_its_profile_gets_the_general_advice(
    built: dict[str, PackageLocation], world: FixtureWorld
) -> None:
    validate(world, *built.values())
    (world.profiles_root / DAG / "1.0.json").unlink()
    nodes = artifact_path(built[DAG], "nodes")
    nodes.write_bytes(nodes.read_bytes() + b"\n")
    message = refusal(world)
    assert "checksum_mismatch" in message and "profile_binding_mismatch" in message
    hint = message.split(" Next action: ", 1)[1]
    assert f"Restore the validated files of {DAG}@2026-01 ({built[DAG].path.absolute()})" in hint
    assert "still match its manifest" not in hint
    assert LC not in hint
