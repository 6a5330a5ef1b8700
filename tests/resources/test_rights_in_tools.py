"""Rights before text, in every tool: a package whose rights do not permit full text gives no statement text.

One catalog per rights configuration (a learning-component package and a DAG package, both under the
configuration's rights), served through FastMCP's in-memory client. Every tool is called (its example request);
the expected outcome is written from the rights page, independently of the server's predicate: full text
needs review state ``approved`` or ``provisional_operator_approved`` and ``allowFullText``.

* Allowed: every record carries its text, in the structured content and in the text blocks; no notice.
* Withheld: neither view holds any fixture text (every item's and component's description, and the
  unresolved report's source text, whole or its first characters), every record still carries its id,
  statement type, grade labels and code, and both views carry the notice ``full_text_not_permitted``
  with the reason (the review state, or allowFullText). ``read_evidence`` of a standard is refused.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.client import CallToolResult

from kgfegmcp.app import create_app
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.mcp.tools import TOOLS, Specimens, example_calls
from kgfegmcp.packages.records import BUILDS_TOWARDS
from kgfegmcp.resources import uris
from package_factory import DAG, LC, dag_graph, lc_graph, standard_world, state_for
from resource_worlds import EVERY_RIGHT, Variant, validate_all
from tool_calls import texts

NOTICE = "full_text_not_permitted"
#: Characters of a text's start that must not appear either (a clipped snippet is a leak too).
PREFIX_CHARS = 16


@dataclass(frozen=True)
class Config:
    """One rights configuration and what the rights page says it permits."""

    review_status: str
    allow_full_text: bool

    @property
    def text_permitted(self) -> bool:
        return self.review_status in ("approved", "provisional_operator_approved") and self.allow_full_text

    @property
    def reason_words(self) -> str:
        """What the notice's reason must name."""
        return f"'{self.review_status}'" if self.allow_full_text else "allowFullText"

    def rights(self) -> RightsPolicy:
        """The resource tests' fixture rights, standard resources allowed and bulk not."""
        return Variant(self.review_status, self.allow_full_text, True, False).rights()

    def __str__(self) -> str:
        return f"{self.review_status}-{'text' if self.allow_full_text else 'notext'}"


CONFIGS = (
    Config("approved", True),
    Config("provisional_operator_approved", True),
    Config("restricted", True),
    Config("review_required", True),
    Config("unreviewed", True),
    Config("approved", False),
)

LC_GRAPH = lc_graph(LC)
DAG_GRAPH = dag_graph(DAG)
#: Every text of both fixture packages a tool could leak: items, components, the unresolved report.
FIXTURE_TEXTS = sorted(
    {node.description for graph in (LC_GRAPH, DAG_GRAPH) for node in (*graph.items, *graph.components)}
    | {str(entry["sourceText"]) for graph in (LC_GRAPH, DAG_GRAPH) for entry in graph.unresolved}
)
#: nodeId → the fixture record it names (items and components of both packages).
FIXTURE_NODES = {node.identifier: node for graph in (LC_GRAPH, DAG_GRAPH) for node in (*graph.items, *graph.components)}
ITEM_IDS = {item.identifier for graph in (LC_GRAPH, DAG_GRAPH) for item in graph.items}


def lc_id(code: str) -> str:
    return stable_uuid(LC, "item", code)


COMPONENTS = [component.identifier for component in LC_GRAPH.components]
BUILDS = next(r.identifier for r in LC_GRAPH.relationships if r.label == BUILDS_TOWARDS)

