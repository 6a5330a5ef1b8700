"""Every tool declares an ``outputSchema`` generated from its result model, and every result validates against it.

The schemas are read from ``tools/list`` as a client receives them. Results are validated here with
``jsonschema`` (Draft 2020-12) on their own, not only by the SDK client's validation: one run over every
tool on the default catalog (each tool's example request, and calls of its own), every paged call followed to
its last page, with empty, bounded and truncated answers, filters, every workflow and several resource kinds. ``tests/regression`` validates every recorded
answer of the corpus too, including the progression results cut at the size ceiling.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.client import CallToolResult
from fastmcp.utilities.json_schema import dereference_refs
from jsonschema import Draft202012Validator

from checkout import REPOSITORY_ROOT
from kgfegmcp.mcp.tools import TOOL_BY_NAME, TOOLS, example_calls
from tool_calls import call, structured, texts
from tool_examples import default_specimens

EF = "brazil-bncc-ensino-fundamental"
EI = "brazil-bncc-educacao-infantil"
EM = "brazil-bncc-ensino-medio"
CO = "brazil-bncc-computacao"
CCSS = "us-ccss-ela-literacy-grades-2-4"
TOOLS_DOC = REPOSITORY_ROOT / "docs" / "tools.md"
#: More pages than any call below needs; a paging loop that runs past it is a bug.
MAX_PAGES = 60


def ef(code: str, **extra: Any) -> dict[str, Any]:
    return {"frameworkId": EF, "statementCode": code, **extra}


#: What each tool's example request names in the default catalog (``<...>`` as in the calls below).
SPECIMENS = default_specimens(component="<component>", progression="<link>", uri="<package>/manifest")
#: (tool, request) over the default catalog: each tool's example, then calls of its own. ``<component>``,
#: ``<link>`` and ``<package>`` are filled from earlier answers. Every call is followed through ``page.nextCursor``
#: to its last page.
CALLS: list[tuple[str, dict[str, Any]]] = [
    *example_calls(SPECIMENS),
    ("list_frameworks", {"limit": 1}),
    ("list_frameworks", {"jurisdiction": "Brasil", "inLanguage": "en"}),  # empty: each value exists, not together
    ("list_frameworks", {"includeNonCurrent": True, "graphTypes": ["LearningProgressions"]}),
    ("get_framework", {"frameworkId": EF}),
    ("get_framework", {"frameworkId": CCSS}),
    ("get_capabilities", {}),
    ("get_capabilities", {"frameworkId": EI}),
    ("get_framework_statistics", {"frameworkId": EF}),
    ("get_framework_statistics", {"frameworkId": CCSS}),
    ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 20}),
    ("search_standards", {"query": "zzyzxqv"}),  # no hits
    ("search_standards", {"query": "EF0", "searchMode": "code", "codeMatch": "prefix", "limit": 100}),
    ("search_standards", {"query": "EF05MA03"}),
    ("search_standards", {"query": "leitura reading", "gradeLevels": ["ef-ano-03", "03"], "limit": 10}),
    ("get_standard", ef("EF05MA03")),
    ("get_standard", {"frameworkId": CCSS, "statementCode": "RL.2.1"}),
    ("get_standard_context", ef("EF07CI12", childDepth=3)),
    ("get_standard_context", ef("EF07CI12", maxPaths=1, maxNodes=2)),  # truncated
    ("compare_framework_evidence", {"query": "frações", "frameworkIds": [EF, EM]}),
    ("compare_framework_evidence", {"query": "zzyzxqv", "frameworkIds": [EF, CCSS]}),  # no candidates
    ("compare_framework_evidence", {"query": "EF05MA03", "searchMode": "code", "frameworkIds": [EF, CO]}),
    ("search_learning_components", {"query": "frações equivalentes", "frameworkIds": [EF], "limit": 3}),
    ("search_learning_components", {"query": "zzyzxqv", "frameworkIds": [EF]}),  # no hits
    ("get_learning_component", {"frameworkId": EF, "nodeId": "<component>"}),
    ("get_learning_components_for_standard", ef("EF05MA03")),
    ("get_learning_components_for_standard", ef("EF05MA03", limit=1)),
    ("get_learning_components_for_standard", ef("EF05MA04")),
    ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": "<component>"}),
    ("get_standard_progressions", ef("EF05MA03", limit=1)),
    ("get_standard_progressions", ef("EF05MA03", direction="in", linkTypes=["relatesTo"])),
    ("get_standard_progressions", {"frameworkId": CCSS, "statementCode": "RL.3.1"}),  # no links
    ("search_learning_progressions", {"frameworkId": EF, "gradeLevels": ["5º ano"], "query": "frações", "limit": 2}),
    ("search_learning_progressions", {"frameworkId": CCSS}),  # no links
    ("get_learning_progression", {"frameworkId": EF, "progressionId": "<link>"}),
    ("traverse_learning_progressions", ef("EF05MA03")),
    ("traverse_learning_progressions", ef("EF05MA03", direction="both", maxEdges=3)),  # truncated
    ("traverse_learning_progressions", ef("EF05MA03", direction="both", maxNodes=2)),  # truncated
    ("traverse_learning_progressions", ef("EF04MA09", maxDepth=1)),
    ("find_learning_progression_paths", {"from": ef("EF04MA09"), "to": ef("EF05MA04"), "maxPaths": 5}),
    ("find_learning_progression_paths", {"from": ef("EF05MA04"), "to": ef("EF04MA09")}),  # no path
    ("find_learning_progression_paths", {"from": ef("EF04MA09"), "to": ef("EF05MA04"), "maxPaths": 1}),
    ("read_evidence", {"uri": "<package>/standard/<standard>", "windowBytes": 512}),
    ("read_evidence", {"uri": "<package>/manifest", "windowBytes": 4096}),
    ("read_evidence", {"uri": "<package>/profile"}),
    ("read_evidence", {"uri": "<package>/learning-component/<component>"}),
    ("read_evidence", {"uri": "<package>/learning-progression/<link>"}),
    ("read_evidence", {"uri": "kgfegmcp://catalog", "windowBytes": 32768}),
    ("get_workflow_instructions", {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}),
    (
        "get_workflow_instructions",
        {
            "workflow": "multigrade_lesson_plan",
            "frameworkId": EF,
            "topic": "frações",
            "gradeLevels": ["4º ano", "5º ano"],
        },
    ),
    (
        "get_workflow_instructions",
        {"workflow": "learning_progression_teaching_sequence", "frameworkId": EF, "standard": "EF05MA03"},
    ),
    (
        "get_workflow_instructions",
        {"workflow": "learning_progression_support_plan", "frameworkId": EF, "topic": "frações"},
    ),
    (
        "get_workflow_instructions",
        {
            "workflow": "learning_progression_curriculum_review",
            "frameworkId": EF,
            "standards": ["EF05MA03", "EF05MA04"],
        },
    ),
    ("get_workflow_instructions", {"workflow": "administrator_alignment_review", "frameworkId": CCSS}),
    (
        "get_workflow_instructions",
        {"workflow": "cross_framework_comparison", "frameworkIds": [EF, CO], "topic": "algoritmos"},
    ),
]


async def listed_output_schemas(client: Client[Any]) -> dict[str, dict[str, Any] | None]:
    """Each tool's ``outputSchema`` as ``tools/list`` gives it, in listing order."""
    return {tool.name: tool.output_schema for tool in await client.list_tools()}


