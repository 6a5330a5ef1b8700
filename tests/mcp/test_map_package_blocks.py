"""The package block of the five answers the curriculum map draws: the answer's grades and what the package holds.

``grades`` lists every grade label the answer's standards carry, once, in the order the package's profile
declares (read here from the profile file itself, never from the server), each with the profile's display
name; ``holds`` says whether the package has any progression links and any learning components. A host hands
its model either the text or the structured content, so each answer is checked in each view alone: the
progression tools' text is their canonical JSON, the other two say both on lines of their own. No other
tool's answer or schema carries either field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from fastmcp import Client
from mcp.types import CallToolResult

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR
from kgfegmcp.mcp.register import output_schema
from kgfegmcp.mcp.tools import TOOLS
from kgfegmcp.profiles.model import InterpretationProfile

EF = "brazil-bncc-ensino-fundamental"
EI = "brazil-bncc-educacao-infantil"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"
AU = "australia-acara-v9-mathematics"
#: Whether each package has any progression links, any learning components (its get_framework_statistics).
HOLDS = {
    EF: {"progressionLinks": True, "learningComponents": True},
    EI: {"progressionLinks": True, "learningComponents": False},
    EM: {"progressionLinks": False, "learningComponents": False},
    CCSS: {"progressionLinks": False, "learningComponents": False},
    AU: {"progressionLinks": False, "learningComponents": False},
}
#: The progression tools' text is their complete canonical JSON.
JSON_TEXT = {"get_standard_progressions", "traverse_learning_progressions", "find_learning_progression_paths"}


def code(framework_id: str, statement_code: str, **extra: Any) -> dict[str, Any]:
    return {"frameworkId": framework_id, "statementCode": statement_code, **extra}


#: (tool, request, the labels expected in order): a few pinned by hand, each against the profile below too.
CALLS: list[tuple[str, dict[str, Any], list[str] | None]] = [
    (
        "traverse_learning_progressions",
        code(EF, "EF05MA03", direction="both"),
        ["3º ano", "4º ano", "5º ano", "6º ano", "7º ano", "8º ano", "9º ano"],
    ),
    ("traverse_learning_progressions", code(EF, "EF05MA03"), None),
    ("get_standard_progressions", code(EF, "EF05MA03"), None),
    (
        "find_learning_progression_paths",
        {"from": code(EF, "EF02MA01"), "to": code(EF, "EF05MA04")},
        ["2º ano", "3º ano", "4º ano", "5º ano"],
    ),
    ("get_learning_components_for_standard", code(EF, "EF05MA03"), ["5º ano"]),
    ("get_standard_context", code(EF, "EF05MA03"), None),
    # Met youngest last (the start, then what it builds on): listed in the profile's order all the same.
    (
        "traverse_learning_progressions",
        code(EI, "EI03EO01", direction="both"),
        ["Bebês", "Crianças bem pequenas", "Crianças pequenas"],
    ),
    ("get_standard_context", code(EI, "EI03EO01"), ["Bebês", "Crianças bem pequenas", "Crianças pequenas"]),
    ("get_standard_context", code(EM, "EM13LP38"), ["Ensino Médio"]),
    ("get_standard_progressions", code(EM, "EM13LP38"), ["Ensino Médio"]),
    ("get_standard_context", code(CCSS, "RL.2.1"), ["02"]),
    ("get_standard_context", code(CCSS, "RL.3.1"), ["03"]),
    ("get_learning_components_for_standard", code(CCSS, "RL.3.1"), ["03"]),
    ("get_standard_progressions", code(CCSS, "RL.4.1"), ["04"]),
    # Sorted by name, "Year 10" would come before "Year 2".
    (
        "get_standard_context",
        code(AU, "AC9M9N01", ancestorDepth=10),
        ["Foundation Year", *(f"Year {n}" for n in range(1, 11))],
    ),
]


@cache
def declared_grades(profile: str) -> dict[str, tuple[int, str]]:
    """Each grade label the bound profile (``<profileId> <version> <sha>``) declares: its order and display."""
    profile_id, version, _ = profile.split(" ")
    document = json.loads((SHIPPED_PROFILES_DIR / profile_id / f"{version}.json").read_text(encoding="utf-8"))
    return {g["sourceLabel"]: (g["order"], g["display"]) for g in document["gradeLabels"]}


def carried_labels(value: Any) -> Iterator[str]:
    """Every grade label the answer's records carry (``gradeLevels`` wherever a record or a path step has it)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "gradeLevels":
                yield from item
            elif key != "package":
                yield from carried_labels(item)
    elif isinstance(value, list):
        for item in value:
            yield from carried_labels(item)