#: What each tool's example request names in the fixture catalog.
SPECIMENS = Specimens(
    framework=LC,
    other_framework=DAG,
    standard={"frameworkId": LC, "nodeId": lc_id("NBT.A.1")},
    earlier_standard={"frameworkId": LC, "nodeId": lc_id("NBT.1")},
    component=COMPONENTS[0],
    progression=BUILDS,
    query="number",
    uri=uris.snapshot_uri(LC, "2026-01"),
)
#: One call per case: each tool's example (keyed by the tool's name), then cases of their own.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    **{tool: (tool, request) for tool, request in example_calls(SPECIMENS)},
    "search_standards text": ("search_standards", {"query": "fraction", "searchMode": "text"}),
    "search_standards code": ("search_standards", {"query": "NBT", "searchMode": "code", "codeMatch": "prefix"}),
    "get_standard NF.2": ("get_standard", {"frameworkId": LC, "nodeId": lc_id("NF.2")}),
    "compare_framework_evidence fraction": (
        "compare_framework_evidence",
        {"query": "fraction", "frameworkIds": [LC, DAG]},
    ),
    "search_learning_components parts": ("search_learning_components", {"query": "parts"}),
    "get_learning_components_for_standard NF.2": (
        "get_learning_components_for_standard",
        {"frameworkId": LC, "nodeId": lc_id("NF.2")},
    ),
    "get_standards_for_learning_component two standards": (
        "get_standards_for_learning_component",
        {"frameworkId": LC, "nodeId": COMPONENTS[1]},
    ),
    "get_standard_progressions NBT.A.2": (
        "get_standard_progressions",
        {"frameworkId": LC, "nodeId": lc_id("NBT.A.2")},
    ),
    "search_learning_progressions query": ("search_learning_progressions", {"frameworkId": LC, "query": "count"}),
    "traverse_learning_progressions both": (
        "traverse_learning_progressions",
        {"frameworkId": LC, "nodeId": lc_id("NBT.1"), "direction": "both"},
    ),
    "find_learning_progression_paths NBT.1>NBT.A.2": (
        "find_learning_progression_paths",
        {"from": {"frameworkId": LC, "nodeId": lc_id("NBT.1")}, "to": {"frameworkId": LC, "nodeId": lc_id("NBT.A.2")}},
    ),
    "get_workflow_instructions comparison": (
        "get_workflow_instructions",
        {"workflow": "cross_framework_comparison", "frameworkIds": [LC, DAG], "topic": "fractions"},
    ),
}
#: Cases that read a public metadata document (no statement, no answer package block).
PUBLIC_DOCUMENTS = {"read_evidence"}
#: read_evidence of a standard: its text when permitted, refused otherwise (the resource gate).
STANDARD_URI = uris.standard_uri(LC, "2026-01", lc_id("NF.2"))


def test_every_tool_has_a_case() -> None:
    assert {tool for tool, _ in CASES.values()} == {tool.name for tool in TOOLS}


@pytest.fixture(scope="module", params=CONFIGS, ids=str)
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, FastMCP[Any]]:
    """One validated catalog and app per configuration, built once for this module."""
    config: Config = request.param
    world = standard_world(Path(tmp_path_factory.mktemp(f"rights-{config}")))
    for framework in (LC, DAG):  # profiles that grant every right: each configuration narrows them
        world.add_profile(framework, rule="multiParentDag", max_parents=2, defaultRights=EVERY_RIGHT)
    locations = [world.write(LC_GRAPH, rights=config.rights()), world.write(DAG_GRAPH, rights=config.rights())]
    validate_all(world, locations)
    return config, create_app(state_for(world))


@pytest.fixture
async def client(served: tuple[Config, FastMCP[Any]]) -> AsyncIterator[Client[Any]]:
    async with Client(served[1]) as connected:
        yield connected


