"""ProgressionService called directly: pages, discovery filters, bounded traversal, paths and notices.

The links of ``fixture-lc`` (tests/package_factory.py ``lc_graph``), in file order::

    NBT.1 ─buildsTowards→ NBT.A.1 ─buildsTowards→ NBT.A.2 ─relatesTo→ NF.1 ─buildsTowards→ NF.2

plus one unresolved reference (``EM13MAT101``) on ``NF.2``. ``fixture-wide`` and ``fixture-mesh`` come from
tests/progressions/progression_worlds.py; two more packages (service_worlds.py) store fewer link kinds.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.errors import (
    InvalidCursorError,
    InvalidProgressionRequestError,
    LearningProgressionNotFoundError,
)
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, RelationshipRecord
from kgfegmcp.services.progression_views import (
    PathsResult,
    ProgressionLinkView,
    SearchProgressionsResult,
    StandardProgressionsResult,
    TraversalResult,
)
from kgfegmcp.services.requests import (
    FindLearningProgressionPathsRequest,
    GetLearningProgressionRequest,
    GetStandardProgressionsRequest,
    SearchLearningProgressionsRequest,
    TraverseLearningProgressionsRequest,
)
from package_factory import DAG, LC
from progression_worlds import MESH, WIDE, WIDE_MIDDLES
from service_worlds import BUILDS_ONLY, NOLINKS

SNAPSHOT = "2026-01"
B, R = BUILDS_TOWARDS, RELATES_TO
#: Every link of fixture-lc in result order (buildsTowards in file order, then relatesTo).
LC_LINKS = [(B, "NBT.1", "NBT.A.1"), (B, "NBT.A.1", "NBT.A.2"), (B, "NF.1", "NF.2"), (R, "NBT.A.2", "NF.1")]


def item(framework_id: str, code: str) -> str:
    return stable_uuid(framework_id, "item", code)


def std(framework_id: str, code: str) -> dict[str, str]:
    return {"frameworkId": framework_id, "statementCode": code}


def codes_by_id(framework_id: str = LC) -> dict[str, str]:
    keys = ["NBT.1", "NBT.A.1", "NBT.A.2", "NF.1", "NF.2"]
    return {item(framework_id, key): key for key in keys}


def links(links: list[ProgressionLinkView], framework_id: str = LC) -> list[tuple[str, str, str]]:
    names = codes_by_id(framework_id)
    return [(link.link_type, names[link.source_node_id], names[link.target_node_id]) for link in links]


def notice_codes(result: Any) -> list[str]:
    return [notice.code for notice in result.warnings.items]


def progressions(state: AppState, **fields: Any) -> StandardProgressionsResult:
    return state.progressions.get_standard_progressions(GetStandardProgressionsRequest.model_validate(fields))


def discover(state: AppState, **fields: Any) -> SearchProgressionsResult:
    return state.progressions.search_learning_progressions(SearchLearningProgressionsRequest.model_validate(fields))


def traverse(state: AppState, **fields: Any) -> TraversalResult:
    return state.progressions.traverse_learning_progressions(TraverseLearningProgressionsRequest.model_validate(fields))


def paths(state: AppState, source: dict[str, str], target: dict[str, str], **fields: Any) -> PathsResult:
    request = FindLearningProgressionPathsRequest.model_validate({"from": source, "to": target, **fields})
    return state.progressions.find_learning_progression_paths(request)


# -- get_standard_progressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, [(B, "NBT.A.1", "NBT.A.2"), (R, "NBT.A.2", "NF.1")]),  # buildsTowards before relatesTo
        ({"direction": "out"}, [(R, "NBT.A.2", "NF.1")]),
        ({"direction": "in"}, [(B, "NBT.A.1", "NBT.A.2")]),
        ({"linkTypes": ["relatesTo"]}, [(R, "NBT.A.2", "NF.1")]),
        ({"linkTypes": ["relatesTo"], "direction": "in"}, []),
    ],
)
def test_a_standards_direct_links(evidence_state: AppState, fields: dict[str, Any], expected: list[Any]) -> None:
    result = progressions(evidence_state, **std(LC, "NBT.A.2"), **fields)
    assert links(result.links) == expected and result.total_links == len(expected)
    assert result.standard_node_id == item(LC, "NBT.A.2")
    # The selected standard first, then each counterpart once.
    counterparts = [s if s != "NBT.A.2" else t for _, s, t in expected]
    assert [s.statement_code for s in result.standards] == ["NBT.A.2", *counterparts]
    page = result.page
    assert (page.returned, page.has_more, page.next_cursor, page.stopped_by) == (
        len(expected),
        False,
        None,
        "exhausted",
    )
    judgements = ["stored_link_judgement"] if expected else []
    if any(kind == R for kind, _, _ in expected):
        judgements.append("relates_to_unordered")
    assert notice_codes(result) == judgements
    assert (result.warnings.total, result.warnings.omitted) == (len(judgements), 0)


def test_link_types_are_given_back_in_result_order(evidence_state: AppState) -> None:
    result = progressions(evidence_state, **std(LC, "NBT.A.2"), linkTypes=["relatesTo", "buildsTowards"])
    assert result.link_types == ["buildsTowards", "relatesTo"]
    assert links(result.links) == [(B, "NBT.A.1", "NBT.A.2"), (R, "NBT.A.2", "NF.1")]


def test_pages_follow_the_cursor_through_every_link_once(evidence_state: AppState) -> None:
    request: dict[str, Any] = {**std(WIDE, "WIDE.S"), "direction": "out", "limit": 3}
    targets: list[str] = []
    stops: list[str] = []
    while True:
        result = progressions(evidence_state, **request)
        assert result.total_links == WIDE_MIDDLES and result.page.returned == len(result.links)
        page_targets = [link.target_node_id for link in result.links]
        assert [s.node_id for s in result.standards] == [item(WIDE, "WIDE.S"), *page_targets]
        targets += page_targets
        stops.append(result.page.stopped_by)
        if not result.page.has_more:
            assert result.page.next_cursor is None
            break
        request = {**request, "cursor": result.page.next_cursor}
    assert targets == [item(WIDE, f"WIDE.M{i}") for i in range(WIDE_MIDDLES)]  # file order, none lost or repeated
    assert stops == ["limit"] * 6 + ["exhausted"]


def test_a_progression_cursor_continues_only_its_own_request(evidence_state: AppState) -> None:
    request: dict[str, Any] = {**std(WIDE, "WIDE.S"), "direction": "out", "limit": 3}
    cursor = progressions(evidence_state, **request).page.next_cursor
    assert cursor is not None
    with pytest.raises(InvalidCursorError, match="belongs to a different request"):
        progressions(evidence_state, **{**request, "direction": "both", "cursor": cursor})
    with pytest.raises(InvalidCursorError, match="does not continue search_learning_progressions"):
        discover(evidence_state, frameworkId=WIDE, limit=3, cursor=cursor)


# -- search_learning_progressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, LC_LINKS),
        ({"gradeLevels": ["3"]}, [(B, "NF.1", "NF.2"), (R, "NBT.A.2", "NF.1")]),  # NF.1 is grade 3, NF.2 grades 2-3
        ({"gradeLevels": ["grade-1"]}, [(B, "NBT.1", "NBT.A.1")]),  # a normalised facet works too
        ({"linkTypes": ["relatesTo"]}, [(R, "NBT.A.2", "NF.1")]),
        ({"academicSubjects": ["Mathematics"]}, LC_LINKS),
        ({"query": "fraction"}, [(B, "NF.1", "NF.2"), (R, "NBT.A.2", "NF.1")]),  # NF.1 and NF.2 hold the word
        ({"query": "count"}, [(B, "NBT.1", "NBT.A.1"), (B, "NBT.A.1", "NBT.A.2"), (R, "NBT.A.2", "NF.1")]),
        ({"query": "count", "gradeLevels": ["1"]}, [(B, "NBT.1", "NBT.A.1")]),  # every filter must hold
        ({"query": "fractions count"}, LC_LINKS),  # one searched word is enough
        ({"query": "grade 3"}, []),  # grade words stay text here: no standard holds them
    ],
)
def test_discovery_filters(evidence_state: AppState, filters: dict[str, Any], expected: list[Any]) -> None:
    result = discover(evidence_state, frameworkId=LC, limit=100, **filters)
    assert links(result.links) == expected
    ends = list(dict.fromkeys(code for _, s, t in expected for code in (s, t)))
    assert [s.statement_code for s in result.standards] == ends  # each end once, in link order
    assert result.filters.query == filters.get("query")
    assert result.filters.grade_levels == filters.get("gradeLevels")
    assert result.filters.link_types == filters.get("linkTypes", [B, R])
    assert result.page.stopped_by == "exhausted" and result.page.candidates_examined == (
        1 if filters.get("linkTypes") == ["relatesTo"] else 4
    )


def test_discovery_pages_resume_after_the_last_match(evidence_state: AppState) -> None:
    first = discover(evidence_state, frameworkId=LC, gradeLevels=["3"], limit=1)
    assert links(first.links) == [(B, "NF.1", "NF.2")]
    # Links 1-3 were examined to find the match and link 4 to know another follows.
    assert (first.page.stopped_by, first.page.has_more, first.page.candidates_examined) == ("limit", True, 4)
    second = discover(evidence_state, frameworkId=LC, gradeLevels=["3"], limit=1, cursor=first.page.next_cursor)
    assert links(second.links) == [(R, "NBT.A.2", "NF.1")]
    assert (second.page.stopped_by, second.page.has_more, second.page.candidates_examined) == ("exhausted", False, 1)


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"gradeLevels": ["grade-99"]}, "gradeLevels names 'grade-99', not a grade label or facet of this package."),
        (
            {"academicSubjects": ["Astronomy"]},
            "academicSubjects names 'Astronomy', not a academic subject of this package.",
        ),
        ({"gradeLevels": ["2", "2"]}, "gradeLevels repeats a value."),
        ({"linkTypes": ["relatesTo", "relatesTo"]}, "linkTypes repeats a value."),
    ],
)
def test_discovery_refuses_terms_the_package_does_not_use(
    evidence_state: AppState, filters: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidProgressionRequestError) as refused:
        discover(evidence_state, frameworkId=LC, **filters)
    assert refused.value.code == "invalid_progression_request" and refused.value.message == message
    if "names" in message:  # the hint offers this package's own terms
        assert refused.value.hint is not None and (
            "grade-1" in refused.value.hint or "Mathematics" in refused.value.hint
        )


# -- traverse_learning_progressions ------------------------------------------------------------------------


def traversal_summary(result: TraversalResult, framework_id: str = LC) -> dict[str, Any]:
    names = codes_by_id(framework_id)
    frontier = result.frontier
    return {
        "nodes": [(names[n.node_id], n.depth) for n in result.nodes],
        "notExpanded": {names[k]: v for k, v in (frontier.not_expanded or {}).items()},
        "maxDepth": {names[k]: v for k, v in (frontier.max_depth or {}).items()},
        "scope": result.scope_complete,
        "exhausted": result.graph_exhausted,
        "reasons": result.truncation_reasons,
    }


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {**std(LC, "NBT.1")},
            {
                "nodes": [("NBT.1", 0), ("NBT.A.1", 1), ("NBT.A.2", 2), ("NF.1", 3), ("NF.2", 4)],
                "notExpanded": {},
                "maxDepth": {},
                "scope": True,
                "exhausted": True,
                "reasons": [],
            },
        ),
        (
            {**std(LC, "NBT.1"), "maxNodes": 3},  # NF.1 would be the fourth node
            {
                "nodes": [("NBT.1", 0), ("NBT.A.1", 1), ("NBT.A.2", 2)],
                "notExpanded": {"NBT.A.2": 1},
                "maxDepth": {},
                "scope": False,
                "exhausted": False,
                "reasons": ["max_nodes"],
            },
        ),
        (
            {**std(LC, "NBT.1"), "maxEdges": 1},
            {
                "nodes": [("NBT.1", 0), ("NBT.A.1", 1)],
                "notExpanded": {"NBT.A.1": 1},
                "maxDepth": {},
                "scope": False,
                "exhausted": False,
                "reasons": ["max_edges"],
            },
        ),
        (
            {**std(LC, "NF.2"), "direction": "in", "maxDepth": 3},
            {
                "nodes": [("NF.2", 0), ("NF.1", 1), ("NBT.A.2", 2), ("NBT.A.1", 3)],
                "notExpanded": {},
                "maxDepth": {"NBT.A.1": 1},  # NBT.1 → NBT.A.1 lies beyond the depth
                "scope": True,
                "exhausted": False,
                "reasons": ["max_depth"],
            },
        ),
        (
            {**std(LC, "NBT.A.2"), "direction": "both", "maxDepth": 1},
            {
                "nodes": [("NBT.A.2", 0), ("NBT.A.1", 1), ("NF.1", 1)],
                "notExpanded": {},
                "maxDepth": {"NBT.A.1": 1, "NF.1": 1},
                "scope": True,
                "exhausted": False,
                "reasons": ["max_depth"],
            },
        ),
        (
            {**std(LC, "NBT.1"), "linkTypes": ["buildsTowards"]},  # relatesTo is not followed, nor owed
            {
                "nodes": [("NBT.1", 0), ("NBT.A.1", 1), ("NBT.A.2", 2)],
                "notExpanded": {},
                "maxDepth": {},
                "scope": True,
                "exhausted": True,
                "reasons": [],
            },
        ),
    ],
    ids=["complete", "max-nodes", "max-edges", "max-depth-in", "max-depth-both", "builds-towards-only"],
)
def test_traversal_bounds_and_completeness(
    evidence_state: AppState, fields: dict[str, Any], expected: dict[str, Any]
) -> None:
    result = traverse(evidence_state, **fields)
    assert traversal_summary(result) == expected
    counters = result.counters
    assert counters.nodes_returned == len(result.nodes) == counters.nodes_reached
    assert counters.edges_returned == sum(len(n.followed or []) for n in result.nodes) == counters.edges_followed
    assert counters.frontier_nodes == len(expected["notExpanded"]) + len(expected["maxDepth"])
    assert counters.max_depth_returned == max(depth for _, depth in expected["nodes"])
    opening = {
        (True, True): "Every stored link",
        (True, False): "Everything within",
        (False, False): "This traversal stopped at a bound",
    }[(result.scope_complete, result.graph_exhausted)]
    assert result.interpretation.startswith(opening)


def test_each_followed_link_is_listed_under_the_node_it_was_followed_from(evidence_state: AppState) -> None:
    both = traverse(evidence_state, **std(LC, "NBT.A.2"), direction="both", maxDepth=1)
    (start, *reached) = both.nodes
    assert start.followed is not None and all(n.followed is None for n in reached)
    store = evidence_state.catalog.resolve(LC).store
    expected = [
        (store.incoming(item(LC, "NBT.A.2"), B)[0].identifier, B, item(LC, "NBT.A.1"), "in"),
        (store.outgoing(item(LC, "NBT.A.2"), R)[0].identifier, R, item(LC, "NF.1"), "out"),
    ]
    assert [(f.relationship_id, f.link_type, f.to, f.direction) for f in start.followed] == expected
    one_way = traverse(evidence_state, **std(LC, "NBT.1"))
    assert all(f.direction is None for n in one_way.nodes for f in n.followed or [])  # said once: "out"


def test_a_frontier_counts_exactly_the_links_the_result_lacks(evidence_state: AppState) -> None:
    """On the generated mesh: every returned node's stored links of the kinds and direction, minus those returned."""
    store = evidence_state.catalog.resolve(MESH).store
    for bounds in ({"maxDepth": 2}, {"maxNodes": 30}, {"maxEdges": 25}, {"maxDepth": 3, "direction": "both"}):
        result = traverse(evidence_state, **std(MESH, "MESH.0"), **bounds)
        direction = bounds.get("direction", "out")
        returned = [(n.node_id, f) for n in result.nodes for f in n.followed or []]
        seen: dict[str, int] = {}
        for from_node, link in returned:
            seen[from_node] = seen.get(from_node, 0) + 1
            if direction == "both":
                seen[link.to] = seen.get(link.to, 0) + 1
        owed: dict[str, int] = {}
        for node in result.nodes:
            degree = sum(
                len(store.outgoing(node.node_id, kind))
                + (len(store.incoming(node.node_id, kind)) if direction == "both" else 0)
                for kind in (B, R)
            )
            if degree - seen.get(node.node_id, 0):
                owed[node.node_id] = degree - seen.get(node.node_id, 0)
        listed = {**(result.frontier.not_expanded or {}), **(result.frontier.max_depth or {})}
        assert listed == owed, bounds
        assert result.graph_exhausted is (not owed)
        assert result.scope_complete is (not result.frontier.not_expanded)


