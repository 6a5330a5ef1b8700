"""The ASN importer on small documents written here, in both serialisations, with the real files' quirks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from asn_fixtures import (
    AS_FOUNDATION,
    ASN,
    CHANGE_NOTE,
    DC,
    ELAB_NEWLINE,
    GEMQ,
    LATEX_CD,
    MRAC,
    RDF,
    US,
    US_LICENSE,
    build,
    build_and_validate,
    iri,
    lit,
    mrac_english,
    mrac_mathematics,
    profiles_copy,
    typed,
    us_standard_document,
    write_jsonld,
    write_rdfxml,
)
from package_view import PackageView, open_package, tree_digest

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.profiles.repository import DerivedProfile

MATH = "australia-acara-v9-mathematics"
ENGLISH = "australia-acara-v9-english"


@pytest.fixture
def profiles(tmp_path: Path, profiles_root: Path) -> Path:
    """A profiles root of this test's own (a derived profile is stored into it)."""
    return profiles_copy(profiles_root, tmp_path / "profiles")


def _math(tmp_path: Path, profiles: Path, writer: Any = write_jsonld, name: str = "MAT.jsonld") -> PackageView:
    content, result = build_and_validate(writer(tmp_path / name, mrac_mathematics()), profiles, tmp_path / "out")
    assert result.accepted, [f for f in result.outcome.findings if f.severity == "error"]
    assert content.framework_id == MATH and content.snapshot_id == "mrac-2023-07"
    return open_package(tmp_path / "out", MATH)


def _by_code(view: PackageView) -> dict[str, Any]:
    return {view.details[i.identifier]["sourceDetails"]["asn"]["statementNotation"]: i for i in view.items}


def test_mrac_shape_binds_the_shipped_profile_and_validates(tmp_path: Path, profiles: Path) -> None:
    view = _math(tmp_path, profiles)
    assert view.manifest["profile"]["profileId"] == MATH and view.manifest["profile"]["version"] == "1.0"
    types = sorted(i.statement_type for i in view.items)
    expected = {"Learning Area": 1, "Subject": 1, "Level": 2, "Strand": 3, "Content Description": 4}
    expected |= {"Achievement Standard": 2, "Achievement Standard Component": 3}
    assert types == sorted(name for name, count in expected.items() for _ in range(count))
    assert view.framework.name == "Australian Curriculum Version 9.0: Mathematics (MRAC 2023/07)"
    assert view.framework.jurisdiction == "Australia" and view.framework.case_identifier_uri == MRAC + "root-1"
    # the root statement and the "Learning Areas" container are the document, not items
    assert {i.case_identifier_uri for i in view.items}.isdisjoint({MRAC + "root-1", MRAC + "LA/la-1"})
    framework = view.provenance[view.framework.identifier]
    assert framework["locator"]["documentIri"] == MRAC + "root-1"
    assert framework["locator"]["containerIris"] == [MRAC + "LA/la-1"]
    assert framework["locator"]["namedGraphs"] == [MRAC + "LA/MAT/thesaurus"]
    document = framework["sourceDetails"]["asn"]["document"]["properties"]
    assert document["dcterms:title"] == [CHANGE_NOTE]  # kept, never used as the framework's title
    assert view.manifest["rights"]["licenseUri"] == "https://creativecommons.org/licenses/by/4.0/"
    assert (
        "elaborations attached to their content descriptions as notes"
        in view.manifest["rights"]["attributionStatement"]
    )


def test_hierarchy_is_isChildOf_with_the_achievement_standard_under_its_level(tmp_path: Path, profiles: Path) -> None:
    view = _math(tmp_path, profiles)
    codes = _by_code(view)
    nodes = view.nodes

    def parent(notation: str) -> Any:
        (found,) = view.parents(codes[notation].identifier)
        return nodes[found]

    assert parent("MAT") is view.framework or parent("MAT").identifier == view.framework.identifier
    assert parent("ASMATY3").description == "Year 3"  # listed by no hasChild, placed by isChildOf
    assert parent("ASMAT302").statement_type == "Achievement Standard"
    assert parent("AC9M3N02").description == "Number" and parent("AC9M3SP01").description == "Space"
    assert all(len(view.parents(i.identifier)) == 1 for i in view.items)
    edge = next(r for r in view.edges("hasChild") if r.target_identifier == codes["ASMATY3"].identifier)
    assert view.provenance[edge.identifier]["locator"]["field"] == "gemq:isChildOf"


