"""Learning components: each one supports at least one item."""

from __future__ import annotations

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.records import SUPPORTS


class ComponentSupportCheck(PackageCheck):
    """A component is only ever reached through the items it supports; one that supports none is lost."""

    codes = (FindingCode.UNSUPPORTED_COMPONENT,)

    def run(self) -> None:
        supported = {rel.source_identifier for rel in self.context.relationships.valid if rel.label == SUPPORTS}
        for component in self.content.components:
            if component.identifier not in supported:
                self.out.add(
                    FindingCode.UNSUPPORTED_COMPONENT,
                    "no supports relationship starts at this component",
                    artifact="relationships",
                    location=component.identifier,
                )
