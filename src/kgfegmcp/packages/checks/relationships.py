"""Relationships: unique, resolving both endpoints as declared, joining the node kinds their label allows."""

from __future__ import annotations

from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.checks.relationship_triage import TRIAGE_CODES


class RelationshipCheck(PackageCheck):
    """Reports what the relationship triage found: an edge the graph cannot trust is named, not used."""

    codes = TRIAGE_CODES

    def run(self) -> None:
        for problem in self.context.relationships.problems:
            self.out.add(problem.code, problem.message, artifact="relationships", location=problem.location)
