"""``packages diff`` on real packages: the default catalog against rebuilds with one changed source row.

The registry data behind the default catalog is verified against its wheel RECORD, so no row of it
can be edited. Instead the real BNCC Educação Infantil package (built by the bncc adapter, validated)
is exported as a CASE CFPackage, one row of that file is changed, and the file is built by the real
CASE adapter, written by the PackageWriter and accepted by PackageLifecycle. The unchanged export
rebuilds into a package with no differences from the real one, so whatever the diff shows after one
row changed is that row. The CLI is exercised the same way, as a subprocess.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from case_export import export_case_package
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.snapshot_diff import FieldChange, SnapshotDiff, diff_packages
from kgfegmcp.packages.tree import PackageLocation, locate_package
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseSource

pytestmark = pytest.mark.slow

EI = "brazil-bncc-educacao-infantil"
CCSS = "us-ccss-ela-literacy"  # the CCSS ELA profile's id: a CASE export under it binds that profile
CFDocument = dict[str, Any]


@pytest.fixture(scope="module")
def profiles(profiles_root: Path) -> ProfileRepository:
    return ProfileRepository(profiles_root)


@pytest.fixture(scope="module")
def validator(profiles: ProfileRepository) -> PackageValidator:
    return PackageValidator(profiles)


@pytest.fixture(scope="module")
def real_ei(default_catalog_root: Path) -> PackageLocation:
    (snapshot,) = (default_catalog_root / EI).iterdir()
    return locate_package(snapshot)


@pytest.fixture(scope="module")
def ei_export(real_ei: PackageLocation, validator: PackageValidator) -> CFDocument:
    return export_case_package(real_ei, validator)


def rebuild(
    root: Path, document: CFDocument, framework_id: str, snapshot_id: str, profiles: ProfileRepository
) -> PackageLocation:
    """Build a CFPackage through the CASE adapter, write it pending, and record it passed."""
    source = root / f"{snapshot_id}.json"
    source.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    (content,) = CaseSource(framework_id=framework_id, snapshot_id=snapshot_id).build(source, profiles)
    location = PackageWriter().write_pending(content, root / "graph_packages")
    result = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL).validate(location)
    assert result.accepted, [(f.code, f.message) for f in result.outcome.findings if f.severity == "error"]
    return location


def _associations(document: CFDocument, kind: str) -> list[dict[str, Any]]:
    return [a for a in document["CFAssociations"] if a["associationType"] == kind]


def _item(document: CFDocument, identifier: str) -> dict[str, Any]:
    return next(item for item in document["CFItems"] if item["identifier"] == identifier)


def _linked_objective(document: CFDocument) -> dict[str, Any]:
    """The first coded item that both follows and precedes another (so its links can be watched)."""
    precedes = _associations(document, "precedes")
    origins = {a["originNodeURI"]["identifier"] for a in precedes}
    destinations = {a["destinationNodeURI"]["identifier"] for a in precedes}
    return next(
        item
        for item in document["CFItems"]
        if item.get("humanCodingScheme") and item["identifier"] in origins & destinations
    )


def _empty(diff: SnapshotDiff) -> bool:
    return not (diff.has_differences or diff.ambiguous_codes)


def test_the_unchanged_export_rebuilds_without_differences(
    tmp_path: Path,
    real_ei: PackageLocation,
    ei_export: CFDocument,
    profiles: ProfileRepository,
    validator: PackageValidator,
) -> None:
    rebuilt = rebuild(tmp_path, ei_export, EI, "case-export", profiles)
    diff = diff_packages(real_ei, rebuilt, validator)
    assert _empty(diff)
    assert diff.summary.matched_by_identifier == diff.old.statements == diff.new.statements > 100
    assert diff.old.progression_links == diff.new.progression_links > 50


def _changed_text(document: CFDocument) -> Callable[[SnapshotDiff], None]:
    row = _linked_objective(document)
    before, row["fullStatement"] = row["fullStatement"], row["fullStatement"] + " (texto revisado)"

    def check(diff: SnapshotDiff) -> None:
        (entry,) = diff.changed
        assert (entry.matched_by, entry.new.statement_code) == ("caseIdentifierUUID", row["humanCodingScheme"])
        assert entry.changes == (FieldChange(field="description", old=before, new=row["fullStatement"]),)
        assert diff.summary.changed == 1 and not (diff.added or diff.removed or diff.moved)
        assert not (diff.links_added or diff.links_removed)

    return check


def _changed_grade(document: CFDocument) -> Callable[[SnapshotDiff], None]:
    row = _linked_objective(document)
    labels = ["Bebês", "Crianças bem pequenas", "Crianças pequenas"]
    before = row["educationLevel"]
    row["educationLevel"] = [next(label for label in labels if label not in before)]

    def check(diff: SnapshotDiff) -> None:
        (entry,) = diff.changed
        assert entry.changes == (FieldChange(field="gradeLevel", old=tuple(before), new=tuple(row["educationLevel"])),)
        assert not (diff.added or diff.removed or diff.moved or diff.links_added or diff.links_removed)

    return check


def _new_identifier(document: CFDocument) -> Callable[[SnapshotDiff], None]:
    """The row gets a new CASE identifier, and so do the associations that cite it."""
    row = _linked_objective(document)
    before = row["identifier"]
    row["identifier"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"re-identified/{before}"))
    cited = 0
    for association in document["CFAssociations"]:
        for end in ("originNodeURI", "destinationNodeURI"):
            if association[end]["identifier"] == before:
                association[end] = {**association[end], "identifier": row["identifier"]}
                cited += 1
    assert cited >= 3  # its parent and at least two precedes links

    def check(diff: SnapshotDiff) -> None:
        (entry,) = diff.changed
        assert (entry.matched_by, entry.new.statement_code) == ("statementCode", row["humanCodingScheme"])
        assert entry.changes == (FieldChange(field="caseIdentifierUUID", old=before, new=row["identifier"]),)
        assert diff.summary.matched_by_code == 1
        assert not (diff.added or diff.removed or diff.moved or diff.links_added or diff.links_removed)

    return check


def _new_parent(document: CFDocument) -> Callable[[SnapshotDiff], None]:
    """One isChildOf row points at another age-group grouping of the same field."""
    row = _linked_objective(document)
    (link,) = [a for a in _associations(document, "isChildOf") if a["originNodeURI"]["identifier"] == row["identifier"]]
    old_parent = _item(document, link["destinationNodeURI"]["identifier"])
    new_parent = next(
        item
        for item in document["CFItems"]
        if item["CFItemType"] == old_parent["CFItemType"] and item["identifier"] != old_parent["identifier"]
    )
    link["destinationNodeURI"] = {"identifier": new_parent["identifier"], "title": "moved"}

    def check(diff: SnapshotDiff) -> None:
        (moved,) = diff.moved
        assert moved.new.statement_code == row["humanCodingScheme"]
        assert [p.case_identifier_uuid for p in moved.old_parents] == [old_parent["identifier"]]
        assert [p.case_identifier_uuid for p in moved.new_parents] == [new_parent["identifier"]]
        assert not (diff.added or diff.removed or diff.changed or diff.links_added or diff.links_removed)

    return check


def _dropped_link(document: CFDocument) -> Callable[[SnapshotDiff], None]:
    """One precedes row is gone."""
    row = _linked_objective(document)
    link = next(a for a in _associations(document, "precedes") if a["originNodeURI"]["identifier"] == row["identifier"])
    document["CFAssociations"].remove(link)
    target = _item(document, link["destinationNodeURI"]["identifier"])

    def check(diff: SnapshotDiff) -> None:
        (removed,) = diff.links_removed
        assert (removed.label, removed.relationship_id) == ("buildsTowards", link["identifier"])
        assert (removed.source.statement_code, removed.target.statement_code) == (
            row["humanCodingScheme"],
            target.get("humanCodingScheme"),
        )
        assert diff.old.progression_links == diff.new.progression_links + 1
        assert not (diff.added or diff.removed or diff.changed or diff.moved or diff.links_added)

    return check


def _removed_row(document: CFDocument) -> Callable[[SnapshotDiff], None]:
    """One CFItem row is gone; the associations citing it go with it."""
    row = _linked_objective(document)
    document["CFItems"].remove(row)
    citing = [
        a
        for a in document["CFAssociations"]
        if row["identifier"] in (a["originNodeURI"]["identifier"], a["destinationNodeURI"]["identifier"])
    ]
    for association in citing:
        document["CFAssociations"].remove(association)
    links = sorted(a["identifier"] for a in citing if a["associationType"] == "precedes")

    def check(diff: SnapshotDiff) -> None:
        (removed,) = diff.removed
        assert (removed.case_identifier_uuid, removed.statement_code) == (row["identifier"], row["humanCodingScheme"])
        assert sorted(link.relationship_id for link in diff.links_removed) == links
        assert not (diff.added or diff.changed or diff.moved or diff.links_added)

    return check


@pytest.mark.parametrize(
    "change", [_changed_text, _changed_grade, _new_identifier, _new_parent, _dropped_link, _removed_row]
)
def test_one_changed_source_row_is_exactly_the_diff(
    tmp_path: Path,
    real_ei: PackageLocation,
    ei_export: CFDocument,
    profiles: ProfileRepository,
    validator: PackageValidator,
    change: Callable[[CFDocument], Callable[[SnapshotDiff], None]],
) -> None:
    document = copy.deepcopy(ei_export)
    check = change(document)
    diff = diff_packages(real_ei, rebuild(tmp_path, document, EI, "case-one-row-changed", profiles), validator)
    check(diff)
    assert not diff.ambiguous_codes


def test_a_repeated_real_code_is_reported_not_guessed(
    tmp_path: Path, default_catalog_root: Path, profiles: ProfileRepository, validator: PackageValidator
) -> None:
    """CCSS anchor-standard codes repeat once per grade: a re-identified one cannot be matched by code."""
    (snapshot,) = (default_catalog_root / "us-ccss-ela-literacy-grades-2-4").iterdir()
    document = export_case_package(locate_package(snapshot), validator)
    old = rebuild(tmp_path, document, CCSS, "case-export", profiles)
    parents = {a["destinationNodeURI"]["identifier"] for a in _associations(document, "isChildOf")}
    codes = [item.get("humanCodingScheme") for item in document["CFItems"]]
    row = next(
        item
        for item in document["CFItems"]
        if codes.count(item.get("humanCodingScheme")) > 1 and item["identifier"] not in parents
    )
    before = row["identifier"]
    row["identifier"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"re-identified/{before}"))
    for association in document["CFAssociations"]:
        if association["originNodeURI"]["identifier"] == before:
            association["originNodeURI"] = {**association["originNodeURI"], "identifier": row["identifier"]}
    new = rebuild(tmp_path, document, CCSS, "case-reidentified", profiles)
    diff = diff_packages(old, new, validator)
    (ambiguous,) = diff.ambiguous_codes
    assert ambiguous.statement_code == row["humanCodingScheme"]
    assert ambiguous.old_statements == ambiguous.new_statements == codes.count(row["humanCodingScheme"])
    assert [r.case_identifier_uuid for r in ambiguous.unmatched_old] == [before]
    assert [r.case_identifier_uuid for r in ambiguous.unmatched_new] == [row["identifier"]]
    assert [s.case_identifier_uuid for s in diff.removed] == [before]
    assert [s.case_identifier_uuid for s in diff.added] == [row["identifier"]]
    assert not (diff.changed or diff.moved or diff.links_added or diff.links_removed)


# -- the command, as a user runs it ----------------------------------------------------------------


def kgfegmcp(profiles: ProfileRepository, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KGFEGMCP_PROFILES_DIR": str(profiles.root)}
    return subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def test_the_command_prints_tables_or_the_json_and_sets_exit_codes(
    tmp_path: Path,
    real_ei: PackageLocation,
    ei_export: CFDocument,
    profiles: ProfileRepository,
    validator: PackageValidator,
) -> None:
    document = copy.deepcopy(ei_export)
    _changed_text(document)
    row = _linked_objective(document)
    changed = rebuild(tmp_path, document, EI, "case-one-row-changed", profiles)
    old, new = str(real_ei.path), str(changed.path)

    as_json = kgfegmcp(profiles, "packages", "diff", old, new, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert as_json.stdout.encode() == diff_packages(real_ei, changed, validator).to_json_bytes()
    assert json.loads(as_json.stdout)["summary"]["changed"] == 1

    table = kgfegmcp(profiles, "packages", "diff", old, new)
    assert table.returncode == 0, table.stderr
    assert "changed statements" in table.stdout and "added statements" not in table.stdout
    (line,) = [line for line in table.stdout.splitlines() if row["humanCodingScheme"] in line]
    assert "caseIdentifierUUID" in line and "description" in line and "(texto revisado)" not in line  # shortened

    assert kgfegmcp(profiles, "packages", "diff", old, new, "--exit-code").returncode == 1
    same = kgfegmcp(profiles, "packages", "diff", old, old, "--exit-code")
    assert same.returncode == 0 and "No differences" in same.stdout

    other = next(p for p in real_ei.path.parent.parent.iterdir() if p.name != EI)
    refused = kgfegmcp(profiles, "packages", "diff", old, str(next(other.iterdir())))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("invalid_comparison_selection: ") and "Traceback" not in refused.stderr
