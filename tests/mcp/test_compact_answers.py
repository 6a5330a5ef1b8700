"""Answers a host can afford: bounded sizes, each value once, citation fields kept, schemas that hold.

Sizes are measured as ``benchmarks/answer_sizes_measure.py`` measures them: the JSON-RPC ``result`` the client
receives, as compact UTF-8 JSON (text blocks, structured content and link blocks together).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import jsonschema
import pytest
from fastmcp import Client

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.rendering import rendered_size
from kgfegmcp.mcp.tools import TOOL_BY_NAME, example_calls
from tool_calls import call, structured, texts
from tool_examples import default_specimens

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"
CITATION = ("nodeId", "statementType", "gradeLevels", "description")


def ef(code: str) -> dict[str, str]:
    return {"frameworkId": EF, "statementCode": code}


#: One call of each tool (ids resolved in the test: ``<component>``, ``<link>`` and ``<standard uri>``).
OWN_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_frameworks", {}),
    ("get_framework", {"frameworkId": EF}),
    ("get_capabilities", {}),
    ("get_framework_statistics", {"frameworkId": EF}),
    ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("search_standards", {"query": "frações"}),
    ("get_standard", ef("EF05MA03")),
    ("get_standard_context", ef("EF05MA03")),
    ("compare_framework_evidence", {"query": "leitura texto", "frameworkIds": [EF, EM]}),
    ("search_learning_components", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("get_learning_component", {"frameworkId": EF, "nodeId": "<component>"}),
    ("get_learning_components_for_standard", ef("EF01CI01")),
    ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": "<component>"}),
    ("get_standard_progressions", ef("EF01CI03")),
    ("search_learning_progressions", {"frameworkId": EF, "query": "frações"}),
    ("get_learning_progression", {"frameworkId": EF, "progressionId": "<link>"}),
    ("traverse_learning_progressions", ef("EF01MA05")),
    ("find_learning_progression_paths", {"from": ef("EF01MA05"), "to": ef("EF04MA03")}),
    ("read_evidence", {"uri": "<standard uri>"}),
    ("get_workflow_instructions", {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}),
]
#: What a tool's example request names in the default catalog.
SPECIMENS = default_specimens(component="<component>", progression="<link>", uri="<standard uri>")
#: The calls above, then the example of each tool they do not call (a new tool's).
CALLS = OWN_CALLS + example_calls(SPECIMENS, besides={tool for tool, _ in OWN_CALLS})


async def answers(client: Client[Any]) -> list[tuple[str, Any]]:
    """Every call of :data:`CALLS` as the client receives it (``mcp.types.CallToolResult``)."""
    component = structured(await call(client, "get_learning_components_for_standard", ef("EF01CI01")))
    link = structured(await call(client, "get_standard_progressions", ef("EF01CI03")))
    standard = structured(await call(client, "get_standard", ef("EF05MA03")))
    values = {
        "<component>": component["supports"][0]["component"]["nodeId"],
        "<link>": link["links"][0]["relationshipId"],
        "<standard uri>": standard["standard"]["uri"],
    }
    found = []
    for tool, request in CALLS:
        filled = {key: values.get(value, value) if isinstance(value, str) else value for key, value in request.items()}
        result = await client.call_tool_mcp(tool, {"request": filled})
        assert not result.is_error, (tool, result.content)
        found.append((tool, result))
    return found


def sizes(result: Any) -> tuple[int, int]:
    """(whole result, first text block) in UTF-8 bytes, as benchmarks/answer_sizes_measure.py measures them."""
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    total = len(json.dumps(dumped, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return total, len(dumped["content"][0]["text"].encode("utf-8"))


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


@pytest.mark.parametrize(
    "request_fields",
    [
        {"query": "frações", "frameworkIds": [EF], "limit": 10},
        {"query": "main idea", "frameworkIds": [CCSS], "limit": 10},
    ],
)
async def test_a_ten_hit_search_spends_few_bytes_beyond_its_statements(
    default_client: Client[Any], request_fields: dict[str, Any]
) -> None:
    """Beyond the statement texts (and each package's attribution), at most 600 B + 150 B per hit in the text
    blocks and 1,200 B + 250 B per hit in the structured content."""
    result = await default_client.call_tool_mcp("search_standards", {"request": request_fields})
    body = result.structured_content
    hits = body["hits"]
    assert len(hits) == 10 and body["page"]["hasMore"]
    statements = sum(utf8(hit["description"]) for hit in hits)
    attributions = sum(utf8(package["attribution"]) for package in body["packages"])
    text = sum(utf8(block) for block in texts(result))
    compact = utf8(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    assert text - statements - attributions <= 600 + 150 * len(hits), text - statements - attributions
    assert compact - statements - attributions <= 1200 + 250 * len(hits), compact - statements - attributions


def standard_records(tool: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(graph-package id, record) of every standard record an answer holds."""
    if tool == "search_standards":
        return [(body["packages"][hit.get("package", 1) - 1]["graphPackageId"], hit) for hit in body["hits"]]
    if tool == "compare_framework_evidence":
        return [(f["package"]["graphPackageId"], c["standard"]) for f in body["frameworks"] for c in f["candidates"]]
    if "package" not in body:
        return []
    found = [body["standard"]] if isinstance(body.get("standard"), dict) else []
    found += [p for p in body.get("parents", []) if "statementType" in p] + body.get("children", [])
    listed = body.get("standards") if isinstance(body.get("standards"), list) else []
    found += [s.get("standard", s) for s in listed]
    found += body.get("nodes", []) if tool == "traverse_learning_progressions" else []
    return [(body["package"]["graphPackageId"], record) for record in found]


async def test_records_keep_what_a_citation_needs(default_client: Client[Any], default_state: AppState) -> None:
    """Code, text, grade, statement type, node id and the package, in every standard record of every answer."""
    checked = set()
    for tool, result in await answers(default_client):
        for package, record in standard_records(tool, result.structured_content):
            runtime = default_state.catalog.by_graph_package_id(package)
            assert runtime is not None, (tool, package)
            item = next(i for i in runtime.items if i.identifier == record["nodeId"])
            assert all(key in record for key in CITATION), (tool, record)
            assert record["description"] == item.description and record.get("statementCode") == item.statement_code
            assert record["statementType"] == item.statement_type and record["gradeLevels"] == list(item.grade_level)
            checked.add(tool)
    assert checked >= {name for name, _ in CALLS} - {
        "list_frameworks",
        "get_framework",
        "get_capabilities",
        "get_framework_statistics",
        "search_learning_components",
        "get_learning_component",
        "read_evidence",
        "get_workflow_instructions",
    }


async def test_each_package_is_named_once_with_short_disclosures(
    default_client: Client[Any], default_state: AppState
) -> None:
    """Disclosure texts live in get_framework and the resources; answers carry ids, one sentence and the link."""
    full_texts = {d.text for p in default_state.catalog.packages for d in p.profile.profile.disclosures}
    for tool, result in await answers(default_client):
        if tool in ("get_framework", "get_workflow_instructions", "read_evidence"):
            continue  # the full disclosures' home; the workflow's own rendering; a resource document
        wire = json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False)
        assert not any(text in wire for text in full_texts), tool
        body, summary = result.structured_content, texts(result)[0]
        entries = body["packages"] if "packages" in body else [body["package"]] if "package" in body else []
        entries += [f["package"] for f in body.get("frameworks", []) if "package" in f]
        entries += [f for f in body.get("frameworks", []) if "disclosureIds" in f]
        if tool in TEXT_IS_JSON:
            continue
        sharing = Counter(", ".join(entry["disclosureIds"]) for entry in entries)
        for entry in entries:
            # One line per package: its id, its disclosure ids and the link to read them, said once (packages of
            # one profile share their disclosure ids, each on its own line).
            assert summary.count(", ".join(entry["disclosureIds"])) == sharing[", ".join(entry["disclosureIds"])]
            assert entry["uri"] in summary, tool
        if tool == "get_capabilities":
            for package in body["packages"]:
                assert package["disclosureIds"] and package["uri"] in summary