# -- find_learning_progression_paths ------------------------------------------------------------------------


def test_the_one_path_through_stored_builds_towards_links(evidence_state: AppState) -> None:
    result = paths(evidence_state, std(LC, "NBT.1"), std(LC, "NBT.A.2"))
    (path,) = result.paths
    assert [step.node_id for step in path.steps] == [item(LC, "NBT.1"), item(LC, "NBT.A.1"), item(LC, "NBT.A.2")]
    assert [step.statement_code for step in path.steps] == ["NBT.1", "NBT.A.1", "NBT.A.2"]
    assert links(result.links) == [(B, "NBT.1", "NBT.A.1"), (B, "NBT.A.1", "NBT.A.2")]
    assert path.relationship_ids == [link.relationship_id for link in result.links]
    assert [s.statement_code for s in result.standards] == ["NBT.1", "NBT.A.2", "NBT.A.1"]  # the ends first
    assert (result.search_complete, result.paths_complete, result.more_paths_exist) == (True, True, False)
    assert result.truncation_reasons == [] and result.next_unreturned_path is None
    assert notice_codes(result) == ["stored_link_judgement"]


@pytest.mark.parametrize(
    ("source", "target", "fields"),
    [
        ("NBT.1", "NBT.A.2", {"maxDepth": 1}),  # the path has two links
        ("NBT.A.2", "NBT.1", {}),  # links are directed
        ("NBT.1", "NF.2", {}),  # reachable only through relatesTo, which paths never follow
    ],
)
def test_no_path_within_the_bounds_is_a_complete_empty_answer(
    evidence_state: AppState, source: str, target: str, fields: dict[str, Any]
) -> None:
    result = paths(evidence_state, std(LC, source), std(LC, target), **fields)
    assert result.paths == [] and result.links == []
    assert (result.search_complete, result.paths_complete, result.more_paths_exist) == (True, True, False)
    depth = fields.get("maxDepth", 6)
    assert result.interpretation.startswith(f"No directed buildsTowards path of at most {depth} links")
    assert [s.statement_code for s in result.standards] == [source, target]


