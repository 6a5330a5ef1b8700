"""A CASE package with no operator profile binds a profile derived from the package itself.

The derived profile declares the types and levels the package uses (an open vocabulary, in any
script), takes roles the generic CASE vocabulary lists from it and the others from the structure,
is stored in the profiles root as ``<framework-id>-derived/<version>.json`` with a version from its
content, is bound by SHA-256 like any profile, is listed for review, never replaces a file, and
yields to a profile named after the framework.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from case_quirks import (
    CLAIM,
    EXAMPLE,
    SKILL_B,
    TARGET_A,
    TARGET_B,
    build_and_validate,
    framework,
    item,
    write,
)
from fastmcp import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import TextResourceContents

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.errors import ProfileValidationError
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import DerivedProfile, ProfileRepository
from kgfegmcp.sources.case import CaseSource
from kgfegmcp.sources.case.derived_profile import derived_profile_id
from kgfegmcp.sources.derived_rules import UniqueSlugs

FRAMEWORK = "invented-reasoning-framework"
DERIVED = f"{FRAMEWORK}-derived"
KNOWLEDGE, SKILL_JA = "5eed0000-0000-4000-8000-000000000030", "5eed0000-0000-4000-8000-000000000031"
AREA = "5eed0000-0000-4000-8000-000000000032"


@pytest.fixture
def profiles(tmp_path: Path, profiles_root: Path) -> Path:
    """A profiles root of this test's own (a copy of the shipped profiles)."""
    root = tmp_path / "profiles"
    shutil.copytree(profiles_root, root)
    return root


def japanese() -> dict[str, Any]:
    """The invented framework in Japanese terms: an area (領域) over knowledge (知識) and skill (技能) statements."""
    document = framework(language="ja")
    document["CFItems"] += [
        item(AREA, "数量の関係を考える。", "領域", None, "小学校第5学年"),
        item(KNOWLEDGE, "分数の大小を知る。", "知識", "J.1", "小学校第5学年"),
        item(SKILL_JA, "分数を比べる。", "技能", "J.2", "小学校第5学年"),
    ]
    document["CFAssociations"] += [
        {
            "identifier": f"5eed0000-0000-4000-8000-0000000002{n}",
            "associationType": "isChildOf",
            "originNodeURI": {"identifier": child},
            "destinationNodeURI": {"identifier": parent},
        }
        for n, (child, parent) in enumerate(
            [(AREA, "5eed0000-0000-4000-8000-000000000001"), (KNOWLEDGE, AREA), (SKILL_JA, AREA)], start=10
        )
    ]
    return document


def _roles(content: Any) -> dict[str, tuple[str, str]]:
    return {rule.source_type: (rule.role, rule.normalized) for rule in content.profile.profile.statement_types}


def test_an_open_vocabulary_in_any_script_gets_a_derived_profile(tmp_path: Path, profiles: Path) -> None:
    content, result = build_and_validate(write(tmp_path / "f.json", japanese()), profiles, tmp_path / "out")
    assert result.accepted, result.outcome.findings
    profile = content.profile
    assert isinstance(profile, DerivedProfile) and profile.written
    derived = profile.profile
    assert derived.profile_id == DERIVED and derived.version.startswith("1.0.")
    assert derived.in_language == "ja"  # the CFDocument's language
    roles = _roles(content)
    assert {t: role for t, (role, _n) in roles.items()} == {
        "Claim": "grouping",  # its item has child items
        "Target": "grouping",  # both of its items have child items
        "Measured Skill": "standard",  # leaves
        "Example": "standard",
        "領域": "grouping",
        "知識": "standard",
        "技能": "standard",
    }
    assert roles["Measured Skill"][1] == "measured-skill"
    assert roles["領域"][1] == "type-" + hashlib.sha256("領域".encode()).hexdigest()[:8]  # no ASCII slug
    own = derived.grade_label("小学校第5学年")
    assert own is not None and own.display == "小学校第5学年" and own.facet.startswith("level-")
    listed = derived.grade_label("05")
    assert listed is not None and listed.facet == "grade-05" and "5th grade" in listed.aliases  # from case-generic
    assert own.order > listed.order
    assert derived.code_policy.codes_present == "allStandards"  # only the area, a grouping, has no code
    disclosures = {d.disclosure_id: d.text for d in derived.disclosures}
    assert set(disclosures) == {"derived-case-profile", "case-associations", "roles-from-structure"}
    assert "領域 (grouping)" in disclosures["roles-from-structure"]
    (finding,) = [f for f in content.build_findings if f.code == "profile_derived"]
    assert finding.severity == "info"
    assert f"Profile {DERIVED}/{derived.version} was derived from this CFPackage" in finding.message
    assert "statement type '領域': grouping (1 items; structure: 1 of 1 items have child items)" in finding.message
    assert "statement type 'Domain'" not in finding.message


