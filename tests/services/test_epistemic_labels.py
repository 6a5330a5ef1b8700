"""Every claim carries a label from the spec's eight, and components are labelled only as declared."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.core.epistemic import EPISTEMIC_LABELS, component_label
from kgfegmcp.mcp.evidence_text import _production
from kgfegmcp.packages.lc_artifacts import ComponentSourceVersion, GenerationCounts, GenerationSummary, GeneratorModel
from kgfegmcp.services.progression_views import FollowedLinkView, ProgressionLinkView
from kgfegmcp.services.views import components_label
from tool_calls import call, structured

EF = "brazil-bncc-ensino-fundamental"
MAPA_DE_FOCO = {"production": "curated", "epistemicStatus": "source_asserted", "source": "Instituto Reúna"}
SPEC_LABELS = (
    "source_asserted",
    "source_extracted",
    "deterministic_derived",
    "accepted_derived",
    "human_reviewed",
    "retrieval_candidate",
    "llm_inferred",
    "unresolved",
)


def test_the_vocabulary_is_the_spec_list() -> None:
    assert EPISTEMIC_LABELS == SPEC_LABELS


@pytest.mark.parametrize(
    ("method", "reviewed", "expected"),
    [
        ("curated", False, "source_asserted"),
        ("curated", True, "source_asserted"),
        ("model_generated", False, "llm_inferred"),
        ("model_generated", True, "human_reviewed"),
    ],
)
def test_component_label_follows_the_declared_production(method: str, reviewed: bool, expected: str) -> None:
    assert component_label(method, reviewed) == expected  # type: ignore[arg-type]
    label = components_label(_summary(method, reviewed)).to_wire()
    source = "Curator" if method == "curated" else "decomposer"
    assert label == {"production": method, "epistemicStatus": expected, "source": source}


def _summary(method: str, reviewed: bool) -> GenerationSummary:
    return GenerationSummary(
        graph_package_id="x@1",
        production=method,  # type: ignore[arg-type]
        human_reviewed=reviewed,
        curator="Curator" if method == "curated" else None,
        generator=GeneratorModel(name="decomposer") if method == "model_generated" else None,
        source=ComponentSourceVersion(name="source", version="1"),
        method="How.",
        counts=GenerationCounts(
            components=0, supports=0, supported_items=0, dedup_groups=0, components_in_dedup_groups=0
        ),
    )


async def test_component_answers_label_their_packages(default_client: Client[Any]) -> None:
    answer = structured(
        await call(
            default_client, "get_learning_components_for_standard", {"frameworkId": EF, "statementCode": "EF01CI01"}
        )
    )
    component_id = answer["supports"][0]["component"]["nodeId"]
    detail = structured(
        await call(default_client, "get_learning_component", {"frameworkId": EF, "nodeId": component_id})
    )
    search = structured(
        await call(default_client, "search_learning_components", {"query": "frações", "frameworkIds": [EF]})
    )
    standards = structured(
        await call(default_client, "get_standards_for_learning_component", {"frameworkId": EF, "nodeId": component_id})
    )
    for package in (answer["package"], detail["package"], standards["package"], *search["packages"]):
        assert package["components"] == MAPA_DE_FOCO
        assert package["labels"] == {"standards": "source_asserted"}
        assert len(package["builtFrom"]["lcEntityProvenance"]) == 12  # component provenance is its own artifact


async def test_links_are_labelled_as_the_profile_declares(default_client: Client[Any]) -> None:
    extracted = structured(
        await call(default_client, "get_standard_progressions", {"frameworkId": EF, "statementCode": "EF05MA01"})
    )
    assert extracted["links"] and "epistemicStatus" not in extracted["links"][0]  # said once, for the package
    assert extracted["package"]["labels"] == {"standards": "source_asserted", "links": "source_extracted"}
    asserted = structured(
        await call(
            default_client, "search_learning_progressions", {"frameworkId": "brazil-bncc-educacao-infantil", "limit": 1}
        )
    )
    assert asserted["package"]["labels"] == {"standards": "source_asserted", "links": "source_asserted"}
    standard = await call(default_client, "get_standard", {"frameworkId": EF, "statementCode": "EF05MA01"})
    assert structured(standard)["package"]["labels"] == {"standards": "source_asserted"}
    assert f"Package 1: {EF}@" in standard.content[0].text  # type: ignore[union-attr]
    assert "; standards source_asserted) at " in standard.content[0].text  # type: ignore[union-attr]


async def test_comparison_candidates_are_retrieval_candidates(default_client: Client[Any]) -> None:
    answer = structured(
        await call(
            default_client,
            "compare_framework_evidence",
            {"query": "leitura texto", "frameworkIds": [EF, "brazil-bncc-ensino-medio"]},
        )
    )
    assert answer["candidateStatus"] == "retrieval_candidate"
    assert answer["frameworks"][0]["candidates"]


async def test_the_component_document_says_how_its_component_was_produced(default_client: Client[Any]) -> None:
    answer = structured(
        await call(
            default_client, "get_learning_components_for_standard", {"frameworkId": EF, "statementCode": "EF01CI01"}
        )
    )
    component_id = answer["supports"][0]["component"]["nodeId"]
    result = await default_client.read_resource_mcp(f"{answer['package']['uri']}/learning-component/{component_id}")
    content = result.contents[0]
    document = json.loads(content.text)  # type: ignore[union-attr]
    assert document["components"] == answer["package"]["components"]
    meta = (content.meta or {})["kgfegmcp"]
    assert meta["epistemicStatus"] == ["deterministic_derived", "source_asserted"]


def test_the_text_summary_states_the_production_as_the_structure_does() -> None:
    assert _production(components_label(_summary("curated", False))) == "curated by Curator (source_asserted)"
    assert (
        _production(components_label(_summary("model_generated", False)))
        == "model_generated by decomposer (llm_inferred)"
    )
    assert _production(None) == "none in this package"


def test_a_link_the_source_left_unresolved_is_labelled_unresolved() -> None:
    fields = {"relationshipId": "r", "linkType": "buildsTowards", "sourceNodeId": "a", "targetNodeId": "b"}
    assert "epistemicStatus" not in ProgressionLinkView.model_validate(fields).to_wire()
    unresolved = ProgressionLinkView.model_validate({**fields, "unresolvedStatus": "unresolvedRootFallback"})
    assert unresolved.to_wire()["epistemicStatus"] == "unresolved"
    followed = FollowedLinkView(relationship_id="r", link_type="relatesTo", to="b", unresolved_status="x")
    assert followed.epistemic_status == "unresolved"
