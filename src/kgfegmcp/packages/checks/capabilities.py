"""Capabilities and graph types: the manifest claims exactly what the content and profile support."""

from __future__ import annotations

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import BUILDS_TOWARDS, RELATES_TO


class CapabilityCheck(PackageCheck):
    """Tools decide what to offer from the declared capabilities, so a false claim misleads every client."""

    codes = (FindingCode.CAPABILITY_MISMATCH,)

    def run(self) -> None:
        caps, content = self.own_capabilities, self.content
        links = sum(1 for rel in content.relationships if rel.label in (BUILDS_TOWARDS, RELATES_TO))
        has_codes = any(i.statement_code is not None for i in content.items)
        policy = self.profile.code_policy if self.profile else None
        problems = []
        if caps.learning_components != bool(content.components):
            problems.append("learningComponents must be true exactly when the package has components")
        if caps.learning_progressions != bool(links):
            problems.append("learningProgressions must be true exactly when the package has progression links")
        if caps.text_search and not content.items:
            problems.append("textSearch needs items")
        if caps.exact_code_search and not (has_codes and (policy is None or policy.exact_search)):
            problems.append("exactCodeSearch needs codes and a profile that allows it")
        if caps.prefix_code_search and not (caps.exact_code_search and (policy is None or policy.prefix_search)):
            problems.append("prefixCodeSearch needs exactCodeSearch and a profile that allows it")
        contains = ["AcademicStandards"]
        if content.components:
            contains.append("LearningComponents")
        if links:
            contains.append("LearningProgressions")
        if list(self.manifest.graph_types.contains) != contains:
            problems.append(f"graphTypes.contains must be {contains}")
        for problem in problems:
            self.out.add(FindingCode.CAPABILITY_MISMATCH, problem, location=MANIFEST_FILENAME)
