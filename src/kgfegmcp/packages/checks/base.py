"""The base of every package check: shared context in, findings out through a collector that
accepts only the codes the check declares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.context import CheckContext
from kgfegmcp.packages.collector import FindingCollector
from kgfegmcp.packages.manifest import Capabilities, PackageCounts, PackageManifest
from kgfegmcp.packages.records import DecodedPackage, NodeRecord
from kgfegmcp.profiles.model import InterpretationProfile


class PackageCheck(ABC):
    """One family of rules over a completely decoded package.

    ``codes`` lists every finding code ``run`` may emit; the check writes through a collector that
    refuses any other, so the list of codes a report can hold is read from the checks themselves.
    """

    codes: ClassVar[tuple[FindingCode, ...]] = ()

    def __init__(self, context: CheckContext, out: FindingCollector) -> None:
        self.context = context
        self.out = out.restricted_to(self.codes, type(self).__name__)

    @property
    def manifest(self) -> PackageManifest:
        """The package's manifest."""
        return self.context.manifest

    @property
    def own_counts(self) -> PackageCounts:
        """The counts of a package in this server's shape (the checks of that shape alone ask)."""
        counts = self.context.manifest.counts
        assert isinstance(counts, PackageCounts), "a check of this server's package shape ran on another shape"
        return counts

    @property
    def own_capabilities(self) -> Capabilities:
        """The capabilities of a package in this server's shape."""
        capabilities = self.context.manifest.capabilities
        assert isinstance(capabilities, Capabilities), "a check of this server's package shape ran on another shape"
        return capabilities

    @property
    def profile(self) -> InterpretationProfile | None:
        """The bound profile, or ``None`` when its binding failed (profile rules are then skipped)."""
        return self.context.profile

    @property
    def content(self) -> DecodedPackage:
        """The decoded delivery records."""
        return self.context.content

    @property
    def nodes(self) -> Mapping[str, NodeRecord]:
        """Nodes by identifier (the first of a repeated identifier)."""
        return self.context.nodes

    @abstractmethod
    def run(self) -> None:
        """Emit this check's findings."""
