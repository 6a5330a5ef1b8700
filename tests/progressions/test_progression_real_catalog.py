"""The evidence tools against the real default catalog (BNCC + Mapa de Foco, CCSS), through the MCP client.

Facts checked here come from the sources themselves: the Mapa de Foco lists EF04MA09 as prior
knowledge of EF05MA03, EF05MA04 and EF05MA05 as what it leads to, and EF05MA06 as related; it
decomposes EF05MA03 into four objectives; the bncc-dados age-group alignments chain EI01CG01 →
EI02CG01 → EI03CG01; and the Mapa de Foco cites Educação Infantil codes from EF01GE01, which the
package keeps as unresolved evidence rather than as links across packages.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client
from progression_calls import (
    assert_canonical_within_ceiling,
    call,
    error_code,
    records,
    structured,
    texts,
    traversal_links,
)

EF = "brazil-bncc-ensino-fundamental"
EI = "brazil-bncc-educacao-infantil"
CO = "brazil-bncc-computacao"
MAPA_DISCLOSURE = "third-party-learning-components"


def std(framework_id: str, code: str) -> dict[str, str]:
    return {"frameworkId": framework_id, "statementCode": code}


def direct_links(content: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(link type, direction seen from the selected standard, counterpart's code) of each direct link."""
    selected, named = content["standardNodeId"], records(content)
    found = []
    for link in content["links"]:
        outgoing = link["sourceNodeId"] == selected
        other = link["targetNodeId"] if outgoing else link["sourceNodeId"]
        # The link names each end's code itself; it is the code of the record with that node id.
        code = link["targetStatementCode"] if outgoing else link["sourceStatementCode"]
        assert code == named[other]["statementCode"]
        found.append((link["linkType"], "outgoing" if outgoing else "incoming", code))
    return found


async def test_mapa_de_foco_links_of_a_habilidade(default_client: Client[Any]) -> None:
    content = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", std(EF, "EF05MA03"))
    )
    assert direct_links(content) == [
        ("buildsTowards", "outgoing", "EF05MA04"),
        ("buildsTowards", "outgoing", "EF05MA05"),
        ("buildsTowards", "incoming", "EF04MA09"),
        ("relatesTo", "outgoing", "EF05MA06"),
    ]
    assert content["totalLinks"] == 4 and content["page"]["stoppedBy"] == "exhausted"
    # Every standard once: the selected one first, then each counterpart; links refer to them by node id.
    assert [s["statementCode"] for s in content["standards"]] == [
        "EF05MA03",
        "EF05MA04",
        "EF05MA05",
        "EF04MA09",
        "EF05MA06",
    ]
    assert content["standards"][0]["nodeId"] == content["standardNodeId"]
    assert content["package"]["graphPackageId"].startswith(f"{EF}@")
    assert MAPA_DISCLOSURE in content["package"]["disclosureIds"]
    codes = [w["code"] for w in content["warnings"]["items"]]
    assert codes[:2] == ["stored_link_judgement", "relates_to_unordered"]
    only_relates = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", {**std(EF, "EF05MA03"), "linkTypes": ["relatesTo"]})
    )
    assert [code for _, _, code in direct_links(only_relates)] == ["EF05MA06"]
    incoming = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", {**std(EF, "EF05MA03"), "direction": "in"})
    )
    assert direct_links(incoming) == [("buildsTowards", "incoming", "EF04MA09")]


async def test_mapa_de_foco_components_of_a_habilidade(default_client: Client[Any]) -> None:
    result = await call(default_client, "get_learning_components_for_standard", std(EF, "EF05MA03"))
    content = structured(result)
    assert content["total"] == len(content["supports"]) == 4
    descriptions = [s["component"]["description"] for s in content["supports"]]
    assert any(d.startswith("Reconhecer frações maiores e menores que um inteir") for d in descriptions)
    text = texts(result)[0]
    (attribution,) = content["attributions"]  # said once, not per component
    assert attribution["provider"].startswith("Instituto Reúna") and attribution["license"]
    assert attribution["provider"] in text and attribution["attributionStatement"].rstrip(".") in text
    base = content["package"]["uri"]
    for support in content["supports"]:
        assert support["supportConfidence"] == 1.0
        assert support["component"]["attribution"] == 0
        for link in (
            support["relationshipId"],
            f"{base}/relationship/{support['relationshipId']}",
            f"{base}/learning-component/{support['component']['nodeId']}",
        ):
            assert link in text
    component = content["supports"][0]["component"]["nodeId"]
    standards = structured(
        await call(default_client, "get_standards_for_learning_component", {"frameworkId": EF, "nodeId": component})
    )
    (supported,) = standards["standards"]
    assert supported["standard"]["statementCode"] == "EF05MA03"
    assert supported["standard"]["gradeLevels"] == ["5º ano"]
    assert supported["standard"]["statementType"] == "Habilidade"
    hits = structured(
        await call(
            default_client, "search_learning_components", {"query": "frações equivalentes", "frameworkIds": [EF]}
        )
    )
    assert hits["total"] >= 1 and all("statementType" not in h for h in hits["hits"])
    assert "frações" in hits["hits"][0]["description"].casefold()


