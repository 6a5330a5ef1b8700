"""ACARA's real MRAC Mathematics (../shared/data/australia-acara-v9/, never committed) built and validated.

The package is checked against a second reader: the JSON-LD file read as plain JSON (its expanded form names
every predicate by full IRI), independent of rdflib and of the importer.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from asn_fixtures import build_and_validate, profiles_copy
from package_view import PackageView, open_package

from checkout import REPOSITORY_ROOT

DATA = REPOSITORY_ROOT.parent / "shared" / "data" / "australia-acara-v9"
FRAMEWORK = "australia-acara-v9-mathematics"
ASN = "http://purl.org/ASN/schema/core/"
TITLE = "http://purl.org/dc/terms/title"
CHILD_OF = "http://purl.org/gem/qualifiers/isChildOf"

pytestmark = pytest.mark.skipif(
    not (DATA / "MAT.jsonld").is_file() or not (DATA / "MAT.rdf").is_file(),
    reason=f"ACARA's MRAC files are not here ({DATA} is absent); they are never committed",
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, profiles_root: Path) -> dict[str, PackageView]:
    """Each serialisation built, written and validated once."""
    root = tmp_path_factory.mktemp("mrac")
    profiles = profiles_copy(profiles_root, root / "profiles")
    views = {}
    for name in ("MAT.jsonld", "MAT.rdf"):
        content, result = build_and_validate(DATA / name, profiles, root / name)
        assert result.accepted, [f for f in result.outcome.findings if f.severity == "error"]
        assert (content.framework_id, content.snapshot_id) == (FRAMEWORK, "mrac-2023-07")
        assert content.profile.ref.profile_id == FRAMEWORK and content.profile.ref.version == "1.0"
        views[name] = open_package(root / name, FRAMEWORK)
    return views


@pytest.fixture(scope="module")
def source() -> dict[str, dict[str, Any]]:
    """The statements of MAT.jsonld by IRI, read as plain JSON: notation, label, title, parent."""
    (graph,) = json.loads((DATA / "MAT.jsonld").read_text(encoding="utf-8"))
    found = {}
    for node in graph["@graph"]:
        if ASN + "Statement" not in node.get("@type", []):
            continue

        def one(key: str, node: dict[str, Any] = node) -> Any:
            values = node.get(key, [])
            return values[0].get("@value", values[0].get("@id")) if values else None

        found[node["@id"]] = {
            "notation": one(ASN + "statementNotation"),
            "label": one(ASN + "statementLabel"),
            "title": one(TITLE),
            "parent": one(CHILD_OF),
        }
    return found


def _asn(view: PackageView, item_id: str) -> dict[str, Any]:
    return view.details[item_id]["sourceDetails"]["asn"]


def test_both_serialisations_give_the_same_items_and_edges(built: dict[str, PackageView]) -> None:
    json_view, xml_view = built["MAT.jsonld"], built["MAT.rdf"]
    assert json_view.items == xml_view.items
    assert json_view.relationships == xml_view.relationships
    assert json_view.details == xml_view.details


def test_counts(built: dict[str, PackageView]) -> None:
    view = built["MAT.jsonld"]
    assert Counter(i.statement_type for i in view.items) == Counter(
        {
            "Content Description": 240,
            "Achievement Standard Component": 185,
            "Strand": 63,
            "Level": 11,
            "Achievement Standard": 11,
            "Learning Area": 1,
            "Subject": 1,
        }
    )
    codes = [i.statement_code for i in view.items if i.statement_type == "Content Description"]
    assert len(set(codes)) == 240 and all(code and code.startswith("AC9M") for code in codes)
    assert "AC9M5N010" in codes
    components = [i.statement_code for i in view.items if i.statement_type == "Achievement Standard Component"]
    assert all(code and code.startswith("ASMAT") for code in components)
    notes = [_asn(view, i.identifier).get("notes", []) for i in view.items]
    assert sum(len(n) for n in notes) == 996
    entries = [
        line for i in view.items if i.notes for line in re.findall(r"^AC9M\w+_E[0-9]+: ", i.notes, flags=re.MULTILINE)
    ]
    assert len(entries) == 996
    assert sum(i.notes.count("\n") + 1 for i in view.items if i.notes) == 997  # AC9M10SP02_E3 holds a line break
    assert {i.statement_type for i in view.items if i.notes} == {"Content Description"}
    assert not view.unresolved
    assert not [f for f in view.report["findings"] if f["severity"] != "info"]


def test_forty_statements_match_the_source_exactly(built: dict[str, PackageView], source: dict[str, Any]) -> None:
    view = built["MAT.jsonld"]
    by_iri = {i.case_identifier_uri: i for i in view.items}
    statements = sorted(iri for iri, s in source.items() if s["label"] is not None)
    sample = statements[:: len(statements) // 40][:40]
    assert len(sample) == 40 and any(source[iri]["label"] == "Elaboration" for iri in sample)
    for iri in sample:
        expected = source[iri]
        if expected["label"] == "Elaboration":
            host = by_iri[expected["parent"]]
            assert f"{expected['notation']}: {expected['title']}" in (host.notes or "")
            (note,) = [n for n in _asn(view, host.identifier)["notes"] if n["statementIri"] == iri]
            assert note["text"] == expected["title"] and note["statementNotation"] == expected["notation"]
        else:
            item = by_iri[iri]
            assert item.description == expected["title"]
            assert _asn(view, item.identifier)["statementNotation"] == expected["notation"]
            assert item.statement_type == expected["label"]
            if expected["label"] != "Learning Area":
                (parent,) = view.parents(item.identifier)
                assert view.nodes[parent].case_identifier_uri == expected["parent"]


def test_grades_as_acara_writes_them(built: dict[str, PackageView]) -> None:
    view = built["MAT.jsonld"]
    codes = {i.statement_code: i for i in view.items if i.statement_code}
    assert codes["AC9MFN01"].grade_level == ("Foundation Year",)
    assert codes["AC9M3N01"].grade_level == ("Year 3",)
    for item in view.items:
        if item.statement_type == "Content Description":
            year = re.match(r"AC9M(F|10|[1-9])", item.statement_code or "")
            assert year is not None
            expected = "Foundation Year" if year.group(1) == "F" else f"Year {year.group(1)}"
            assert item.grade_level == (expected,), item.statement_code
    subject = next(i for i in view.items if i.statement_type == "Subject")
    assert len(subject.grade_level) == 11 and subject.grade_level[0] == "Foundation Year"


def test_achievement_standards_sit_under_their_levels(built: dict[str, PackageView]) -> None:
    view = built["MAT.jsonld"]
    for item in view.items:
        (parent,) = view.parents(item.identifier)
        parent_type = view.nodes[parent].statement_type if parent != view.framework.identifier else None
        if item.statement_type == "Achievement Standard":
            assert parent_type == "Level" and item.grade_level == view.nodes[parent].grade_level
        if item.statement_type == "Content Description":
            assert parent_type == "Strand"
    codes = {i.statement_code: i for i in view.items if i.statement_code}
    renumbered = codes["AC9M6SP02"].notes or ""
    assert "AC9M6SP03_E1: " in renumbered  # an elaboration whose code does not extend its parent's
