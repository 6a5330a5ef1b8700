"""Manifest counts: each declared count equals what the delivery records hold."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.collector import FindingCollector
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, SUPPORTS


class CountCheck(PackageCheck):
    """The catalog and statistics answer from the manifest's counts without reading the records."""

    codes = (FindingCode.COUNT_MISMATCH,)

    def run(self) -> None:
        content, declared = self.content, self.own_counts
        by_label = Counter(rel.label for rel in content.relationships)
        by_type = Counter(item.statement_type for item in content.items)
        roles = (
            Counter(
                (rule.role if (rule := self.profile.statement_type(t)) else "unknown")
                for t in (item.statement_type for item in content.items)
            )
            if self.profile
            else None
        )
        actual: list[tuple[str, object, object]] = [
            ("standards.frameworks", declared.standards.frameworks, 1 if content.framework else 0),
            ("standards.items", declared.standards.items, len(content.items)),
            (
                "standards.itemsByStatementType",
                declared.standards.items_by_statement_type,
                dict(sorted(by_type.items())),
            ),
            (
                "standards.itemsWithCode",
                declared.standards.items_with_code,
                sum(1 for i in content.items if i.statement_code is not None),
            ),
            ("learningComponents.components", declared.learning_components.components, len(content.components)),
            ("relationships.hasChild", declared.relationships.has_child, by_label[HAS_CHILD]),
            ("relationships.supports", declared.relationships.supports, by_label[SUPPORTS]),
            ("relationships.buildsTowards", declared.relationships.builds_towards, by_label[BUILDS_TOWARDS]),
            ("relationships.relatesTo", declared.relationships.relates_to, by_label[RELATES_TO]),
        ]
        if roles is not None:
            actual.append(("standards.standards", declared.standards.standards, roles["standard"]))
            actual.append(("standards.groupings", declared.standards.groupings, roles["grouping"]))
        report_count_mismatches(self.out, actual)


def report_count_mismatches(out: FindingCollector, counts: Iterable[tuple[str, object, object]]) -> None:
    """One ``count_mismatch`` for each (name, declared, found) whose two counts differ."""
    for name, expected, found in counts:
        if expected != found:
            out.add(
                FindingCode.COUNT_MISMATCH,
                f"counts.{name} declares {expected}, the package has {found}",
                location=MANIFEST_FILENAME,
            )