def test_roles_the_generic_vocabulary_lists_come_from_it(tmp_path: Path, profiles: Path) -> None:
    document = framework()
    for record in document["CFItems"]:
        if record["CFItemType"] == "Target":
            record["CFItemType"] = "Standard"  # listed as a standard, whatever its children
    content, _result = build_and_validate(write(tmp_path / "f.json", document), profiles, tmp_path / "out")
    assert _roles(content)["Standard"] == ("standard", "standard")
    review = dict(content.profile.derivation)  # type: ignore[attr-defined]
    assert review["statement type 'Standard'"] == "standard (2 items; listed by case-generic/2.1)"


def test_the_profile_is_stored_and_bound_by_sha256(tmp_path: Path, profiles: Path) -> None:
    content, result = build_and_validate(write(tmp_path / "f.json", framework()), profiles, tmp_path / "out")
    assert result.accepted
    ref = content.profile.ref
    path = profiles / DERIVED / f"{ref.version}.json"
    assert content.profile.path == path  # type: ignore[attr-defined]
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == ref.sha256
    manifest = json.loads(next((tmp_path / "out" / FRAMEWORK).glob("*/package_manifest.json")).read_text())
    assert manifest["profile"] == {"profileId": DERIVED, "version": ref.version, "sha256": ref.sha256}
    stored = json.loads(data)
    assert stored["profileId"] == DERIVED and stored["version"] == ref.version
    assert {t["sourceType"] for t in stored["statementTypes"]} == {"Claim", "Target", "Measured Skill", "Example"}
    assert stored["codePolicy"] == {
        "codesPresent": "allStandards",
        "unique": True,
        "normalization": "casefold",
        "pattern": "(?:[A-Z]+[0-9]+)|(?:[A-Z]+[0-9]+\\.[A-Z]+)|(?:[A-Z]+[0-9]+\\.[A-Z]+\\.[0-9]+)"
        "|(?:[A-Z]+[0-9]+\\.[A-Z]+\\.[a-z]+)",
        "exactSearch": True,
        "prefixSearch": True,
    }
    assert stored["hierarchy"] == {"rule": "tree", "maxDepth": 3, "maxParents": 1}


def test_a_changed_bound_profile_fails_validation(tmp_path: Path, profiles: Path) -> None:
    content, _result = build_and_validate(write(tmp_path / "f.json", framework()), profiles, tmp_path / "out")
    path = profiles / DERIVED / f"{content.profile.ref.version}.json"
    path.write_bytes(path.read_bytes().replace(b'"Example"', b'"Exemplar"'))
    (location,) = discover_packages(tmp_path / "out").packages
    codes = {f.code for f in PackageValidator(ProfileRepository(profiles)).validate(location).findings}
    assert "profile_binding_mismatch" in codes


def test_two_builds_of_one_file_are_byte_identical(tmp_path: Path, profiles: Path, profiles_root: Path) -> None:
    source = write(tmp_path / "f.json", japanese())
    first, _ = build_and_validate(source, profiles, tmp_path / "one")
    other_profiles = tmp_path / "other-profiles"
    shutil.copytree(profiles_root, other_profiles)
    second, _ = build_and_validate(source, other_profiles, tmp_path / "two")
    assert first.profile.ref == second.profile.ref
    name = f"{DERIVED}/{first.profile.ref.version}.json"
    assert (profiles / name).read_bytes() == (other_profiles / name).read_bytes()
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")
    again, _ = build_and_validate(source, profiles, tmp_path / "three")  # the stored file is reused as it is
    assert again.profile.ref == first.profile.ref and not again.profile.written  # type: ignore[attr-defined]


