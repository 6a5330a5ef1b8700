"""Finding codes are declared where they are emitted, listed once, documented, and enforced.

Each package check runs alone over every invalid fixture through a collector that accepts only the
codes it declares, so a check emitting a code it did not declare fails here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from test_validator_matrix import CORRUPTIONS, FREE

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.finding_codes import FindingCode, UndeclaredFindingCodeError
from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.checks.checklist import PACKAGE_CHECK_CODES, PACKAGE_CHECKS, run_package_checks
from kgfegmcp.packages.checks.context import CheckContext
from kgfegmcp.packages.collector import BoundedFindings, FindingCollector
from kgfegmcp.packages.delivery import decode_delivery
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.records import BUILDS_TOWARDS, SUPPORTS
from kgfegmcp.packages.tree import PackageLocation, scan_package_tree
from kgfegmcp.packages.validator import VALIDATION_CODES, PackageValidator
from kgfegmcp.packages.writer import BUILD_FINDING_CODES
from package_factory import DAG, LC, TREE, FixtureWorld, base_graph, dag_graph, lc_graph

DOC = REPOSITORY_ROOT / "docs" / "packages.md"


def documented_codes() -> set[str]:
    """Codes in the first column of the table under "## Validation findings"."""
    section = DOC.read_text(encoding="utf-8").split("## Validation findings", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {code for row in rows for code in re.findall(r"`([a-z_]+)`", row.split(" | ", 1)[0])}


def test_every_code_is_documented_and_every_documented_code_exists() -> None:
    assert documented_codes() == {code.value for code in FindingCode}


def test_every_code_in_the_table_is_declared_by_some_emitter() -> None:
    assert {*VALIDATION_CODES, *BUILD_FINDING_CODES} == set(FindingCode)


def test_package_check_codes_are_read_from_the_checks() -> None:
    assert {code for check in PACKAGE_CHECKS for code in check.codes} == PACKAGE_CHECK_CODES


def test_checks_run_in_the_gate_order() -> None:
    assert [check.__name__ for check in PACKAGE_CHECKS] == [
        "NodeIdentityCheck",
        "StatementTermCheck",
        "RelationshipCheck",
        "HierarchyCheck",
        "ComponentSupportCheck",
        "CodePolicyCheck",
        "TextSafetyCheck",
        "CountCheck",
        "CapabilityCheck",
        "FrameworkDocumentCheck",
        "HasChildLinesCheck",
        "ItemCopiesCheck",
        "UnresolvedItemsCheck",
        "ProvenanceCheck",
        "LearningComponentArtifactCheck",
    ]


@pytest.mark.parametrize("check", PACKAGE_CHECKS, ids=[c.__name__ for c in PACKAGE_CHECKS])
def test_each_check_declares_its_codes_once_and_says_why(check: type[PackageCheck]) -> None:
    assert check.codes and len(set(check.codes)) == len(check.codes)
    assert check.__doc__ and check.__doc__ != PackageCheck.__doc__


# -- collectors refuse what was not declared ----------------------------------------------------


def test_collector_refuses_an_undeclared_code() -> None:
    out = FindingCollector((FindingCode.COUNT_MISMATCH,), "a test emitter")
    out.add(FindingCode.COUNT_MISMATCH, "declared, so kept")
    with pytest.raises(UndeclaredFindingCodeError, match="a test emitter emitted finding code 'hierarchy_cycle'"):
        out.add(FindingCode.HIERARCHY_CYCLE, "never declared")
    with pytest.raises(UndeclaredFindingCodeError, match="made_up_code"):
        out.extend([Finding(code="made_up_code", severity="error", message="not a finding code")])
    assert [f.code for f in out.findings] == ["count_mismatch"]


def test_a_view_accepts_only_its_own_codes_and_shares_the_bound() -> None:
    store = BoundedFindings(limit=1)
    out = FindingCollector((FindingCode.COUNT_MISMATCH, FindingCode.HIERARCHY_CYCLE), "validator", store)
    view = out.restricted_to((FindingCode.COUNT_MISMATCH,), "counts")
    view.add(FindingCode.COUNT_MISMATCH, "first")
    out.add(FindingCode.COUNT_MISMATCH, "second")
    with pytest.raises(UndeclaredFindingCodeError):
        view.add(FindingCode.HIERARCHY_CYCLE, "the parent's code, not the view's")
    with pytest.raises(UndeclaredFindingCodeError, match="depth_exceeded"):
        out.restricted_to((FindingCode.DEPTH_EXCEEDED,), "a check the validator does not know")
    assert [f.message for f in out.findings] == ["first"]
    assert out.omitted == {"count_mismatch": 1}


class EmitsAnUndeclaredCode(PackageCheck):
    """Declares counts but reports a cycle: the mistake the declared codes exist to catch."""

    codes = (FindingCode.COUNT_MISMATCH,)

    def run(self) -> None:
        self.out.add(FindingCode.HIERARCHY_CYCLE, "not this check's to report")


def test_a_check_emitting_a_code_it_did_not_declare_fails(world: FixtureWorld) -> None:
    context = context_for(world, world.write(base_graph(TREE)))
    assert context is not None
    out = FindingCollector(VALIDATION_CODES, "PackageValidator")
    with pytest.raises(UndeclaredFindingCodeError, match="EmitsAnUndeclaredCode emitted finding code"):
        run_package_checks(context, out, (EmitsAnUndeclaredCode,))


# -- every check over every invalid fixture, alone and strict ------------------------------------


def context_for(world: FixtureWorld, location: PackageLocation) -> CheckContext | None:
    """What the validator hands the checks, or ``None`` when it would not run them."""
    outcome = PackageValidator(world.profiles()).validate(location)
    if outcome.manifest is None:
        return None
    manifest = outcome.manifest
    scan = scan_package_tree(location.path, {a.path: a.logical_name for a in manifest.all_artifacts()})
    elsewhere = FindingCollector(VALIDATION_CODES, "reader and decoder, outside the checks")
    reader = ArtifactReader(location.path, manifest, scan.present, elsewhere)
    delivery = decode_delivery(reader, elsewhere)
    if not delivery.complete:
        return None
    profile = outcome.profile.profile if outcome.profile else None
    return CheckContext.build(manifest, profile, delivery.content, reader)


def many_problems(world: FixtureWorld) -> PackageLocation:
    """Off-profile items, bad codes and reversed links in one package: most checks fire at once."""
    world.add_profile(FREE, hierarchy={"rule": "tree", "maxDepth": 1, "maxParents": 1})
    graph = lc_graph(FREE)
    graph.items = [
        replace(
            item,
            grade_level=("99",),
            statement_type="Odd" if index % 2 else item.statement_type,
            statement_code="bad code" if index % 3 else None,
        )
        for index, item in enumerate(graph.items)
    ]
    for rel in list(graph.relationships)[:8]:
        extra = {"support_confidence": 0.5} if rel.label in (SUPPORTS, BUILDS_TOWARDS) else {}
        graph.link(rel.label, rel.target_identifier, rel.source_identifier, **extra)
    return world.write(graph)


def valid_packages(world: FixtureWorld) -> PackageLocation:
    world.write(base_graph(TREE))
    world.write(dag_graph(DAG))
    return world.write(lc_graph(LC))


FIXTURES: list[Callable[[FixtureWorld], PackageLocation]] = [
    valid_packages,
    many_problems,
    *(corruption for corruptions in CORRUPTIONS.values() for corruption in corruptions),
]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.__name__ for f in FIXTURES])
def test_each_check_emits_only_the_codes_it_declares(world: FixtureWorld, fixture: Callable[..., Any]) -> None:
    context = context_for(world, fixture(world))
    if context is None:
        pytest.skip("the validator runs no package check on this fixture")
    for check in PACKAGE_CHECKS:
        own = FindingCollector(check.codes, f"{check.__name__} under test")
        check(context, own).run()
        assert {f.code for f in own.findings} | set(own.omitted) <= set(check.codes), check.__name__
