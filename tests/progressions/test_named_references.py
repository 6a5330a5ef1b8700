"""Answers that refer to standards name them as the next call takes them, through FastMCP's in-memory client.

A path step, a link's ends, a traversal's followed link and what a learning component supports each give the
standard's code (and a path step or a component's standard its grade labels) beside its node id, so a model
follows them without matching ids against another list. One fixture package makes the cases real data rarely
shows together: a code two standards share (so it does not select: the node id is what the next call takes)
and a component that supports more standards than a search hit names.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from progression_calls import assert_canonical_within_ceiling, call, structured, texts, traversal_links

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.records import HAS_CHILD, SUPPORTS, ComponentNode, ItemNode
from kgfegmcp.services.components import HIT_SUPPORTED_STANDARDS
from package_factory import (
    FixtureGraph,
    FixtureWorld,
    lc_graph,
    profile_document,
    state_for,
    validate_all,
    write_profile,
)
from served_apps import SERVED

NAMED = "fixture-named"
#: Supports of the broad component, highest confidence first: (item key, confidence).
BROAD_SUPPORTS = [("NF.1.bis", 0.95), ("NBT.1", 0.9), ("NBT.A.1", 0.8), ("NBT.A.2", 0.7), ("NF.2", 0.6)]


def item_id(key: str) -> str:
    return stable_uuid(NAMED, "item", key)


def named_graph() -> FixtureGraph:
    """``fixture-lc``'s graph plus a second standard coded NF.1 (so NF.1 selects neither) that builds towards
    NF.2, and a component supporting five standards."""
    graph = lc_graph(NAMED)
    twin = ItemNode(
        identifier=item_id("NF.1.bis"),
        case_identifier_uuid=item_id("NF.1.bis"),
        description="Understand a fraction a/b as a parts of size 1/b.",
        statement_type="Standard",
        grade_level=("3",),
        is_current=True,
        in_language="en",
        statement_code="NF.1",
        academic_subject="Mathematics",
    )
    graph.items.append(twin)
    graph.link(HAS_CHILD, item_id("NF"), twin.identifier)
    graph.link("buildsTowards", twin.identifier, item_id("NF.2"))
    broad = ComponentNode(
        identifier=stable_uuid(NAMED, "component", "broad"),
        description="Compare and order whole numbers and unit fractions",
        in_language="en",
        academic_subject="Mathematics",
        tags=("fixture",),
        provider="Fixture curator",
    )
    graph.components.append(broad)
    for key, confidence in BROAD_SUPPORTS:
        graph.link(SUPPORTS, broad.identifier, item_id(key), support_confidence=confidence)
    return graph


@pytest.fixture(scope="module")
def named_state(tmp_path_factory: pytest.TempPathFactory) -> AppState:
    base: Path = tmp_path_factory.mktemp("named-world")
    world = FixtureWorld(base)
    codes = profile_document(NAMED)["codePolicy"]
    write_profile(
        world.profiles_root,
        profile_document(NAMED, rule="multiParentDag", max_parents=2, codePolicy={**codes, "unique": False}),
    )
    validate_all(world, [world.write(named_graph())])
    return state_for(world)


@pytest.fixture
async def named_client(named_state: AppState) -> AsyncIterator[Client[Any]]:
    async with SERVED.client(named_state) as client:
        yield client


async def test_a_path_names_each_step_by_code_and_grade_and_flags_a_shared_code(named_client: Client[Any]) -> None:
    request = {
        "from": {"frameworkId": NAMED, "nodeId": item_id("NF.1.bis")},
        "to": {"frameworkId": NAMED, "statementCode": "NF.2"},
    }
    content = assert_canonical_within_ceiling(await call(named_client, "find_learning_progression_paths", request))
    (path,) = content["paths"]
    assert path["steps"] == [
        {"nodeId": item_id("NF.1.bis"), "statementCode": "NF.1", "gradeLevels": ["3"], "codeSelects": False},
        {"nodeId": item_id("NF.2"), "statementCode": "NF.2", "gradeLevels": ["2", "3"]},
    ]
    (link,) = content["links"]
    assert (link["sourceStatementCode"], link["targetStatementCode"]) == ("NF.1", "NF.2")
    assert (link["sourceNodeId"], link["targetNodeId"]) == (item_id("NF.1.bis"), item_id("NF.2"))


async def test_a_traversal_names_the_code_each_followed_link_leads_to(named_client: Client[Any]) -> None:
    request = {"frameworkId": NAMED, "statementCode": "NBT.1"}
    content = assert_canonical_within_ceiling(await call(named_client, "traverse_learning_progressions", request))
    followed = [(link["to"], link["toStatementCode"]) for link in traversal_links(content)]
    assert followed[:2] == [(item_id("NBT.A.1"), "NBT.A.1"), (item_id("NBT.A.2"), "NBT.A.2")]
    codes = {node["nodeId"]: node.get("statementCode") for node in content["nodes"]}
    assert all(codes[to] == code for to, code in followed)


async def test_a_component_hit_names_the_first_standards_it_supports_and_counts_the_rest(
    named_client: Client[Any],
) -> None:
    result = await call(
        named_client, "search_learning_components", {"query": "compare order unit fractions", "frameworkIds": [NAMED]}
    )
    (hit,) = [h for h in structured(result)["hits"] if h["nodeId"] == stable_uuid(NAMED, "component", "broad")]
    assert hit["supportsCount"] == len(BROAD_SUPPORTS) and HIT_SUPPORTED_STANDARDS == 3
    assert hit["supportedStandards"] == [
        {"nodeId": item_id("NF.1.bis"), "statementCode": "NF.1", "gradeLevels": ["3"], "codeSelects": False},
        {"nodeId": item_id("NBT.1"), "statementCode": "NBT.1", "gradeLevels": ["1"]},
        {"nodeId": item_id("NBT.A.1"), "statementCode": "NBT.A.1", "gradeLevels": ["2"]},
    ]
    # The text names them too: by code where the code selects, with the node id where it does not.
    text = texts(result)[0]
    assert f"supports 5 standards: NF.1 (3; nodeId {item_id('NF.1.bis')}), NBT.1 (1), NBT.A.1 (2) and 2 more;" in text
    single = [h for h in structured(result)["hits"] if h["supportsCount"] == 1]
    for other in single:
        (ref,) = other["supportedStandards"]
        assert re.search(rf"nodeId {other['nodeId']}; supports {re.escape(ref['statementCode'])} \(", text)


async def test_a_component_names_each_standard_it_supports(named_client: Client[Any]) -> None:
    request = {"frameworkId": NAMED, "nodeId": stable_uuid(NAMED, "component", "broad")}
    result = await call(named_client, "get_learning_component", request)
    supports = structured(result)["supports"]
    assert [(s["standardStatementCode"], s["standardGradeLevels"]) for s in supports] == [
        ("NF.1", ["3"]),
        ("NBT.1", ["1"]),
        ("NBT.A.1", ["2"]),
        ("NBT.A.2", ["2"]),
        ("NF.2", ["2", "3"]),
    ]
    text = texts(result)[0]
    for support in supports:
        grades = ", ".join(support["standardGradeLevels"])
        assert (
            f"Supports standard {support['standardStatementCode']} ({grades}; nodeId {support['standardNodeId']}) "
            f"via relationship {support['relationshipId']}" in text
        )
