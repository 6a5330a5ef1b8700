"""Bytes changed after start-up are refused, and the operator is warned: which package, which file, what to do.

The refusal itself is an ordinary ``resource_access_denied`` for the client (no path); the log gets
exactly one WARNING naming the package, the artifact and the file, whichever re-check caught it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from fastmcp import Client
from resource_calls import read, read_error

from kgfegmcp.app import create_app
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.unresolved import load_unresolved
from kgfegmcp.resources import uris
from package_factory import LC, FixtureWorld, state_for
from resource_worlds import small_lc_world

SID = "2026-01"
PACKAGE = f"{LC}@{SID}"
RESOURCES_LOG = "kgfegmcp.resources.artifact_reader"


@pytest.fixture
def corruptible(tmp_path: Path) -> FixtureWorld:
    """A private, validated world this test may damage after the server has started."""
    return small_lc_world(tmp_path)


async def refused_with_one_warning(
    world: FixtureWorld, uri: str, damage: Path, edit: bytes, caplog: pytest.LogCaptureFixture
) -> str:
    """Serve ``uri``, append ``edit`` to ``damage``, read again: the client's refusal, one WARNING; its text."""
    state = state_for(world)
    async with Client(create_app(state)) as client:
        await read(client, uri)  # served while intact
        damage.write_bytes(damage.read_bytes() + edit)
        with caplog.at_level(logging.INFO):
            message = await read_error(client, uri)
    assert message.startswith("resource_access_denied: ") and "does not serve unverified bytes" in message
    assert str(world.base) not in message
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname) for r in warnings] == [(RESOURCES_LOG, "WARNING")]
    text = warnings[0].getMessage()
    assert PACKAGE in text and str(damage) in text
    return text


async def test_a_changed_artifact_is_a_warning_naming_package_artifact_and_file(
    corruptible: FixtureWorld, caplog: pytest.LogCaptureFixture
) -> None:
    report = corruptible.packages / LC / SID / "detailed/as_validation_report.json"
    text = await refused_with_one_warning(corruptible, uris.validation_uri(LC, SID), report, b"\n", caplog)
    assert "refused artifact validationReport of" in text
    assert "Restore the package's validated files" in text and "kgfegmcp packages validate" in text


async def test_a_changed_manifest_is_a_warning_naming_it(
    corruptible: FixtureWorld, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = corruptible.packages / LC / SID / MANIFEST_FILENAME
    manifest_uri = uris.manifest_uri(LC, SID)
    state = state_for(corruptible)
    async with Client(create_app(state)) as client:
        await read(client, manifest_uri)
        document = json.loads(manifest.read_text(encoding="utf-8"))  # appended whitespace would parse the same
        document["title"] = "Edited after validation"
        manifest.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        with caplog.at_level(logging.INFO):
            message = await read_error(client, manifest_uri)
    assert message.startswith("resource_access_denied: ")
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname) for r in warnings] == [(RESOURCES_LOG, "WARNING")]
    text = warnings[0].getMessage()
    assert f"refused artifact packageManifest of {PACKAGE}" in text and str(manifest) in text
    assert "Restore the package's validated files" in text


async def test_a_changed_profile_is_a_warning_naming_the_profile(
    corruptible: FixtureWorld, caplog: pytest.LogCaptureFixture
) -> None:
    profile = corruptible.profiles_root / LC / "1.0.json"
    text = await refused_with_one_warning(corruptible, uris.profile_uri(LC, SID), profile, b"\n", caplog)
    assert f"refused artifact profile of {PACKAGE}" in text
    assert f"Restore profile {LC} version 1.0 as it was validated" in text


@pytest.mark.parametrize("change", ["deleted", "edited"])
def test_unresolved_items_changed_before_they_are_read_stop_start_up_by_name(
    corruptible: FixtureWorld, change: str
) -> None:
    runtime = state_for(corruptible).catalog.resolve(LC, SID).runtime
    path = corruptible.packages / LC / SID / "detailed/as_unresolved_items.json"
    if change == "deleted":
        path.unlink()
    else:
        path.write_bytes(path.read_bytes() + b"\n")
    with pytest.raises(CatalogError) as caught:
        load_unresolved(runtime)
    message = caught.value.public_message
    assert f"The unresolvedItems artifact of {PACKAGE} ({path})" in message
    assert f"Restore the validated files of {PACKAGE}" in message