def test_texts_are_exact_and_elaborations_are_notes(tmp_path: Path, profiles: Path) -> None:
    view = _math(tmp_path, profiles)
    codes = _by_code(view)
    assert codes["AC9M3N02"].description == LATEX_CD
    assert codes["ASMATFY"].description == AS_FOUNDATION  # its line break kept
    assert codes["AC9M3N01"].notes == (
        "AC9M3N01_E1: reading and writing numbers to \\(10\\,000\\)\n"
        "AC9M3N01_E2: the second elaboration\n"
        "AC9M3N01_E10: the tenth elaboration"
    )
    assert codes["AC9M3N02"].notes == "AC9M3N03_E1: using part-part-whole diagrams"  # code not extending its parent's
    assert codes["AC9M3SP01"].notes == f"AC9M3SP01_E1: {ELAB_NEWLINE}"
    assert not any(i.statement_type == "Elaboration" for i in view.items)
    foundation = codes["AC9MFN01"].identifier
    (note,) = view.details[foundation]["sourceDetails"]["asn"]["notes"]
    assert note["statementIri"] == MRAC + "LA/MAT/ef1" and note["text"] == "using counting songs"
    assert note["properties"]["asn:skillEmbodied"] == [{"iri": MRAC + "GC/N/numeracy-1", "label": "NNuE1"}]
    locator = view.provenance[foundation]["locator"]
    assert locator["noteStatements"] == [
        {"statementIri": MRAC + "LA/MAT/ef1", "statementLabel": "Elaboration", "statementNotation": "AC9MFN01_E1"}
    ]
    assert locator["statementNotation"] == "AC9MFN01" and locator["datasetFile"] == "MAT.jsonld"
    details = view.details[codes["AC9M3N01"].identifier]["sourceDetails"]["asn"]
    assert [p["iri"] for p in details["properties"]["asn:hasLevel"]] == [MRAC + "LA/MAT/asc31", MRAC + "LA/MAT/asc32"]
    assert codes["AC9M3N02"].date_modified == "2023-07-14T01:06:17.904Z"  # the lexical form, as written


def test_grades_codes_and_derived_grouping_grades(tmp_path: Path, profiles: Path) -> None:
    view = _math(tmp_path, profiles)
    codes = _by_code(view)
    assert codes["AC9MFN01"].grade_level == ("Foundation Year",)
    assert codes["AC9M3N01"].grade_level == ("Year 3",)
    assert codes["MAT"].grade_level == ("Foundation Year", "Year 3")
    assert "gradeLevel" in view.provenance[codes["MAT"].identifier]["derivedFields"]
    coded = {i.statement_code for i in view.items if i.statement_code}
    # An achievement standard (the year's paragraph) and its components keep their codes (groupings here).
    assert coded == {
        "AC9MFN01",
        "AC9M3N01",
        "AC9M3N02",
        "AC9M3SP01",
        "ASMATFY",
        "ASMATY3",
        "ASMATF01",
        "ASMAT301",
        "ASMAT302",
    }
    assert codes["MATMATY3"].statement_code is None  # an internal key: in source details only


def _package_documents(root: Path, framework_id: str) -> dict[str, Any]:
    view = open_package(root, framework_id)
    provenance = json.loads(json.dumps(view.provenance).replace("MAT.rdf", "MAT.jsonld"))
    for record in provenance.values():
        record["locator"].pop("format", None)
        record["locator"].pop("sha256", None)
        record["locator"].pop("namedGraphs", None)
    return {"items": view.items, "edges": view.relationships, "details": view.details, "provenance": provenance}


def test_both_serialisations_give_the_same_package(tmp_path: Path, profiles: Path) -> None:
    nodes = mrac_mathematics()
    build_and_validate(write_jsonld(tmp_path / "MAT.jsonld", nodes), profiles, tmp_path / "json")
    build_and_validate(write_rdfxml(tmp_path / "MAT.rdf", nodes), profiles, tmp_path / "xml")
    assert _package_documents(tmp_path / "json", MATH) == _package_documents(tmp_path / "xml", MATH)


def test_a_rebuild_is_byte_identical(tmp_path: Path, profiles: Path, profiles_root: Path) -> None:
    source = write_rdfxml(tmp_path / "ENG.rdf", mrac_english())
    build_and_validate(source, profiles, tmp_path / "one")
    other = profiles_copy(profiles_root, tmp_path / "other-profiles")
    build_and_validate(source, other, tmp_path / "two")
    assert tree_digest(tmp_path / "one") == tree_digest(tmp_path / "two")
    derived = sorted((profiles / f"{ENGLISH}-derived").glob("*.json"))
    assert len(derived) == 1 and derived[0].read_bytes() == (other / derived[0].relative_to(profiles)).read_bytes()
    math = write_jsonld(tmp_path / "MAT.jsonld", mrac_mathematics())
    build_and_validate(math, profiles, tmp_path / "three")
    build_and_validate(math, profiles, tmp_path / "four")
    assert tree_digest(tmp_path / "three") == tree_digest(tmp_path / "four")