def test_the_traversal_reaches_what_paths_do_not_join(evidence_state: AppState) -> None:
    reached = traverse(evidence_state, **std(LC, "NBT.1"))
    assert item(LC, "NF.2") in {n.node_id for n in reached.nodes}
    assert paths(evidence_state, std(LC, "NBT.1"), std(LC, "NF.2")).paths == []


def test_paths_come_shortest_first_and_more_paths_are_a_fact(evidence_state: AppState) -> None:
    source, target = std(MESH, "MESH.1"), std(MESH, "MESH.22")
    every = paths(evidence_state, source, target, maxPaths=20, maxDepth=12)
    lengths = [len(p.relationship_ids) for p in every.paths]
    assert lengths == [3, 4, 5] and every.more_paths_exist is False and every.search_complete is True
    store: GraphStore = evidence_state.catalog.resolve(MESH).store
    by_id: dict[str, RelationshipRecord] = {r.identifier: r for r in store.relationships_with_label(B)}
    for path in every.paths:
        node_ids = [step.node_id for step in path.steps]
        assert node_ids[0] == item(MESH, "MESH.1") and node_ids[-1] == item(MESH, "MESH.22")
        assert len(set(node_ids)) == len(node_ids)  # simple
        steps = [by_id[rel_id] for rel_id in path.relationship_ids]  # stored buildsTowards links only
        assert [(r.source_identifier, r.target_identifier) for r in steps] == list(pairwise(node_ids))
    first_two = paths(evidence_state, source, target, maxPaths=2, maxDepth=12)
    assert first_two.paths == every.paths[:2]
    assert (first_two.more_paths_exist, first_two.search_complete, first_two.paths_complete) == (True, False, False)
    assert first_two.truncation_reasons == ["max_paths"]
    shallow = paths(evidence_state, source, target, maxPaths=20, maxDepth=4)
    assert shallow.paths == every.paths[:2]  # the 5-link path is beyond the depth, and that is complete
    assert shallow.search_complete is True and shallow.more_paths_exist is False


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            std(DAG, "NF.2"),
            f"from is in {LC}@{SNAPSHOT} and to is in {DAG}@{SNAPSHOT}: paths follow stored links inside one package "
            "and never cross packages.",
        ),
        (
            {"frameworkId": LC, "nodeId": item(LC, "NBT.1")},
            "from and to select the same standard; a path joins two different standards.",
        ),
    ],
)
def test_paths_join_two_standards_of_one_package(
    evidence_state: AppState, target: dict[str, str], message: str
) -> None:
    with pytest.raises(InvalidProgressionRequestError) as refused:
        paths(evidence_state, std(LC, "NBT.1"), target)
    assert refused.value.code == "invalid_progression_request" and refused.value.message == message


