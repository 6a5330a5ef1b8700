"""Sorts the relationships of a decoded package into the ones the topology checks may trust and
the problems of the rest, in one pass, so the rules that decide validity are written once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.records import (
    COMPONENT,
    HAS_CHILD,
    ITEM,
    PROGRESSION_LABELS,
    SUPPORTS,
    UNRESOLVED_STATUSES,
    DecodedPackage,
    NodeRecord,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.profiles.model import InterpretationProfile

#: Every code a relationship problem can carry.
TRIAGE_CODES: tuple[FindingCode, ...] = (
    FindingCode.DUPLICATE_IDENTIFIER,
    FindingCode.UNRESOLVED_WITHOUT_STATUS,
    FindingCode.DANGLING_ENDPOINT,
    FindingCode.ENDPOINT_KEY_MISMATCH,
    FindingCode.COMPONENT_IN_HIERARCHY,
    FindingCode.HIERARCHY_EDGE_TYPE,
    FindingCode.SUPPORTS_DIRECTION,
    FindingCode.PROGRESSION_ENDPOINT,
    FindingCode.INVALID_ENCODING,
)


@dataclass(frozen=True, slots=True)
class RelationshipProblem:
    """Why one relationship breaks a rule; ``location`` is the relationship's identifier."""

    code: FindingCode
    message: str
    location: str


@dataclass(frozen=True, slots=True)
class RelationshipTriage:
    """Relationships that are unique, resolve both endpoints as declared and join node kinds their
    label allows (``valid``), and the problems found, in relationship order."""

    valid: tuple[RelationshipRecord, ...]
    problems: tuple[RelationshipProblem, ...]


def triage_relationships(
    content: DecodedPackage, nodes: Mapping[str, NodeRecord], profile: InterpretationProfile | None
) -> RelationshipTriage:
    """Check every relationship once; a relationship with a blocking problem is left out of ``valid``."""
    valid: list[RelationshipRecord] = []
    problems: list[RelationshipProblem] = []
    seen_ids: set[str] = set()
    seen_edges: set[tuple[str, str, str]] = set()
    allowed_links: frozenset[str] = frozenset(profile.progression_labels if profile else PROGRESSION_LABELS)
    for rel in content.relationships:
        where = rel.identifier
        if rel.identifier in seen_ids or rel.identifier in nodes:
            message = f"relationship identifier {rel.identifier} repeats"
            problems.append(RelationshipProblem(FindingCode.DUPLICATE_IDENTIFIER, message, where))
            continue
        seen_ids.add(rel.identifier)
        edge = (rel.label, rel.source_identifier, rel.target_identifier)
        if edge in seen_edges:
            message = f"{rel.label} edge between the same endpoints repeats"
            problems.append(RelationshipProblem(FindingCode.DUPLICATE_IDENTIFIER, message, where))
            continue
        seen_edges.add(edge)
        if rel.unresolved_status is not None and rel.unresolved_status not in UNRESOLVED_STATUSES:
            message = f"unresolvedStatus {rel.unresolved_status!r} is not a supported status"
            problems.append(RelationshipProblem(FindingCode.UNRESOLVED_WITHOUT_STATUS, message, where))
        endpoint_problems = _endpoint_problems(rel, nodes)
        if endpoint_problems:
            problems.extend(endpoint_problems)
            continue
        kind_problem = _kind_problem(rel, nodes, allowed_links)
        if kind_problem is not None:
            problems.append(kind_problem)
            continue
        if rel.support_confidence is not None and rel.label != SUPPORTS:
            message = "supportConfidence belongs only to supports"
            problems.append(RelationshipProblem(FindingCode.INVALID_ENCODING, message, where))
        valid.append(rel)
    return RelationshipTriage(tuple(valid), tuple(problems))


def _endpoint_problems(rel: RelationshipRecord, nodes: Mapping[str, NodeRecord]) -> list[RelationshipProblem]:
    """Each endpoint must be a node of this package, referenced by its label's entity key."""
    problems: list[RelationshipProblem] = []
    for side, identifier, label, key in (
        ("source", rel.source_identifier, rel.source_label, rel.source_entity_key),
        ("target", rel.target_identifier, rel.target_label, rel.target_entity_key),
    ):
        node = nodes.get(identifier)
        if node is None:
            problems.append(
                RelationshipProblem(
                    FindingCode.DANGLING_ENDPOINT, f"{side} {identifier} is not a node of this package", rel.identifier
                )
            )
        elif node.label != label or key != entity_key_for(node.label):
            problems.append(
                RelationshipProblem(
                    FindingCode.ENDPOINT_KEY_MISMATCH,
                    f"{side} is a {node.label} (referenced by {entity_key_for(node.label)}), "
                    f"but the record says {label} by {key}",
                    rel.identifier,
                )
            )
    return problems


def _kind_problem(
    rel: RelationshipRecord, nodes: Mapping[str, NodeRecord], allowed_links: frozenset[str]
) -> RelationshipProblem | None:
    """Whether the relationship's label may join the kinds of node its resolved endpoints are."""
    source = nodes[rel.source_identifier].label
    target = nodes[rel.target_identifier].label
    found: tuple[FindingCode, str] | None = None
    if rel.label == HAS_CHILD:
        if COMPONENT in (source, target):
            found = FindingCode.COMPONENT_IN_HIERARCHY, "a learning component appears in hasChild"
        elif target != ITEM:
            found = FindingCode.HIERARCHY_EDGE_TYPE, "hasChild must point at a StandardsFrameworkItem"
    elif rel.label == SUPPORTS:
        if source != COMPONENT or target != ITEM:
            found = FindingCode.SUPPORTS_DIRECTION, "supports must run from a LearningComponent to an item"
    elif source != ITEM or target != ITEM or rel.source_identifier == rel.target_identifier:
        found = FindingCode.PROGRESSION_ENDPOINT, f"{rel.label} must join two distinct items of this package"
    elif rel.label not in allowed_links:
        found = FindingCode.PROGRESSION_ENDPOINT, f"the profile does not declare {rel.label} links"
    return None if found is None else RelationshipProblem(found[0], found[1], rel.identifier)
