"""Bounded, deterministic algorithms over a package's stored progression links.

Pure functions of one :class:`GraphStore`: no I/O, no result models, no cross-package edges. Order is
always ``buildsTowards`` before ``relatesTo``, outgoing before incoming, then file order, so the same
package and the same bounds give the same answer. Every loop is bounded by an explicit cap and every
stop is named, so a caller can tell requested-depth completion from full exhaustion and never reads
a bounded empty answer as proof that two standards are unconnected.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from kgfegmcp.core.limits import MAX_QUEUE_ADMISSIONS
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import BUILDS_TOWARDS, RELATES_TO, RelationshipLabel, RelationshipRecord

Direction = Literal["in", "out", "both"]
LinkDirection = Literal["out", "in"]
TraversalReason = Literal["max_depth", "max_nodes", "max_edges", "admission_limit", "byte_limit"]
PathReason = Literal["max_paths", "admission_limit", "byte_limit"]

#: Link kinds in result order: buildsTowards links always come before relatesTo links.
LABEL_ORDER: tuple[RelationshipLabel, ...] = (BUILDS_TOWARDS, RELATES_TO)
_REASON_ORDER: tuple[TraversalReason, ...] = ("max_depth", "max_nodes", "max_edges", "admission_limit", "byte_limit")


def ordered_labels(labels: Iterable[str]) -> tuple[RelationshipLabel, ...]:
    """The requested link kinds in result order (unknown names dropped)."""
    wanted = set(labels)
    return tuple(label for label in LABEL_ORDER if label in wanted)


class Step(NamedTuple):
    """One stored link seen from one of its endpoints (a tuple: traversals create many)."""

    relationship: RelationshipRecord
    neighbour: str
    direction: LinkDirection


def incident_links(
    store: GraphStore, node_id: str, labels: tuple[RelationshipLabel, ...], direction: Direction
) -> Iterator[Step]:
    """A node's links of ``labels`` in result order: per label, outgoing then incoming, file order."""
    for label in labels:
        if direction in ("out", "both"):
            for rel in store.outgoing(node_id, label):
                yield Step(rel, rel.target_identifier, "out")
        if direction in ("in", "both"):
            for rel in store.incoming(node_id, label):
                yield Step(rel, rel.source_identifier, "in")


# -- traversal ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TraversalLimits:
    """Caller bounds plus the fixed admission cap."""

    max_depth: int
    max_nodes: int
    max_edges: int
    max_admissions: int = MAX_QUEUE_ADMISSIONS


@dataclass(frozen=True, slots=True)
class TraversedNode:
    """A node reached by the traversal, at its shortest distance from the start."""

    node_id: str
    depth: int


@dataclass(frozen=True, slots=True)
class TraversedEdge:
    """A link the traversal followed, seen from the node it was followed from."""

    relationship: RelationshipRecord
    from_node: str
    direction: LinkDirection
    new_node: int | None
    """Index (into the run's nodes) of the node this link reached first, if it reached a new one."""


@dataclass(frozen=True, slots=True)
class TraversalRun:
    """The whole bounded breadth-first run; :meth:`ProgressionTraversal.view` cuts it to a prefix."""

    start: str
    labels: tuple[RelationshipLabel, ...]
    direction: Direction
    limits: TraversalLimits
    nodes: tuple[TraversedNode, ...]
    edges: tuple[TraversedEdge, ...]
    stopped_by: TraversalReason | None
    admissions: int
    expanded: int


@dataclass(frozen=True, slots=True)
class FrontierNode:
    """A returned node with stored links of the requested kinds that the result does not hold."""

    node_id: str
    depth: int
    unreturned_links: int
    reason: Literal["max_depth", "not_expanded"]


@dataclass(frozen=True, slots=True)
class TraversalView:
    """A prefix of a run (the first ``edges`` followed links) with its completeness computed from it."""

    nodes: tuple[TraversedNode, ...]
    edges: tuple[TraversedEdge, ...]
    frontier: tuple[FrontierNode, ...]
    scope_complete: bool
    graph_exhausted: bool
    truncation_reasons: tuple[TraversalReason, ...]
    admissions: int
    expanded: int
    max_depth_reached: int
    links_examined_for_frontier: int = field(default=0)


