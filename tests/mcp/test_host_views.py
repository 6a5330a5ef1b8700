"""Either view of every tool's answer alone is enough for a model to cite, as a host hands it over.

Every tool is called through FastMCP's in-memory client on the default catalog, with requests that
make every kind of record appear (search hits, a context's parents, ancestors and root paths, candidates
compared across two frameworks with their headings, learning components, progression links, a resource
window, workflow instructions). For each answer the text view (the text blocks alone) and the structured
view (``structuredContent`` alone) are checked separately by tests/host_views.py: every statement record
is in the text verbatim near an id, with its type and grades; every statement the text shows is in the
structured view; each cited package's licence and attribution (read from its manifest on disk) is in
both; a paged answer says how to continue in both, and its last page says ``nextCursor: null``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from host_views import (
    PackageFacts,
    cites_evidence,
    cursor_of,
    package_facts,
    report,
    structured_view_problems,
    text_view_problems,
    views_of,
)
from kgfegmcp.mcp.tools import example_calls
from tool_examples import default_specimens

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"
JP = "japan-mext-course-of-study-elementary"
AU = "australia-acara-v9-mathematics"
MAX_PAGES = 10


@dataclass(frozen=True)
class Ref:
    """An id looked up in the package on disk (never in an answer): ``node``/``uri`` of the standard with
    ``code``, ``component`` (first learning component supporting it), ``progression`` (its first
    outgoing buildsTowards link)."""

    kind: str
    framework: str
    code: str


def ef(code: str) -> dict[str, str]:
    return {"frameworkId": EF, "statementCode": code}


#: (label, request, follow): the tool is the label's first word; ``follow`` pages on through ``nextCursor``.
OWN_CALLS: tuple[tuple[str, dict[str, Any], bool], ...] = (
    ("list_frameworks", {}, False),
    ("list_frameworks limit 2", {"limit": 2}, True),
    ("get_framework EF", {"frameworkId": EF}, False),
    ("get_capabilities", {}, False),
    ("get_framework_statistics EF", {"frameworkId": EF}, False),
    ("search_standards frações EF limit 10", {"query": "frações", "frameworkIds": [EF], "limit": 10}, True),
    ("search_standards 'main idea' CCSS limit 10", {"query": "main idea", "frameworkIds": [CCSS], "limit": 10}, False),
    ("search_standards frações every package", {"query": "frações", "limit": 10}, False),
    ("search_standards code EF05MA03", {"query": "EF05MA03", "frameworkIds": [EF], "searchMode": "code"}, False),
    ("get_standard EF05MA03", ef("EF05MA03"), False),
    ("get_standard_context EF05MA03", ef("EF05MA03"), False),
    ("get_standard_context CCSS RL.3.2", {"frameworkId": CCSS, "statementCode": "RL.3.2"}, False),
    ("compare_framework_evidence EF+EM", {"query": "leitura texto", "frameworkIds": [EF, EM]}, False),
    ("compare_framework_evidence EF+CCSS", {"query": "texto", "frameworkIds": [EF, CCSS]}, False),
    ("search_learning_components frações", {"query": "frações", "frameworkIds": [EF], "limit": 10}, True),
    ("get_learning_component", {"frameworkId": EF, "nodeId": Ref("component", EF, "EF01CI01")}, False),
    ("get_learning_components_for_standard EF01CI01", ef("EF01CI01"), False),
    ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": Ref("component", EF, "EF01CI01")}, False),
    ("get_standard_progressions EF01CI03", ef("EF01CI03"), False),
    ("get_standard_progressions EF01MA05 limit 2", {**ef("EF01MA05"), "limit": 2}, True),
    ("search_learning_progressions frações", {"frameworkId": EF, "query": "frações"}, False),
    ("get_learning_progression", {"frameworkId": EF, "progressionId": Ref("progression", EF, "EF01CI03")}, False),
    ("traverse_learning_progressions EF01CI03", ef("EF01CI03"), False),
    ("find_learning_progression_paths EF01MA05>EF04MA03", {"from": ef("EF01MA05"), "to": ef("EF04MA03")}, False),
    ("read_evidence standard EF05MA03", {"uri": Ref("uri", EF, "EF05MA03")}, False),
    ("read_evidence standard EF05MA03 window 1024", {"uri": Ref("uri", EF, "EF05MA03"), "windowBytes": 1024}, True),
    ("get_workflow_instructions practice", {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}, False),
    # The curricula read from official files: MEXT's Course of Study (Japanese, codes of 16 characters) and ACARA.
    ("get_framework MEXT", {"frameworkId": JP}, False),
    ("get_framework_statistics ACARA", {"frameworkId": AU}, False),
    ("search_standards 分数 MEXT limit 10", {"query": "分数", "frameworkIds": [JP], "limit": 10}, True),
    ("search_standards 第3学年 分数 MEXT", {"query": "第3学年 分数", "frameworkIds": [JP], "limit": 10}, False),
    ("search_standards 'Year 3 fractions' ACARA", {"query": "Year 3 fractions", "frameworkIds": [AU], "limit": 10}, False),
    ("search_standards code AC9M3N02", {"query": "AC9M3N02", "frameworkIds": [AU], "searchMode": "code"}, False),
    ("get_standard MEXT 8250233161200000", {"frameworkId": JP, "statementCode": "8250233161200000"}, False),
    ("get_standard ACARA AC9M3N02", {"frameworkId": AU, "statementCode": "AC9M3N02"}, False),
    ("get_standard_context MEXT 8250233161200000", {"frameworkId": JP, "statementCode": "8250233161200000"}, False),
    ("get_standard_context ACARA AC9M3N02", {"frameworkId": AU, "statementCode": "AC9M3N02"}, False),
    ("get_standard_progressions ACARA AC9M3N02", {"frameworkId": AU, "statementCode": "AC9M3N02"}, False),
    ("compare_framework_evidence BNCC+CCSS+ACARA+MEXT", {"frameworkIds": [EF, CCSS, AU, JP], "queries": {EF: "frações", CCSS: "fractions", AU: "fractions", JP: "分数"}}, False),
    ("read_evidence standard MEXT", {"uri": Ref("uri", JP, "8250233161200000")}, False),
    ("get_workflow_instructions MEXT lesson", {"workflow": "practice_item_set", "frameworkId": JP, "topic": "分数"}, False),
)  # fmt: skip
#: What a tool's example request names in the default catalog.
SPECIMENS = default_specimens(
    component=Ref("component", EF, "EF05MA03"),
    progression=Ref("progression", EF, "EF05MA03"),
    uri=Ref("uri", EF, "EF05MA03"),
)
#: The calls above, then the example of each tool they do not drive (a new tool's).
HOST_CALLS = OWN_CALLS + tuple(
    (f"{tool} example", request, False)
    for tool, request in example_calls(SPECIMENS, besides={label.split()[0] for label, _, _ in OWN_CALLS})
)


@cache
def _disk(root: Path, framework_id: str) -> tuple[str, dict[str, str], list[dict[str, Any]]]:
    """(snapshot id, node id by statement code, relationships) of a framework's package on disk."""
    (manifest_path,) = sorted(root.glob(f"{framework_id}/*/package_manifest.json"))
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    paths = {a["logicalName"]: manifest_path.parent / a["path"] for a in manifest["artifacts"]}
    codes: dict[str, str] = {}
    for line in paths["nodes"].read_text(encoding="utf-8").splitlines():
        node = json.loads(line)
        code = node.get("properties", {}).get("statementCode")
        if isinstance(code, str):
            codes.setdefault(code, node["identifier"])
    relationships = [json.loads(line) for line in paths["relationships"].read_text(encoding="utf-8").splitlines()]
    return manifest["snapshotId"], codes, relationships