def expected_grades(answer: dict[str, Any]) -> list[dict[str, str]]:
    """The grades an answer must list: its records' labels once each, in the profile's order, by its names."""
    declared = declared_grades(answer["package"]["builtFrom"]["profile"])
    labels = set(carried_labels(answer))
    assert labels <= declared.keys(), "every label of the default catalog is declared by its profile"
    ordered = sorted(labels, key=lambda label: declared[label][0])
    return [{"label": label, "display": declared[label][1]} for label in ordered]


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def grade_line(grades: list[dict[str, str]]) -> str:
    named = [g["label"] if g["display"] == g["label"] else f"{g['label']} = {g['display']}" for g in grades]
    return f"Grades in this answer, in the framework's order: {', '.join(named)}."


def holds_line(holds: dict[str, bool]) -> str:
    said = {True: "yes", False: "no"}
    return (
        f"Package 1 holds progression links: {said[holds['progressionLinks']]}; "
        f"learning components: {said[holds['learningComponents']]}."
    )


async def answer(client: Client[Any], tool: str, request: dict[str, Any]) -> CallToolResult:
    result = await client.call_tool_mcp(tool, {"request": request})
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result


@pytest.mark.parametrize(("tool", "request_", "pinned"), CALLS)
async def test_each_view_alone_gives_the_grades_in_profile_order_and_what_the_package_holds(
    default_client: Client[Any], tool: str, request_: dict[str, Any], pinned: list[str] | None
) -> None:
    result = await answer(default_client, tool, request_)
    structured = result.structured_content
    assert structured is not None
    framework_id = structured["package"]["graphPackageId"].split("@")[0]
    grades = expected_grades(structured)
    assert grades, "every call above reaches graded standards"
    if pinned is not None:
        assert [g["label"] for g in grades] == pinned
    holds = HOLDS[framework_id]
    # The structured content alone.
    assert structured["package"]["grades"] == grades
    assert structured["package"]["holds"] == holds
    # The text alone.
    text = text_of(result)
    if tool in JSON_TEXT:
        package = json.loads(text)["package"]
        assert (package["grades"], package["holds"]) == (grades, holds)
    else:
        assert grade_line(grades) in text.splitlines()
        assert holds_line(holds) in text.splitlines()


async def test_ccss_grades_read_as_the_profile_names_them(default_client: Client[Any]) -> None:
    result = await answer(default_client, "get_standard_context", code(CCSS, "RL.3.1"))
    assert result.structured_content is not None
    assert result.structured_content["package"]["grades"] == [{"label": "03", "display": "Grade 3"}]
    assert "Grades in this answer, in the framework's order: 03 = Grade 3." in text_of(result).splitlines()


def objects_with(schema: Any, field: str) -> Iterator[dict[str, Any]]:
    """Every object schema (nested anywhere) that declares ``field``."""
    if isinstance(schema, dict):
        if field in (schema.get("properties") or {}):
            yield schema
        for value in schema.values():
            yield from objects_with(value, field)
    elif isinstance(schema, list):
        for value in schema:
            yield from objects_with(value, field)


def test_exactly_the_map_tools_declare_the_two_fields() -> None:
    for tool in TOOLS:
        schema = output_schema(tool.result)
        if tool.draws_map:
            block = schema["properties"]["package"]
            assert {"grades", "holds"} <= set(block["required"]), tool.name
            assert block["properties"]["grades"]["description"] and block["properties"]["holds"]["description"]
        else:
            assert not list(objects_with(schema, "holds")), tool.name
            for block in (schema["properties"].get("package"), schema["properties"].get("packages", {}).get("items")):
                assert "grades" not in ((block or {}).get("properties") or {}), tool.name


OTHER_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_standard", code(EF, "EF05MA03")),
    ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 3}),
    ("search_learning_progressions", {"frameworkId": EF, "query": "frações", "limit": 2}),
    ("get_framework_statistics", {"frameworkId": CCSS}),
    ("search_learning_components", {"query": "frações", "frameworkIds": [EF], "limit": 2}),
]


@pytest.mark.parametrize(("tool", "request_"), OTHER_CALLS)
async def test_other_answers_carry_neither_field(
    default_client: Client[Any], tool: str, request_: dict[str, Any]
) -> None:
    result = await answer(default_client, tool, request_)
    structured = result.structured_content
    assert structured is not None
    for package in [structured["package"]] if "package" in structured else structured["packages"]:
        assert not {"grades", "holds"} & package.keys()
    assert "Grades in this answer" not in text_of(result)


def test_one_grade_order_declared_labels_by_order_then_any_undeclared_by_label() -> None:
    """What every answer and listing orders grades by; served packages hold declared labels only (validation)."""
    profile = InterpretationProfile.model_validate_json(
        (SHIPPED_PROFILES_DIR / "us-ccss-ela-literacy" / "2.1.json").read_bytes()
    )
    assert profile.in_grade_order(["Z", "10", "04", "KG", "03", "A", "04"]) == ["KG", "03", "04", "10", "A", "Z"]
