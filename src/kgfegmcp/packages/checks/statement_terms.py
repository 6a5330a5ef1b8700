"""Statement types and grade labels: the terms an item uses must be the profile's."""

from __future__ import annotations

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck


class StatementTermCheck(PackageCheck):
    """Search facets, hierarchy rules and code policy read an item through its profile's vocabulary."""

    codes = (FindingCode.UNKNOWN_STATEMENT_TYPE, FindingCode.UNKNOWN_GRADE_LABEL)

    def run(self) -> None:
        profile = self.profile
        if profile is None:
            return
        for item in self.content.items:
            rule = profile.statement_type(item.statement_type)
            if rule is None:
                self.out.add(
                    FindingCode.UNKNOWN_STATEMENT_TYPE,
                    f"statement type {item.statement_type!r} is not in the profile",
                    artifact="nodes",
                    location=item.identifier,
                )
            elif item.normalized_statement_type not in (None, rule.normalized, rule.classification):
                said = " or ".join(repr(v) for v in (rule.normalized, rule.classification) if v is not None)
                self.out.add(
                    FindingCode.UNKNOWN_STATEMENT_TYPE,
                    f"normalizedStatementType {item.normalized_statement_type!r} differs from the profile's {said}",
                    artifact="nodes",
                    location=item.identifier,
                )
            for grade in item.grade_level:
                if profile.grade_label(grade) is None:
                    self.out.add(
                        FindingCode.UNKNOWN_GRADE_LABEL,
                        f"grade label {grade!r} is not in the profile",
                        artifact="nodes",
                        location=item.identifier,
                    )
