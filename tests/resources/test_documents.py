"""What a resource document is: exact bytes, honest metadata, deterministic derived views, no paths.

Also the surface itself (one resource, fourteen templates, in the listed order), the size policy
(denial, never truncation) and the masked resource error.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from fastmcp import Client
from mcp.types import ResourceLink
from resource_calls import outcome, read, read_error

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.epistemic import EPISTEMIC_LABELS, component_label
from kgfegmcp.core.models import canonical_bytes, sha256_hex
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, PROVENANCE_PART_ARTIFACTS
from kgfegmcp.resources import addresses, uris
from kgfegmcp.resources.families import FAMILIES
from kgfegmcp.services.views import package_identity, standard_view
from mcp import MCPError
from package_factory import LC, FixtureWorld, state_for
from resource_worlds import EXTRAS, VARIANTS, lc_ids, small_lc_world

IDS = lc_ids()
SID = next(v.snapshot_id for v in VARIANTS if v.review_status == "approved" and all(v.flags))

TEMPLATES = [
    "kgfegmcp://framework/{framework_id}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/manifest",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/validation",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/profile",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/unresolved",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/standard/{node_id}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/standard/{node_id}/provenance",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/relationship/{relationship_id}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/learning-component/{node_id}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/learning-component/{node_id}/provenance",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/learning-progression/{relationship_id}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/provenance-part/{part}",
    "kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}/artifact/{logical_name}",
]


def every_readable_uri(sid: str = SID) -> list[str]:
    return [
        uris.CATALOG_URI,
        uris.framework_uri(LC),
        uris.snapshot_uri(LC, sid),
        uris.manifest_uri(LC, sid),
        uris.validation_uri(LC, sid),
        uris.profile_uri(LC, sid),
        uris.unresolved_uri(LC, sid),
        uris.standard_uri(LC, sid, IDS.standard),
        uris.standard_provenance_uri(LC, sid, IDS.standard),
        uris.relationship_uri(LC, sid, IDS.has_child),
        uris.learning_component_uri(LC, sid, IDS.component),
        uris.learning_component_provenance_uri(LC, sid, IDS.component),
        uris.learning_progression_uri(LC, sid, IDS.builds_towards),
        uris.provenance_part_uri(LC, sid, 7),
        *(uris.artifact_uri(LC, sid, name) for name in ("nodes", "entityProvenance", "validationReport")),
        *(uris.artifact_uri(LC, sid, e.logical_name) for e in EXTRAS if e.access_class is not None),
    ]


async def test_exactly_one_resource_and_fourteen_templates(matrix_client: Client[Any]) -> None:
    resources = await matrix_client.list_resources()
    templates = await matrix_client.list_resource_templates()
    assert [r.uri for r in resources] == ["kgfegmcp://catalog"]
    assert sorted(t.uri_template for t in templates) == sorted(TEMPLATES)
    assert [family.template for family in FAMILIES] == ["kgfegmcp://catalog", *TEMPLATES]  # in the listed order
    assert all(t.description for t in templates)


def test_templates_expand_to_the_uri_builders() -> None:
    """Each template, filled in, is exactly what resources/uris.py prints."""
    values = {
        "framework_id": LC,
        "snapshot_id": SID,
        "node_id": "n1",
        "relationship_id": "r1",
        "part": "07",
        "logical_name": "nodes",
    }
    expected = {
        uris.framework_uri(LC),
        uris.snapshot_uri(LC, SID),
        uris.manifest_uri(LC, SID),
        uris.validation_uri(LC, SID),
        uris.profile_uri(LC, SID),
        uris.unresolved_uri(LC, SID),
        uris.standard_uri(LC, SID, "n1"),
        uris.standard_provenance_uri(LC, SID, "n1"),
        uris.relationship_uri(LC, SID, "r1"),
        uris.learning_component_uri(LC, SID, "n1"),
        uris.learning_component_provenance_uri(LC, SID, "n1"),
        uris.learning_progression_uri(LC, SID, "r1"),
        uris.provenance_part_uri(LC, SID, 7),
        uris.artifact_uri(LC, SID, "nodes"),
    }
    assert {t.format(**values) for t in TEMPLATES} == expected


async def test_metadata_describes_the_exact_bytes(matrix_client: Client[Any], matrix_world: FixtureWorld) -> None:
    for uri in every_readable_uri():
        data, meta = await read(matrix_client, uri)
        assert meta["uri"] == uri
        assert meta["byteLength"] == len(data)
        assert meta["sha256"] == sha256_hex(data)
        assert meta["representation"] in ("raw_source", "deterministic_derived")
        assert meta["mimeType"]
        assert meta["sourceArtifacts"], uri
        for source in meta["sourceArtifacts"]:
            assert set(source) == {"graphPackageId", "logicalArtifact", "sha256", "bytes"}
        assert set(meta["epistemicStatus"]) <= set(EPISTEMIC_LABELS)  # the spec's vocabulary, nothing else
        if meta["representation"] == "deterministic_derived":
            assert data == canonical_bytes(json.loads(data)), uri  # canonical JSON, byte for byte
            assert "deterministic_derived" in meta["epistemicStatus"]


async def test_raw_documents_are_the_retained_bytes(matrix_client: Client[Any], matrix_state: AppState) -> None:
    runtime = matrix_state.catalog.by_graph_package_id(f"{LC}@{SID}")
    assert runtime is not None
    for entry in runtime.manifest.all_artifacts():
        if entry.logical_name.startswith("entityProvenancePart") or entry.logical_name == "operatorLog":
            continue
        data, meta = await read(matrix_client, uris.artifact_uri(LC, SID, entry.logical_name))
        assert data == (runtime.runtime.path / entry.path).read_bytes()
        assert meta["representation"] == "raw_source"
        assert meta["mimeType"] == entry.media_type
        assert meta["sourceArtifacts"] == [
            {
                "graphPackageId": runtime.graph_package_id,
                "logicalArtifact": entry.logical_name,
                "sha256": entry.sha256,
                "bytes": entry.bytes,
            }
        ]
    manifest, meta = await read(matrix_client, uris.manifest_uri(LC, SID))
    assert manifest == (runtime.runtime.path / "package_manifest.json").read_bytes()
    assert meta["representation"] == "raw_source"
    assert meta["sourceArtifacts"][0]["logicalArtifact"] == "packageManifest"
    profile, meta = await read(matrix_client, uris.profile_uri(LC, SID))
    assert sha256_hex(profile) == runtime.manifest.profile.sha256
    assert meta["epistemicStatus"] == ["accepted_derived"]


async def test_epistemic_labels_by_family(matrix_client: Client[Any]) -> None:
    labels = {}
    for uri in every_readable_uri():
        _, meta = await read(matrix_client, uri)
        labels[meta["family"] + ("/" + uri.rsplit("/", 1)[-1] if meta["family"] == "artifact" else "")] = meta[
            "epistemicStatus"
        ]
    assert labels["standard"] == ["deterministic_derived", "source_asserted"]
    assert labels["standard_provenance"] == ["deterministic_derived", "source_asserted"]
    assert labels["unresolved"] == ["source_extracted", "unresolved"]
    assert labels["artifact/nodes"] == ["llm_inferred", "source_extracted"]  # with the model-generated components
    assert labels["artifact/validationReport"] == ["deterministic_derived"]
    assert labels["artifact/operatorNotes"] == []  # an exposure contract states no epistemic status
    assert labels["catalog"] == ["deterministic_derived"]


async def test_each_role_is_served_with_its_declared_class_and_labels(
    matrix_client: Client[Any], matrix_state: AppState
) -> None:
    package = matrix_state.catalog.by_graph_package_id(f"{LC}@{SID}")
    assert package is not None
    generation = package.runtime.component_generation
    assert generation is not None
    components = component_label(generation.production, generation.human_reviewed)
    for entry in package.manifest.artifacts:
        role = ARTIFACT_ROLE[entry.logical_name]
        if role.by_logical_name:
            uri = uris.artifact_uri(LC, SID, role.logical_name)
        else:
            uri = uris.provenance_part_uri(LC, SID, PROVENANCE_PART_ARTIFACTS.index(role.logical_name))
        _, meta = await read(matrix_client, uri)
        assert meta["accessClass"] == role.access_class, uri
        assert meta["mimeType"] == role.media_type, uri
        assert meta["epistemicStatus"] == sorted({*role.labels, *([components] if role.carries_components else [])})


async def test_no_local_path_appears_anywhere(matrix_client: Client[Any], matrix_world: FixtureWorld) -> None:
    roots = {str(matrix_world.base), str(matrix_world.packages), str(matrix_world.profiles_root)}
    for uri in every_readable_uri():
        data, meta = await read(matrix_client, uri)
        text = data.decode("utf-8", errors="replace") + json.dumps(meta)
        assert not any(root in text for root in roots), uri
        result = await matrix_client.call_tool("read_evidence", {"request": {"uri": uri}}, raise_on_error=False)
        if not result.is_error:
            assert not any(root in json.dumps(result.structured_content) for root in roots)


async def test_derived_documents_are_deterministic(matrix_world: FixtureWorld, matrix_client: Client[Any]) -> None:
    """Two independently bootstrapped states over the same packages give byte-identical documents."""
    again = state_for(matrix_world)
    async with Client(create_app(again)) as other:
        for uri in every_readable_uri():
            first, first_meta = await read(matrix_client, uri)
            second, second_meta = await read(other, uri)
            assert (first, first_meta) == (second, second_meta), uri


async def test_standard_document_reuses_the_standard_view(matrix_client: Client[Any], matrix_state: AppState) -> None:
    runtime = matrix_state.catalog.by_graph_package_id(f"{LC}@{SID}")
    assert runtime is not None
    store = runtime.store
    item = store.item(IDS.standard)
    assert item is not None
    data, meta = await read(matrix_client, uris.standard_uri(LC, SID, IDS.standard))
    document = json.loads(data)
    assert document["standard"] == standard_view(runtime, item).to_wire()
    assert document["package"] == package_identity(runtime).to_wire()
    assert document["parentNodeIds"] == list(store.parents(IDS.standard))
    assert document["childNodeIds"] == list(store.children(IDS.standard))
    assert [s["logicalArtifact"] for s in meta["sourceArtifacts"]] == ["nodes", "relationships"]
    assert meta["attribution"]["attributionStatement"] == runtime.manifest.rights.attribution_statement


async def test_component_and_relationship_documents(matrix_client: Client[Any]) -> None:
    component = json.loads((await read(matrix_client, uris.learning_component_uri(LC, SID, IDS.component)))[0])
    assert component["learningComponent"]["nodeId"] == IDS.component
    assert component["learningComponent"]["provenanceUri"] == uris.learning_component_provenance_uri(
        LC, SID, IDS.component
    )
    for link in component["supports"]:
        assert await outcome(matrix_client, link["relationshipUri"]) == "ok"
        assert await outcome(matrix_client, link["standardUri"]) == "ok"
    progression = json.loads((await read(matrix_client, uris.learning_progression_uri(LC, SID, IDS.relates_to)))[0])
    relationship = progression["relationship"]
    assert relationship["label"] == "relatesTo"
    assert relationship["learningProgressionUri"] == uris.learning_progression_uri(LC, SID, IDS.relates_to)
    for key in ("sourceUri", "targetUri", "relationshipUri"):
        assert await outcome(matrix_client, relationship[key]) == "ok"
    assert await outcome(matrix_client, progression["provenance"]["provenancePartUri"]) == "ok"
    # The relationship family serves progression links too; the progression family serves nothing else.
    same = json.loads((await read(matrix_client, uris.relationship_uri(LC, SID, IDS.relates_to)))[0])
    assert same["relationship"] == relationship


async def test_snapshot_document_lists_what_the_rights_allow(matrix_client: Client[Any]) -> None:
    for variant in VARIANTS:
        document = json.loads((await read(matrix_client, uris.snapshot_uri(LC, variant.snapshot_id)))[0])
        for entry in [*document["resources"], *document["artifacts"]]:
            assert entry.get("uri") is None or (await outcome(matrix_client, entry["uri"]) == "ok") == entry["allowed"]
        names = [a["logicalArtifact"] for a in document["artifacts"]]
        assert "operatorLog" not in names and not any(n.startswith("entityProvenancePart") for n in names)
        families = {f["family"]: f["allowed"] for f in document["entityFamilies"]}
        granted = variant.reviewed and variant.allow_full_text and variant.allow_standard_resources
        assert families == dict.fromkeys(
            [
                "standard",
                "standard_provenance",
                "relationship",
                "learning_component",
                "learning_component_provenance",
                "learning_progression",
            ],
            granted,
        ) | {"provenance_part": granted and variant.allow_bulk_resource}  # a part of the bulk provenance file


# -- size policy ----------------------------------------------------------------------------------


async def test_size_limits_deny_rather_than_truncate(tmp_path: Any) -> None:
    world = small_lc_world(tmp_path)
    sid = "2026-01"
    generous = state_for(world)
    async with Client(create_app(generous)) as client:
        notes, _ = await read(client, uris.artifact_uri(LC, sid, "operatorNotes"))
        standard, _ = await read(client, uris.standard_uri(LC, sid, IDS.standard))
    small_source = state_for(world, max_source_read_bytes=len(notes) - 1)
    async with Client(create_app(small_source)) as client:
        message = await read_error(client, uris.artifact_uri(LC, sid, "operatorNotes"))
        assert message.startswith("resource_access_denied: ") and "source-read limit" in message
        assert await outcome(client, uris.standard_uri(LC, sid, IDS.standard)) == "ok"  # no source read
    small_return = state_for(world, max_returned_resource_bytes=len(standard) - 1)
    async with Client(create_app(small_return)) as client:
        message = await read_error(client, uris.standard_uri(LC, sid, IDS.standard))
        assert message.startswith("resource_access_denied: ") and "returned-resource limit" in message
        assert await outcome(client, uris.artifact_uri(LC, sid, "teacherNotes")) == "ok"
    exact = state_for(
        world, max_returned_resource_bytes=max(len(standard), len(notes)), max_source_read_bytes=len(notes)
    )
    async with Client(create_app(exact)) as client:
        assert (await read(client, uris.standard_uri(LC, sid, IDS.standard)))[0] == standard
        assert (await read(client, uris.artifact_uri(LC, sid, "operatorNotes")))[0] == notes


def test_default_size_limits(matrix_state: AppState) -> None:
    assert matrix_state.settings.max_source_read_bytes == 32 * 1024 * 1024
    assert matrix_state.settings.max_returned_resource_bytes == 8 * 1024 * 1024


# -- boundary -----------------------------------------------------------------------------------------


async def test_unexpected_failure_is_masked(matrix_world: FixtureWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    state = state_for(matrix_world)

    def explode(address: Any) -> Any:
        raise RuntimeError(f"secret detail {matrix_world.base}")

    monkeypatch.setattr(state.resources, "read", explode)
    async with Client(create_app(state)) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uris.standard_uri(LC, SID, IDS.standard))
    assert caught.value.error.message == "internal_error: The server could not read the resource."


async def test_a_read_parses_its_address_once(matrix_client: Client[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The boundary parses the URI; the request line, the handler and the service are given what it parsed."""
    parsed: list[str] = []
    parse = addresses.parse_address

    def counting(uri: str) -> Any:
        parsed.append(uri)
        return parse(uri)

    for module in [m for name, m in sys.modules.items() if name.startswith("kgfegmcp")]:
        if getattr(module, "parse_address", None) is parse:  # wherever it was imported by name, too
            monkeypatch.setattr(module, "parse_address", counting)
    uri = uris.standard_uri(LC, SID, IDS.standard)
    await read(matrix_client, uri)
    assert parsed == [uri]