def _tree(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_a_changed_vocabulary_gets_a_new_version_and_a_file_is_never_replaced(tmp_path: Path, profiles: Path) -> None:
    first, _ = build_and_validate(write(tmp_path / "f.json", framework()), profiles, tmp_path / "one")
    kept = (profiles / DERIVED / f"{first.profile.ref.version}.json").read_bytes()
    document = framework()
    document["CFItems"][5]["CFItemType"] = "Task Model"
    second, result = build_and_validate(write(tmp_path / "g.json", document), profiles, tmp_path / "two")
    assert result.accepted and second.profile.ref.version != first.profile.ref.version
    assert (profiles / DERIVED / f"{first.profile.ref.version}.json").read_bytes() == kept

    target = profiles / DERIVED / f"{second.profile.ref.version}.json"
    target.write_bytes(target.read_bytes().replace(b'"Task Model"', b'"Task model"'))  # someone edited it
    with pytest.raises(ProfileValidationError, match=r"already exists .* with other content; a profile file is never"):
        CaseSource().build(tmp_path / "g.json", ProfileRepository(profiles))


def test_an_operator_profile_named_after_the_framework_is_bound_instead(tmp_path: Path, profiles: Path) -> None:
    source = write(tmp_path / "f.json", framework())
    derived, _ = build_and_validate(source, profiles, tmp_path / "one")
    operator = json.loads(derived.profile.path.read_text(encoding="utf-8"))  # type: ignore[attr-defined]
    operator.update(profileId=FRAMEWORK, version="1.0", title="The operator's reviewed profile")
    (profiles / FRAMEWORK).mkdir()
    (profiles / FRAMEWORK / "1.0.json").write_text(json.dumps(operator), encoding="utf-8")
    content, result = build_and_validate(source, profiles, tmp_path / "two")
    assert result.accepted
    assert (content.profile.ref.profile_id, content.profile.ref.version) == (FRAMEWORK, "1.0")
    assert not isinstance(content.profile, DerivedProfile)
    assert not any(f.code == "profile_derived" for f in content.build_findings)


def test_code_conventions_are_read_from_the_codes(tmp_path: Path, profiles: Path) -> None:
    document = framework()
    for record in document["CFItems"]:
        record.pop("humanCodingScheme")
    content, _ = build_and_validate(write(tmp_path / "none.json", document), profiles, tmp_path / "none")
    policy = content.profile.profile.code_policy
    assert (policy.codes_present, policy.exact_search, policy.prefix_search) == ("none", False, False)
    document = framework()
    document["CFItems"][4]["humanCodingScheme"] = "c1.a.1"  # the same code as another but for case
    content, result = build_and_validate(write(tmp_path / "case.json", document), profiles, tmp_path / "case")
    policy = content.profile.profile.code_policy
    assert result.accepted and (policy.normalization, policy.unique) == ("exact", True)
    document = framework()
    del document["CFItems"][3]["humanCodingScheme"]  # a measured skill (a standard) without a code
    content, result = build_and_validate(write(tmp_path / "some.json", document), profiles, tmp_path / "some")
    assert result.accepted and content.profile.profile.code_policy.codes_present == "some"


def test_a_long_framework_id_still_makes_a_profile_id() -> None:
    long = "-".join(["framework"] * 12)[:96].rstrip("-")
    assert derived_profile_id(long).endswith("-derived") and len(derived_profile_id(long)) <= 96
    assert derived_profile_id("short-one") == "short-one-derived"


@pytest.mark.slow
def test_the_build_command_lists_what_was_derived(tmp_path: Path, profiles: Path) -> None:
    source = write(tmp_path / "f.json", japanese())
    command = [sys.executable, "-m", "kgfegmcp.cli", "packages", "build", "--source", "case", str(source)]
    command += ["--out", str(tmp_path / "out"), "--profiles-dir", str(profiles)]
    run = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, "COLUMNS": "400"})
    assert run.returncode == 0, run.stderr
    assert f"derived profile {DERIVED}/1.0." in run.stdout and f"{profiles / DERIVED}/1.0." in run.stdout
    for part in (
        "statement type '領域'",
        "grouping (1 items; structure: 1 of 1 items have child items)",
        "(written now)",
        "(?:[A-Z]+[0-9]+\\.[A-Z]+\\.[a-z]+)",  # shown as it is, not read as console markup
    ):
        assert part in run.stdout, run.stdout
    assert f"A profile named {FRAMEWORK} in the profiles directory is bound instead" in run.stdout