# -- notices ------------------------------------------------------------------------------------------


def test_an_unresolved_reference_travels_with_its_standard(evidence_state: AppState) -> None:
    result = progressions(evidence_state, **std(LC, "NF.2"))
    assert links(result.links) == [(B, "NF.1", "NF.2")]
    judgement, unresolved = result.warnings.items
    assert (judgement.code, judgement.category) == ("stored_link_judgement", "judgement_warning")
    assert unresolved.to_wire() == {
        "code": "unresolved_reference",
        "category": "coverage_notice",
        "message": "Cited by the source, kept as unresolved evidence, not as a link: code points outside this package.",
        "nodeId": item(LC, "NF.2"),
        "reference": "EM13MAT101",
        "status": "unresolvedExternalReference",
        "unresolvedId": stable_uuid(LC, "unresolved", "EM13MAT101"),
        "epistemicStatus": "unresolved",
    }
    assert (result.warnings.total, result.warnings.omitted) == (2, 0)


def test_notices_follow_what_a_result_returns(evidence_state: AppState) -> None:
    reaching = traverse(evidence_state, **std(LC, "NBT.1"))
    assert notice_codes(reaching) == ["stored_link_judgement", "relates_to_unordered", "unresolved_reference"]
    short = traverse(evidence_state, **std(LC, "NBT.1"), maxNodes=3)  # NF.2 and the relatesTo link not returned
    assert notice_codes(short) == ["stored_link_judgement"]
    builds = traverse(evidence_state, **std(LC, "NBT.1"), linkTypes=["buildsTowards"])
    assert notice_codes(builds) == ["stored_link_judgement"]