def test_another_learning_area_gets_a_derived_profile(tmp_path: Path, profiles: Path) -> None:
    content, result = build_and_validate(
        write_jsonld(tmp_path / "ENG.jsonld", mrac_english()), profiles, tmp_path / "out"
    )
    assert result.accepted, [f for f in result.outcome.findings if f.severity == "error"]
    assert (content.framework_id, content.snapshot_id) == (ENGLISH, "mrac-2023-07")
    profile = content.profile
    assert isinstance(profile, DerivedProfile) and profile.written
    derived = profile.profile
    assert derived.profile_id == f"{ENGLISH}-derived" and derived.in_language == "en-AU"
    roles = {rule.source_type: rule.role for rule in derived.statement_types}
    assert roles == {
        "Learning Area": "grouping",
        "Subject": "grouping",
        "Level": "grouping",
        "Strand": "grouping",
        "Sub-Strand": "grouping",
        "Content Description": "standard",
        "Achievement Standard": "grouping",
        "Achievement Standard Component": "grouping",
    }
    foundation = derived.grade_label("Foundation Year")
    assert foundation is not None and foundation.display == "Foundation" and "Prep" in foundation.aliases
    year = derived.grade_label("Year 1")
    assert year is not None and year.facet == "year-01" and "Y1" in year.aliases
    assert derived.default_rights.license_uri == "https://creativecommons.org/licenses/by/4.0/"
    assert derived.hierarchy.rule == "tree" and derived.code_policy.unique
    (finding,) = [f for f in content.build_findings if f.code == "profile_derived"]
    assert "statement type 'Sub-Strand': grouping" in finding.message
    view = open_package(tmp_path / "out", ENGLISH)
    codes = _by_code(view)
    assert codes["AC9E1LA01"].notes == "AC9E1LA01_E1: taking turns in year 1"
    (parent,) = view.parents(codes["AC9E1LA01"].identifier)
    assert view.nodes[parent].statement_type == "Sub-Strand"


def test_a_us_standard_document_in_rdfxml_builds_with_a_derived_profile(tmp_path: Path, profiles: Path) -> None:
    source = write_rdfxml(tmp_path / "example.xml", us_standard_document())
    content, result = build_and_validate(source, profiles, tmp_path / "out")
    assert result.accepted, [f for f in result.outcome.findings if f.severity == "error"]
    assert (content.framework_id, content.snapshot_id) == ("example-state-mathematics-standards", "20190502")
    view = open_package(tmp_path / "out", content.framework_id)
    assert view.framework.name == "Example State Mathematics Standards"
    assert view.framework.jurisdiction == "Example State" and view.framework.academic_subject == "Mathematics"
    codes = _by_code(view)
    assert codes["K.CC.1"].description == "Count to 100 by ones and by tens."  # dcterms:description
    assert codes["K.CC.3"].statement_type == "Statement"  # no statementLabel
    assert codes["K.CC.1"].grade_level == ("Kindergarten",) and codes["1.OA.1"].grade_level == ("Grade 1",)
    assert codes["K.CC"].in_language == "en-US"
    (parent,) = view.parents(codes["K.CC.1"].identifier)
    assert parent == codes["K.CC"].identifier  # from the document's and the domain's hasChild only
    assert view.parents(codes["K.CC"].identifier) == [view.framework.identifier]
    rights = view.manifest["rights"]
    assert rights["licenseUri"] == US_LICENSE and rights["sourceLicense"] == "Creative Commons Attribution 3.0 US"
    assert rights["attributionStatement"].startswith("Example State Board of Education.")
    orphan = codes["1.OA.5"]
    (edge,) = [r for r in view.edges("hasChild") if r.target_identifier == orphan.identifier]
    assert edge.source_identifier == view.framework.identifier and edge.unresolved_status == "unresolvedRootFallback"
    (entry,) = [u for u in view.unresolved if u["sourceEntityId"] == orphan.identifier]
    assert entry["status"] == "unresolvedRootFallback" and entry["reference"] == US + "NOT-IN-THIS-FILE"
    gaps = [f.message for f in content.build_findings if f.code == "source_mapping_gap"]
    assert any("1 statements have no parent inside the document" in m for m in gaps)
    roles = {rule.source_type: rule.role for rule in content.profile.profile.statement_types}
    assert roles == {"Domain": "grouping", "Standard": "standard", "Statement": "standard"}


