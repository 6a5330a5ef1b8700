"""Filter values: a value the selected frameworks do not use is refused, and get_framework lists what they use.

On the default catalog, through the in-memory client, in both views.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from default_catalog_ids import DEFAULT_PACKAGES
from tool_calls import call, error, structured, texts

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def test_an_unknown_grade_label_is_refused_naming_the_accepted_ones(default_client: Client[Any]) -> None:
    # The case: "5", "05" and "quinto ano" are not grade labels of the framework.
    for value in ("5", "05", "quinto ano"):
        message = await error(
            default_client, "search_standards", {"query": "frações", "frameworkIds": [EF], "gradeLevels": [value]}
        )
        assert message.startswith(f"invalid_request: gradeLevels: {value!r} is not a grade label of this package.")
        assert "5º ano (ef-ano-05)" in message and "9º ano (ef-ano-09)" in message
        assert "Next action:" in message and "get_framework" in message
    quinto = await error(
        default_client, "search_standards", {"query": "frações", "frameworkIds": [EF], "gradeLevels": ["quinto ano"]}
    )
    assert "'quinto ano' is how a query writes '5º ano'" in quinto
    # Across every package: no package uses "5", so it is refused too (the message stays bounded).
    everywhere = await error(default_client, "search_standards", {"query": "frações", "gradeLevels": ["5"]})
    assert everywhere.startswith(
        f"invalid_request: gradeLevels: '5' is not a grade label of any of the {len(DEFAULT_PACKAGES)} packages"
    )
    assert f"{len(DEFAULT_PACKAGES) - 3} more package(s)" in everywhere and len(everywhere) < 2000


async def test_a_value_one_selected_package_uses_is_accepted(default_client: Client[Any]) -> None:
    # "03" is a CCSS label, not an Ensino Fundamental one: across both, the CCSS standards of grade 03 come back.
    both = structured(
        await call(
            default_client,
            "search_standards",
            {"query": "main idea", "frameworkIds": [EF, CCSS], "gradeLevels": ["03"]},
        )
    )
    assert both["total"] > 0 and all("03" in hit["gradeLevels"] for hit in both["hits"])
    alone = await error(
        default_client, "search_standards", {"query": "main idea", "frameworkIds": [EF], "gradeLevels": ["03"]}
    )
    assert alone.startswith("invalid_request: gradeLevels: '03' is not a grade label of this package.")


async def test_unknown_statement_types_and_subjects_are_refused(default_client: Client[Any]) -> None:
    base = {"query": "frações", "frameworkIds": [EF]}
    types = await error(default_client, "search_standards", {**base, "statementTypes": ["habilidades", "Standard"]})
    assert types.startswith("invalid_request: statementTypes: 'habilidades', 'Standard' are not statement types")
    assert "Habilidade (habilidade)" in types
    subjects = await error(default_client, "search_standards", {**base, "academicSubjects": ["Mathematics"]})
    assert subjects.startswith("invalid_request: academicSubjects: 'Mathematics' is not an academic subject")
    assert "Matemática" in subjects
    components = await error(
        default_client, "search_learning_components", {**base, "academicSubjects": ["Arte"]}
    )  # a standards subject of the package, but no learning component has it
    assert components.startswith("invalid_request: academicSubjects: 'Arte' is not an academic subject")
    assert "Língua Portuguesa, Matemática" in components
    # The accepted forms still work: the source term and the normalised one.
    for request in ({"statementTypes": ["habilidade"]}, {"academicSubjects": ["Matemática"]}):
        assert structured(await call(default_client, "search_standards", {**base, **request}))["total"] > 0


async def test_comparison_grade_filters_must_fit_each_framework(default_client: Client[Any]) -> None:
    base = {"query": "main idea", "frameworkIds": [EF, CCSS]}
    shared = await error(default_client, "compare_framework_evidence", {**base, "gradeLevels": ["03"]})
    assert shared.startswith("invalid_request: gradeLevels: '03' is not a grade label of this package.")
    assert f"{EF}@" in shared and "frameworkGradeLevels" in shared
    own = await error(
        default_client,
        "compare_framework_evidence",
        {**base, "frameworkGradeLevels": [{"frameworkId": EF, "gradeLevels": ["3"]}]},
    )
    assert own.startswith(f"invalid_request: frameworkGradeLevels[{EF}].gradeLevels: '3' is not a grade label")
    # A shared list holding each framework's own label is accepted: each framework applies the one it knows.
    mixed = structured(
        await call(default_client, "compare_framework_evidence", {**base, "gradeLevels": ["03", "3º ano"]})
    )
    assert [section["gradeLevels"] for section in mixed["frameworks"]] == [["03", "3º ano"]] * 2


async def test_get_framework_lists_the_accepted_values_in_both_views(default_client: Client[Any]) -> None:
    result = await call(default_client, "get_framework", {"frameworkId": EF})
    values = structured(result)["filterValues"]
    assert values["gradeLevels"][4] == {"label": "5º ano", "facet": "ef-ano-05"}
    assert {"type": "Habilidade", "normalized": "habilidade", "role": "standard"} in values["statementTypes"]
    assert "Matemática" in values["academicSubjects"] and "Matemática" in values["componentSubjects"]
    (text,) = texts(result)
    assert "- gradeLevels: 1º ano (ef-ano-01), 2º ano (ef-ano-02)" in text
    assert "Habilidade (habilidade)" in text and "- academicSubjects: Arte, Ciências" in text
    # Every listed value is one the filters accept, in either form.
    for grade in values["gradeLevels"]:
        for form in (grade["label"], grade["facet"]):
            await call(default_client, "search_standards", {"query": "x", "frameworkIds": [EF], "gradeLevels": [form]})
    for subject in values["componentSubjects"]:
        await call(
            default_client,
            "search_learning_components",
            {"query": "x", "frameworkIds": [EF], "academicSubjects": [subject]},
        )
    ccss = structured(await call(default_client, "get_framework", {"frameworkId": CCSS}))["filterValues"]
    assert [g["label"] for g in ccss["gradeLevels"]] == ["02", "03", "04"] and "componentSubjects" not in ccss
