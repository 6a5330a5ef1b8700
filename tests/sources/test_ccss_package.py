"""The CCSS ELA package against the chiron SQLite rows it was built from."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from package_view import PackageView, open_package
from raw_sources import ccss_rows

from kgfegmcp.profiles.repository import ProfileRepository

CCSS = "us-ccss-ela-literacy-grades-2-4"


@pytest.fixture(scope="module")
def view(default_catalog_root: Path) -> PackageView:
    return open_package(default_catalog_root, CCSS)


@pytest.fixture(scope="module")
def rows_by_id(view: PackageView) -> dict[str, dict]:
    return {row["id"]: row for row in ccss_rows()}


def _asn_id(view: PackageView, item_id: str) -> str:
    return view.details[item_id]["sourceDetails"]["asn"]["id"]


def test_one_english_item_per_statement(view: PackageView, rows_by_id: dict[str, dict]) -> None:
    assert len(view.items) == len(rows_by_id) == 474
    assert view.manifest["snapshotId"] == "chiron-0-1-0"
    assert {i.in_language for i in view.items} == {"en"}
    for item in view.items:
        row = rows_by_id[_asn_id(view, item.identifier)]
        assert item.description == row["description"]
        assert item.statement_code == row["notation_short"]
        assert item.grade_level == (row["grade"],)
        assert item.case_identifier_uri == row["source_url"]


def test_hierarchy_depth_and_parents_as_in_the_source(view: PackageView, rows_by_id: dict[str, dict]) -> None:
    for item in view.items:
        row = rows_by_id[_asn_id(view, item.identifier)]
        (parent,) = view.parents(item.identifier)
        if row["parent_id"] is None:
            assert parent == view.framework.identifier
        else:
            assert _asn_id(view, parent) == row["parent_id"]
        assert view.depth(item.identifier) == row["depth"] + 1
        assert row["ancestor_ids"] is None or len(json.loads(row["ancestor_ids"])) == row["depth"]
    assert max(view.depth(i.identifier) for i in view.items) == 4
    assert Counter(i.statement_type for i in view.items) == Counter(
        {"Strand": 30, "Cluster": 96, "Standard": 221, "Placeholder": 4, "Component": 123}
    )


def test_codes_repeat_only_for_anchor_standards(view: PackageView, profiles_root: Path) -> None:
    codes = Counter(i.statement_code for i in view.items if i.statement_code)
    repeated = {code for code, n in codes.items() if n > 1}
    assert repeated and all(code.startswith("CCR.") for code in repeated)
    assert codes["CCR.R.1"] == 3
    assert sum(codes.values()) == 344
    policy = ProfileRepository(profiles_root).load("us-ccss-ela-literacy", "2.1").profile.code_policy
    assert policy.unique is False and policy.exact_search and policy.prefix_search
    assert all(re.fullmatch(policy.pattern or "", code) for code in codes)
    assert view.manifest["capabilities"]["exactCodeSearch"] and view.manifest["capabilities"]["prefixCodeSearch"]


def test_provenance_names_the_row_and_the_url(view: PackageView, rows_by_id: dict[str, dict]) -> None:
    for item in view.items:
        row = rows_by_id[_asn_id(view, item.identifier)]
        locator = view.provenance[item.identifier]["locator"]
        assert locator["rowId"] == row["id"]
        assert locator["datasetFile"] == "chiron_standards/data/standards.db"
        assert locator.get("sourceUrl") == row["source_url"]
    rights = view.manifest["rights"]
    assert "CC BY 3.0 US" in rights["sourceLicense"]
    assert "National Governors Association" in rights["attributionStatement"]
