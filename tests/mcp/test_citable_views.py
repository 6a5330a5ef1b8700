"""Either view alone is enough to cite: whole statements, one package numbering, attribution, the last
page's null cursor, and a progression link's provenance that can be followed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from tool_calls import call, structured, texts

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"


def ef(code: str) -> dict[str, str]:
    return {"frameworkId": EF, "statementCode": code}


def text_of(result: Any) -> str:
    return "\n".join(texts(result))


def described(value: Any) -> list[dict[str, Any]]:
    """Every object of a structured answer that carries a statement's (or component's) text."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if isinstance(value.get("description"), str) and "nodeId" in value:
            found.append(value)
        for item in value.values():
            found += described(item)
    elif isinstance(value, list):
        for item in value:
            found += described(item)
    return found


#: Tools whose text is a summary (the other tools' text is the canonical JSON itself).
SUMMARY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("search_standards", {"query": "frações", "limit": 10}),
    ("search_standards", {"query": "main idea", "frameworkIds": [CCSS], "limit": 10}),
    ("get_standard", ef("EF05MA03")),
    ("get_standard_context", ef("EF05MA03")),
    ("get_standard_context", {**ef("EF05MA03"), "ancestorDepth": 1}),
    ("compare_framework_evidence", {"query": "leitura texto", "frameworkIds": [EF, EM]}),
    ("search_learning_components", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("get_learning_components_for_standard", ef("EF01CI01")),
    ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": "<component>"}),
    ("get_learning_component", {"frameworkId": EF, "nodeId": "<component>"}),
]


async def summary_answers(client: Client[Any]) -> list[tuple[str, dict[str, Any], Any]]:
    supports = structured(await call(client, "get_learning_components_for_standard", ef("EF01CI01")))
    component = supports["supports"][0]["component"]["nodeId"]
    found = []
    for tool, request in SUMMARY_CALLS:
        filled = {k: component if v == "<component>" else v for k, v in request.items()}
        found.append((tool, filled, await call(client, tool, filled)))
    return found


async def test_the_text_carries_every_statement_whole_with_its_citation_fields(default_client: Client[Any]) -> None:
    """Every record the structured content describes is in the text verbatim, with its node id, code, type and
    grade labels: a text-only host can cite without another call."""
    for tool, request, result in await summary_answers(default_client):
        text = text_of(result)
        records = described(structured(result))
        assert records, (tool, request)
        for record in records:
            assert record["description"] in text, (tool, request, record["description"])
            # Cited by node id, or by its code where the code alone selects it (no codeSelects: false).
            by_code = record.get("statementCode") and record.get("codeSelects") is None
            assert record["nodeId"] in text or by_code, (tool, request, record["nodeId"])
            if record.get("statementCode"):
                assert f"[{record['statementCode']}] {record['description']}" in text, (tool, record)
            if "statementType" in record:
                grades = ", ".join(record.get("gradeLevels") or []) or "no grade"
                cited = (
                    ""
                    if by_code and f"({record['statementType']}; {grades})" in text
                    else f"; nodeId {record['nodeId']}"
                )
                assert f"({record['statementType']}; {grades}{cited}" in text, (tool, record)


async def test_a_context_names_every_ancestor_and_root_path_node_in_both_views(default_client: Client[Any]) -> None:
    """Nodes on a root path beyond the ancestor bound are described once (pathNodes), so no path names a node
    that neither view describes."""
    for depth in (1, 8):
        result = await call(default_client, "get_standard_context", {**ef("EF05MA03"), "ancestorDepth": depth})
        body, text = structured(result), text_of(result)
        described_ids = [r["nodeId"] for r in [body["standard"], *body["parents"], *body["ancestors"]]]
        described_ids += [r["nodeId"] for r in body["pathNodes"]]
        assert len(described_ids) == len(set(described_ids)), depth  # each node once
        on_paths = {node for path in body["rootPaths"] for node in path["nodeIds"]}
        assert on_paths and on_paths <= set(described_ids), depth
        for node in [*body["ancestors"], *body["pathNodes"]]:
            assert node.get("description", node.get("name")) in text, (depth, node)
        if depth == 1:
            assert body["pathNodes"] and not body["ancestors"]


