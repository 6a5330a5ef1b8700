"""A supplied manifest's counts and capabilities: each equals what the delivery records hold."""

from __future__ import annotations

from collections import Counter

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.checks.counts import report_count_mismatches
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, SuppliedCapabilities, SuppliedCounts
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, PROGRESSION_LABELS, RELATES_TO, SUPPORTS


class SuppliedCountCheck(PackageCheck):
    """The catalog and statistics answer from the declared counts, so each is recomputed exactly."""

    codes = (FindingCode.COUNT_MISMATCH,)

    def run(self) -> None:
        declared, content = self.manifest.counts, self.content
        assert isinstance(declared, SuppliedCounts)
        by_label = Counter(rel.label for rel in content.relationships)
        parents = Counter(rel.target_identifier for rel in content.relationships if rel.label == HAS_CHILD)
        actual: list[tuple[str, int, int]] = [
            ("frameworkNodes", declared.framework_nodes, 1 if content.framework else 0),
            ("itemNodes", declared.item_nodes, len(content.items)),
            ("learningComponentNodes", declared.learning_component_nodes, len(content.components)),
            ("relationships", declared.relationships, len(content.relationships)),
            ("supportsRelationships", declared.supports_relationships, by_label[SUPPORTS]),
            ("buildsTowardsRelationships", declared.builds_towards_relationships, by_label[BUILDS_TOWARDS]),
            ("relatesToRelationships", declared.relates_to_relationships, by_label[RELATES_TO]),
            (
                "additionalCounts.codedItems",
                declared.additional_counts.coded_items,
                sum(1 for item in content.items if item.statement_code is not None),
            ),
            (
                "additionalCounts.multiParentTargets",
                declared.additional_counts.multi_parent_targets,
                sum(1 for n in parents.values() if n > 1),
            ),
            (
                "additionalCounts.unresolvedRelationships",
                declared.additional_counts.unresolved_relationships,
                sum(1 for rel in content.relationships if rel.unresolved_status is not None),
            ),
        ]
        report_count_mismatches(self.out, actual)


class SuppliedCapabilityCheck(PackageCheck):
    """Tools decide what to offer from the declared capabilities, so a false claim misleads every client."""

    codes = (FindingCode.CAPABILITY_MISMATCH,)

    def run(self) -> None:
        caps, content = self.manifest.capabilities, self.content
        assert isinstance(caps, SuppliedCapabilities)
        coded = sum(1 for item in content.items if item.statement_code is not None)
        code_search = "none" if not coded else "complete" if coded == len(content.items) else "partial"
        links = sum(1 for rel in content.relationships if rel.label in PROGRESSION_LABELS)
        parents = Counter(rel.target_identifier for rel in content.relationships if rel.label == HAS_CHILD)
        unresolved = any(rel.unresolved_status is not None for rel in content.relationships)
        problems = []
        if caps.code_search != code_search:
            problems.append(f"codeSearch must be {code_search!r}: {coded} of {len(content.items)} items have a code")
        if caps.text_search and not content.items:
            problems.append("textSearch needs items")
        if caps.has_learning_progressions and not links:
            problems.append("hasLearningProgressions needs progression links")
        if caps.multi_parent != any(n > 1 for n in parents.values()):
            problems.append("multiParent must be true exactly when an item has more than one parent")
        if caps.has_unresolved_relationships != unresolved:
            problems.append("hasUnresolvedRelationships must be true exactly when a relationship is unresolved")
        contains = set(self.manifest.graph_types.contains)
        if ("LearningComponents" in contains) != bool(content.components):
            problems.append("includedGraphTypes holds learning_components exactly when the package has components")
        for problem in problems:
            self.out.add(FindingCode.CAPABILITY_MISMATCH, problem, location=MANIFEST_FILENAME)
