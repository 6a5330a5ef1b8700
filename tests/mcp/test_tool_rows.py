"""One row per tool: whatever reads the public surface reads the rows, so a new tool is its row beside its name,
request model, service and text, and the files written from the rows.

A throwaway row, declared here only (never shipped), is registered, listed and called; the reference page, the
MCPB manifest's list and the curriculum map's list written from the rows carry it; and every call table of the
tests, the benchmarks and the fuzzer, built afresh while the row is public, sends it. The lists committed from the
rows are current, and no prose counts the tools.
"""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from fastmcp import Client, FastMCP
from fastmcp.server.lifespan import lifespan
from pydantic import SecretStr

from checkout import REPOSITORY_ROOT
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.mcp import tools as tool_rows
from kgfegmcp.mcp.boundary import link_block
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.reference import render_reference
from kgfegmcp.mcp.register import output_schema, register
from kgfegmcp.mcp.tool_lists import drawn_tools, manifest_with_tools
from kgfegmcp.mcp.tools import PLACEHOLDERS, TOOLS, Specimens, Tool
from kgfegmcp.resources import uris
from kgfegmcp.services.requests import PackageSelector
from kgfegmcp.services.views import ResultModel

EF = "brazil-bncc-ensino-fundamental"


class EchoPackageRequest(PackageSelector):
    """A package, named as every package tool names one."""


class EchoPackageResult(ResultModel):
    """The package a request selects, and how many standards it serves."""

    graph_package_id: str
    standards: int


EXTRA = Tool(
    cast(ToolName, "echo_package"),
    EchoPackageRequest,
    EchoPackageResult,
    lambda app, request: EchoPackageResult(
        graph_package_id=app.catalog.resolve(request.framework_id, request.snapshot_id).graph_package_id,
        standards=len(app.catalog.resolve(request.framework_id, request.snapshot_id).runtime.items),
    ),
    "The package a framework id selects, and how many standards it serves. A row of the tests only.",
    lambda s: {"frameworkId": s.framework},
    summary=lambda result: f"{result.graph_package_id}: {result.standards} standards.",
    links=lambda result: [link_block(uris.framework_uri(result.graph_package_id.split("@")[0]), "framework")],
    draws_map=True,
)
WITH_EXTRA = (*TOOLS, EXTRA)