async def test_links_in_tool_results_resolve(matrix_client: Client[Any]) -> None:
    """Every resource_link a tool returns over the fixture catalog opens."""
    requests = [
        ("get_framework", {"frameworkId": LC, "snapshotId": SID}),
        ("get_standard", {"frameworkId": LC, "snapshotId": SID, "nodeId": IDS.standard}),
        ("get_standard_context", {"frameworkId": LC, "snapshotId": SID, "nodeId": IDS.standard}),
        ("search_standards", {"query": "fraction", "frameworkIds": [LC], "snapshotIds": [SID]}),
    ]
    seen = 0
    for tool, request in requests:
        result = await matrix_client.call_tool(tool, {"request": request}, raise_on_error=False)
        assert not result.is_error, tool
        for block in result.content:
            if isinstance(block, ResourceLink):
                seen += 1
                assert await outcome(matrix_client, str(block.uri)) == "ok", (tool, block.uri)
        if tool == "search_standards":  # hits cite by node id; the package link + /standard/<nodeId> opens
            body = result.structured_content
            assert isinstance(body, dict) and body["hits"]
            for hit in body["hits"]:
                uri = f"{body['packages'][hit.get('package', 0)]['uri']}/standard/{hit['nodeId']}"
                assert await outcome(matrix_client, uri) == "ok", uri
    assert seen == 3  # the manifest, and the standard of get_standard and of get_standard_context
