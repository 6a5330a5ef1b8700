"""Resources over the real default catalog (BNCC, Mapa de Foco, CCSS, MEXT, ACARA), as shipped rights allow.

Every supplied package declares provisional_operator_approved with allowFullText and
allowStandardResources but not allowBulkResource: standards, provenance and relationships resolve,
the bulk artifacts are denied.
"""

from __future__ import annotations

import json
from typing import Any

from fastmcp import Client
from mcp.types import ResourceLink
from resource_calls import outcome, read, read_all_windows, read_code

from kgfegmcp.bootstrap import AppState
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import BUILDS_TOWARDS, SUPPORTS
from kgfegmcp.resources import uris

EF = "brazil-bncc-ensino-fundamental"
BULK = (
    "academicStandardsBundle",
    "entityProvenance",
    "nodes",
    "relationships",
    "relationshipsHasChild",
    "standardsFramework",
    "standardsFrameworkItems",
)


async def test_standard_and_its_provenance_resolve(default_client: Client[Any], default_state: AppState) -> None:
    for runtime in default_state.catalog.packages:
        rights = runtime.manifest.rights
        assert (rights.review_status, rights.allow_full_text, rights.allow_standard_resources) == (
            "provisional_operator_approved",
            True,
            True,
        )
        item = runtime.items[len(runtime.items) // 2]
        fid, sid = runtime.framework_id, runtime.snapshot_id
        data, meta = await read(default_client, uris.standard_uri(fid, sid, item.identifier))
        assert json.loads(data)["standard"]["description"] == item.description
        assert meta["attribution"]["sourceLicense"] == rights.source_license
        provenance, meta = await read(default_client, uris.standard_provenance_uri(fid, sid, item.identifier))
        document = json.loads(provenance)
        assert document["provenancePart"] == provenance_part_of(item.identifier)
        assert document["provenance"]["epistemicStatus"] in ("source_asserted", "source_extracted")
        assert meta["sourceArtifacts"][0]["logicalArtifact"] == f"entityProvenancePart{document['provenancePart']:02d}"


async def test_bulk_artifacts_are_denied_by_default_rights(
    default_client: Client[Any], default_state: AppState
) -> None:
    for runtime in default_state.catalog.packages:
        assert runtime.manifest.rights.allow_bulk_resource is False
        for name in BULK:
            uri = uris.artifact_uri(runtime.framework_id, runtime.snapshot_id, name)
            assert await read_code(default_client, uri) == "resource_access_denied", uri
        for name in ("validationReport", "unresolvedItems"):
            assert (
                await outcome(default_client, uris.artifact_uri(runtime.framework_id, runtime.snapshot_id, name))
                == "ok"
            )


async def test_progression_and_component_resources(default_client: Client[Any], default_state: AppState) -> None:
    runtime = default_state.catalog.resolve(EF)
    fid, sid = runtime.framework_id, runtime.snapshot_id
    link = next(r for r in runtime.relationships if r.label == BUILDS_TOWARDS)
    data, _ = await read(default_client, uris.learning_progression_uri(fid, sid, link.identifier))
    document = json.loads(data)
    assert document["relationship"]["label"] == BUILDS_TOWARDS
    assert document["provenance"]["record"] is not None
    support = next(r for r in runtime.relationships if r.label == SUPPORTS)
    component, _ = await read(default_client, uris.learning_component_uri(fid, sid, support.source_identifier))
    assert json.loads(component)["learningComponent"]["nodeId"] == support.source_identifier
    assert (
        await outcome(default_client, uris.learning_component_provenance_uri(fid, sid, support.source_identifier))
        == "ok"
    )
    assert (
        await read_code(default_client, uris.standard_uri(fid, sid, support.source_identifier)) == "resource_not_found"
    )


def _uris_in(value: Any, found: set[str]) -> None:
    if isinstance(value, str) and value.startswith(uris.SCHEME):
        if "{relationshipId}" in value:  # a package's linkProvenance rule: applied to the answer's links below
            return
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _uris_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _uris_in(item, found)


def _relationship_ids(value: Any) -> list[str]:
    """Every relationshipId an answer holds (links, followed links, paths)."""
    if isinstance(value, dict):
        found = [value["relationshipId"]] if isinstance(value.get("relationshipId"), str) else []
        found += list(value.get("relationshipIds", []))
        return found + [r for item in value.values() for r in _relationship_ids(item)]
    if isinstance(value, list):
        return [r for item in value for r in _relationship_ids(item)]
    return []


def _package_uris(body: dict[str, Any]) -> list[str]:
    """The package links an answer gives (one per package it names)."""
    found = [body["package"]["uri"]] if isinstance(body.get("package"), dict) else []
    found += [p["uri"] for p in body.get("packages", [])]
    for section in body.get("frameworks", []):
        found.append(section["package"]["uri"] if "package" in section else section["uri"])
    return found


def _rule_uris(value: Any, base: str, found: set[str]) -> None:
    """The entity links the URI rule builds from the ids an answer holds (its package's uri + kind + id)."""
    if isinstance(value, dict):
        if "nodeId" in value and "statementType" in value:
            found.update({f"{base}/standard/{value['nodeId']}", f"{base}/standard/{value['nodeId']}/provenance"})
        if "nodeId" in value and "supportsCount" in value:
            component = f"{base}/learning-component/{value['nodeId']}"
            found.update({component, f"{component}/provenance"})
        if "relationshipId" in value and ("linkType" in value or "to" in value):
            found.add(f"{base}/learning-progression/{value['relationshipId']}")
        if "relationshipId" in value:
            found.add(f"{base}/relationship/{value['relationshipId']}")
        for item in value.values():
            _rule_uris(item, base, found)
    elif isinstance(value, list):
        for item in value:
            _rule_uris(item, base, found)


async def test_every_uri_a_tool_returns_resolves(default_client: Client[Any], default_state: AppState) -> None:
    """Resource links, every kgfegmcp:// URI inside structured content, and every link the URI rule builds
    from the ids an answer holds, open under the shipped rights."""
    runtime = default_state.catalog.resolve(EF)
    component = runtime.components[0].identifier
    link = next(r for r in runtime.relationships if r.label == BUILDS_TOWARDS)
    code = {"frameworkId": EF, "statementCode": "EF05MA04"}
    requests: list[tuple[str, dict[str, Any]]] = [
        ("list_frameworks", {}),
        ("get_framework", {"frameworkId": EF}),
        ("get_standard", code),
        ("get_standard_context", code),
        ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 5}),
        ("compare_framework_evidence", {"query": "frações", "frameworkIds": [EF, "brazil-bncc-ensino-medio"]}),
        ("search_learning_components", {"query": "frações", "limit": 5}),
        ("get_learning_component", {"frameworkId": EF, "nodeId": component}),
        ("get_learning_components_for_standard", code),
        ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": component}),
        ("get_standard_progressions", code),
        ("search_learning_progressions", {"frameworkId": EF, "limit": 5}),
        ("get_learning_progression", {"frameworkId": EF, "progressionId": link.identifier}),
        ("traverse_learning_progressions", {"frameworkId": EF, "nodeId": link.source_identifier, "maxDepth": 2}),
        (
            "find_learning_progression_paths",
            {
                "from": {"frameworkId": EF, "nodeId": link.source_identifier},
                "to": {"frameworkId": EF, "nodeId": link.target_identifier},
            },
        ),
    ]
    links = 0
    built = 0
    for tool, request in requests:
        result = await default_client.call_tool(tool, {"request": request}, raise_on_error=False)
        assert not result.is_error, (tool, result.content)
        body = result.structured_content
        assert isinstance(body, dict)
        found: set[str] = set()
        _uris_in(body, found)
        for block in result.content:
            if isinstance(block, ResourceLink):
                links += 1
                found.add(str(block.uri))
        assert found, tool
        rule_of_links = body.get("package", {}).get("linkProvenance")
        if rule_of_links:
            ids = {r for r in _relationship_ids(body)}
            assert ids, tool
            found |= {rule_of_links.replace("{relationshipId}", identifier) for identifier in ids}
        packages = _package_uris(body)
        if len(packages) == 1:  # multi-package answers: the rule is applied per package below for search
            rule: set[str] = set()
            _rule_uris(body, packages[0], rule)
            built += len(rule - found)
            found |= rule
        elif tool == "search_standards":
            for hit in body["hits"]:
                found.add(f"{packages[hit.get('package', 1) - 1]}/standard/{hit['nodeId']}")
        for uri in sorted(found):
            assert await outcome(default_client, uri) == "ok", (tool, uri)
    # get_framework (manifest), get_standard, get_standard_context, get_learning_component and
    # get_learning_components_for_standard cite their evidence as resource links; every other entity
    # is reached by the URI rule from the ids the answers hold.
    assert links >= 5 and built >= 50


async def test_read_evidence_over_a_real_provenance_document(
    default_client: Client[Any], default_state: AppState
) -> None:
    runtime = default_state.catalog.resolve(EF)
    item = runtime.items[0]
    uri = uris.standard_provenance_uri(runtime.framework_id, runtime.snapshot_id, item.identifier)
    data, _ = await read(default_client, uri)
    windows = await read_all_windows(default_client, uri, 64)
    assert b"".join(w["window"]["text"].encode("utf-8") for w in windows) == data
    assert len(windows) > 1