class ProgressionTraversal:
    """Bounded breadth-first traversal of stored links from one standard."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._degrees: dict[tuple[str, tuple[RelationshipLabel, ...], Direction], int] = {}

    def degree(self, node_id: str, labels: tuple[RelationshipLabel, ...], direction: Direction) -> int:
        """How many stored links of ``labels`` a node has in ``direction`` (cached for this traversal)."""
        key = (node_id, labels, direction)
        found = self._degrees.get(key)
        if found is None:
            found = 0
            for label in labels:
                if direction in ("out", "both"):
                    found += len(self.store.outgoing(node_id, label))
                if direction in ("in", "both"):
                    found += len(self.store.incoming(node_id, label))
            self._degrees[key] = found
        return found

    def run(self, start: str, labels: Iterable[str], direction: Direction, limits: TraversalLimits) -> TraversalRun:
        """Breadth-first from ``start``; stops at the first cap it would exceed and names it.

        Every link examined is one work admission; a node is expanded only when its depth is below
        ``max_depth``. Depths are shortest distances, because breadth-first discovery is in distance order.
        """
        kinds = ordered_labels(labels)
        depth: dict[str, int] = {start: 0}
        nodes: list[TraversedNode] = [TraversedNode(start, 0)]
        edges: list[TraversedEdge] = []
        followed: set[str] = set()
        queue: deque[str] = deque([start])
        admissions = 0
        expanded = 0
        stopped: TraversalReason | None = None
        while queue and stopped is None:
            node = queue.popleft()
            node_depth = depth[node]
            if node_depth >= limits.max_depth:
                continue
            for step in incident_links(self.store, node, kinds, direction):
                if admissions >= limits.max_admissions:
                    stopped = "admission_limit"
                    break
                admissions += 1
                rel_id = step.relationship.identifier
                if rel_id in followed:
                    continue  # the same link seen again from its other end
                is_new = step.neighbour not in depth
                if is_new and len(nodes) >= limits.max_nodes:
                    stopped = "max_nodes"
                    break
                if len(edges) >= limits.max_edges:
                    stopped = "max_edges"
                    break
                new_index: int | None = None
                if is_new:
                    depth[step.neighbour] = node_depth + 1
                    new_index = len(nodes)
                    nodes.append(TraversedNode(step.neighbour, node_depth + 1))
                    queue.append(step.neighbour)
                followed.add(rel_id)
                edges.append(TraversedEdge(step.relationship, node, step.direction, new_index))
            else:
                expanded += 1
        return TraversalRun(
            start=start,
            labels=kinds,
            direction=direction,
            limits=limits,
            nodes=tuple(nodes),
            edges=tuple(edges),
            stopped_by=stopped,
            admissions=admissions,
            expanded=expanded,
        )

    def view(self, run: TraversalRun, edges: int | None = None) -> TraversalView:
        """The run cut to its first ``edges`` followed links (all by default), judged truthfully.

        A returned node is on the frontier when it has stored links of the requested kinds that the
        result does not hold. The scope (every node within ``max_depth`` and every link leaving a node
        below it) is complete exactly when no frontier node lies below ``max_depth``; the graph is
        exhausted exactly when the frontier is empty.
        """
        count = len(run.edges) if edges is None else max(0, min(edges, len(run.edges)))
        kept_edges = run.edges[:count]
        kept_nodes = [run.nodes[0]]
        kept_nodes.extend(run.nodes[e.new_node] for e in kept_edges if e.new_node is not None)
        # Returned links each node would see (a link counts at an end only if the direction follows it there).
        seen_at: dict[str, int] = {}
        for edge in kept_edges:
            rel = edge.relationship
            if run.direction in ("out", "both"):
                seen_at[rel.source_identifier] = seen_at.get(rel.source_identifier, 0) + 1
            if run.direction in ("in", "both"):
                seen_at[rel.target_identifier] = seen_at.get(rel.target_identifier, 0) + 1
        frontier: list[FrontierNode] = []
        examined = 0
        for node in kept_nodes:
            degree = self.degree(node.node_id, run.labels, run.direction)
            examined += degree
            missing = degree - seen_at.get(node.node_id, 0)
            if missing:
                reason: Literal["max_depth", "not_expanded"] = (
                    "max_depth" if node.depth >= run.limits.max_depth else "not_expanded"
                )
                frontier.append(FrontierNode(node.node_id, node.depth, missing, reason))
        reasons: set[TraversalReason] = set()
        if any(f.reason == "max_depth" for f in frontier):
            reasons.add("max_depth")
        if run.stopped_by is not None:
            reasons.add(run.stopped_by)
        if count < len(run.edges):
            reasons.add("byte_limit")
        return TraversalView(
            nodes=tuple(kept_nodes),
            edges=kept_edges,
            frontier=tuple(frontier),
            scope_complete=not any(f.reason == "not_expanded" for f in frontier),
            graph_exhausted=not frontier,
            truncation_reasons=tuple(r for r in _REASON_ORDER if r in reasons),
            admissions=run.admissions,
            expanded=run.expanded,
            max_depth_reached=max(n.depth for n in kept_nodes),
            links_examined_for_frontier=examined,
        )


# -- paths -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProgressionPath:
    """A simple directed path of ``buildsTowards`` links: ``node_ids[i]`` → ``node_ids[i + 1]``."""

    node_ids: tuple[str, ...]
    relationships: tuple[RelationshipRecord, ...]

    @property
    def length(self) -> int:
        """Number of links."""
        return len(self.relationships)


@dataclass(frozen=True, slots=True)
class PathSearch:
    """Up to ``max_paths`` paths, shortest first, and how the search ended."""

    paths: tuple[ProgressionPath, ...]
    more_paths_exist: bool
    search_complete: bool
    truncation_reasons: tuple[PathReason, ...]
    admissions: int
    nodes_examined: int
    links_examined: int


class ProgressionPaths:
    """Bounded enumeration of directed ``buildsTowards`` paths between two standards of one package."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def _distances_to(self, target: str, max_depth: int) -> dict[str, int]:
        """Shortest number of links from each node to ``target`` (ignoring simplicity), up to ``max_depth``."""
        distance = {target: 0}
        queue: deque[str] = deque([target])
        while queue:
            node = queue.popleft()
            if distance[node] >= max_depth:
                continue
            for rel in self.store.incoming(node, BUILDS_TOWARDS):
                if rel.source_identifier not in distance:
                    distance[rel.source_identifier] = distance[node] + 1
                    queue.append(rel.source_identifier)
        return distance

    def find(
        self, source: str, target: str, max_depth: int, max_paths: int, max_admissions: int = MAX_QUEUE_ADMISSIONS
    ) -> PathSearch:
        """Breadth-first over partial paths: shortest first, then by the file order of their links.

        A partial path is admitted only when its end can still reach ``target`` within the remaining
        depth (an admissible bound that never prunes a real path). The search goes on until one path
        more than ``max_paths`` is found, so ``more_paths_exist`` is a fact, not a guess.
        """
        distance = self._distances_to(target, max_depth)
        found: list[ProgressionPath] = []
        more = False
        admissions = 0
        links_examined = 0
        stopped: PathReason | None = None
        queue: deque[tuple[tuple[str, ...], tuple[RelationshipRecord, ...]]] = deque()
        if source != target and distance.get(source, max_depth + 1) <= max_depth:
            admissions = 1
            queue.append(((source,), ()))
        while queue and stopped is None and not more:
            nodes, rels = queue.popleft()
            length = len(rels) + 1
            for rel in self.store.outgoing(nodes[-1], BUILDS_TOWARDS):
                links_examined += 1
                nxt = rel.target_identifier
                if nxt in nodes:
                    continue
                if nxt == target:
                    if len(found) == max_paths:
                        more = True
                        break
                    found.append(ProgressionPath((*nodes, nxt), (*rels, rel)))
                    continue
                remaining = distance.get(nxt)
                if remaining is None or length + remaining > max_depth:
                    continue
                if admissions >= max_admissions:
                    stopped = "admission_limit"
                    break
                admissions += 1
                queue.append(((*nodes, nxt), (*rels, rel)))
        reasons: list[PathReason] = []
        if more:
            reasons.append("max_paths")
        if stopped is not None:
            reasons.append(stopped)
        return PathSearch(
            paths=tuple(found),
            more_paths_exist=more,
            search_complete=not more and stopped is None,
            truncation_reasons=tuple(reasons),
            admissions=admissions,
            nodes_examined=len(distance),
            links_examined=links_examined,
        )


@dataclass(frozen=True, slots=True)
class ProgressionFacts:
    """A package's progression links per kind (file order) and the grade and subject words its filters accept."""

    links: dict[str, array[int]]  # relationship positions per kind, file order
    grade_terms: frozenset[str]
    subjects: frozenset[str]

    @staticmethod
    def of(store: GraphStore) -> ProgressionFacts:
        """Computed once per served package: searches and filters then never scan the package."""
        runtime = store.runtime
        profile = runtime.profile.profile
        by_label = runtime.relationships.positions_by_label()
        links: dict[str, array[int]] = {label: by_label[label] for label in LABEL_ORDER}
        grades: set[str] = set()
        for label in profile.grade_labels:
            grades.update((label.source_label, label.facet))
        subjects = {runtime.framework.academic_subject}
        for item in store.items:
            grades.update(item.grade_level)
            if item.academic_subject:
                subjects.add(item.academic_subject)
        return ProgressionFacts(links, frozenset(grades), frozenset(subjects))
