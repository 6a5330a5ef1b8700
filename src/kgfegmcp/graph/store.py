"""GraphStore: one accepted package's nodes and relationships, indexed for traversal.

Nodes get a compact integer position (file order: the framework, its items, its components).
Adjacency is compressed rows of relationship positions per label and direction (two ``array``s
each), in file order, so every neighbour list is deterministic and a million nodes cost a few
bytes each rather than a dict entry and a tuple.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from kgfegmcp.packages.records import (
    HAS_CHILD,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipLabel,
    RelationshipRecord,
)
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.runtime import PackageRuntime

_NONE = array("I")


@dataclass(frozen=True, slots=True)
class Rows:
    """Relationship positions grouped by one endpoint's node position: ``rels[starts[n]:starts[n + 1]]``."""

    starts: array[int]
    rels: array[int]

    @staticmethod
    def build(rels: Sequence[int], ends: Sequence[int], node_count: int) -> Rows:
        """Group ``rels`` (file order) by ``ends[rel]``; file order is kept within each group."""
        if not rels:
            return Rows(_NONE, _NONE)
        per_node = Counter(map(ends.__getitem__, rels))
        counts = [0] * (node_count + 1)
        for node, number in per_node.items():
            counts[node + 1] = number
        ordered = sorted(rels, key=ends.__getitem__)  # a stable sort keeps file order per node
        return Rows(array("I", accumulate(counts)), array("I", ordered))

    def nodes_with(self, nodes: range, at_least: int) -> int:
        """How many of ``nodes`` have at least ``at_least`` relationships (``at_least`` ≥ 1)."""
        starts = self.starts
        if not starts:
            return 0
        return sum(1 for node in nodes if starts[node + 1] - starts[node] >= at_least)

    def of(self, node: int) -> array[int]:
        """The relationship positions of one node, file order."""
        if not self.starts:
            return _NONE
        return self.rels[self.starts[node] : self.starts[node + 1]]


@dataclass(frozen=True, slots=True)
class Adjacency:
    """Outgoing and incoming relationship positions of one label, per node position."""

    outgoing: Rows
    incoming: Rows


class GraphStore:
    """Read-only typed graph of one package (standards items, components, links)."""

    def __init__(self, runtime: PackageRuntime) -> None:
        self.runtime = runtime
        # The order of DecodedPackage.node_ids, which the relationship table's endpoints refer to.
        self._nodes: tuple[NodeRecord, ...] = (runtime.framework, *runtime.items, *runtime.components)
        self._position: dict[str, int] = {node.identifier: i for i, node in enumerate(self._nodes)}
        self._relationships = runtime.relationships
        sources, targets = self._relationships.endpoints()
        self._adjacency = {
            label: Adjacency(Rows.build(rels, sources, len(self._nodes)), Rows.build(rels, targets, len(self._nodes)))
            for label, rels in self._relationships.positions_by_label().items()
        }

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

    @property
    def relationships(self) -> RelationshipTable:
        """Every relationship, file order (records are built as they are read)."""
        return self._relationships

    def relationship(self, identifier: str) -> RelationshipRecord | None:
        """One relationship by id."""
        position = self._relationships.position(identifier)
        return None if position is None else self._relationships[position]

    def relationship_at(self, position: int) -> RelationshipRecord:
        """One relationship by compact position."""
        return self._relationships[position]

    def _outgoing(self, identifier: str, label: RelationshipLabel) -> array[int]:
        position = self._position.get(identifier)
        return _NONE if position is None else self._adjacency[label].outgoing.of(position)

    def _incoming(self, identifier: str, label: RelationshipLabel) -> array[int]:
        position = self._position.get(identifier)
        return _NONE if position is None else self._adjacency[label].incoming.of(position)

    def outgoing(self, identifier: str, label: RelationshipLabel) -> tuple[RelationshipRecord, ...]:
        """Relationships of ``label`` leaving a node, file order."""
        return tuple(map(self._relationships.__getitem__, self._outgoing(identifier, label)))

    def incoming(self, identifier: str, label: RelationshipLabel) -> tuple[RelationshipRecord, ...]:
        """Relationships of ``label`` arriving at a node, file order."""
        return tuple(map(self._relationships.__getitem__, self._incoming(identifier, label)))

    def children(self, identifier: str) -> tuple[str, ...]:
        """hasChild targets of a node (items only), file order."""
        table, nodes = self._relationships, self._nodes
        return tuple(nodes[table.target_at(rel)].identifier for rel in self._outgoing(identifier, HAS_CHILD))

    def parents(self, identifier: str) -> tuple[str, ...]:
        """hasChild sources of an item: several in a multi-parent DAG, file order."""
        table, nodes = self._relationships, self._nodes
        return tuple(nodes[table.source_at(rel)].identifier for rel in self._incoming(identifier, HAS_CHILD))

    def nodes_reached_by(self, label: RelationshipLabel) -> int:
        """How many nodes at least one relationship of ``label`` arrives at."""
        return self._adjacency[label].incoming.nodes_with(range(len(self._nodes)), 1)

    def relationships_with_label(self, label: RelationshipLabel) -> tuple[RelationshipRecord, ...]:
        """Every relationship of one label, file order."""
        return tuple(map(self._relationships.__getitem__, self._relationships.positions_by_label()[label]))

    def items_with_parents(self, at_least: int) -> int:
        """How many items have at least ``at_least`` hasChild parents."""
        items = range(1, 1 + len(self.runtime.items))  # item positions follow the framework's
        return self._adjacency[HAS_CHILD].incoming.nodes_with(items, at_least)