async def test_the_derived_package_serves_with_its_profile(tmp_path: Path, profiles: Path) -> None:
    content, result = build_and_validate(write(tmp_path / "f.json", japanese()), profiles, tmp_path / "out")
    assert result.accepted
    settings = {"graph_packages_dir": tmp_path / "out", "profiles_dir": profiles, "cache_dir": tmp_path / "cache"}
    async with Client(create_app(build_app_state(load_settings(settings)))) as client:
        found = await client.call_tool(
            "search_standards", {"request": {"query": "fractions", "frameworkIds": [FRAMEWORK]}}, raise_on_error=False
        )
        assert not found.is_error and isinstance(found.structured_content, dict)
        assert [hit["nodeId"] for hit in found.structured_content["hits"]] == [SKILL_B]
        # Its Japanese statements are found by a word inside them: the derived profile says the package is
        # Japanese, so they are read as character pairs.
        japanese_word = await client.call_tool(
            "search_standards", {"request": {"query": "大小", "frameworkIds": [FRAMEWORK]}}, raise_on_error=False
        )
        assert isinstance(japanese_word.structured_content, dict)
        assert [hit["nodeId"] for hit in japanese_word.structured_content["hits"]] == [KNOWLEDGE]
        uri = f"kgfegmcp://framework/{FRAMEWORK}/snapshot/{content.snapshot_id}/profile"
        (profile,) = await client.read_resource(uri)
        assert isinstance(profile, TextResourceContents)
        assert json.loads(profile.text)["profileId"] == DERIVED
    assert {CLAIM, TARGET_A, TARGET_B, EXAMPLE} <= {i.identifier for i in content.items}


def test_with_the_shipped_profiles_a_derived_profile_goes_to_the_user_data_directory(tmp_path: Path) -> None:
    """Never into the installation: the derived root is read after the profiles root, and is where it is stored."""
    from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, USER_DERIVED_PROFILES_DIR, profile_roots

    assert profile_roots(load_settings({})) == (SHIPPED_PROFILES_DIR, USER_DERIVED_PROFILES_DIR)
    own = tmp_path / "own"
    assert profile_roots(load_settings({"profiles_dir": own})) == (own, None)
    derived_root = tmp_path / "derived"
    settings = load_settings({"derived_profiles_dir": derived_root})
    assert profile_roots(settings) == (SHIPPED_PROFILES_DIR, derived_root)

    shipped = sorted(SHIPPED_PROFILES_DIR.rglob("*.json"))
    (content,) = CaseSource().build(
        write(tmp_path / "f.json", framework()), ProfileRepository(*profile_roots(settings))
    )
    assert sorted(SHIPPED_PROFILES_DIR.rglob("*.json")) == shipped  # nothing written into the installation
    ref = content.profile.ref
    stored = derived_root / ref.profile_id / f"{ref.version}.json"
    assert stored.is_file()
    reader = ProfileRepository(*profile_roots(settings))  # a fresh one, as the validator and the server make
    assert reader.load(ref.profile_id, ref.version).sha256 == ref.sha256
    assert reader.path_of(ref.profile_id, ref.version) == stored
    assert (ref.profile_id, ref.version) in reader.list_refs() and ("case-generic", "2.1") in reader.list_refs()
    location = PackageWriter().write_pending(content, tmp_path / "out")
    assert PackageValidator(reader).validate(location).passed
    # The profiles root wins over a derived profile of the same id and version.
    assert reader.path_of("case-generic", "2.1") == SHIPPED_PROFILES_DIR / "case-generic" / "2.1.json"


# -- many statement types: linear work, and a profile that can be loaded ----------------------------


def _naive_unique(slugs: list[str], taken: set[str]) -> list[str]:
    """What unique slugs were before: every one probed from -2 (the outcome must not change)."""
    found = []
    for slug in slugs:
        candidate, number = slug, 2
        while candidate in taken:
            candidate, number = f"{slug}-{number}", number + 1
        taken.add(candidate)
        found.append(candidate)
    return found


def test_values_sharing_one_slug_cost_one_try_each() -> None:
    """6,000 → 12,000 → 24,000 types of one slug took 5 → 16.5 → 48 s to build: each probed every number
    taken before it. The next number is kept per slug, so n claims of one slug make about 2n tries."""
    slugs = UniqueSlugs()
    claimed = [slugs.claim("widget") for _ in range(5_000)]
    assert claimed[:3] == ["widget", "widget-2", "widget-3"] and claimed[-1] == "widget-5000"
    assert slugs.tries <= 2 * 5_000


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "a-2", "a-3", "b", "a-2-2", "b-2"]), max_size=30),
    st.sets(st.sampled_from(["a", "a-2", "a-4", "b-3"])),
)
def test_unique_slugs_are_what_probing_from_two_gives(slugs: list[str], taken: set[str]) -> None:
    unique = UniqueSlugs(taken)
    assert [unique.claim(slug) for slug in slugs] == _naive_unique(slugs, set(taken))
