"""The CASE importer on a small CFPackage written here: exact output, failures, profile override."""

from __future__ import annotations

import codecs
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from package_view import open_package

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.models import canonical_bytes
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseSource
from kgfegmcp.sources.case.document import CaseDocument
from kgfegmcp.sources.case.identity import default_snapshot_id
from kgfegmcp.sources.case.reader import CasePackageReader, _SurrogateEscapes

DOC = "9a1c0000-0000-4000-8000-000000000001"
D1, D2 = "9a1c0000-0000-4000-8000-000000000010", "9a1c0000-0000-4000-8000-000000000011"
S1, S2, S3 = (
    "9a1c0000-0000-4000-8000-000000000020",
    "9a1c0000-0000-4000-8000-000000000021",
    "9a1c0000-0000-4000-8000-000000000022",
)
OUTSIDE = "ffff0000-0000-4000-8000-000000000099"
FRAMEWORK = "example-science-standards"
SNAPSHOT = "v1-0-20240301-100000"


def _node(identifier: str, **extra: str) -> dict[str, str]:
    return {"identifier": identifier, **extra}


def _association(identifier: str, kind: str, origin: dict[str, str], destination: dict[str, str]) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "associationType": kind,
        "originNodeURI": origin,
        "destinationNodeURI": destination,
    }


