"""Typed delivery records (schema 1.1).

Plain slotted dataclasses, not pydantic models: a package may hold a million of them, and
they are produced only by the decoder, which has already enforced every wire rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal

NodeLabel = Literal["StandardsFramework", "StandardsFrameworkItem", "LearningComponent"]
RelationshipLabel = Literal["hasChild", "supports", "buildsTowards", "relatesTo"]
EntityKey = Literal["caseIdentifierUUID", "identifier"]

FRAMEWORK: Final = "StandardsFramework"
ITEM: Final = "StandardsFrameworkItem"
COMPONENT: Final = "LearningComponent"
NODE_LABELS: Final[tuple[NodeLabel, ...]] = (FRAMEWORK, ITEM, COMPONENT)

HAS_CHILD: Final = "hasChild"
SUPPORTS: Final = "supports"
BUILDS_TOWARDS: Final = "buildsTowards"
RELATES_TO: Final = "relatesTo"
RELATIONSHIP_LABELS: Final[tuple[RelationshipLabel, ...]] = (
    HAS_CHILD,
    SUPPORTS,
    BUILDS_TOWARDS,
    RELATES_TO,
)
PROGRESSION_LABELS: Final = (BUILDS_TOWARDS, RELATES_TO)

#: A hasChild from the framework root standing in for a parent the source did not give.
ROOT_FALLBACK: Final = "unresolvedRootFallback"
#: Supported values of a relationship's ``unresolvedStatus`` and of unresolved-item statuses.
UNRESOLVED_STATUSES: Final = frozenset(
    {ROOT_FALLBACK, "unresolvedExternalReference", "unresolvedMissingTarget", "unresolvedAmbiguous"}
)


@dataclass(frozen=True, slots=True)
class FrameworkNode:
    """The framework root of one package."""

    identifier: str
    case_identifier_uuid: str
    name: str
    jurisdiction: str
    academic_subject: str
    in_language: str
    case_identifier_uri: str | None = None
    description: str | None = None
    adoption_status: str | None = None
    date_created: str | None = None
    date_modified: str | None = None
    author: str | None = None
    provider: str | None = None
    license: str | None = None
    attribution_statement: str | None = None

    label: ClassVar[NodeLabel] = FRAMEWORK


@dataclass(frozen=True, slots=True)
class ItemNode:
    """A published standards framework item (a standard or a grouping)."""

    identifier: str
    case_identifier_uuid: str
    description: str
    statement_type: str
    grade_level: tuple[str, ...]
    is_current: bool
    in_language: str
    case_identifier_uri: str | None = None
    statement_code: str | None = None
    normalized_statement_type: str | None = None
    academic_subject: str | None = None
    jurisdiction: str | None = None
    notes: str | None = None
    date_created: str | None = None
    date_modified: str | None = None
    license: str | None = None
    attribution_statement: str | None = None

    label: ClassVar[NodeLabel] = ITEM


@dataclass(frozen=True, slots=True)
class ComponentNode:
    """A learning component: generated or curated content, never a standard."""

    identifier: str
    description: str
    in_language: str
    academic_subject: str | None = None
    tags: tuple[str, ...] = ()
    author: str | None = None
    provider: str | None = None
    license: str | None = None
    attribution_statement: str | None = None

    label: ClassVar[NodeLabel] = COMPONENT


NodeRecord = FrameworkNode | ItemNode | ComponentNode


@dataclass(frozen=True, slots=True)
class RelationshipRecord:
    """One typed relationship with both outer ids and its endpoint-key metadata."""

    identifier: str
    label: RelationshipLabel
    source_identifier: str
    target_identifier: str
    source_label: NodeLabel
    target_label: NodeLabel
    source_entity_key: EntityKey
    target_entity_key: EntityKey
    support_confidence: float | None = None
    unresolved_status: str | None = None


def entity_key_for(label: NodeLabel) -> EntityKey:
    """The property by which an endpoint of this node kind is referenced."""
    return "identifier" if label == COMPONENT else "caseIdentifierUUID"


# Wire property names per record type: (python attribute, wire name, kind).
PropertyKind = Literal["str", "bool", "array", "float"]
FRAMEWORK_PROPERTIES: Final[tuple[tuple[str, str, PropertyKind, bool], ...]] = (
    ("case_identifier_uuid", "caseIdentifierUUID", "str", True),
    ("case_identifier_uri", "caseIdentifierURI", "str", False),
    ("name", "name", "str", True),
    ("description", "description", "str", False),
    ("jurisdiction", "jurisdiction", "str", True),
    ("academic_subject", "academicSubject", "str", True),
    ("in_language", "inLanguage", "str", True),
    ("adoption_status", "adoptionStatus", "str", False),
    ("date_created", "dateCreated", "str", False),
    ("date_modified", "dateModified", "str", False),
    ("author", "author", "str", False),
    ("provider", "provider", "str", False),
    ("license", "license", "str", False),
    ("attribution_statement", "attributionStatement", "str", False),
)
ITEM_PROPERTIES: Final[tuple[tuple[str, str, PropertyKind, bool], ...]] = (
    ("case_identifier_uuid", "caseIdentifierUUID", "str", True),
    ("case_identifier_uri", "caseIdentifierURI", "str", False),
    ("statement_code", "statementCode", "str", False),
    ("description", "description", "str", True),
    ("statement_type", "statementType", "str", True),
    ("normalized_statement_type", "normalizedStatementType", "str", False),
    ("grade_level", "gradeLevel", "array", True),
    ("is_current", "isCurrent", "bool", True),
    ("in_language", "inLanguage", "str", True),
    ("academic_subject", "academicSubject", "str", False),
    ("jurisdiction", "jurisdiction", "str", False),
    ("notes", "notes", "str", False),
    ("date_created", "dateCreated", "str", False),
    ("date_modified", "dateModified", "str", False),
    ("license", "license", "str", False),
    ("attribution_statement", "attributionStatement", "str", False),
)
COMPONENT_PROPERTIES: Final[tuple[tuple[str, str, PropertyKind, bool], ...]] = (
    ("description", "description", "str", True),
    ("academic_subject", "academicSubject", "str", False),
    ("in_language", "inLanguage", "str", True),
    ("tags", "tags", "array", False),
    ("author", "author", "str", False),
    ("provider", "provider", "str", False),
    ("license", "license", "str", False),
    ("attribution_statement", "attributionStatement", "str", False),
)
PROPERTIES_BY_LABEL: Final = {
    FRAMEWORK: FRAMEWORK_PROPERTIES,
    ITEM: ITEM_PROPERTIES,
    COMPONENT: COMPONENT_PROPERTIES,
}
RECORD_TYPE_BY_LABEL: Final[dict[str, type[NodeRecord]]] = {
    FRAMEWORK: FrameworkNode,
    ITEM: ItemNode,
    COMPONENT: ComponentNode,
}


@dataclass(slots=True)
class DecodedPackage:
    """Typed delivery content of one package, in file order."""

    framework: FrameworkNode | None = None
    items: list[ItemNode] = field(default_factory=list)
    components: list[ComponentNode] = field(default_factory=list)
    relationships: Sequence[RelationshipRecord] = field(default_factory=list)

    def node_ids(self) -> list[str]:
        """Every node's outer id by node position: the framework, its items, its components (file order)."""
        assert self.framework is not None
        return [
            self.framework.identifier,
            *(item.identifier for item in self.items),
            *(component.identifier for component in self.components),
        ]
