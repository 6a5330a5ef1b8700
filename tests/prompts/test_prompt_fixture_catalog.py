"""Prompts over small fixture packages: rights that forbid generated derivatives, and the upper
edge of cross-framework selections (8 frameworks, 8 snapshots), served through the real bootstrap
with a prompts root holding only the generic configurations."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.prompts.repository import copy_generic_configs
from kgfegmcp.prompts.workflows import WORKFLOWS
from mcp import MCPError
from package_factory import RIGHTS, FixtureWorld, base_graph, lc_graph
from served_apps import SERVED

SHIPPED = SHIPPED_PROMPTS_DIR
DENIED = "fixture-denied"
ALLOWED = "fixture-allowed"
PROGRESSIONS = "fixture-lc"
OTHERS = tuple(f"fixture-c{i}" for i in range(3, 9))  # with ALLOWED and PROGRESSIONS: 8 frameworks
DENIED_ATTRIBUTION = "Denied fixture, written by the test suite."


@pytest.fixture(scope="module")
def fixture_root(tmp_path_factory: pytest.TempPathFactory) -> tuple[FixtureWorld, Path]:
    world = FixtureWorld(tmp_path_factory.mktemp("prompt-fixtures"))
    denied = {**RIGHTS, "allowGeneratedDerivatives": "denied", "attributionStatement": DENIED_ATTRIBUTION}
    world.add_profile(DENIED, defaultRights=denied)  # a package carries its profile's attribution
    for framework_id in (ALLOWED, *OTHERS):
        world.add_profile(framework_id)
    world.add_profile(PROGRESSIONS, rule="multiParentDag", max_parents=2)
    denied_rights = RightsPolicy.model_validate(denied)
    locations = [
        world.write(base_graph(DENIED), rights=denied_rights),
        world.write(base_graph(ALLOWED), snapshot_id="snap-1"),
        world.write(lc_graph(PROGRESSIONS), snapshot_id="snap-2"),
    ]
    locations += [world.write(base_graph(fid), snapshot_id=f"snap-{i}") for i, fid in enumerate(OTHERS, start=3)]
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in locations:
        assert lifecycle.validate(location).result == "passed"
    prompts = copy_generic_configs(SHIPPED, world.base / "prompts-generic")
    return world, prompts


@pytest.fixture(scope="module")
def fixture_state(fixture_root: tuple[FixtureWorld, Path]) -> AppState:
    world, prompts = fixture_root
    settings = load_settings(
        {"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root, "prompts_dir": prompts}
    )
    return build_app_state(settings)


@pytest.fixture
async def fixture_client(fixture_state: AppState) -> AsyncIterator[Client[Any]]:
    async with SERVED.client(fixture_state) as client:
        yield client


def _arguments(workflow: str, framework_id: str) -> dict[str, str]:
    return {
        "teacher_guide_draft": {"framework_id": framework_id, "topic": "fractions"},
        "student_handbook_section": {"framework_id": framework_id, "topic": "fractions"},
        "multigrade_lesson_plan": {"framework_id": framework_id, "topic": "count", "grade_levels": '["1", "2"]'},
        "practice_item_set": {"framework_id": framework_id, "topic": "fractions"},
        "learning_progression_teaching_sequence": {"framework_id": framework_id, "standard": "NBT.1"},
        "learning_progression_support_plan": {"framework_id": framework_id, "standard": "NF.1"},
        "learning_progression_curriculum_review": {"framework_id": framework_id, "standards": '["NBT.1", "NF.1"]'},
        "administrator_alignment_review": {"framework_id": framework_id, "topic": "place value"},
        "cross_framework_comparison": {"framework_ids": json.dumps([framework_id, PROGRESSIONS]), "topic": "fractions"},
    }[workflow]


def test_the_shipped_overlays_are_skipped_for_this_catalog(
    fixture_root: tuple[FixtureWorld, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """The repository's overlays name the default frameworks, none of which this catalog serves."""
    world, _ = fixture_root
    settings = load_settings(
        {"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root, "prompts_dir": SHIPPED}
    )
    with caplog.at_level(logging.WARNING, logger="kgfegmcp.prompts.repository"):
        state = build_app_state(settings)
    assert state.prompts.registry.overlays == {}
    shipped = sorted(p.name for p in (SHIPPED / "overlays").iterdir())
    skipped = [r.getMessage() for r in caplog.records if r.getMessage().startswith("skipped prompt overlay")]
    assert len(skipped) == len(shipped) and all(any(f" {f} " in line for line in skipped) for f in shipped)


@pytest.mark.parametrize("workflow", list(WORKFLOWS))
async def test_rights_forbidding_derivatives_refuse_every_prompt(
    fixture_client: Client[Any], fixture_state: AppState, workflow: str
) -> None:
    assert fixture_state.catalog.resolve(DENIED).manifest.rights.allow_generated_derivatives == "denied"
    with pytest.raises(MCPError) as info:
        await fixture_client.get_prompt(workflow, _arguments(workflow, DENIED))
    message = str(info.value)
    assert message.startswith("prompt_access_denied: "), message
    assert DENIED in message and DENIED_ATTRIBUTION not in message
    # The same prompt for a package that allows derivatives renders, with that package's attribution.
    allowed = await fixture_client.get_prompt(workflow, _arguments(workflow, ALLOWED))
    text = allowed.messages[0].content.text
    assert RIGHTS["attributionStatement"] in text
    assert "## Framework guidance" not in text  # generic configurations only


@pytest.mark.parametrize("workflow", [w for w, spec in WORKFLOWS.items() if spec.served_as_tool])
async def test_rights_forbidding_derivatives_refuse_the_tool(fixture_client: Client[Any], workflow: str) -> None:
    request: dict[str, Any] = {"workflow": workflow}
    for name, raw in _arguments(workflow, DENIED).items():
        arg = WORKFLOWS[workflow].argument(name)
        assert arg is not None
        request[arg.spec.alias] = json.loads(raw) if arg.spec.is_list else raw
    with pytest.raises(ToolError, match=r"^prompt_access_denied: "):
        await fixture_client.call_tool("get_workflow_instructions", {"request": request})


async def test_comparison_at_the_upper_edges(fixture_client: Client[Any], fixture_state: AppState) -> None:
    eight = [ALLOWED, PROGRESSIONS, *OTHERS]
    snapshots = [f"snap-{i}" for i in range(1, 9)]
    arguments = {
        "framework_ids": json.dumps(eight),
        "snapshot_ids": json.dumps(snapshots),
        "topic": "fractions",
        "matches_per_framework": "10",
    }
    result = await fixture_client.get_prompt("cross_framework_comparison", arguments)
    text = result.messages[0].content.text
    for framework_id, snapshot_id in zip(eight, snapshots, strict=True):
        assert f"`{framework_id}@{snapshot_id}`" in text
    assert text.count(RIGHTS["attributionStatement"]) == 8
    assert '"maxMatchesPerFramework": 10' in text
    assert json.dumps(snapshots) in text  # the requested pinning, passed on to compare_framework_evidence
    # One more framework, one more snapshot, or a framework pinned twice is refused.
    for bad in (
        {**arguments, "framework_ids": json.dumps([*eight, DENIED])},
        {**arguments, "snapshot_ids": json.dumps([*snapshots, "snap-9"])},
    ):
        with pytest.raises(MCPError, match=r"^invalid_request: "):
            await fixture_client.get_prompt("cross_framework_comparison", bad)
    with pytest.raises(MCPError, match=r"^invalid_comparison_selection: "):
        await fixture_client.get_prompt(
            "cross_framework_comparison", {**arguments, "snapshot_ids": json.dumps(["snap-1", "2026-01"])}
        )
    # A denied package anywhere in the selection refuses the whole comparison.
    with pytest.raises(MCPError, match=r"^prompt_access_denied: "):
        await fixture_client.get_prompt(
            "cross_framework_comparison", {"framework_ids": json.dumps([ALLOWED, DENIED]), "topic": "fractions"}
        )


async def test_capabilities_choose_the_progression_steps(fixture_client: Client[Any]) -> None:
    with_links = await fixture_client.get_prompt(
        "learning_progression_teaching_sequence", _arguments("learning_progression_teaching_sequence", PROGRESSIONS)
    )
    without = await fixture_client.get_prompt(
        "learning_progression_teaching_sequence", _arguments("learning_progression_teaching_sequence", ALLOWED)
    )
    assert "`traverse_learning_progressions`" in with_links.messages[0].content.text
    assert "`get_learning_components_for_standard`" in with_links.messages[0].content.text
    assert "`traverse_learning_progressions`" not in without.messages[0].content.text
    assert "declares no learning progressions" in without.messages[0].content.text


async def test_unexpected_failures_are_masked(fixture_state: AppState) -> None:
    class Broken(type(fixture_state.prompts)):  # type: ignore[misc]
        def render_prompt(self, name: str, raw: Any) -> Any:
            raise RuntimeError("/secret/path/config.json exploded")

    broken = Broken(fixture_state.catalog, fixture_state.prompts.registry)
    async with Client(create_app(replace(fixture_state, prompts=broken))) as client:
        with pytest.raises(MCPError) as info:
            await client.get_prompt("practice_item_set", _arguments("practice_item_set", ALLOWED))
    assert str(info.value) == "internal_error: The server could not render the prompt."
