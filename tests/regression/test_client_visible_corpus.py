"""No change a client can see: every call of the corpus, replayed, answers byte-identically to its recording.

The corpus (``corpus/<catalog>.jsonl``) was recorded by ``record_corpus.py`` from the call table in
``regression_calls.py``. Fixture catalogs are compared as full JSON (a failure shows a diff); the
default catalog by SHA-256 and length of each canonical answer (its text is third-party curriculum and
is not stored). A failure here means a client would see a difference: fix the change, or, if the
difference is intended, re-record (see ``record_corpus.py``) and say so in the commit.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from regression_calls import CALLS
from regression_corpus import Outcome, differences, load, problems, replay

from kgfegmcp.bootstrap import AppState
from kgfegmcp.mcp.tools import TOOLS

MIN_CALLS = 300


@pytest.fixture(scope="module")
def replayed(corpus_states: dict[str, AppState]) -> dict[str, list[Outcome]]:
    """The whole table, replayed once for every test of this module."""
    return asyncio.run(replay(corpus_states))


@pytest.mark.parametrize("catalog", list(CALLS))
def test_every_answer_is_as_recorded(replayed: dict[str, list[Outcome]], catalog: str) -> None:
    """One test per catalog, so a failure names the catalog and shows its first 20 differences."""
    report = differences(catalog, load(catalog), replayed[catalog])
    shown = "\n\n".join(report[:20]) + (f"\n\n... and {len(report) - 20} more" if len(report) > 20 else "")
    assert not report, f"{len(report)} client-visible difference(s) in {catalog}:\n\n{shown}"


def test_nothing_unrecordable_was_answered(replayed: dict[str, list[Outcome]], local_paths: list[str]) -> None:
    """No masked internal error, no reference to a vanished answer, no local path in any answer."""
    assert problems(replayed, local_paths) == []


def _listed(replayed: dict[str, list[Outcome]], what: str) -> list[dict[str, Any]]:
    """The surface as the server lists it (not as this file assumes it)."""
    (listing,) = [o.payload for o in replayed["search"] if o.call.key == f"list/{what}"]
    return list(listing[{"resource_templates": "resourceTemplates"}.get(what, what)])


def test_every_tool_answer_validates_against_the_listed_output_schema(replayed: dict[str, list[Outcome]]) -> None:
    """Every answered tool call of all four catalogs, checked here against the ``outputSchema`` the server
    lists (not left to the client's own validation), among them pages and paths cut at the size ceiling;
    refusals carry no structured content."""
    validators = {tool["name"]: Draft202012Validator(tool["outputSchema"]) for tool in _listed(replayed, "tools")}
    calls = [o for items in replayed.values() for o in items if o.call.kind == "tool"]
    answered = [o for o in calls if not o.is_error]
    for outcome in answered:
        errors = validators[outcome.call.name].iter_errors(outcome.payload["structuredContent"])
        problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]
        assert not problems, f"{outcome.call.catalog}/{outcome.call.key}: {problems[:5]}"
    assert {o.call.name for o in answered} == set(validators)
    assert all("structuredContent" not in o.payload for o in calls if o.is_error)
    bodies = [o.payload["structuredContent"] for o in answered]
    assert any(body.get("page", {}).get("stoppedBy") == "byte_limit" for body in bodies)
    assert any("byte_limit" in body.get("truncationReasons", []) for body in bodies)
    assert any("nextUnreturnedPath" in body for body in bodies)


def _template_pattern(template: str) -> re.Pattern[str]:
    """An RFC 6570 level-1 template as a regex: each ``{name}`` is one path segment."""
    parts = re.split(r"(\{[a-z_]+\})", template)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts))


def test_corpus_covers_the_whole_surface(replayed: dict[str, list[Outcome]]) -> None:
    """At least 300 calls; every tool answered and refused; every resource and template read and refused;
    every prompt rendered and refused; every listing made."""
    everything = [o for items in replayed.values() for o in items]
    assert len(everything) >= MIN_CALLS
    tools = {t["name"] for t in _listed(replayed, "tools")}
    assert tools == {tool.name for tool in TOOLS}
    answered = {o.call.name for o in everything if o.call.kind == "tool" and not o.is_error}
    refused = {o.call.name for o in everything if o.call.kind == "tool" and o.is_error}
    assert tools - answered == set(), "tools never answered"
    assert tools - refused == set(), "tools never refused"

    reads = [o for o in everything if o.call.kind == "resource"]
    read_ok = {o.sent for o in reads if not o.is_error}
    for resource in _listed(replayed, "resources"):
        assert resource["uri"] in read_ok, resource["uri"]
    templates = _listed(replayed, "resource_templates")
    assert len(templates) == 14
    refusals = [o.sent for o in reads if o.is_error and not o.call.raw]
    for template in templates:
        pattern = _template_pattern(template["uriTemplate"])
        assert any(pattern.fullmatch(uri) for uri in read_ok), f"template never read: {template['uriTemplate']}"
        assert any(pattern.fullmatch(uri) for uri in refusals), f"template never refused: {template['uriTemplate']}"
    assert any(o.call.raw and o.is_error for o in reads), "no hostile URI"

    prompts = {p["name"] for p in _listed(replayed, "prompts")}
    assert len(prompts) == 9
    rendered = {o.call.name for o in everything if o.call.kind == "prompt" and not o.is_error}
    assert prompts - rendered == set(), "prompts never rendered"
    refused_prompts = {o.call.name for o in everything if o.call.kind == "prompt" and o.is_error}
    assert prompts - refused_prompts == set(), "prompts never refused"
    assert {o.call.name for o in everything if o.call.kind == "list"} == {
        "tools",
        "resources",
        "resource_templates",
        "prompts",
    }
