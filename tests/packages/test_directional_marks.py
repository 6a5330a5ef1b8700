"""An implicit directional mark in a statement code or grade label is a warning that names the field and the item.

LRM, RLM and ALM are kept in statement text (right-to-left scripts need them), but in a code or a grade label,
which a host shows as a label, a mark is invisible and the label reads as another string. Validation reports
it (``directional_mark_in_code``, warning) and still accepts the package; an override, embedding or isolate
in a code stays the refusal it was (``unsafe_text``). The packages here are written by hand (the writer alone,
as a supplied or edited package would be), then a CASE source is built and validated by the real command line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from case_export import one_standard_package
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, InvalidPackagePolicy
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import FixtureWorld, base_graph, profile_document

FREE = "fixture-marks"
RLM, LRM, ALM = "\u200f", "\u200e", "\u061c"
CODE = "DIRECTIONAL_MARK_IN_CODE".lower()


def marked_world(world: FixtureWorld) -> None:
    """A profile without a code pattern (a pattern would refuse the code first) declaring a marked grade label."""
    policy = {**profile_document(FREE)["codePolicy"]}
    policy.pop("pattern")
    grades = [
        {"sourceLabel": "1", "facet": "grade-1", "display": "Grade 1", "order": 1},
        {"sourceLabel": "2", "facet": "grade-2", "display": "Grade 2", "order": 2},
        {"sourceLabel": "3", "facet": "grade-3", "display": "Grade 3", "order": 3},
        {"sourceLabel": f"2{LRM}", "facet": "grade-2-marked", "display": "Grade 2", "order": 4},
    ]
    world.add_profile(FREE, codePolicy=policy, gradeLabels=grades)


def write(
    world: FixtureWorld, code: dict[str, str], grades: dict[str, tuple[str, ...]] | None = None
) -> PackageLocation:
    """The fixture graph with the items whose code is a key of ``code`` given that code (and ``grades``)."""
    grades = grades or {}
    graph = base_graph(FREE)
    graph.items = [
        replace(
            item,
            statement_code=code.get(item.statement_code or "", item.statement_code),
            grade_level=grades.get(item.statement_code or "", item.grade_level),
        )
        for item in graph.items
    ]
    return world.write(graph)


def marks(findings: list[Finding]) -> dict[str, Finding]:
    return {f.location or "": f for f in findings if f.code == CODE}


def test_a_mark_in_a_code_or_a_grade_label_is_a_warning_naming_the_field_and_the_item(world: FixtureWorld) -> None:
    marked_world(world)
    graph = base_graph(FREE)
    ids = {item.statement_code: item.identifier for item in graph.items}
    location = write(world, {"NBT.1": f"NBT.{RLM}1", "NF.1": f"NF{ALM}.1"}, {"NBT.A.2": (f"2{LRM}",)})
    outcome = PackageValidator(world.profiles()).validate(location)
    assert outcome.passed, [f.to_wire() for f in outcome.findings if f.severity == "error"]
    found = marks(outcome.findings)
    assert set(found) == {"StandardsFrameworkItem.statementCode", "StandardsFrameworkItem.gradeLevel"}
    assert all(f.severity == "warning" and f.artifact == "nodes" for f in found.values())
    code = found["StandardsFrameworkItem.statementCode"].message
    assert code.startswith("2 values held U+061C, U+200F; first in ")
    # Each item by node id, its value escaped: the message never holds the mark itself.
    assert f"{ids['NBT.1']} NBT.\\u200f1" in code and f"{ids['NF.1']} NF\\u061c.1" in code
    assert RLM not in code and ALM not in code
    grade = found["StandardsFrameworkItem.gradeLevel"].message
    assert grade.startswith(f"1 value held U+200E; first in {ids['NBT.A.2']} 2\\u200e")


def test_the_recorded_report_keeps_the_warning_and_the_package_is_served(world: FixtureWorld) -> None:
    marked_world(world)
    location = write(world, {"NBT.1": f"{RLM}NBT.1"})
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    result = lifecycle.validate(location)
    assert result.accepted and result.result == "passed"
    report = json.loads((location.path / "detailed" / "as_validation_report.json").read_text(encoding="utf-8"))
    (kept,) = [f for f in report["findings"] if f["code"] == CODE]
    assert kept["severity"] == "warning" and kept["location"] == "StandardsFrameworkItem.statementCode"


@pytest.mark.parametrize("text", [f"Compare {RLM}2 and 3{LRM}.", f"قارن {ALM}٢"])
def test_a_mark_in_statement_text_is_no_finding(world: FixtureWorld, text: str) -> None:
    marked_world(world)
    graph = base_graph(FREE)
    graph.items = [replace(item, description=f"{item.description} {text}") for item in graph.items]
    outcome = PackageValidator(world.profiles()).validate(world.write(graph))
    assert outcome.passed and not marks(outcome.findings)


def test_an_override_in_a_code_is_still_refused_as_unsafe_text(world: FixtureWorld) -> None:
    marked_world(world)
    outcome = PackageValidator(world.profiles()).validate(write(world, {"NBT.1": "NBT.\u202e1"}))
    assert not outcome.passed
    assert {f.code for f in outcome.findings if f.severity == "error"} == {"unsafe_text"}
    assert not marks(outcome.findings)


def run_cli(*arguments: str, **settings: str) -> subprocess.CompletedProcess[bytes]:
    """The real command line, with ``settings`` in its environment."""
    return subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", *arguments],
        capture_output=True,
        env={**os.environ, **settings},
        timeout=120,
        check=False,
    )


def test_a_case_source_with_a_marked_code_builds_and_validate_reports_it(tmp_path: Path) -> None:
    world = FixtureWorld(tmp_path)
    shutil.copytree(SHIPPED_PROFILES_DIR, world.profiles_root)
    source = tmp_path / "marked.json"
    source.write_text(json.dumps(one_standard_package(f"PS.{RLM}1", "Marked Standards")), encoding="utf-8")
    built = run_cli(
        "packages", "build", "--source", "case", str(source), "--out", str(world.packages),
        "--profiles-dir", str(world.profiles_root),
    )  # fmt: skip
    assert built.returncode == 0, built.stderr.decode()
    (manifest,) = world.packages.glob("*/*/package_manifest.json")
    settings = {"KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""}
    validated = run_cli("packages", "validate", "--json", str(manifest.parent), **settings)
    assert validated.returncode == 0, validated.stderr.decode()
    report = json.loads(validated.stdout)
    assert report["status"] == "passed"
    findings = [f for f in report["findings"] if f["code"] == CODE]
    assert [(f["severity"], f["location"]) for f in findings] == [("warning", "StandardsFrameworkItem.statementCode")]
    assert "PS.\\u200f1" in findings[0]["message"]
