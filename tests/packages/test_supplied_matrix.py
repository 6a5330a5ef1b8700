"""Each rule of the gate refuses a supplied package as it refuses this server's: the same corrupted graphs,
written in the supplied shape (every checksum and count consistent with the corruption), yield their code."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, SUPPORTS, ComponentNode
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, ValidationOutcome
from package_factory import FixtureGraph, FixtureWorld, base_graph, lc_graph
from supplied_package import SuppliedPackageWriter

FRAMEWORK = "fixture-supplied-matrix"


def _code(graph: FixtureGraph, code: str) -> str:
    return next(i.identifier for i in graph.items if i.statement_code == code)


def _domain(graph: FixtureGraph, words: str) -> str:
    return next(i.identifier for i in graph.items if i.statement_type == "Domain" and words in i.description)


def cycle(graph: FixtureGraph) -> None:
    graph.link(HAS_CHILD, _code(graph, "NBT.A.1"), _domain(graph, "base ten"))


def orphan_item(graph: FixtureGraph) -> None:
    target = _code(graph, "NF.1")
    graph.relationships = [r for r in graph.relationships if r.target_identifier != target]


def disallowed_edge(graph: FixtureGraph) -> None:
    target = _code(graph, "NBT.1")
    graph.relationships = [r for r in graph.relationships if r.target_identifier != target]
    graph.link(HAS_CHILD, graph.framework.identifier, target)


def component_in_hierarchy(graph: FixtureGraph) -> None:
    graph.link(HAS_CHILD, _domain(graph, "frações"), graph.components[1].identifier)


def supports_reversed(graph: FixtureGraph) -> None:
    graph.link(SUPPORTS, _code(graph, "NBT.1"), graph.components[1].identifier, support_confidence=0.5)


def component_without_support(graph: FixtureGraph) -> None:
    lonely = stable_uuid(FRAMEWORK, "component", "lonely")
    graph.components.append(ComponentNode(identifier=lonely, description="Lonely component", in_language="en"))


def progression_from_root(graph: FixtureGraph) -> None:
    graph.link(BUILDS_TOWARDS, graph.framework.identifier, _code(graph, "NBT.1"))


def duplicate_code(graph: FixtureGraph) -> None:
    graph.items = [replace(i, statement_code="NBT.A.1") if i.statement_code == "NBT.A.2" else i for i in graph.items]


def unknown_grade(graph: FixtureGraph) -> None:
    graph.items = [replace(i, grade_level=("13",)) if i.statement_code == "NF.1" else i for i in graph.items]


def unknown_type(graph: FixtureGraph) -> None:
    graph.items = [replace(i, statement_type="Benchmark") if i.statement_code == "NF.1" else i for i in graph.items]


def relationship_with_unknown_status(graph: FixtureGraph) -> None:
    graph.relationships[0] = replace(graph.relationships[0], unresolved_status="somewhereElse")


def bidi_override_in_a_code(graph: FixtureGraph) -> None:
    """A supplied package is served as it stands: a right-to-left override would reach every answer."""
    graph.items = [
        replace(i, statement_code="NF.\u202e1", description=f"\x1b[31m{i.description}")
        if i.statement_code == "NF.1"
        else i
        for i in graph.items
    ]


CORRUPTIONS: dict[str, list[Callable[[FixtureGraph], None]]] = {
    "hierarchy_cycle": [cycle],
    "parent_cardinality": [orphan_item],
    "hierarchy_edge_type": [disallowed_edge],
    "component_in_hierarchy": [component_in_hierarchy],
    "supports_direction": [supports_reversed],
    "unsupported_component": [component_without_support],
    "progression_endpoint": [progression_from_root],
    "code_policy_violation": [duplicate_code],
    "unknown_grade_label": [unknown_grade],
    "unknown_statement_type": [unknown_type],
    "unresolved_without_status": [relationship_with_unknown_status],
    "unsafe_text": [bidi_override_in_a_code],
}


def _validated(base: Path, graph: FixtureGraph) -> ValidationOutcome:
    """``graph`` written in the supplied shape under ``base`` (with its profile), through every rule."""
    world = FixtureWorld(base)
    writer = SuppliedPackageWriter(world)
    location = writer.write(graph, writer.profile(graph.framework_id))
    return PackageValidator(world.profiles()).validate(location)


CASES = [(code, corruption) for code, corruptions in CORRUPTIONS.items() for corruption in corruptions]


@pytest.mark.parametrize(("code", "corruption"), CASES, ids=[c.__name__ for _, c in CASES])
def test_a_corrupted_supplied_package_yields_its_code(
    tmp_path: Path, code: str, corruption: Callable[[FixtureGraph], None]
) -> None:
    graph = lc_graph(FRAMEWORK)
    corruption(graph)
    outcome = _validated(tmp_path, graph)
    assert code in {f.code for f in outcome.findings if f.severity == "error"}, [f.to_wire() for f in outcome.findings]
    assert not outcome.passed


def test_the_uncorrupted_graphs_pass(tmp_path: Path) -> None:
    world = FixtureWorld(tmp_path)
    writer = SuppliedPackageWriter(world)
    for graph in (lc_graph(FRAMEWORK), base_graph(FRAMEWORK + "-tree")):
        location = writer.write(graph, writer.profile(graph.framework_id))
        assert PackageValidator(world.profiles()).validate(location).passed


# -- the delivery's bytes, re-pinned (the snapshot id no longer names the file set, and the rule still speaks) --


def _rewrite_delivery(location: PackageLocation, old: bytes, new: bytes) -> None:
    manifest_path = location.path / "package_manifest.json"
    manifest = json.loads(manifest_path.read_text())
    relative = manifest["artifacts"]["nodes"]
    path = location.path / relative
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))
    manifest["checksums"][relative] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


BYTE_CASES: dict[str, tuple[bytes, bytes, str]] = {
    "capitalised boolean": (b'"isCurrent":"true"', b'"isCurrent":"True"', "invalid_encoding"),
    "unknown label": (b'"labels":["StandardsFrameworkItem"]', b'"labels":["Standard"]', "invalid_label"),
    "truncated line": (b'"type":"node"}\n', b'"type":"node"\n', "invalid_json_line"),
}


@pytest.mark.parametrize("case", sorted(BYTE_CASES))
def test_a_re_pinned_delivery_corruption_yields_its_code(tmp_path: Path, case: str) -> None:
    world = FixtureWorld(tmp_path)
    writer = SuppliedPackageWriter(world)
    location = writer.write(lc_graph(FRAMEWORK), writer.profile(FRAMEWORK))
    old, new, code = BYTE_CASES[case]
    _rewrite_delivery(location, old, new)
    codes = {f.code for f in PackageValidator(world.profiles()).validate(location).findings if f.severity == "error"}
    assert {code, "identity_mismatch"} <= codes


def _hung_from_root(graph: FixtureGraph, status: str, code: str = "NF.2") -> None:
    """``code``'s parent edge replaced by one from the root, marked ``status``."""
    target = _code(graph, code)
    graph.relationships = [
        r for r in graph.relationships if not (r.label == HAS_CHILD and r.target_identifier == target)
    ]
    graph.link(HAS_CHILD, graph.framework.identifier, target, unresolved_status=status)


def test_a_root_fallback_is_kept_unresolved_not_refused_as_an_edge_type(tmp_path: Path) -> None:
    """The supplied packages hang standards the source left without a parent from the root, marked
    ``unresolvedRootFallback``: the edge's type is not the profile's structure, so it is no violation of it."""
    graph = lc_graph(FRAMEWORK)
    _hung_from_root(graph, "unresolvedRootFallback")
    outcome = _validated(tmp_path, graph)
    assert outcome.passed, [f.to_wire() for f in outcome.findings]


def test_only_the_root_fallback_status_excuses_a_root_edge(tmp_path: Path) -> None:
    graph = lc_graph(FRAMEWORK)
    _hung_from_root(graph, "unresolvedAmbiguous")
    codes = {f.code for f in _validated(tmp_path, graph).findings}
    assert "hierarchy_edge_type" in codes