def cf_package(items: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Tree, a multi-parent item, precedes, isRelatedTo, an outside association, an unknown type."""
    return {
        "CFDocument": {
            "identifier": DOC,
            "uri": "https://case.example/doc/1",
            "creator": "Example Board",
            "publisher": "Example Publisher",
            "title": "Example Science Standards",
            "lastChangeDateTime": "2024-03-01T10:00:00Z",
            "version": "1.0",
            "language": "en",
            "subject": ["Science"],
            "licenseURI": {"title": "CC BY 4.0", "identifier": "lic-1", "uri": "https://case.example/lic/1"},
        },
        "CFItems": items
        if items is not None
        else [
            {
                "identifier": D1,
                "fullStatement": "Physical Science",
                "CFItemType": "Domain",
                "uri": "https://case.example/i/10",
            },
            {"identifier": D2, "fullStatement": "Life Science", "CFItemType": "Domain", "educationLevel": ["02"]},
            {
                "identifier": S1,
                "fullStatement": "Describe the properties of matter.",
                "humanCodingScheme": "PS.1",
                "CFItemType": "Standard",
                "educationLevel": ["01"],
            },
            {
                "identifier": S2.upper(),
                "fullStatement": "Explain how living things use energy.",
                "humanCodingScheme": "PS.2",
                "CFItemType": "Standard",
                "educationLevel": ["02", "01", "02"],
                "notes": "Shared by both domains.",
            },
            {
                "identifier": S3,
                "fullStatement": "Observe plants.",
                "humanCodingScheme": "LS.1",
                "educationLevel": ["KG"],
            },
            {"identifier": "9a1c0000-0000-4000-8000-0000000000ff", "CFItemType": "Standard"},
        ],
        "CFAssociations": [
            _association("a1", "isChildOf", _node(D1), _node(DOC)),
            _association("a2", "isChildOf", _node(D2), _node(DOC)),
            _association("a3", "isChildOf", _node(S1), _node(D1)),
            _association("a4", "isChildOf", _node(S2), {"uri": "https://case.example/i/10"}),
            _association("a5", "isChildOf", _node(S2), _node(D2)),
            _association("a5-repeat", "isChildOf", _node(S2), _node(D2)),
            _association("a6", "isChildOf", _node(S3), _node(D2)),
            _association("a7", "precedes", _node(S1), _node(S2)),
            _association("a8", "isRelatedTo", _node(S2), _node(S1)),
            _association("a9", "isRelatedTo", _node(S1), _node(OUTSIDE, title="Other framework standard")),
            _association("a10", "exactMatchOf", _node(S1), _node(OUTSIDE)),
        ],
    }


def write_case(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def build(path: Path, profiles_root: Path, out: Path) -> tuple[Any, Any]:
    profiles = ProfileRepository(profiles_root)
    (content,) = CaseSource().build(path, profiles)
    location = PackageWriter().write_pending(content, out)
    result = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL).validate(location)
    return content, result


def test_case_package_builds_to_exactly_the_expected_package(tmp_path: Path, profiles_root: Path) -> None:
    source = write_case(tmp_path / "science.json", cf_package())
    content, result = build(source, profiles_root, tmp_path / "out")
    assert result.accepted, result.outcome.findings
    assert (content.framework_id, content.snapshot_id) == (FRAMEWORK, SNAPSHOT)
    assert content.profile.ref.profile_id == f"{FRAMEWORK}-derived"  # no profile named after the framework
    view = open_package(tmp_path / "out", FRAMEWORK)
    assert view.framework.identifier == DOC
    assert view.framework.name == "Example Science Standards"
    assert view.manifest["rights"]["sourceLicense"] == "CC BY 4.0"
    assert view.manifest["rights"]["licenseUri"] == "https://case.example/lic/1"
    items = {
        i.identifier: (i.statement_type, i.statement_code, i.description, i.grade_level, i.notes) for i in view.items
    }
    assert items == {
        D1: ("Domain", None, "Physical Science", (), None),
        D2: ("Domain", None, "Life Science", ("02",), None),
        S1: ("Standard", "PS.1", "Describe the properties of matter.", ("01",), None),
        S2: ("Standard", "PS.2", "Explain how living things use energy.", ("01", "02"), "Shared by both domains."),
        S3: ("Item", "LS.1", "Observe plants.", ("KG",), None),
    }
    assert [i.identifier for i in view.items] == [D1, D2, S1, S2, S3]
    edges = {(r.label, r.source_identifier, r.target_identifier, r.unresolved_status) for r in view.relationships}
    assert edges == {
        ("hasChild", DOC, D1, None),
        ("hasChild", DOC, D2, None),
        ("hasChild", D1, S1, None),
        ("hasChild", D1, S2, None),
        ("hasChild", D2, S2, None),
        ("hasChild", D2, S3, None),
        ("buildsTowards", S1, S2, None),
        ("relatesTo", S2, S1, None),
    }
    assert len(view.relationships) == len(edges)
    repeated = next(
        r for r in view.relationships if (r.label, r.source_identifier, r.target_identifier) == ("hasChild", D2, S2)
    )
    assert view.provenance[repeated.identifier]["duplicateAssociations"] == ["a5-repeat"]
    related, exact = view.unresolved
    for entry in (related, exact):  # both reach a statement of another framework: kept, never linked
        assert entry["status"] == "unresolvedExternalReference"
        assert entry["referenceKind"] == "crossFrameworkAssociation"
        assert entry["epistemicStatus"] == "source_asserted"
        assert entry["reference"] == OUTSIDE
        assert entry["sourceEntityId"] == S1
        assert entry["direction"] == "package node → reference"
        assert entry["originNode"] == {"identifier": S1}
    assert (related["associationType"], related["relationshipLabel"]) == ("isRelatedTo", "relatesTo")
    assert related["sourceText"] == "Other framework standard"
    assert related["destinationNode"] == {"identifier": OUTSIDE, "title": "Other framework standard"}
    assert exact["associationType"] == "exactMatchOf"
    assert "relationshipLabel" not in exact  # no link kind of this package stands for it
    assert "alignment" not in json.dumps(view.unresolved)
    assert view.provenance[S1]["crossFrameworkReferences"] == [related["unresolvedId"], exact["unresolvedId"]]
    findings = {(f["code"], f["severity"], f.get("location")) for f in view.report["findings"]}
    assert findings == {
        ("source_mapping_gap", "warning", "CFItems[5]"),  # no fullStatement
        ("source_variant_accepted", "warning", "CFItems.CFItemType"),  # S3 has none
        ("source_variant_accepted", "warning", "CFItems.humanCodingScheme"),  # the two domains have none
        ("source_variant_accepted", "warning", "CFDocument.CFPackageURI"),  # CASE 1.0 links, absent
        ("source_variant_accepted", "warning", "CFItems.CFDocumentURI"),
        ("source_variant_accepted", "warning", "CFAssociations.CFDocumentURI"),
        ("profile_derived", "info", "profile"),
    }
    for item in view.items:
        assert view.provenance[item.identifier]["locator"]["file"] == "science.json"


def test_items_without_a_parent_hang_from_the_root_as_unresolved(tmp_path: Path, profiles_root: Path) -> None:
    document = cf_package()
    document["CFAssociations"] = [a for a in document["CFAssociations"] if a["identifier"] != "a6"]
    document["CFRubrics"] = [{"identifier": "r1", "title": "Rubric"}]
    content, result = build(write_case(tmp_path / "orphan.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    fallback = [r for r in content.relationships if r.unresolved_status == "unresolvedRootFallback"]
    assert [(r.source_identifier, r.target_identifier) for r in fallback] == [(DOC, S3)]
    statuses = sorted(u["status"] for u in content.unresolved)
    assert statuses == ["unresolvedExternalReference", "unresolvedExternalReference", "unresolvedRootFallback"]
    messages = [f.message for f in content.build_findings]
    assert any("1 CFRubrics" in m for m in messages)
    assert any("hang from the framework root" in m for m in messages)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "has no CFDocument"),
        (json.dumps({"CFDocument": {"title": "No id"}}), "needs an identifier and a title"),
        (json.dumps(cf_package(items=[{"identifier": S1}])), "has no usable CFItems"),
        (json.dumps(cf_package(items=[])), "has no usable CFItems"),
        # nesting is bounded while the file streams: one line, no traceback.
        ('{"CFDocument": ' + "[" * 100_000 + "]" * 100_000 + "}", "is JSON nested too deeply to decode"),
        # the streaming parser reads integers up to 64 bits: a longer number is refused in one line.
        ('{"CFDocument": {}, "n": ' + "7" * 5000 + "}", "holds a JSON number too large to read"),
        # a lone surrogate decodes, but is not text: it could never be written into the package.
        (json.dumps(cf_package()).replace("Physical Science", "Physical \\ud800 Science"), "lone surrogate"),
    ],
)
def test_broken_case_files_fail_clearly(tmp_path: Path, profiles_root: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestBuildError, match=message) as caught:
        CaseSource().build(path, ProfileRepository(profiles_root))
    assert caught.value.public_message.startswith("manifest_build_error: ")


def test_escaped_surrogate_pairs_are_text(tmp_path: Path, profiles_root: Path) -> None:
    document = json.dumps(cf_package()).replace("Physical Science", "Physical \\ud83e\\uddea Science")
    content, result = build(write_text(tmp_path / "pair.json", document), profiles_root, tmp_path / "out")
    assert result.accepted
    assert "Physical \U0001f9ea Science" in {item.description for item in content.items}


def test_missing_input_fails_clearly(profiles_root: Path) -> None:
    with pytest.raises(ManifestBuildError, match="needs a CASE CFPackage JSON file"):
        CaseSource().build(None, ProfileRepository(profiles_root))


def test_undeclared_item_types_are_derived_and_an_operator_profile_still_wins(
    tmp_path: Path, profiles_root: Path
) -> None:
    """A type and a level no profile declares no longer stop the build; a profile named after the framework
    is bound instead of a derived one, and then it must declare them."""
    document = cf_package()
    document["CFItems"][2]["CFItemType"] = "Widget"
    document["CFItems"][3]["educationLevel"] = ["Year 7"]
    source = write_case(tmp_path / "custom.json", document)
    local_profiles = tmp_path / "profiles"
    shutil.copytree(profiles_root, local_profiles)
    content, result = build(source, local_profiles, tmp_path / "derived")
    assert result.accepted
    derived = content.profile.profile
    assert derived.profile_id == f"{FRAMEWORK}-derived"
    assert derived.statement_type("Widget") is not None and derived.grade_label("Year 7") is not None

    generic = json.loads((profiles_root / "case-generic" / "2.1.json").read_text(encoding="utf-8"))
    generic.update(profileId=FRAMEWORK, version="1.0")
    (local_profiles / FRAMEWORK).mkdir()
    (local_profiles / FRAMEWORK / "1.0.json").write_text(json.dumps(generic), encoding="utf-8")
    with pytest.raises(ManifestBuildError) as caught:
        CaseSource().build(source, ProfileRepository(local_profiles))
    message = caught.value.public_message
    assert "'Widget' (1 items)" in message and "'Year 7' (1 items)" in message
    assert f"{FRAMEWORK}/1.0" in message and "KGFEGMCP_PROFILES_DIR" in message

    generic["statementTypes"].append({"sourceType": "Widget", "normalized": "widget", "role": "standard"})
    generic["gradeLabels"].append({"sourceLabel": "Year 7", "facet": "year-07", "display": "Year 7", "order": 99})
    (local_profiles / FRAMEWORK / "1.1.json").write_text(json.dumps({**generic, "version": "1.1"}), encoding="utf-8")
    content, result = build(source, local_profiles, tmp_path / "operator")
    assert result.accepted
    assert (content.profile.ref.profile_id, content.profile.ref.version) == (FRAMEWORK, "1.1")
    assert {i.statement_type for i in content.items} >= {"Widget"}
    assert not any(f.code == "profile_derived" for f in content.build_findings)


def test_cli_reports_a_broken_file_with_a_stable_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgfegmcp.cli",
            "packages",
            "build",
            "--source",
            "case",
            str(path),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=REPOSITORY_ROOT,
        check=False,
    )
    assert run.returncode == 2
    assert run.stderr.startswith("manifest_build_error: CASE input broken.json is not valid JSON")


def test_snapshot_defaults() -> None:
    def snapshot(document: dict[str, str], data: bytes) -> str:
        return default_snapshot_id(CaseDocument.model_validate(document), data)

    assert snapshot({"version": "1.0", "lastChangeDateTime": "2024-03-01T10:00:00Z"}, b"") == SNAPSHOT
    assert snapshot({"lastChangeDateTime": "2024-03-01T12:00:00+02:00"}, b"") == "20240301-100000"
    assert snapshot({}, b"x").startswith("sha-")


# -- the streamed reader: bounds and refusals while reading ---------------------------------------


def read(data: bytes, **limits: int) -> CasePackageReader:
    return CasePackageReader(io.BytesIO(data), "CASE input x.json", **limits)


def refusal(data: bytes, **limits: int) -> str:
    with pytest.raises(ManifestBuildError) as caught:
        reader = read(data, **limits)
        for _ in reader.items():
            pass
        for _ in reader.associations():
            pass
    message = caught.value.public_message
    assert message.startswith("manifest_build_error: CASE input x.json ") and "\n" not in message
    return message


def test_items_and_associations_past_their_limits_are_refused_while_reading() -> None:
    data = json.dumps(cf_package()).encode("utf-8")  # 6 CFItems, 11 CFAssociations
    assert "has more than 5 CFItems, the most a package is built from; reading stopped" in refusal(data, max_items=5)
    assert "has more than 10 CFAssociations" in refusal(data, max_associations=10)
    wrapped = json.dumps({"CFPackage": cf_package()}).encode("utf-8")
    assert "has more than 5 CFItems" in refusal(wrapped, max_items=5)
    reader = read(data, max_items=6, max_associations=11)
    assert sum(1 for _ in reader.items()) == 6 and sum(1 for _ in reader.associations()) == 11


def test_a_repeated_top_level_member_is_refused_not_resolved_by_order() -> None:
    text = json.dumps(cf_package())
    repeated = text[:-1] + ', "CFItems": [{"identifier": "' + S1 + '", "fullStatement": "Other"}]}'
    assert "repeats the member(s) CFItems" in refusal(repeated.encode("utf-8"))


def test_member_names_that_read_as_the_items_path_are_refused() -> None:
    document = cf_package()
    document["CFItems.item"] = {"identifier": S1, "fullStatement": "Smuggled in", "CFItemType": "Standard"}
    message = refusal(json.dumps(document).encode("utf-8"))
    assert "has member names that read as the path CFItems.item (7 records found there, 6 in CFItems)" in message


def test_a_byte_order_mark_is_read_past_and_text_that_is_not_utf8_is_named() -> None:
    data = json.dumps(cf_package()).encode("utf-8")
    assert read(codecs.BOM_UTF8 + data).document is not None
    broken = data.replace(b"Observe plants.", b"Observe \xff plants.")
    assert "is not UTF-8 text (invalid start byte)" in refusal(broken)


@pytest.mark.parametrize("shift", range(-8, 4))
def test_surrogate_escapes_are_judged_whole_across_read_boundaries(shift: int) -> None:
    """The reader takes the file 64 KiB at a time: an escape may straddle two reads."""
    template = json.dumps(cf_package()).replace("Physical Science", "Physical @ Science")
    offset = template.index("@")
    padding = " " * (65536 + shift - offset)  # puts the escape at the read boundary, give or take `shift`
    text = padding + template

    def build_with(escape: str) -> CasePackageReader:
        return read(text.replace("@", escape).encode("utf-8"))

    assert build_with("\\ud83e\\uddea").document is not None  # a pair is text
    assert build_with("\\\\ud800").document is not None  # an escaped backslash, then the letters ud800
    assert "lone surrogate" in refusal(text.replace("@", "\\ud800 ").encode("utf-8"))
    assert "lone surrogate" in refusal(text.replace("@", "\\ude00").encode("utf-8"))
    assert "lone surrogate" in refusal(text.replace("@", "\\\\\\ud800").encode("utf-8"))  # \\ then \ud800


def test_streamed_artifacts_are_the_canonical_json_of_their_documents(tmp_path: Path, profiles_root: Path) -> None:
    """The writer assembles the large documents piece by piece; each must be what encoding it whole gives."""
    build(write_case(tmp_path / "science.json", cf_package()), profiles_root, tmp_path / "out")
    (package,) = (tmp_path / "out" / FRAMEWORK).iterdir()
    manifest = json.loads((package / "package_manifest.json").read_text(encoding="utf-8"))
    checked = 0
    for artifact in manifest["artifacts"]:
        data = (package / artifact["path"]).read_bytes()
        if artifact["path"].endswith(".jsonl"):
            for line in data.splitlines():
                assert canonical_bytes(json.loads(line)) == line
        elif artifact["logicalName"] not in ("validationReport", "lcValidationReport", "lcGenerationSummary"):
            assert canonical_bytes(json.loads(data)) + b"\n" == data, artifact["path"]
            checked += 1
    assert checked >= 4 + 64  # framework, bundle, provenance, unresolved and the parts
    bundle = json.loads((package / "detailed/as_kg_bundle.json").read_bytes())
    lines = (package / "detailed/as_standards_framework_items.jsonl").read_bytes().splitlines()
    assert bundle["items"] == [json.loads(line) for line in lines]


_PIECES = ["a", "\\\\", "\\ud83e", "\\udc00", "\\u0041", "\\n", "é"]


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=4),
)
def test_the_surrogate_check_agrees_with_decoding_the_string(pieces: list[str], cuts: list[int]) -> None:
    """Whatever the chunking, the streamed check finds a lone surrogate exactly when decoding the JSON string
    gives text that cannot be encoded."""
    escaped = "".join(pieces)
    try:
        json.loads(f'"{escaped}"').encode("utf-8")
        lone = False
    except UnicodeEncodeError:
        lone = True
    data = f'"{escaped}"'.encode()
    check = _SurrogateEscapes()
    found = False
    start = 0
    for cut in [*sorted(c for c in cuts if c <= len(data)), len(data)]:
        found = found or check.lone(data[start:cut], final=False)
        start = max(start, cut)
    found = found or check.lone(b"", final=True)
    assert found == lone


def test_a_package_larger_than_one_read_is_built_record_by_record(tmp_path: Path, profiles_root: Path) -> None:
    """3,000 statements (about 700 KB, many 64 KiB reads), associations before items: each record is read once."""
    document = cf_package(items=[])
    statements = [
        {
            "identifier": f"9a1c0000-0000-4000-8000-{number:012d}",
            "fullStatement": f"Statement {number}: " + "describe the properties of matter " * 3,
            "humanCodingScheme": f"G.{number}",
            "CFItemType": "Standard",
            "educationLevel": ["01"],
        }
        for number in range(1000, 4000)
    ]
    document["CFItems"] = [*document["CFItems"], *cf_package()["CFItems"][:2], *statements]
    document["CFAssociations"] = [
        _association(f"s{n}", "isChildOf", _node(s["identifier"]), _node(D1 if n % 2 else D2))
        for n, s in enumerate(statements)
    ] + cf_package()["CFAssociations"][:2]
    ordered = {"CFAssociations": document.pop("CFAssociations"), **document}  # associations come first
    source = write_text(tmp_path / "large.json", json.dumps(ordered, indent=1))
    assert source.stat().st_size > 10 * 65536
    content, result = build(source, profiles_root, tmp_path / "out")
    assert result.accepted
    assert [item.identifier for item in content.items] == [D1, D2, *(s["identifier"] for s in statements)]
    assert [item.description for item in content.items[2:]] == [s["fullStatement"] for s in statements]
    parents = {r.target_identifier: r.source_identifier for r in content.relationships if r.label == "hasChild"}
    assert all(parents[s["identifier"]] == (D1 if n % 2 else D2) for n, s in enumerate(statements))
    assert len(content.unresolved) == 0 and len(content.provenance) == 1 + 2 + 3000 + 3002
