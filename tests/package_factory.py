"""Small, valid graph packages written through the real package writer.

Three shapes: a tree framework, a multi-parent DAG framework, and one with learning
components and progression links. Tests corrupt copies of these to reach each finding.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.lc_artifacts import ComponentProduction, ComponentSourceVersion, GeneratorModel
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import SourceInfo
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    HAS_CHILD,
    RELATES_TO,
    SUPPORTS,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.prompts.repository import copy_generic_configs

RIGHTS: dict[str, Any] = {
    "sourceLicense": "CC BY 4.0 (test fixture)",
    "licenseUri": "https://creativecommons.org/licenses/by/4.0/",
    "attributionStatement": "Test fixture curriculum, written by the test suite.",
    "reviewStatus": "provisional_operator_approved",
    "allowStandardResources": True,
    "allowFullText": True,
    "allowBulkResource": False,
    "allowGeneratedDerivatives": "allowed",
}


#: The fixture profiles' code policy (every standard coded, casefold, exact and prefix search).
CODE_POLICY: dict[str, Any] = {
    "codesPresent": "allStandards",
    "unique": True,
    "normalization": "casefold",
    "pattern": r"[A-Z]+(\.[0-9A-Za-z]+)+",
    "exactSearch": True,
    "prefixSearch": True,
    "derivedParentSeparator": ".",
}


def profile_document(profile_id: str, rule: str = "tree", max_parents: int = 1, **overrides: Any) -> dict[str, Any]:
    """A complete profile JSON document for fixture packages."""
    document: dict[str, Any] = {
        "profileId": profile_id,
        "version": "1.0",
        "title": f"Fixture profile {profile_id}",
        "inLanguage": "en",
        "gradeLabels": [
            {"sourceLabel": "1", "facet": "grade-1", "display": "Grade 1", "order": 1},
            {"sourceLabel": "2", "facet": "grade-2", "display": "Grade 2", "order": 2},
            {"sourceLabel": "3", "facet": "grade-3", "display": "Grade 3", "order": 3},
        ],
        "statementTypes": [
            {"sourceType": "Domain", "normalized": "domain", "role": "grouping"},
            {"sourceType": "Cluster", "normalized": "cluster", "role": "grouping"},
            {"sourceType": "Standard", "normalized": "standard", "role": "standard"},
        ],
        "hierarchy": {
            "rule": rule,
            "maxDepth": 3,
            "maxParents": max_parents,
            "allowedEdges": [
                {"parentType": "StandardsFramework", "childType": "Domain"},
                {"parentType": "Domain", "childType": "Cluster"},
                {"parentType": "Domain", "childType": "Standard"},
                {"parentType": "Cluster", "childType": "Standard"},
            ],
        },
        "codePolicy": dict(CODE_POLICY),
        "searchFacets": ["gradeLevel", "statementType"],
        "progressionLabels": ["buildsTowards", "relatesTo"],
        "disclosures": [{"disclosureId": "fixture", "text": "Fixture data written by tests."}],
        "defaultRights": RIGHTS,
    }
    document.update(overrides)
    return document


def write_profile(root: Path, document: dict[str, Any]) -> Path:
    """Write one profile file where the repository expects it."""
    path = root / document["profileId"] / f"{document['version']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


@dataclass
class FixtureGraph:
    """Mutable builder of one package's records (keeps ids deterministic)."""

    framework_id: str
    framework: FrameworkNode
    items: list[ItemNode]
    components: list[ComponentNode]
    relationships: list[RelationshipRecord]
    unresolved: list[dict[str, Any]]

    def node(self, identifier: str) -> NodeRecord:
        for node in [self.framework, *self.items, *self.components]:
            if node.identifier == identifier:
                return node
        raise KeyError(identifier)

    def link(self, label: str, source: str, target: str, **extra: Any) -> RelationshipRecord:
        source_node, target_node = self.node(source), self.node(target)
        rel = RelationshipRecord(
            identifier=stable_uuid(self.framework_id, "rel", label, source, target),
            label=label,  # type: ignore[arg-type]
            source_identifier=source,
            target_identifier=target,
            source_label=source_node.label,
            target_label=target_node.label,
            source_entity_key=entity_key_for(source_node.label),
            target_entity_key=entity_key_for(target_node.label),
            **extra,
        )
        self.relationships.append(rel)
        return rel


def _item(framework_id: str, key: str, statement_type: str, text: str, grades: tuple[str, ...], code: str | None):
    uid = stable_uuid(framework_id, "item", key)
    return ItemNode(
        identifier=uid,
        case_identifier_uuid=uid,
        description=text,
        statement_type=statement_type,
        grade_level=grades,
        is_current=True,
        in_language="en",
        statement_code=code,
        academic_subject="Mathematics",
    )


