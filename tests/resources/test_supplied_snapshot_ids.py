"""Snapshot ids as the design's pipeline names its packages: ``<framework-id>@<year>+<hex>``.

The grammar accepts that form beside the identifier words, and still refuses whatever a path or a URI could
read otherwise; a package whose snapshot directory has that name is discovered, validated and served, its
resource URIs parse back to it, and every tool takes the id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from resource_calls import read

from kgfegmcp.app import create_app
from kgfegmcp.core.identifiers import InvalidIdentifier, check_snapshot, split_graph_package_id
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.resources import uris
from kgfegmcp.resources.addresses import InvalidAddressError, parse_address
from package_factory import TREE, FixtureWorld, base_graph, standard_world, state_for, validate_all
from tool_calls import call, structured

SUPPLIED = f"{TREE}@2019+e00c5329a507"


@pytest.mark.parametrize(
    "value",
    [
        "2026-01",
        "dados-2026-07-1",
        SUPPLIED,
        "ghana-nacca-primary-english-language-basic-1-3@2019+e00c5329a507",
        # The pipeline's version tokens besides a year.
        f"{TREE}@undated+e00c5329a507",
        f"{TREE}@2025-proposed-draft+e00c5329a507",
        f"{TREE}@v1.2_b+e00c5329a507",
    ],
)
def test_both_forms_are_snapshot_ids(value: str) -> None:
    assert check_snapshot(value) == value


@pytest.mark.parametrize(
    "value",
    [
        "../x",
        f"{TREE}@2019+e00c5329a507/..",
        f"{TREE}@2019+E00C5329A507",  # uppercase hex
        f"{TREE}@2019..1+e00c5329a507",  # a doubled separator in the version
        f"{TREE}@.2019+e00c5329a507",  # a version starting with a separator
        f"{TREE}@2019-+e00c5329a507",  # or ending with one
        f"{TREE}@{'9' * 65}+e00c5329a507",  # a version over 64 characters
        f"{TREE}@2019+xyz",  # not hex
        f"{TREE}@2019+e00c5",  # too short a digest
        f"{TREE}@2019+e00c5329a507\n",
        f"{TREE}@2019+e00c5329a507%2F",
        f"{TREE}@2019 e00c5329a507",
        f"{TREE}@@2019+e00c5329a507",
        f"{TREE}@2019+e00c5329a507+abcdef",
        "Fixture-Tree@2019+e00c5329a507",
        "x@2019+e00c5329a507",  # the framework part is not an identifier
        "a@b",
        "",
    ],
)
def test_anything_a_path_or_uri_could_misread_is_refused(value: str) -> None:
    with pytest.raises(InvalidIdentifier):
        check_snapshot(value)


def test_a_graph_package_id_splits_at_its_first_at_sign() -> None:
    assert split_graph_package_id(f"{TREE}@{SUPPLIED}") == (TREE, SUPPLIED)
    assert split_graph_package_id(SUPPLIED) == (TREE, SUPPLIED)
    assert split_graph_package_id(f"{SUPPLIED}--academic-standards--p1") == (TREE, SUPPLIED)


def test_a_supplied_snapshot_under_another_framework_is_refused(tmp_path: Path) -> None:
    world = standard_world(tmp_path)
    location = world.write(base_graph(TREE), snapshot_id=SUPPLIED)
    wrong = world.packages / "fixture-other"
    wrong.mkdir()
    location.path.rename(wrong / SUPPLIED)
    discovery = discover_packages(world.packages)
    assert not discovery.packages
    (finding,) = discovery.root_findings
    assert finding.code == "identity_mismatch" and "names framework" in finding.message


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> FixtureWorld:
    world = standard_world(tmp_path_factory.mktemp("supplied-ids"))
    validate_all(world, [world.write(base_graph(TREE), snapshot_id=SUPPLIED)])
    return world


@pytest.fixture(scope="module")
def state(world: FixtureWorld) -> Any:
    return state_for(world)


def test_the_package_is_discovered_and_validated(world: FixtureWorld) -> None:
    (location,) = discover_packages(world.packages).packages
    assert (location.framework_id, location.snapshot_id) == (TREE, SUPPLIED)
    manifest = json.loads((location.path / "package_manifest.json").read_text(encoding="utf-8"))
    assert manifest["snapshotId"] == SUPPLIED and manifest["validation"]["status"] == "passed"


async def test_tools_take_the_snapshot_id(state: Any) -> None:
    (runtime,) = state.catalog.packages
    item = next(i for i in runtime.items if i.statement_code)
    async with Client(create_app(state)) as client:
        exact = structured(
            await call(
                client,
                "get_standard",
                {"frameworkId": TREE, "snapshotId": SUPPLIED, "statementCode": item.statement_code},
            )
        )
        assert exact["standard"]["nodeId"] == item.identifier
        assert exact["package"]["graphPackageId"] == SUPPLIED  # a supplied snapshot id names its package
        found = structured(
            await call(
                client,
                "search_standards",
                {"frameworkIds": [TREE], "snapshotIds": [SUPPLIED], "query": item.statement_code or ""},
            )
        )
        assert found["hits"]


async def test_its_resource_uris_parse_back_and_read(state: Any) -> None:
    (runtime,) = state.catalog.packages
    item = runtime.items[0]
    for uri in (
        uris.snapshot_uri(TREE, SUPPLIED),
        uris.manifest_uri(TREE, SUPPLIED),
        uris.standard_uri(TREE, SUPPLIED, item.identifier),
    ):
        address = parse_address(uri)
        assert (address.framework_id, address.snapshot_id, address.uri) == (TREE, SUPPLIED, uri)
    async with Client(create_app(state)) as client:
        data, _meta = await read(client, uris.standard_uri(TREE, SUPPLIED, item.identifier))
        assert json.loads(data)["standard"]["nodeId"] == item.identifier
        catalog, _meta = await read(client, "kgfegmcp://catalog")
        assert uris.snapshot_uri(TREE, SUPPLIED) in catalog.decode("utf-8")
        manifest, _meta = await read(client, uris.manifest_uri(TREE, SUPPLIED))
        assert json.loads(manifest)["snapshotId"] == SUPPLIED


@pytest.mark.parametrize("snapshot", ["x@2019+e00c5329a507", f"{TREE}@2019+e00c5329a507%40", f"{TREE}@2019+ZZ"])
def test_a_malformed_snapshot_in_a_uri_is_refused(snapshot: str) -> None:
    with pytest.raises(InvalidAddressError):
        parse_address(f"kgfegmcp://framework/{TREE}/snapshot/{snapshot}")