async def every_page(client: Client[Any], tool: str, request: dict[str, Any]) -> list[CallToolResult]:
    """The call's result, then one per ``page.nextCursor`` until there is none."""
    results = [await call(client, tool, request)]
    while (cursor := structured(results[-1]).get("page", {}).get("nextCursor")) is not None:
        results.append(await call(client, tool, {**request, "cursor": cursor}))
        assert len(results) <= MAX_PAGES, f"{tool} {request} did not stop paging"
    return results


def filled(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with every ``<name>`` placeholder replaced by the id read from an earlier answer."""
    if isinstance(value, str):
        for name, found in ids.items():
            value = value.replace(f"<{name}>", found)
        assert "<" not in value, value
        return value
    if isinstance(value, dict):
        return {key: filled(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [filled(item, ids) for item in value]
    return value


async def known_ids(client: Client[Any]) -> dict[str, str]:
    """A component, a stored progression link and a standard of EF, and its package URI."""
    supports = structured(await call(client, "get_learning_components_for_standard", ef("EF05MA03")))
    links = structured(await call(client, "get_standard_progressions", ef("EF05MA03")))
    standard = structured(await call(client, "get_standard", ef("EF05MA03")))
    return {
        "component": supports["supports"][0]["component"]["nodeId"],
        "link": links["links"][0]["relationshipId"],
        "standard": standard["standard"]["nodeId"],
        "package": standard["package"]["uri"],
    }


async def test_every_tool_declares_the_schema_of_its_result_model(fixture_client: Client[Any]) -> None:
    schemas = await listed_output_schemas(fixture_client)
    assert list(schemas) == [tool.name for tool in TOOLS]  # every tool declares its result model
    for name, schema in schemas.items():
        assert schema is not None, f"{name} declares no outputSchema"
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        assert "x-fastmcp-wrap-result" not in schema, name  # results are objects: never wrapped
        # Generated from the model (the listing inlines its $refs, for clients that cannot follow them).
        assert schema == dereference_refs(TOOL_BY_NAME[name].result.wire_schema()), name
        assert '"$ref"' not in json.dumps(schema), name


async def test_the_tool_reference_states_the_size_of_the_listing(fixture_client: Client[Any]) -> None:
    """Schemas cost every host bytes on each ``tools/list``: the reference says how many, and stays true."""
    listing = (await fixture_client.list_tools_mcp()).model_dump(mode="json", by_alias=True, exclude_none=True)
    size = len(json.dumps(listing, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    page = " ".join(TOOLS_DOC.read_text(encoding="utf-8").split())
    assert f"`tools/list` is {size:,} bytes of compact JSON" in page


async def test_every_result_validates_against_the_listed_schema(default_client: Client[Any]) -> None:
    validators = {name: Draft202012Validator(s) for name, s in (await listed_output_schemas(default_client)).items()}
    ids = await known_ids(default_client)
    validated: dict[str, list[dict[str, Any]]] = {name: [] for name in validators}
    paged: set[str] = set()
    for tool, request in CALLS:
        results = await every_page(default_client, tool, filled(request, ids))
        if len(results) > 1:
            paged.add(tool)
        for result in results:
            body = structured(result)
            errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validators[tool].iter_errors(body)]
            assert not errors, f"{tool} {request}: {errors[:5]}"
            # FastMCP's client builds its typed ``data`` from the same schema: it must be able to.
            assert result.data is not None, tool
            validated[tool].append(body)
    assert [name for name, bodies in validated.items() if not bodies] == []  # every tool
    assert {"list_frameworks", "search_standards", "search_learning_components", "read_evidence"} <= paged
    assert {"get_standard_progressions", "search_learning_progressions"} <= paged
    # Empty and truncated answers were among them.
    assert any(not body["hits"] for body in validated["search_standards"])
    assert any(not body["frameworks"] for body in validated["list_frameworks"])
    assert any(body["truncationReasons"] for body in validated["traverse_learning_progressions"])
    assert any(body["truncationReasons"] for body in validated["find_learning_progression_paths"])
    assert any(not body["paths"] for body in validated["find_learning_progression_paths"])
    assert any(body["truncated"] for body in validated["get_standard_context"])


@pytest.mark.parametrize("tool", [tool.name for tool in TOOLS])
async def test_a_refused_call_is_an_error_result_without_structured_content(
    fixture_client: Client[Any], tool: str
) -> None:
    """A declared schema does not apply to errors: the client takes the refusal, it does not fail validating."""
    result = await fixture_client.call_tool(tool, {"request": {"unknownField": 1}}, raise_on_error=False)
    assert result.is_error and result.structured_content is None
    assert texts(result)[0].startswith("invalid_request: ")