async def test_educacao_infantil_chain_is_found_as_a_path(default_client: Client[Any]) -> None:
    request = {"from": std(EI, "EI01CG01"), "to": std(EI, "EI03CG01")}
    content = assert_canonical_within_ceiling(await call(default_client, "find_learning_progression_paths", request))
    (path,) = content["paths"]
    # Each step names its standard's code and grade beside its node id: the sequence reads without a join.
    assert [(step["statementCode"], step["gradeLevels"]) for step in path["steps"]] == [
        ("EI01CG01", ["Bebês"]),
        ("EI02CG01", ["Crianças bem pequenas"]),
        ("EI03CG01", ["Crianças pequenas"]),
    ]
    codes = {n["nodeId"]: n["statementCode"] for n in content["standards"]}
    assert [codes[step["nodeId"]] for step in path["steps"]] == ["EI01CG01", "EI02CG01", "EI03CG01"]
    assert all("codeSelects" not in step for step in path["steps"])
    assert len(path["relationshipIds"]) == 2 and content["searchComplete"] is True and content["pathsComplete"] is True
    assert {link["relationshipId"] for link in content["links"]} == set(path["relationshipIds"])
    assert "reviewed-age-group-pairing" in content["package"]["disclosureIds"]
    backwards = assert_canonical_within_ceiling(
        await call(
            default_client, "find_learning_progression_paths", {"from": std(EI, "EI03CG01"), "to": std(EI, "EI01CG01")}
        )
    )
    assert backwards["paths"] == [] and backwards["searchComplete"] is True  # directed: no path backwards
    traversal = assert_canonical_within_ceiling(
        await call(default_client, "traverse_learning_progressions", std(EI, "EI01EF01"))
    )
    assert [n["statementCode"] for n in traversal["nodes"]] == ["EI01EF01", "EI02EF01", "EI03EF01"]
    # Each followed link names the code of the standard it leads to beside that standard's node id.
    assert [(link["from"], link["to"], link["toStatementCode"]) for link in traversal_links(traversal)] == [
        (traversal["nodes"][0]["nodeId"], traversal["nodes"][1]["nodeId"], "EI02EF01"),
        (traversal["nodes"][1]["nodeId"], traversal["nodes"][2]["nodeId"], "EI03EF01"),
    ]
    assert traversal["graphExhausted"] is True and traversal["truncationReasons"] == []
    link_id = path["relationshipIds"][0]
    exact = assert_canonical_within_ceiling(
        await call(default_client, "get_learning_progression", {"frameworkId": EI, "progressionId": link_id})
    )
    source, target = exact["standards"]
    assert (source["nodeId"], target["nodeId"]) == (exact["link"]["sourceNodeId"], exact["link"]["targetNodeId"])
    assert source["statementCode"] == "EI01CG01" and target["statementCode"] == "EI02CG01"
    assert (exact["link"]["sourceStatementCode"], exact["link"]["targetStatementCode"]) == ("EI01CG01", "EI02CG01")
    assert source["gradeLevels"][0] == "Bebês"


async def test_unresolved_references_surface_as_notices(default_client: Client[Any]) -> None:
    content = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", std(EF, "EF01GE01"))
    )
    unresolved = [n for n in content["warnings"]["items"] if n["code"] == "unresolved_reference"]
    assert [(n["reference"], n["status"]) for n in unresolved] == [
        ("EI03EF01", "unresolvedExternalReference"),
        ("EI03EO04", "unresolvedExternalReference"),
        ("EI03EO06", "unresolvedExternalReference"),
    ]
    assert all(n["relationshipLabel"] == "buildsTowards" and "uri" not in n for n in unresolved)
    assert content["warnings"]["total"] >= len(unresolved) and content["warnings"]["omitted"] == 0
    missing = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", std(EF, "EF01MA07"))
    )
    references = {
        (n["reference"], n["status"]) for n in missing["warnings"]["items"] if n["code"] == "unresolved_reference"
    }
    assert references == {("EFMA01MA04", "unresolvedMissingTarget"), ("EFMA01MA05", "unresolvedMissingTarget")}
    # relatesTo-only requests do not carry buildsTowards references.
    relates = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", {**std(EF, "EF01GE01"), "linkTypes": ["relatesTo"]})
    )
    assert not [n for n in relates["warnings"]["items"] if n["code"] == "unresolved_reference"]


