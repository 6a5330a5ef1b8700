"""The hasChild hierarchy: parents per item, allowed statement-type pairs, no cycle, bounded depth."""

from __future__ import annotations

from collections import defaultdict

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.hierarchy_depths import depths_from_root
from kgfegmcp.packages.records import HAS_CHILD, ROOT_FALLBACK, ItemNode
from kgfegmcp.profiles.model import FRAMEWORK_PARENT_TYPE


class HierarchyCheck(PackageCheck):
    """Browsing and breadcrumbs walk hasChild from the root, so it must be the shape the profile promises.

    Only relationships the triage kept are read: a broken edge is reported once, by the relationship check.
    """

    codes = (
        FindingCode.PARENT_CARDINALITY,
        FindingCode.HIERARCHY_EDGE_TYPE,
        FindingCode.HIERARCHY_CYCLE,
        FindingCode.DEPTH_EXCEEDED,
    )

    def run(self) -> None:
        framework = self.content.framework
        if framework is None:
            return
        children: dict[str, list[str]] = defaultdict(list)
        parents: dict[str, list[str]] = defaultdict(list)
        fallbacks: set[str] = set()
        for rel in self.context.relationships.valid:
            if rel.label == HAS_CHILD:
                children[rel.source_identifier].append(rel.target_identifier)
                parents[rel.target_identifier].append(rel.source_identifier)
                if rel.unresolved_status == ROOT_FALLBACK and rel.source_identifier == framework.identifier:
                    fallbacks.add(rel.target_identifier)
        self._check_parents(parents, {(framework.identifier, child) for child in fallbacks})
        depth, stuck = depths_from_root(framework.identifier, children, {n: len(p) for n, p in parents.items()})
        if stuck:
            self.out.add(
                FindingCode.HIERARCHY_CYCLE,
                f"{len(stuck)} items sit on or below a hasChild cycle",
                artifact="relationships",
                location=stuck[0],
            )
        rules = self.profile.hierarchy if self.profile else None
        if rules is not None:
            deepest = max(depth.values())
            if deepest > rules.max_depth:
                too_deep = sorted(n for n, d in depth.items() if d > rules.max_depth)
                self.out.add(
                    FindingCode.DEPTH_EXCEEDED,
                    f"hierarchy depth {deepest} exceeds the profile's maximum {rules.max_depth}",
                    artifact="relationships",
                    location=too_deep[0],
                )

    def _check_parents(self, parents: dict[str, list[str]], fallbacks: set[tuple[str, str]]) -> None:
        """Every item has a parent, no more than the profile allows, each of an allowed statement type, except
        the framework root where the package says, by ``unresolvedRootFallback``, that the source gave no parent
        it could defend (kept explicitly unresolved, never read as the profile's structure)."""
        rules = self.profile.hierarchy if self.profile else None
        allowed = (
            {(e.parent_type, e.child_type) for e in rules.allowed_edges}
            if rules is not None and rules.allowed_edges is not None
            else None
        )
        for item in self.content.items:
            item_parents = parents.get(item.identifier, [])
            if not item_parents:
                self.out.add(
                    FindingCode.PARENT_CARDINALITY,
                    "item has no hasChild parent",
                    artifact="relationships",
                    location=item.identifier,
                )
            elif rules is not None and len(item_parents) > rules.max_parents:
                self.out.add(
                    FindingCode.PARENT_CARDINALITY,
                    f"item has {len(item_parents)} parents; the profile's {rules.rule} allows {rules.max_parents}",
                    artifact="relationships",
                    location=item.identifier,
                )
            if allowed is not None:
                for parent_id in item_parents:
                    if (parent_id, item.identifier) in fallbacks:
                        continue
                    parent = self.nodes[parent_id]
                    parent_type = parent.statement_type if isinstance(parent, ItemNode) else FRAMEWORK_PARENT_TYPE
                    if (parent_type, item.statement_type) not in allowed:
                        self.out.add(
                            FindingCode.HIERARCHY_EDGE_TYPE,
                            f"{parent_type!r} → {item.statement_type!r} is not an allowed hasChild pair",
                            artifact="relationships",
                            location=item.identifier,
                        )