TEXT_IS_JSON = {
    "get_standard_progressions",
    "search_learning_progressions",
    "get_learning_progression",
    "traverse_learning_progressions",
    "find_learning_progression_paths",
}


async def test_structured_content_matches_the_result_models_schema(default_client: Client[Any]) -> None:
    """Each tool's structured content is valid against its result model's JSON Schema (docs/tools.md fields)."""
    for tool, result in await answers(default_client):
        schema = TOOL_BY_NAME[tool].result.model_json_schema(by_alias=True, mode="serialization")
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(result.structured_content)


async def test_every_answer_is_byte_identical_when_asked_again(default_client: Client[Any]) -> None:
    first = [result.model_dump(mode="json", by_alias=True) for _, result in await answers(default_client)]
    second = [result.model_dump(mode="json", by_alias=True) for _, result in await answers(default_client)]
    assert json.dumps(first, ensure_ascii=False) == json.dumps(second, ensure_ascii=False)


async def test_progression_results_name_each_standard_once(default_client: Client[Any]) -> None:
    for tool, result in await answers(default_client):
        if tool not in TEXT_IS_JSON:
            continue
        body = result.structured_content
        assert json.loads(result.content[0].text) == body  # the text is the complete canonical JSON
        named = [s["nodeId"] for s in body.get("standards", body.get("nodes", []))]
        assert len(named) == len(set(named)), tool
        links = body.get("links", []) + ([body["link"]] if "link" in body else [])
        for link in links:
            assert {link["sourceNodeId"], link["targetNodeId"]} <= set(named), tool
        for node in body.get("nodes", []):
            assert {link["to"] for link in node.get("followed", [])} <= set(named), tool


async def test_a_traversal_at_its_default_caps_is_bounded_by_its_caps_not_by_size(
    default_client: Client[Any],
) -> None:
    """EF01MA05: every link within the default depth fits; and 100 links (the edge cap) fit the ceiling."""
    defaults = structured(await call(default_client, "traverse_learning_progressions", ef("EF01MA05")))
    assert "byte_limit" not in defaults["truncationReasons"]
    assert defaults["counters"]["edgesReturned"] == defaults["counters"]["edgesFollowed"] > 80
    for request in ({**ef("EF01MA05"), "maxDepth": 12}, {**ef("EF01MA05"), "direction": "both"}):
        result = await call(default_client, "traverse_learning_progressions", request)
        body = structured(result)
        assert body["counters"]["edgesReturned"] == 100 and body["truncationReasons"] == ["max_edges"], request
        assert rendered_size(body).fits