def test_packages_that_store_fewer_link_kinds_say_so(evidence_state: AppState) -> None:
    none = progressions(evidence_state, **std(NOLINKS, "NF.2"))
    assert none.links == [] and notice_codes(none) == ["no_progression_links"]
    assert none.warnings.items[0].message == (
        f"{NOLINKS}@{SNAPSHOT} stores no learning-progression links: an empty result here says nothing about how "
        "its standards relate."
    )
    builds = progressions(evidence_state, **std(BUILDS_ONLY, "NF.2"))
    (notice,) = builds.warnings.items
    assert (notice.code, notice.category, notice.relationship_label) == ("link_type_not_stored", "coverage_notice", R)
    assert notice.message == (
        f"{BUILDS_ONLY}@{SNAPSHOT} does not store relatesTo links (it stores buildsTowards); none can appear in this "
        "result."
    )
    assert notice_codes(progressions(evidence_state, **std(BUILDS_ONLY, "NF.2"), linkTypes=["buildsTowards"])) == []
    # A package that declares both kinds and holds none of them has nothing to disclose: its answer is complete.
    assert notice_codes(progressions(evidence_state, **std(DAG, "NF.2"))) == []


def test_one_stored_link_and_what_is_not_one(evidence_state: AppState) -> None:
    store = evidence_state.catalog.resolve(LC).store
    (relates,) = store.relationships_with_label(R)
    result = evidence_state.progressions.get_learning_progression(
        GetLearningProgressionRequest.model_validate({"frameworkId": LC, "progressionId": relates.identifier})
    )
    assert links([result.link]) == [(R, "NBT.A.2", "NF.1")]
    assert [s.statement_code for s in result.standards] == ["NBT.A.2", "NF.1"]
    assert notice_codes(result) == ["stored_link_judgement", "relates_to_unordered"]
    assert result.provenance_part_uri is None  # the fixture rights deny bulk content, so no part is cited
    for other in (store.relationships_with_label(HAS_CHILD)[0].identifier, item(LC, "NF.1"), "no-such-link"):
        with pytest.raises(LearningProgressionNotFoundError) as refused:
            evidence_state.progressions.get_learning_progression(
                GetLearningProgressionRequest.model_validate({"frameworkId": LC, "progressionId": other})
            )
        assert refused.value.code == "learning_progression_not_found"