def base_graph(framework_id: str) -> FixtureGraph:
    """Framework → two domains → clusters/standards, all with codes on standards."""
    root_id = stable_uuid(framework_id, "framework")
    framework = FrameworkNode(
        identifier=root_id,
        case_identifier_uuid=root_id,
        name=f"Fixture framework {framework_id}",
        jurisdiction="Fixture Land",
        academic_subject="Mathematics",
        in_language="en",
    )
    graph = FixtureGraph(framework_id, framework, [], [], [], [])
    numbers = _item(framework_id, "NBT", "Domain", "Number and operations in base ten", ("1", "2"), None)
    fractions = _item(framework_id, "NF", "Domain", "Números e frações: fractions as numbers", ("3",), None)
    cluster = _item(framework_id, "NBT.A", "Cluster", "Understand place value", ("2",), None)
    graph.items += [numbers, fractions, cluster]
    standards = [
        _item(framework_id, "NBT.1", "Standard", "Count to 120, starting at any number.", ("1",), "NBT.1"),
        _item(
            framework_id,
            "NBT.A.1",
            "Standard",
            "Understand that the three digits of a three-digit number represent amounts of hundreds, tens, and ones.",
            ("2",),
            "NBT.A.1",
        ),
        _item(
            framework_id,
            "NBT.A.2",
            "Standard",
            "Count within 1000; skip-count by 5s, 10s, and 100s.",
            ("2",),
            "NBT.A.2",
        ),
        _item(
            framework_id,
            "NF.1",
            "Standard",
            "Understand a fraction 1/b as the quantity formed by 1 part when a whole is partitioned into b equal parts (frações).",
            ("3",),
            "NF.1",
        ),
    ]
    graph.items += standards
    graph.link(HAS_CHILD, root_id, numbers.identifier)
    graph.link(HAS_CHILD, root_id, fractions.identifier)
    graph.link(HAS_CHILD, numbers.identifier, cluster.identifier)
    graph.link(HAS_CHILD, numbers.identifier, standards[0].identifier)
    graph.link(HAS_CHILD, cluster.identifier, standards[1].identifier)
    graph.link(HAS_CHILD, cluster.identifier, standards[2].identifier)
    graph.link(HAS_CHILD, fractions.identifier, standards[3].identifier)
    return graph


def dag_graph(framework_id: str) -> FixtureGraph:
    """The base graph plus one standard with two parents (a real multi-parent DAG)."""
    graph = base_graph(framework_id)
    shared = _item(
        framework_id, "NF.2", "Standard", "Represent a fraction on a number line diagram.", ("2", "3"), "NF.2"
    )
    graph.items.append(shared)
    domains = [i for i in graph.items if i.statement_type == "Domain"]
    for domain in domains:
        graph.link(HAS_CHILD, domain.identifier, shared.identifier)
    return graph


def lc_graph(framework_id: str) -> FixtureGraph:
    """The DAG graph plus learning components, supports and progression links."""
    graph = dag_graph(framework_id)
    by_code = {i.statement_code: i for i in graph.items if i.statement_code}
    for index, (text, codes) in enumerate(
        [
            ("Identify hundreds, tens and ones in a three-digit number", ["NBT.A.1"]),
            ("Partition a whole into equal parts", ["NF.1", "NF.2"]),
        ]
    ):
        component = ComponentNode(
            identifier=stable_uuid(framework_id, "component", str(index)),
            description=text,
            in_language="en",
            academic_subject="Mathematics",
            tags=("fixture",),
            provider="Fixture curator",
        )
        graph.components.append(component)
        for code in codes:
            graph.link(SUPPORTS, component.identifier, by_code[code].identifier, support_confidence=1.0)
    graph.link(BUILDS_TOWARDS, by_code["NBT.1"].identifier, by_code["NBT.A.1"].identifier)
    graph.link(BUILDS_TOWARDS, by_code["NBT.A.1"].identifier, by_code["NBT.A.2"].identifier)
    graph.link(BUILDS_TOWARDS, by_code["NF.1"].identifier, by_code["NF.2"].identifier)
    graph.link(RELATES_TO, by_code["NBT.A.2"].identifier, by_code["NF.1"].identifier)
    graph.unresolved.append(
        {
            "unresolvedId": stable_uuid(framework_id, "unresolved", "EM13MAT101"),
            "status": "unresolvedExternalReference",
            "reference": "EM13MAT101",
            "sourceEntityId": by_code["NF.2"].identifier,
            "sourceText": "Prior knowledge: EM13MAT101",
            "reason": "code points outside this package",
        }
    )
    return graph


