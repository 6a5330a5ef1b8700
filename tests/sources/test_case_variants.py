"""Real-world CFPackage variation: read as the CASE 1.0 member it stands for, each one a warning naming the member;
input that is no CFPackage at all refused in one line saying what it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from case_quirks import (
    CLAIM,
    DOC,
    EXAMPLE,
    HOST,
    SKILL_A,
    TARGET_A,
    build_and_validate,
    framework,
    variant_findings,
    write,
)
from package_view import open_package

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseSource

FRAMEWORK = "invented-reasoning-framework"


def _edges(content: Any) -> set[tuple[str, str]]:
    return {(r.source_identifier, r.target_identifier) for r in content.relationships if r.label == "hasChild"}


def test_a_well_formed_case_1_0_package_has_no_variant(tmp_path: Path, profiles_root: Path) -> None:
    content, result = build_and_validate(write(tmp_path / "f.json", framework()), profiles_root, tmp_path / "out")
    assert result.accepted
    assert variant_findings(content) == {}


def test_links_given_as_uri_strings_are_read_as_the_links_uri(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    document["CFDocument"]["CFPackageURI"] = HOST + DOC
    for record in [*document["CFItems"], *document["CFAssociations"]]:
        record["CFDocumentURI"] = HOST + DOC
    for association in document["CFAssociations"]:  # the node's uri only: resolved by the item's uri
        association["originNodeURI"] = association["originNodeURI"]["uri"]
        association["destinationNodeURI"] = association["destinationNodeURI"]["uri"]
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert (DOC, CLAIM) in _edges(content) and (CLAIM, TARGET_A) in _edges(content) and len(_edges(content)) == 6
    found = variant_findings(content)
    assert set(found) == {
        "CFDocument.CFPackageURI",
        "CFItems.CFDocumentURI",
        "CFAssociations.CFDocumentURI",
        "CFAssociations.originNodeURI",
        "CFAssociations.destinationNodeURI",
    }
    assert found["CFItems.CFDocumentURI"] == (
        "CFItems.CFDocumentURI (6 record(s)): a URI string where CASE has a link object; read as the link's uri."
    )
    assert "kept as that URI" in found["CFDocument.CFPackageURI"]
    view = open_package(tmp_path / "out", FRAMEWORK)
    assert view.provenance[DOC]["sourceDetails"]["case"]["CFPackageURI"] == HOST + DOC


def test_a_link_string_that_is_not_a_uri_is_refused(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    document["CFAssociations"][1]["originNodeURI"] = TARGET_A  # an identifier, not a URI: meaning not certain
    with pytest.raises(ManifestBuildError, match=r"CFAssociations\[1\]\.originNodeURI must be an object, not string"):
        CaseSource().build(write(tmp_path / "f.json", document), ProfileRepository(profiles_root))


def test_missing_case_1_0_links_are_reported_unless_the_package_declares_case_1_1(
    tmp_path: Path, profiles_root: Path
) -> None:
    document = framework()
    del document["CFDocument"]["CFPackageURI"]
    for record in [*document["CFItems"], *document["CFAssociations"]]:
        del record["CFDocumentURI"]
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "a")
    assert result.accepted
    found = variant_findings(content)
    assert set(found) == {"CFDocument.CFPackageURI", "CFItems.CFDocumentURI", "CFAssociations.CFDocumentURI"}
    assert found["CFAssociations.CFDocumentURI"].startswith("CFAssociations.CFDocumentURI (6 record(s)): absent")
    document["CFDocument"]["caseVersion"] = "1.1"  # CASE 1.1 dropped both links
    content, result = build_and_validate(write(tmp_path / "g.json", document), profiles_root, tmp_path / "b")
    assert result.accepted and variant_findings(content) == {}


def test_items_without_a_code_or_a_type_are_reported(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    for record in document["CFItems"][3:]:
        del record["humanCodingScheme"]
    del document["CFItems"][5]["CFItemType"]
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert variant_findings(content) == {
        "CFItems.humanCodingScheme": "3 CFItems have no humanCodingScheme; they carry no statement code "
        "(found by text only).",
        "CFItems.CFItemType": "1 CFItems have no CFItemType; they carry the generic statement type 'Item'.",
    }
    by_id = {i.identifier: i for i in content.items}
    assert (by_id[EXAMPLE].statement_type, by_id[EXAMPLE].statement_code) == ("Item", None)


def test_pre_1_0_member_names_are_read_as_their_case_1_0_members(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    document["CFDocument"]["subjectURL"] = [{"title": "Mathematics", "identifier": "s-1", "uri": HOST + "s-1"}]
    for record in document["CFItems"]:
        record["educationalLevel"] = record.pop("educationLevel")[0]  # the pre-1.0 name, one string
        record["CFItemAssociationURI"] = record["uri"] + "/associations"
    for association in document["CFAssociations"]:
        origin = association["originNodeURI"]
        association["originNodeIdentifier"] = origin.pop("identifier")  # the identifier beside the link
        origin["uri"] = "https://elsewhere.invalid/" + association["originNodeIdentifier"]  # resolves nothing
        association["destinationNodeIdentifier"] = association["destinationNodeURI"]["identifier"]  # agrees
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert {i.grade_level for i in content.items} == {("05",)}  # every grade kept
    assert len(_edges(content)) == 6 and not content.unresolved  # the identifiers placed every item
    found = variant_findings(content)
    assert set(found) == {
        "CFDocument.subjectURL",
        "CFItems.educationalLevel",
        "CFItems.CFItemAssociationURI",
        "CFAssociations.originNodeIdentifier",
        "CFAssociations.destinationNodeIdentifier",
    }
    assert found["CFItems.educationalLevel"] == (
        "CFItems.educationalLevel (6 record(s)): the pre-CASE-1.0 name of educationLevel; read as educationLevel."
    )
    assert found["CFDocument.subjectURL"].endswith("the pre-CASE-1.0 name of subjectURI; read as subjectURI.")
    assert not any(f.location == "unknown-members" for f in content.build_findings)


def test_a_pre_1_0_name_that_would_contradict_its_case_1_0_member_is_left_unread(
    tmp_path: Path, profiles_root: Path
) -> None:
    document = framework()
    document["CFItems"][0]["educationalLevel"] = "09"  # beside educationLevel ["05"]: which one holds is a guess
    association = document["CFAssociations"][0]
    association["originNodeIdentifier"] = TARGET_A  # disagrees with originNodeURI.identifier
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert {i.identifier: i.grade_level for i in content.items}[CLAIM] == ("05",)
    assert (DOC, CLAIM) in _edges(content)
    (unknown,) = [f for f in content.build_findings if f.location == "unknown-members"]
    assert "CFItems.educationalLevel (1)" in unknown.message
    assert "CFAssociations.originNodeIdentifier (1)" in unknown.message
    assert variant_findings(content) == {}


def test_null_members_are_read_as_absent_and_named(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    document["CFDocument"].update(licenseURI=None, description=None)
    document["CFItems"][0].update(notes=None, CFItemType=None)
    document["CFItems"][1]["CFItemTypeURI"] = {"title": "Target", "identifier": "t-1", "uri": None}
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    found = variant_findings(content)
    assert {
        "CFDocument.licenseURI",
        "CFDocument.description",
        "CFItems.notes",
        "CFItems.CFItemType",
        "CFItems.CFItemTypeURI.uri",
    } <= set(found)
    assert found["CFItems.notes"] == (
        "CFItems.notes (1 record(s)): null (CASE gives a value or leaves the member out); read as absent."
    )


def test_a_sequence_number_written_as_digits_is_read_as_that_integer(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    document["CFAssociations"][3]["sequenceNumber"] = "2"
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    edge = next(r for r in content.relationships if (r.source_identifier, r.target_identifier) == (TARGET_A, SKILL_A))
    assert open_package(tmp_path / "out", FRAMEWORK).provenance[edge.identifier]["locator"]["sequenceNumber"] == 2
    assert "read as that integer" in variant_findings(content)["CFAssociations.sequenceNumber"]


def test_an_empty_definitions_array_is_read_as_no_definitions(tmp_path: Path, profiles_root: Path) -> None:
    document = framework()
    document["CFDefinitions"] = []
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert "an empty array where CASE has an object" in variant_findings(content)["CFDefinitions"]
    document["CFDefinitions"] = [{"CFItemTypes": []}]  # not empty: its meaning is not certain
    with pytest.raises(ManifestBuildError, match="CFDefinitions must be an object, not array"):
        CaseSource().build(write(tmp_path / "g.json", document), ProfileRepository(profiles_root))


def test_an_item_type_named_only_by_its_definition_is_read_from_cfdefinitions(
    tmp_path: Path, profiles_root: Path
) -> None:
    document = framework()
    document["CFDefinitions"] = {"CFItemTypes": [{"identifier": "type-x", "title": "Target", "uri": HOST + "x"}]}
    record = document["CFItems"][1]
    del record["CFItemType"]
    record["CFItemTypeURI"] = {"identifier": "type-x", "uri": HOST + "x"}  # no title: the definition names it
    content, result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert {i.identifier: i.statement_type for i in content.items}[TARGET_A] == "Target"


def _pre_case() -> dict[str, Any]:
    document = framework()
    return {"lsDoc": document["CFDocument"], "lsItems": document["CFItems"], "lsAssociations": []}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            _pre_case(),
            "is a pre-CASE OpenSALT document (lsDoc, lsItems, lsAssociations), not a CASE CFPackage.",
        ),
        ({**framework(), "CFItems": {CLAIM: framework()["CFItems"][0]}}, "CFItems must be an array, not object"),
        (
            {**framework(), "CFAssociations": {"a": framework()["CFAssociations"][0]}},
            "CFAssociations must be an array, not object",
        ),
        ([framework()], "is not a CFPackage: it has no CFDocument object (found a JSON array)."),
        ({"CFDocuments": [framework()["CFDocument"]]}, "(found a JSON object with members CFDocuments)."),
    ],
)
def test_input_that_is_no_cfpackage_is_refused_in_one_line(
    document: Any, message: str, tmp_path: Path, profiles_root: Path
) -> None:
    with pytest.raises(ManifestBuildError) as caught:
        CaseSource().build(write(tmp_path / "f.json", document), ProfileRepository(profiles_root))
    text = caught.value.public_message
    assert text.startswith("manifest_build_error: CASE input f.json ") and message in text, text
    assert "\n" not in text and "Next action:" in text


@pytest.mark.slow
def test_the_command_line_refuses_a_pre_case_document_in_one_line(tmp_path: Path, profiles_root: Path) -> None:
    source = write(tmp_path / "lsdoc.json", _pre_case())
    command = [sys.executable, "-m", "kgfegmcp.cli", "packages", "build", "--source", "case", str(source)]
    command += ["--out", str(tmp_path / "out"), "--profiles-dir", str(profiles_root)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith(
        "manifest_build_error: CASE input lsdoc.json is a pre-CASE OpenSALT document (lsDoc, lsItems, "
        "lsAssociations), not a CASE CFPackage. Next action: Export the framework again as a CASE 1.0 CFPackage"
    ), run.stderr
    assert not (tmp_path / "out").exists()


def test_variants_are_counted_once_across_the_reads_of_the_file(tmp_path: Path, profiles_root: Path) -> None:
    """The items are read twice when the profile is derived (vocabulary, then mapping): counts stay per record."""
    document = framework()
    for record in document["CFItems"]:
        record["CFDocumentURI"] = HOST + DOC
    content, _result = build_and_validate(write(tmp_path / "f.json", document), profiles_root, tmp_path / "out")
    assert variant_findings(content)["CFItems.CFDocumentURI"].startswith("CFItems.CFDocumentURI (6 record(s))")
    assert json.loads(json.dumps(content.profile.ref.to_wire()))["profileId"].endswith("-derived")