@pytest.fixture
def extra_public(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The throwaway row public for the test: in the rows every consumer reads when it is built."""
    monkeypatch.setattr(tool_rows, "TOOLS", WITH_EXTRA)
    monkeypatch.setattr(tool_rows, "TOOL_BY_NAME", {tool.name: tool for tool in WITH_EXTRA})
    for folder in ("tests", "tests/mcp", "tests/resources", "tests/prompts", "tests/e2e", "benchmarks", "scripts"):
        monkeypatch.syspath_prepend(str(REPOSITORY_ROOT / folder))
    yield


@pytest.fixture
async def extra_client(default_state: AppState) -> AsyncIterator[Client[Any]]:
    """A server of the default catalog whose surface has the throwaway row last."""

    @lifespan
    async def state(server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        yield {"state": default_state}

    server = FastMCP(name="kgfegmcp", lifespan=state, strict_input_validation=True, dereference_schemas=False)
    register(server, Readiness(), WITH_EXTRA)
    async with Client(server) as client:
        yield client


async def test_a_new_row_is_registered_listed_and_answers(extra_client: Client[Any]) -> None:
    listed = (await extra_client.list_tools_mcp()).tools
    assert [tool.name for tool in listed] == [tool.name for tool in WITH_EXTRA]
    tool = listed[-1]
    assert tool.description == EXTRA.description
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    request = tool.input_schema["properties"]["request"]
    assert set(request["properties"]) == {"frameworkId", "snapshotId"} and request["required"] == ["frameworkId"]
    assert tool.output_schema == output_schema(EchoPackageResult)

    answered = await extra_client.call_tool_mcp(EXTRA.name, {"request": EXTRA.example_request(PLACEHOLDERS)})
    assert answered.is_error and answered.content[0].text.startswith("framework_not_found: ")  # type: ignore[union-attr]
    answered = await extra_client.call_tool_mcp(EXTRA.name, {"request": {"frameworkId": EF}})
    assert not answered.is_error
    structured = answered.structured_content or {}
    assert structured["graphPackageId"].startswith(f"{EF}@") and structured["standards"] > 0
    text, link = answered.content
    assert text.text == f"{structured['graphPackageId']}: {structured['standards']} standards."  # type: ignore[union-attr]
    assert link.type == "resource_link" and str(link.uri) == uris.framework_uri(EF)  # type: ignore[union-attr]
    refused = await extra_client.call_tool_mcp(EXTRA.name, {"request": {"frameworkId": EF, "framework": EF}})
    assert refused.is_error and refused.content[0].text.startswith("invalid_request: ")  # type: ignore[union-attr]


def test_a_new_row_is_documented_and_listed_for_the_bundle_and_the_map() -> None:
    page = render_reference(WITH_EXTRA)
    assert f"## Tools ({len(WITH_EXTRA)})" in page
    section = page[page.index(f"### `{EXTRA.name}`") :]
    section = section[: section.index("\n## ")]
    assert EXTRA.description in section and "| `frameworkId` | string | yes |" in section
    assert "Result: `graphPackageId`, `standards`." in section and "Drawn by the curriculum map" in section

    committed = (REPOSITORY_ROOT / "manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(manifest_with_tools(committed, WITH_EXTRA))
    assert manifest["tools"][-1] == {"name": EXTRA.name, "description": "The package a framework id selects, and how "
                                     "many standards it serves."}  # fmt: skip
    assert {**manifest, "tools": None} == {**json.loads(committed), "tools": None}

    assert json.loads(drawn_tools(WITH_EXTRA)) == [*json.loads(drawn_tools()), EXTRA.name]


def _calls(table: Any) -> list[tuple[str, Any]]:
    """``(tool, request)`` of each entry of a call table, whichever shape the table has."""
    if isinstance(table, dict):
        entries = list(table.items())
        return [(entry[1][0], entry[1][1]) if isinstance(entry[1], tuple) else entry for entry in entries]
    return [(str(entry[0]).split()[0], entry[1]) for entry in table]


def _module(path: str) -> dict[str, Any]:
    """The module at ``path`` (from the repository root) executed afresh: its tables built from the rows now."""
    return runpy.run_path(str(REPOSITORY_ROOT / path), run_name=f"afresh_{Path(path).stem}")


#: Each call table that must send every tool: where it is, and how to read its calls from the fresh module.
TABLES: dict[str, Callable[[dict[str, Any]], list[tuple[str, Any]]]] = {
    "tests/mcp/test_error_boundary.py": lambda m: _calls(m["VALID_REQUESTS"]),
    "tests/resources/test_rights_in_tools.py": lambda m: _calls(m["CASES"]),
    "tests/mcp/test_output_schemas.py": lambda m: _calls(m["CALLS"]),
    "tests/mcp/test_host_views.py": lambda m: _calls(m["HOST_CALLS"]),
    "tests/mcp/test_compact_answers.py": lambda m: _calls(m["CALLS"]),
    "tests/regression/regression_calls.py": lambda m: [(c.name, c.arguments) for c in m["CALLS"]["default"]],
    "benchmarks/answer_sizes_calls.py": lambda m: _calls(m["CALLS"]),
}


@pytest.mark.usefixtures("extra_public")
@pytest.mark.parametrize("path", sorted(TABLES))
def test_every_call_table_sends_a_new_row(path: str) -> None:
    module = _module(path)
    calls = [(tool, request) for tool, request in TABLES[path](module) if tool == EXTRA.name]
    specimens: Specimens = module.get("SPECIMENS", PLACEHOLDERS)
    if path.startswith("tests/regression/"):  # its specimens refer to earlier answers: the example, then refused
        requests = [arguments["request"] for _, arguments in calls]
        assert len(requests) == 2 and requests[1] == {**requests[0], "notAField": 1}
        assert requests[0]["frameworkId"] == EF
        return
    assert calls and calls[0][1] == EXTRA.example_request(specimens), path


@pytest.mark.usefixtures("extra_public")
def test_every_other_reader_of_the_rows_takes_a_new_row() -> None:
    models = _module("tests/prompts/test_prompt_call_shapes.py")["REQUEST_MODELS"]
    assert models[EXTRA.name] is EchoPackageRequest
    assert EXTRA.name in _module("tests/e2e/test_curriculum_map_browser.py")["LINKED_TOOLS"]
    assert EXTRA.name in _module("tests/mcp/test_curriculum_map.py")["GRAPH_TOOLS"]
    assert EXTRA.name in [row.name for row in _module("apps/curriculum-map/record_fixtures.py")["DRAWN"]]
    fuzz = runpy.run_module("fuzzing.cases", run_name="afresh_cases", alter_sys=True)
    surface = fuzz["Surface"](
        tools={},
        templates=[],
        prompts={},
        catalog_fingerprint="",
        framework_id=EF,
        snapshot_id="s",
        node_id="n",
        statement_code="c",
        component_id="c",
        relationship_id="r",
        codec=CursorCodec("", SecretStr("s" * 32)),
    )
    assert fuzz["base_request"](surface, EXTRA.name) == {"frameworkId": EF}


def test_the_lists_written_from_the_rows_are_current() -> None:
    """manifest.json's tools and the map's drawn_tools.json, as scripts/generate_tool_lists.py writes them."""
    checked = subprocess.run(
        [sys.executable, str(REPOSITORY_ROOT / "scripts" / "generate_tool_lists.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr


def test_no_prose_counts_the_tools() -> None:
    """A count goes stale with the next tool: prose says "every tool", a page generated from the rows counts them."""
    count = re.compile(rf"\b(all |the )?{len(TOOLS)} (public |MCP )?tools\b", re.IGNORECASE)
    written = [REPOSITORY_ROOT / "README.md", REPOSITORY_ROOT / "manifest.json"]
    for folder in ("docs", "src", "tests", "scripts", "benchmarks", "apps/curriculum-map"):
        written += [
            p for p in (REPOSITORY_ROOT / folder).rglob("*") if p.suffix in {".md", ".py", ".js", ".mjs", ".json"}
        ]
    found = [
        f"{path.relative_to(REPOSITORY_ROOT)}: {match.group(0)}"
        for path in written
        if "corpus" not in path.parts and path.is_file()
        for match in count.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == []
