"""Every claim carries a label from the spec's eight, and components are labelled only as declared."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.epistemic import EPISTEMIC_LABELS, ComponentProduction, component_label
from kgfegmcp.mcp.evidence_text import _production
from kgfegmcp.services.views import components_label
from tool_calls import call, structured

EF = "brazil-bncc-ensino-fundamental"
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
    production = ComponentProduction.model_validate({"method": method, "reviewed": reviewed, "source": "Curator"})
    assert component_label(production) == expected
    label = components_label(production).to_wire()
    assert label == {"production": method, "epistemicStatus": expected, "source": "Curator"}


def test_undeclared_production_is_said_and_never_guessed() -> None:
    assert components_label(None).to_wire() == {"production": "undeclared"}


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
        assert package["components"]["production"] in ("curated", "model_generated", "undeclared")
        assert package["components"].get("epistemicStatus", "source_asserted") in EPISTEMIC_LABELS


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
    expected = {"deterministic_derived", document["components"].get("epistemicStatus", "deterministic_derived")}
    assert set(meta["epistemicStatus"]) == expected


def test_the_text_summary_states_the_production_as_the_structure_does() -> None:
    curated = ComponentProduction(method="curated", reviewed=False, source="Instituto Reúna (Mapa de Foco)")
    assert _production(components_label(curated)) == "curated by Instituto Reúna (Mapa de Foco) (source_asserted)"
    assert _production(components_label(None)) == "production undeclared, no epistemic label"