async def test_packages_without_a_link_kind_give_complete_empty_evidence(default_client: Client[Any]) -> None:
    computacao = assert_canonical_within_ceiling(
        await call(default_client, "get_standard_progressions", std(CO, "EF01CO01"))
    )
    assert computacao["links"] == [] and computacao["page"]["stoppedBy"] == "exhausted"
    assert [n["code"] for n in computacao["warnings"]["items"]] == ["no_progression_links"]
    infantil = assert_canonical_within_ceiling(
        await call(default_client, "search_learning_progressions", {"frameworkId": EI, "linkTypes": ["relatesTo"]})
    )
    assert infantil["links"] == []
    assert [n["code"] for n in infantil["warnings"]["items"]] == ["link_type_not_stored"]


async def test_search_learning_progressions_by_grade_and_text(default_client: Client[Any]) -> None:
    request: dict[str, Any] = {
        "frameworkId": EF,
        "gradeLevels": ["5º ano"],
        "query": "frações",
        "linkTypes": ["buildsTowards"],
        "limit": 3,
    }
    seen = []
    while True:
        content = assert_canonical_within_ceiling(await call(default_client, "search_learning_progressions", request))
        named = records(content)
        for link in content["links"]:
            assert link["linkType"] == "buildsTowards"
            assert "5º ano" in named[link["sourceNodeId"]]["gradeLevels"] + named[link["targetNodeId"]]["gradeLevels"]
        seen += [link["relationshipId"] for link in content["links"]]
        if not content["page"]["hasMore"]:
            break
        request = {**request, "cursor": content["page"]["nextCursor"]}
    assert len(seen) == len(set(seen)) >= 3
    by_facet = assert_canonical_within_ceiling(
        await call(
            default_client,
            "search_learning_progressions",
            {**{k: v for k, v in request.items() if k != "cursor"}, "gradeLevels": ["ef-ano-05"], "limit": 100},
        )
    )
    assert [link["relationshipId"] for link in by_facet["links"]] == seen  # a facet selects the same links


async def test_traversal_at_maximum_caps_respects_every_bound(default_client: Client[Any]) -> None:
    request = {**std(EF, "EF01MA07"), "direction": "both", "maxDepth": 12, "maxNodes": 250, "maxEdges": 100}
    content = assert_canonical_within_ceiling(await call(default_client, "traverse_learning_progressions", request))
    counters = content["counters"]
    assert counters["nodesReached"] <= 250 and counters["edgesFollowed"] <= 100 and counters["workAdmissions"] <= 5000
    assert counters["nodesReturned"] == len(content["nodes"])
    assert counters["edgesReturned"] == len(traversal_links(content))
    assert content["scopeComplete"] is False and content["truncationReasons"]
    assert content["frontier"] and "not evidence" in content["interpretation"]
    paths = assert_canonical_within_ceiling(
        await call(
            default_client,
            "find_learning_progression_paths",
            {"from": std(EF, "EF01MA07"), "to": std(EF, "EF05MA03"), "maxDepth": 12, "maxPaths": 20},
        )
    )
    lengths = [len(p["relationshipIds"]) for p in paths["paths"]]
    assert lengths and lengths == sorted(lengths) and max(lengths) <= 12