def provenance_for(graph: FixtureGraph) -> dict[str, dict[str, Any]]:
    """One provenance record per node and relationship; components and their supports are model output."""
    entities: dict[str, dict[str, Any]] = {}
    for node in [graph.framework, *graph.items]:
        entities[node.identifier] = {"epistemicStatus": "source_asserted", "locator": {"file": "fixture.json"}}
    for component in graph.components:
        entities[component.identifier] = {"epistemicStatus": "llm_inferred", "locator": {"file": "fixture.json"}}
    for rel in graph.relationships:
        status = "llm_inferred" if rel.label == SUPPORTS else "source_asserted"
        entities[rel.identifier] = {"epistemicStatus": status, "locator": {"relationship": rel.label}}
    return entities


def content_for(graph: FixtureGraph, profiles: ProfileRepository, snapshot_id: str = "2026-01") -> PackageContent:
    """PackageContent for a fixture graph bound to its same-named profile."""
    loaded = profiles.load(graph.framework_id, "1.0")
    return PackageContent(
        framework_id=graph.framework_id,
        snapshot_id=snapshot_id,
        title=graph.framework.name,
        subject_slug="mathematics",
        profile=loaded,
        rights=RightsPolicy.model_validate_json(json.dumps(RIGHTS)),
        source=SourceInfo(name="fixture", version="1.0"),
        framework=graph.framework,
        items=list(graph.items),
        components=list(graph.components),
        relationships=list(graph.relationships),
        provenance=provenance_for(graph),
        unresolved=list(graph.unresolved),
        component_production=FIXTURE_COMPONENT_PRODUCTION if graph.components else None,
    )


#: The fixture's components are model-generated, as the spec describes learning components.
FIXTURE_COMPONENT_PRODUCTION = ComponentProduction(
    production="model_generated",
    human_reviewed=False,
    generator=GeneratorModel(name="fixture-decomposer", version="1"),
    source=ComponentSourceVersion(name="fixture", version="1.0"),
    method="Decomposed from the fixture's standards items by a language model; not reviewed.",
)


@dataclass
class FixtureWorld:
    """A packages root and a profiles root in one temporary directory."""

    base: Path

    @property
    def packages(self) -> Path:
        return self.base / "graph_packages"

    @property
    def profiles_root(self) -> Path:
        return self.base / "profiles"

    def profiles(self) -> ProfileRepository:
        return ProfileRepository(self.profiles_root)

    def add_profile(self, profile_id: str, rule: str = "tree", max_parents: int = 1, **overrides: Any) -> None:
        write_profile(self.profiles_root, profile_document(profile_id, rule, max_parents, **overrides))

    def write(self, graph: FixtureGraph, snapshot_id: str = "2026-01", **changes: Any) -> PackageLocation:
        content = replace(content_for(graph, self.profiles(), snapshot_id), **changes)
        return PackageWriter().write_pending(content, self.packages)


TREE = "fixture-tree"
DAG = "fixture-dag"
LC = "fixture-lc"


def standard_world(base: Path) -> FixtureWorld:
    """Profiles for the three fixture frameworks (tree, DAG with two parents, LC)."""
    world = FixtureWorld(base)
    world.add_profile(TREE)
    world.add_profile(DAG, rule="multiParentDag", max_parents=2)
    world.add_profile(LC, rule="multiParentDag", max_parents=2)
    return world


def build_all(world: FixtureWorld) -> dict[str, PackageLocation]:
    """Write the three fixture packages as pending packages."""
    return {
        TREE: world.write(base_graph(TREE)),
        DAG: world.write(dag_graph(DAG)),
        LC: world.write(lc_graph(LC)),
    }


def validate_all(world: FixtureWorld, locations: list[PackageLocation]) -> None:
    """Move every pending package to ``passed`` through the real lifecycle (or fail loudly)."""
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in locations:
        outcome = lifecycle.validate(location)
        errors = sorted({f.code for f in outcome.outcome.findings if f.severity == "error"})
        assert outcome.result == "passed", f"{location.graph_package_id} did not validate: {errors}"


def state_for(world: FixtureWorld, **settings: Any) -> AppState:
    """Settings → bootstrap over one fixture world, exactly as the server does it.

    The generic prompt configurations are used without the repository's framework overlays, which
    name the default catalog's frameworks (start-up would skip each of them with a log line).
    """
    prompts = world.base / "prompts"
    if not prompts.exists():
        # Replicas started together may all get here: each copies into its own staging folder and the
        # first rename wins (the others find the folder in place), so none sees a half-copied one.
        staging = Path(tempfile.mkdtemp(prefix=".prompts-", dir=world.base))
        copy_generic_configs(SHIPPED_PROMPTS_DIR, staging / "prompts")
        with contextlib.suppress(OSError):
            (staging / "prompts").rename(prompts)
        shutil.rmtree(staging, ignore_errors=True)
    overrides = {"graph_packages_dir": world.packages, "profiles_dir": world.profiles_root, "prompts_dir": prompts}
    return build_app_state(load_settings({**overrides, **settings}))