def views(result: CallToolResult) -> tuple[str, str]:
    """The text view (every text block) and the structured view (its JSON, non-ASCII kept and escaped)."""
    structured = result.structured_content
    assert isinstance(structured, dict)
    as_json = json.dumps(structured, ensure_ascii=False) + json.dumps(structured)
    return "\n".join(texts(result)), as_json


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside ``value``."""
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from walk(inner)


def records(structured: dict[str, Any]) -> list[dict[str, Any]]:
    """Every record of a fixture standard or component in the structured content."""
    return [
        o
        for o in walk(structured)
        if o.get("nodeId") in FIXTURE_NODES and ("statementType" in o or "supportsCount" in o)
    ]


def leaks(view: str) -> list[str]:
    """Fixture texts (whole, or their first characters) found in one view."""
    found = []
    for text in FIXTURE_TEXTS:
        variants = {text, text[:PREFIX_CHARS], json.dumps(text)[1:-1], json.dumps(text)[1 : PREFIX_CHARS + 1]}
        found += [text for variant in variants if variant in view]
    return sorted(set(found))


@pytest.mark.slow  # an enumerated sweep: every tool in every review state, with and without text
@pytest.mark.parametrize("case", sorted(CASES))
async def test_tools_give_text_only_where_rights_permit(
    served: tuple[Config, FastMCP[Any]], client: Client[Any], case: str
) -> None:
    config = served[0]
    tool, request = CASES[case]
    result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
    assert not result.is_error, texts(result)
    text_view, structured_view = views(result)
    structured = result.structured_content
    assert isinstance(structured, dict)
    found = records(structured)
    notices = [o["textWithheld"] for o in walk(structured) if "textWithheld" in o]
    if config.text_permitted:
        assert not notices and NOTICE not in text_view
        for record in found:
            assert record["description"] == FIXTURE_NODES[record["nodeId"]].description
        # The text view shows statement text too (that it shows every record's is the host-view test's job).
        assert bool(leaks(text_view)) == bool(found), case
        return
    assert leaks(text_view) == [], case
    assert leaks(structured_view) == [], case
    if case in PUBLIC_DOCUMENTS:
        # A public metadata document carries no statement and no package block: its rights say it all.
        assert config.review_status in text_view and config.review_status in structured_view
        return
    assert notices, case
    assert {n["code"] for n in notices} == {NOTICE}
    assert all(config.reason_words in n["reason"] for n in notices)
    assert NOTICE in text_view and config.reason_words in text_view
    for record in found:
        node = FIXTURE_NODES[record["nodeId"]]
        assert "description" not in record
        assert record["nodeId"] in text_view or (
            getattr(node, "statement_code", None) and node.statement_code in text_view  # type: ignore[union-attr]
        ), (case, record)
        if record["nodeId"] in ITEM_IDS:
            item = FIXTURE_NODES[record["nodeId"]]
            assert record["statementType"] == item.statement_type  # type: ignore[union-attr]
            if record.get("kind") != "item":  # a comparison heading carries its code and type only
                assert record["gradeLevels"] == list(item.grade_level)  # type: ignore[union-attr]
            assert record.get("statementCode") == item.statement_code  # type: ignore[union-attr]


async def test_records_are_present_in_the_answers_that_carry_them(
    served: tuple[Config, FastMCP[Any]], client: Client[Any]
) -> None:
    """The cases above would pass vacuously on empty answers: each record-carrying case returns records."""
    for case, (tool, request) in CASES.items():
        if tool in ("list_frameworks", "get_framework", "get_capabilities", "get_framework_statistics"):
            continue
        if tool in ("read_evidence", "get_workflow_instructions"):
            continue
        result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
        assert isinstance(result.structured_content, dict)
        assert records(result.structured_content), case


async def test_read_evidence_of_a_standard_follows_the_same_rule(
    served: tuple[Config, FastMCP[Any]], client: Client[Any]
) -> None:
    config = served[0]
    result = await client.call_tool("read_evidence", {"request": {"uri": STANDARD_URI}}, raise_on_error=False)
    (text,) = texts(result) if result.is_error else (None,)
    if config.text_permitted:
        assert not result.is_error
        description = FIXTURE_NODES[lc_id("NF.2")].description
        text_view, structured_view = views(result)
        assert description in text_view and json.dumps(description)[1:-1] in structured_view
        return
    assert result.is_error and text is not None
    assert text.startswith("resource_access_denied: ") and config.reason_words in text
    assert leaks(text) == []