async def test_comparison_between_ensino_fundamental_and_computacao(default_client: Client[Any]) -> None:
    request = {"query": "algoritmos", "frameworkIds": [EF, CO], "maxMatchesPerFramework": 3}
    result = await call(default_client, "compare_framework_evidence", request)
    content = structured(result)
    assert [s["package"]["graphPackageId"].split("@")[0] for s in content["frameworks"]] == [CO, EF]
    assert content["alignmentAsserted"] is False and "no alignment" in content["reviewNotice"]
    for section in content["frameworks"]:
        assert 1 <= len(section["candidates"]) <= 3 <= section["totalMatches"]
        described = {node["nodeId"]: node for node in section["contextNodes"]}
        for candidate in section["candidates"]:
            assert candidate["context"], "every candidate sits under its package's hierarchy"
            assert described[candidate["context"][0]]["kind"] == "framework"  # root first
            chain = [described[n]["description"] for n in candidate["context"]]
            assert "algoritm" in (candidate["standard"]["description"] + " ".join(chain)).casefold()
    text = texts(result)[0]
    assert (
        "asserts no alignment" in text
        and f"== Package 2, {content['frameworks'][1]['package']['graphPackageId']}" in text
    )
    graded = structured(
        await call(
            default_client,
            "compare_framework_evidence",
            {
                "query": "algoritmos",
                "frameworkIds": [EF, CO],
                "frameworkGradeLevels": [{"frameworkId": EF, "gradeLevels": ["1º ano"]}],
            },
        )
    )
    ef_section = next(s for s in graded["frameworks"] if s["package"]["graphPackageId"].startswith(f"{EF}@"))
    for candidate in ef_section["candidates"]:
        assert "1º ano" in candidate["standard"]["gradeLevels"]
    if not ef_section["candidates"]:
        assert "no_matches" in [w["code"] for w in ef_section["warnings"]]


async def test_comparison_narrows_each_framework_to_its_own_subjects(default_client: Client[Any]) -> None:
    """In Ensino Fundamental "ideia central" ranks other subjects' standards too; a subject of its own, given
    for that framework alone, keeps its section to Língua Portuguesa and leaves Computação unfiltered."""
    request = {"query": "ideia central", "frameworkIds": [EF, CO], "maxMatchesPerFramework": 10}
    narrowed_call = await call(
        default_client,
        "compare_framework_evidence",
        {**request, "frameworkAcademicSubjects": [{"frameworkId": EF, "academicSubjects": ["Língua Portuguesa"]}]},
    )
    narrowed = structured(narrowed_call)
    sections = {s["package"]["graphPackageId"].split("@")[0]: s for s in narrowed["frameworks"]}
    assert sections[EF]["academicSubjects"] == ["Língua Portuguesa"] and "academicSubjects" not in sections[CO]
    assert sections[EF]["candidates"]
    assert all(c["standard"]["statementCode"][4:6] == "LP" for c in sections[EF]["candidates"])  # EF05LP03 …
    assert f"{EF}@" in texts(narrowed_call)[0] and "; subjects Língua Portuguesa:" in texts(narrowed_call)[0]
    # Subjects are local: each one given must be a subject of its framework.
    foreign = {"frameworkAcademicSubjects": [{"frameworkId": CO, "academicSubjects": ["Ensino Religioso"]}]}
    refused = await default_client.call_tool(
        "compare_framework_evidence", {"request": {**request, **foreign}}, raise_on_error=False
    )
    assert refused.is_error, texts(refused)
    assert texts(refused)[0].startswith(f"invalid_request: frameworkAcademicSubjects[{CO}].academicSubjects: 'Ensino")
    assert "accepts Computação" in texts(refused)[0]


async def test_comparison_reports_unresolved_evidence_and_no_matches(default_client: Client[Any]) -> None:
    content = structured(
        await call(
            default_client,
            "compare_framework_evidence",
            {"query": "EF01GE01", "searchMode": "code", "frameworkIds": [EF, CO]},
        )
    )
    sections = {s["package"]["graphPackageId"].split("@")[0]: s for s in content["frameworks"]}
    (candidate,) = sections[EF]["candidates"]
    assert candidate["standard"]["statementCode"] == "EF01GE01" and candidate["unresolvedReferences"] == 3
    assert "unresolved_evidence_present" in [w["code"] for w in sections[EF]["warnings"]]
    assert sections[CO]["candidates"] == [] and "no_matches" in [w["code"] for w in sections[CO]["warnings"]]


async def test_error_codes_on_the_real_catalog(default_client: Client[Any]) -> None:
    assert await error_code(default_client, "get_learning_progression", {"frameworkId": EF, "progressionId": "x"}) == (
        "learning_progression_not_found"
    )
    assert (
        await error_code(
            default_client, "find_learning_progression_paths", {"from": std(EI, "EI01CG01"), "to": std(EF, "EF01MA07")}
        )
        == "invalid_progression_request"
    )
    assert (
        await error_code(
            default_client,
            "compare_framework_evidence",
            {"query": "x", "frameworkIds": [EF, CO], "snapshotIds": ["nope-1"]},
        )
        == "invalid_comparison_selection"
    )
    assert await error_code(default_client, "search_learning_components", {"query": "x", "frameworkIds": [CO]}) == (
        "capability_unavailable"
    )
