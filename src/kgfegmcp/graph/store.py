"""GraphStore: one accepted package's nodes and relationships, indexed for traversal.

Nodes get a compact integer position (file order); adjacency is stored as tuples of positions
per label, in file order, so every neighbour list is deterministic and cheap to hold.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    HAS_CHILD,
    RELATES_TO,
    SUPPORTS,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipLabel,
    RelationshipRecord,
)
from kgfegmcp.packages.runtime import PackageRuntime

_EMPTY: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Adjacency:
    """Outgoing and incoming relationship positions of one label, per node position."""

    outgoing: dict[int, tuple[int, ...]]
    incoming: dict[int, tuple[int, ...]]

    @staticmethod
    def build(pairs: Iterable[tuple[int, int, int]]) -> Adjacency:
        """``pairs`` are (relationship position, source position, target position) in file order."""
        outgoing: dict[int, list[int]] = {}
        incoming: dict[int, list[int]] = {}
        for rel, source, target in pairs:
            outgoing.setdefault(source, []).append(rel)
            incoming.setdefault(target, []).append(rel)
        return Adjacency({k: tuple(v) for k, v in outgoing.items()}, {k: tuple(v) for k, v in incoming.items()})


class GraphStore:
    """Read-only typed graph of one package (standards items, components, links)."""

    def __init__(self, runtime: PackageRuntime) -> None:
        self.runtime = runtime
        nodes: list[NodeRecord] = [runtime.framework, *runtime.items, *runtime.components]
        self._nodes: tuple[NodeRecord, ...] = tuple(nodes)
        self._position: dict[str, int] = {node.identifier: i for i, node in enumerate(nodes)}
        self._relationships = runtime.relationships
        self._relationship_position = {rel.identifier: i for i, rel in enumerate(runtime.relationships)}
        by_label: dict[str, list[tuple[int, int, int]]] = {}
        for index, rel in enumerate(runtime.relationships):
            by_label.setdefault(rel.label, []).append(
                (index, self._position[rel.source_identifier], self._position[rel.target_identifier])
            )
        self._adjacency = {
            label: Adjacency.build(by_label.get(label, ()))
            for label in (HAS_CHILD, SUPPORTS, BUILDS_TOWARDS, RELATES_TO)
        }
        self._item_start = 1
        self._item_end = 1 + len(runtime.items)

    # -- nodes ---------------------------------------------------------------------------------

    @property
    def framework(self) -> FrameworkNode:
        """The package root."""
        return self.runtime.framework

    @property
    def items(self) -> tuple[ItemNode, ...]:
        """Standards framework items, file order."""
        return self.runtime.items

    @property
    def components(self) -> tuple[ComponentNode, ...]:
        """Learning components, file order."""
        return self.runtime.components

    def position(self, identifier: str) -> int | None:
        """Compact position of a node id, or ``None``."""
        return self._position.get(identifier)

    def node_at(self, position: int) -> NodeRecord:
        """The node at a compact position."""
        return self._nodes[position]

    def node(self, identifier: str) -> NodeRecord | None:
        """Any node by its outer identifier."""
        position = self._position.get(identifier)
        return None if position is None else self._nodes[position]

    def item(self, identifier: str) -> ItemNode | None:
        """A standards item by id; never a component or the framework."""
        node = self.node(identifier)
        return node if isinstance(node, ItemNode) else None

    def component(self, identifier: str) -> ComponentNode | None:
        """A learning component by id; never a standard."""
        node = self.node(identifier)
        return node if isinstance(node, ComponentNode) else None

    def item_order(self, identifier: str) -> int:
        """File position of an item (the stable tie-break everywhere)."""
        return self._position[identifier]

    # -- relationships -------------------------------------------------------------------------

    def relationship(self, identifier: str) -> RelationshipRecord | None:
        """One relationship by id."""
        position = self._relationship_position.get(identifier)
        return None if position is None else self._relationships[position]

    def relationship_at(self, position: int) -> RelationshipRecord:
        """One relationship by compact position."""
        return self._relationships[position]

    def outgoing(self, identifier: str, label: RelationshipLabel) -> tuple[RelationshipRecord, ...]:
        """Relationships of ``label`` leaving a node, file order."""
        position = self._position.get(identifier)
        positions = _EMPTY if position is None else self._adjacency[label].outgoing.get(position, _EMPTY)
        return tuple(self._relationships[p] for p in positions)

    def incoming(self, identifier: str, label: RelationshipLabel) -> tuple[RelationshipRecord, ...]:
        """Relationships of ``label`` arriving at a node, file order."""
        position = self._position.get(identifier)
        positions = _EMPTY if position is None else self._adjacency[label].incoming.get(position, _EMPTY)
        return tuple(self._relationships[p] for p in positions)

    def children(self, identifier: str) -> tuple[str, ...]:
        """hasChild targets of a node (items only), file order."""
        return tuple(rel.target_identifier for rel in self.outgoing(identifier, HAS_CHILD))

    def parents(self, identifier: str) -> tuple[str, ...]:
        """hasChild sources of an item: several in a multi-parent DAG, file order."""
        return tuple(rel.source_identifier for rel in self.incoming(identifier, HAS_CHILD))

    def relationships_with_label(self, label: RelationshipLabel) -> tuple[RelationshipRecord, ...]:
        """Every relationship of one label, file order."""
        return tuple(r for r in self._relationships if r.label == label)