def test_a_framework_id_another_document_holds_is_refused(tmp_path: Path, profiles: Path) -> None:
    """Two ASN documents of one jurisdiction and title get one framework id (and here one snapshot id): the second
    would have replaced the first, or made two current snapshots of one framework. It is refused, naming both
    documents, and the first stays."""
    root = tmp_path / "out"
    first, _ = build_and_validate(write_rdfxml(tmp_path / "one.xml", us_standard_document()), profiles, root)
    nodes = us_standard_document()
    nodes[US + "D2000000"] = nodes.pop(US + "D1000000")
    with pytest.raises(ManifestBuildError) as caught:
        build_and_validate(write_rdfxml(tmp_path / "two.xml", nodes), profiles, root)
    message = caught.value.public_message
    assert message.startswith(
        f"manifest_build_error: Cannot write {first.framework_id}@{first.snapshot_id}: the framework id "
        f"{first.framework_id} already belongs to {first.framework_id}@{first.snapshot_id} in the graph-package "
        "root, built from another source document"
    )
    assert f"uri {US}D1000000)" in message and f"uri {US}D2000000)" in message
    assert open_package(root, first.framework_id).framework.case_identifier_uri == US + "D1000000"


def test_a_later_release_of_a_publisher_document_is_another_snapshot_in_the_same_root(
    tmp_path: Path, profiles_root: Path
) -> None:
    """MRAC gives every release IRIs of its own; the publisher table makes each release a snapshot of one
    framework, so the next release builds beside the first (it is the same document, not another one)."""
    root = tmp_path / "out"
    first, _ = build_and_validate(write_jsonld(tmp_path / "2023.jsonld", mrac_mathematics()), profiles_root, root)
    released = write_jsonld(tmp_path / "2024.jsonld", mrac_mathematics()).read_text(encoding="utf-8")
    later = tmp_path / "MAT-2024.jsonld"
    later.write_text(released.replace("/MRAC/2023/07/", "/MRAC/2024/01/"), encoding="utf-8")
    second, result = build_and_validate(later, profiles_root, root)
    assert second.framework_id == first.framework_id and (first.snapshot_id, second.snapshot_id) == (
        "mrac-2023-07",
        "mrac-2024-01",
    )
    assert result.accepted
    assert second.framework.identifier == first.framework.identifier  # one document, two releases


def test_a_label_the_bound_profile_does_not_declare_is_refused(tmp_path: Path, profiles: Path) -> None:
    nodes = mrac_mathematics()
    for predicate, value in list(nodes[MRAC + "LA/MAT/st3s"]):
        if predicate == ASN + "statementLabel":
            nodes[MRAC + "LA/MAT/st3s"].remove((predicate, value))
    nodes[MRAC + "LA/MAT/st3s"].append((ASN + "statementLabel", lit("Topic")))
    with pytest.raises(ManifestBuildError) as raised:
        build(write_jsonld(tmp_path / "MAT.jsonld", nodes), profiles)
    assert "'Topic' (1)" in raised.value.message and f"{MATH}/1.0" in raised.value.message


def test_a_statement_without_a_document_is_read_as_its_own_top(tmp_path: Path, profiles: Path) -> None:
    nodes = us_standard_document()
    del nodes[US + "D1000000"]
    for key in ("S1", "S2"):
        nodes[US + key].append((DC + "modified", typed("2020-01-31T00:00:00Z")))
    content, result = build_and_validate(write_jsonld(tmp_path / "loose.jsonld", nodes), profiles, tmp_path / "out")
    assert result.accepted, [f for f in result.outcome.findings if f.severity == "error"]
    assert content.framework_id == "operations-and-algebraic-thinking-counting-and-cardinality"  # natural order
    assert content.snapshot_id == "20200131"
    assert any(
        f.code == "source_variant_accepted" and "no asn:StandardDocument" in f.message for f in content.build_findings
    )


def test_what_cannot_be_an_item_is_reported_not_dropped(tmp_path: Path, profiles: Path) -> None:
    nodes = us_standard_document()
    nodes[US + "D1000000"].append((GEMQ + "hasChild", iri(US + "E1")))
    nodes[US + "E1"] = [  # an elaboration with no item above it
        (RDF + "type", iri(ASN + "Statement")),
        (ASN + "statementLabel", lit("Elaboration", "en-us")),
        (DC + "description", lit("An example for the whole document.", "en-us")),
    ]
    nodes[US + "S2"] = [p for p in nodes[US + "S2"] if p[0] != DC + "description"]  # a domain with no text
    content, result = build_and_validate(write_rdfxml(tmp_path / "gaps.rdf", nodes), profiles, tmp_path / "out")
    assert result.accepted, [f for f in result.outcome.findings if f.severity == "error"]
    view = open_package(tmp_path / "out", content.framework_id)
    assert "1.OA" not in _by_code(view)
    (orphan,) = [i for i in view.items if i.statement_code == "1.OA.1"]
    assert view.parents(orphan.identifier) == [view.framework.identifier]
    unresolved = {u["reference"]: u for u in view.unresolved}
    assert unresolved[US + "S2"]["status"] == "unresolvedRootFallback"
    assert unresolved[US + "E1"]["sourceText"] == "An example for the whole document."
    messages = " ".join(f.message for f in content.build_findings)
    assert "have no dcterms:description or dcterms:title" in messages
    assert "1 note statements have no item above them" in messages
