"""The learning-component collection in the spec's package tree: built, validated, served, or refused."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from corrupt import artifact_path, edit_manifest, error_codes
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, COMPONENT_ARTIFACTS
from kgfegmcp.packages.lc_artifacts import DedupGroup, GenerationSummary, dedup_groups, grouped_twice
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import SUPPORTS, ComponentNode
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.resources import uris
from mcp import MCPError
from package_factory import DAG, LC, FixtureWorld, dag_graph, lc_graph, state_for
from tool_calls import call, structured

#: Every file the spec's package tree draws (graph-package-format.md, "Directory identity"), and the
#: component validation report its "Learning components" section names.
SPEC_TREE = (
    "detailed/as_lc_validation_report.json",
    "package_manifest.json",
    "delivery/as_lc_nodes_*.jsonl",
    "delivery/as_lc_relationships_*.jsonl",
    "detailed/as_entity_provenance.json",
    "detailed/as_kg_bundle.json",
    "detailed/as_lc_kg_bundle.json",
    "detailed/as_relationships_has_child.jsonl",
    "detailed/as_standards_framework.json",
    "detailed/as_standards_framework_items.jsonl",
    "detailed/as_unresolved_items.json",
    "detailed/as_validation_report.json",
    "detailed/lc_dedup_groups.json",
    "detailed/lc_entity_provenance.json",
    "detailed/lc_generation_summary.json",
)


def test_the_lc_fixture_has_every_file_of_the_spec_tree(world: FixtureWorld) -> None:
    location = world.write(lc_graph(LC))
    for drawn in SPEC_TREE:
        assert list(location.path.glob(drawn)), drawn


def _passed(world: FixtureWorld) -> Any:
    location = world.write(lc_graph(LC))
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    return location, lifecycle.validate(location)


def test_the_model_generated_collection_passes_and_is_served(world: FixtureWorld) -> None:
    _, result = _passed(world)
    assert result.accepted
    state = state_for(world)
    served = state.catalog.resolve(LC)
    generation = served.runtime.component_generation
    assert generation is not None
    assert generation.production == "model_generated" and not generation.human_reviewed
    entry = served.manifest.artifact("lcGenerationSummary")
    assert entry is not None
    summary = GenerationSummary.model_validate_json((served.runtime.path / entry.path).read_bytes(), strict=False)
    assert summary.counts.components == len(served.runtime.components)


def test_a_package_without_components_carries_no_lc_artifact(world: FixtureWorld) -> None:
    location = world.write(dag_graph(DAG))
    manifest = json.loads((location.path / "package_manifest.json").read_text())
    assert not {a["logicalName"] for a in manifest["artifacts"]} & set(COMPONENT_ARTIFACTS)
    assert not any((location.path / ARTIFACT_ROLE[name].path).exists() for name in COMPONENT_ARTIFACTS)


def test_lc_artifacts_on_a_package_without_components_are_refused(world: FixtureWorld) -> None:
    lc = world.write(lc_graph(LC))
    summary = next(
        a
        for a in json.loads((lc.path / "package_manifest.json").read_text())["artifacts"]
        if a["logicalName"] == "lcGenerationSummary"
    )
    location = world.write(dag_graph(DAG))
    target = location.path / summary["path"]
    target.write_bytes(artifact_path(lc, "lcGenerationSummary").read_bytes())
    edit_manifest(location, lambda m: m["artifacts"].append(summary))
    outcome = PackageValidator(world.profiles()).validate(location)
    assert "lc_artifact_mismatch" in error_codes(outcome.findings)


async def test_lc_artifacts_are_exposed_under_the_rights_policy(world: FixtureWorld) -> None:
    _passed(world)
    state = state_for(world)
    sid = state.catalog.resolve(LC).runtime.snapshot_id
    async with Client(create_app(state)) as client:
        summary = await client.read_resource(uris.artifact_uri(LC, sid, "lcGenerationSummary"))
        assert json.loads(summary[0].text)["production"] == "model_generated"  # type: ignore[union-attr]
        await client.read_resource(uris.artifact_uri(LC, sid, "lcDedupGroups"))  # full text: allowed
        report = await client.read_resource(uris.artifact_uri(LC, sid, "lcValidationReport"))  # public metadata
        assert json.loads(report[0].text)["status"] == "passed"  # type: ignore[union-attr]
        for bulk in ("lcEntityProvenance", "learningComponentBundle"):  # the fixture's rights deny bulk content
            with pytest.raises(MCPError) as refused:
                await client.read_resource(uris.artifact_uri(LC, sid, bulk))
            assert refused.value.error.message.startswith("resource_access_denied: "), bulk


def test_dedup_groups_join_normalised_identical_texts_once() -> None:
    groups = dedup_groups([("a", "Compare  fractions."), ("b", "compare fractions"), ("c", "Order numbers")])
    assert groups == [DedupGroup(normalized_text="compare fractions", component_identifiers=("a", "b"))]
    overlapping = [*groups, DedupGroup(normalized_text="x", component_identifiers=("b", "c"))]
    assert grouped_twice(overlapping) == ["b"]


def _document(location: Any, logical_name: str) -> dict[str, Any]:
    return json.loads(artifact_path(location, logical_name).read_text())


def test_the_component_report_is_recorded_with_the_package_state(world: FixtureWorld) -> None:
    location, result = _passed(world)
    assert result.accepted
    component_report = _document(location, "lcValidationReport")
    manifest = json.loads((location.path / "package_manifest.json").read_text())
    assert component_report["status"] == manifest["validation"]["status"] == "passed"
    assert component_report["validatorVersion"] == manifest["validation"]["validatorVersion"]
    assert PackageValidator(world.profiles()).validate(location).passed  # the recorded pass reads back whole


def test_a_refused_package_records_its_component_findings_in_the_component_report(world: FixtureWorld) -> None:
    graph = lc_graph(LC)
    graph.components.append(
        ComponentNode(identifier=stable_uuid(LC, "component", "lonely"), description="Lonely", in_language="en")
    )
    graph.items[-1] = replace(graph.items[-1], statement_type="NoSuchType")  # a finding about standards too
    location = world.write(graph)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert not lifecycle.validate(location).accepted
    whole = {f["code"] for f in _document(location, "validationReport")["findings"]}
    component_report = _document(location, "lcValidationReport")
    components = {f["code"] for f in component_report["findings"]}
    assert component_report["status"] == "failed"
    assert "unsupported_component" in components and components < whole


async def test_model_generated_components_are_served_llm_inferred_and_unresolved_evidence_unresolved(
    world: FixtureWorld,
) -> None:
    _passed(world)
    async with Client(create_app(state_for(world))) as client:
        answer = structured(
            await call(client, "get_learning_components_for_standard", {"frameworkId": LC, "statementCode": "NF.1"})
        )
        assert answer["package"]["components"] == {
            "production": "model_generated",
            "epistemicStatus": "llm_inferred",
            "source": "fixture-decomposer",
        }
        progressions = structured(
            await call(client, "get_standard_progressions", {"frameworkId": LC, "statementCode": "NF.2"})
        )
        assert progressions["package"]["labels"] == {"standards": "source_asserted", "links": "source_asserted"}
        notices = [n for n in progressions["warnings"]["items"] if n["code"] == "unresolved_reference"]
        assert notices and all(n["epistemicStatus"] == "unresolved" for n in notices)


def test_components_saying_the_same_are_grouped_and_the_package_passes(world: FixtureWorld) -> None:
    graph = lc_graph(LC)
    first = graph.components[1]  # "Partition a whole into equal parts"
    twin = ComponentNode(
        identifier=stable_uuid(LC, "component", "twin"),
        description="PARTITION a whole into equal parts!",
        in_language="en",
    )
    graph.components.append(twin)
    graph.link(SUPPORTS, twin.identifier, graph.items[-1].identifier, support_confidence=0.5)
    location = world.write(graph)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert lifecycle.validate(location).accepted
    groups = _document(location, "lcDedupGroups")["groups"]
    assert groups == [
        {
            "normalizedText": "partition a whole into equal parts",
            "componentIdentifiers": sorted([first.identifier, twin.identifier]),
        }
    ]
    counts = _document(location, "lcGenerationSummary")["counts"]
    assert (counts["dedupGroups"], counts["componentsInDedupGroups"], counts["components"]) == (1, 2, 3)