def resolve(value: Any, root: Path) -> Any:
    """``value`` with every :class:`Ref` replaced by the id it names in the packages on disk."""
    if isinstance(value, dict):
        return {key: resolve(item, root) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, root) for item in value]
    if not isinstance(value, Ref):
        return value
    snapshot, codes, relationships = _disk(root, value.framework)
    node = codes[value.code]
    if value.kind == "node":
        return node
    if value.kind == "uri":
        return f"kgfegmcp://framework/{value.framework}/snapshot/{snapshot}/standard/{node}"
    if value.kind == "component":
        return next(
            r["source_identifier"] for r in relationships if r["label"] == "supports" and r["target_identifier"] == node
        )
    if value.kind == "progression":
        return next(
            r["identifier"] for r in relationships if r["label"] == "buildsTowards" and r["source_identifier"] == node
        )
    raise AssertionError(f"unknown reference kind {value.kind!r}")


@pytest.fixture(scope="session")
def facts(default_catalog_root: Path) -> dict[str, PackageFacts]:
    """Licence, attribution and statement texts of every default package, read from disk."""
    return package_facts(default_catalog_root)


async def paged_tools(client: Client[Any]) -> set[str]:
    """Tools whose request takes a ``cursor`` (read from ``tools/list``)."""
    paged = set()
    for tool in (await client.list_tools_mcp()).tools:
        request = tool.input_schema.get("properties", {}).get("request", {})
        ref = request.get("$ref", "")
        if ref.startswith("#/$defs/"):
            request = tool.input_schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
        if "cursor" in request.get("properties", {}):
            paged.add(tool.name)
    return paged


async def host_views(client: Client[Any], tool: str, request: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC result of one call as the client received it (``None`` values kept: ``nextCursor: null``)."""
    result = await client.call_tool_mcp(tool, {"request": request})
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True)
    dumped["structuredContent"] = result.structured_content
    return dumped


async def test_every_tool_is_driven(default_client: Client[Any]) -> None:
    """The calls cover the whole public surface (a new tool's example at least)."""
    listed = {tool.name for tool in await default_client.list_tools()}
    assert {label.split()[0] for label, _, _ in HOST_CALLS} == listed


@pytest.mark.parametrize(("label", "template", "follow"), HOST_CALLS, ids=[c[0] for c in HOST_CALLS])
async def test_each_view_alone_carries_what_a_citation_needs(
    default_client: Client[Any],
    default_catalog_root: Path,
    facts: dict[str, PackageFacts],
    label: str,
    template: dict[str, Any],
    follow: bool,
) -> None:
    tool = label.split()[0]
    paged = tool in await paged_tools(default_client)
    request = resolve(template, default_catalog_root)
    problems: list[str] = []
    for number in range(1, MAX_PAGES + 1):
        result = await host_views(default_client, tool, request)
        views = views_of(result)
        assert not result.get("isError"), f"{label}: refused: {views.text}"
        assert views.structured is not None, f"{label}: no structured content"
        cites = cites_evidence(tool, views.structured)
        where = f"page {number}: " if follow else ""
        problems += [
            where + p for p in text_view_problems(views.blocks, views.structured, facts, cites=cites, paged=paged)
        ]
        problems += [
            where + p for p in structured_view_problems(views.structured, views.text, facts, cites=cites, paged=paged)
        ]
        _, page = cursor_of(views.structured)
        if not follow or page is None or page.get("hasMore") is not True or not page.get("nextCursor"):
            break
        request = {**request, "cursor": page["nextCursor"]}
    else:
        raise AssertionError(f"{label}: more than {MAX_PAGES} pages")
    if follow:
        assert number > 1, f"{label}: meant to page, but the first page was the last"
    assert not problems, report(label, problems)