async def test_package_numbers_are_one_numbering_in_both_views(default_client: Client[Any], default_state: Any) -> None:
    """A hit's ``package`` is the 1-based number of its package entry, and the text says the same number."""
    result = await call(default_client, "search_standards", {"query": "leitura", "limit": 25})
    body, text = structured(result), text_of(result)
    packages = body["packages"]
    assert len(packages) > 1
    assert [p["number"] for p in packages] == list(range(1, len(packages) + 1))
    used = set()
    for hit in body["hits"]:
        entry = packages[hit["package"] - 1]
        assert entry["number"] == hit["package"]
        cited = f"[{hit['statementCode']}] {hit['description']}" if "codeSelects" not in hit else hit["nodeId"]
        line = next(line for line in text.splitlines() if line.startswith(f"{hit['rank']}. "))
        assert cited in line and line.endswith(f"; package {hit['package']})")
        runtime = default_state.catalog.by_graph_package_id(entry["graphPackageId"])
        assert runtime.store.item(hit["nodeId"]) is not None  # the hit is in the package its number names
        used.add(hit["package"])
    for entry in packages:
        assert f"Package {entry['number']}: {entry['graphPackageId']} " in text
    assert used == {p["number"] for p in packages}


async def test_every_cited_package_gives_licence_attribution_manifest_and_files_in_both_views(
    default_client: Client[Any], default_state: Any
) -> None:
    for tool, request, result in await summary_answers(default_client):
        body, text = structured(result), text_of(result)
        entries = body.get("packages") or [body["package"]] if "package" in body or "packages" in body else []
        entries += [f["package"] for f in body.get("frameworks", [])]
        assert entries, (tool, request)
        for entry in entries:
            package = default_state.catalog.by_graph_package_id(entry["graphPackageId"])
            rights = package.manifest.rights
            assert entry["attribution"] == rights.attribution_statement
            assert text.split("\n").count(f"  Attribution: {rights.attribution_statement}") == 1, (tool, request)
            assert entry["license"] in ("CC BY 4.0", "CC BY 3.0 US")
            assert f"licence {entry['license']}" in text
            assert entry["manifestUri"] == entry["uri"] + "/manifest"
            assert f" at {entry['uri']} (manifest: add /manifest)" in text
            assert f"nodes {entry['builtFrom']['nodes']}" in text and entry["builtFrom"]["profile"] in text


async def test_component_attributions_are_verbatim_in_the_text(default_client: Client[Any]) -> None:
    for tool, request, result in await summary_answers(default_client):
        body, text = structured(result), text_of(result)
        for attribution in body.get("attributions", []):
            for value in attribution.values():
                assert value in text, (tool, request, value)


PAGED: list[tuple[str, dict[str, Any]]] = [
    ("list_frameworks", {}),
    ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 100}),
    ("search_learning_components", {"query": "frações", "frameworkIds": [EF], "limit": 100}),
    ("get_standard_progressions", ef("EF01CI03")),
    ("search_learning_progressions", {"frameworkId": EF, "query": "frações", "limit": 100}),
]


@pytest.mark.parametrize(("tool", "request_fields"), PAGED, ids=[tool for tool, _ in PAGED])
async def test_the_last_page_reports_next_cursor_null(
    default_client: Client[Any], tool: str, request_fields: dict[str, Any]
) -> None:
    """The spec: on the last page the structured result still reports hasMore (false) and nextCursor (null)."""
    result = await call(default_client, tool, request_fields)
    page = structured(result)["page"]
    assert page["hasMore"] is False
    assert "nextCursor" in page and page["nextCursor"] is None
    if tool in ("get_standard_progressions", "search_learning_progressions"):
        assert json.loads(texts(result)[0])["page"]["nextCursor"] is None  # the canonical JSON text too
    schema = {t.name: t for t in await default_client.list_tools()}[tool].output_schema
    assert schema is not None
    page_schema = schema["properties"]["page"]
    assert "nextCursor" in page_schema["required"]
    assert page_schema["properties"]["nextCursor"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


async def test_a_progression_links_provenance_address_resolves(default_client: Client[Any]) -> None:
    """``package.linkProvenance`` with a link's id is an address read_evidence and resources/read both open,
    and what it opens is that link with its provenance record."""
    body = structured(await call(default_client, "get_standard_progressions", ef("EF01CI03")))
    rule = body["package"]["linkProvenance"]
    assert rule == body["package"]["uri"] + "/learning-progression/{relationshipId}"
    link = body["links"][0]
    address = rule.replace("{relationshipId}", link["relationshipId"])
    evidence = structured(await call(default_client, "read_evidence", {"uri": address}))
    assert evidence["reachedEnd"]
    document = json.loads(evidence["window"]["text"])
    read = await default_client.read_resource(address)
    resource = json.loads(read[0].text)  # type: ignore[union-attr]
    for opened in (document, resource):
        assert opened["relationship"]["relationshipId"] == link["relationshipId"]
        assert opened["provenance"]["record"], "the document carries the link's provenance record"
