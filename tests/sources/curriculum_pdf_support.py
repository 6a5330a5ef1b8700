"""Building generated NaCCA-layout PDFs into validated packages, and reading them back, for the PDF importer's tests.

``nacca_layout_pdf`` writes the PDFs; this puts them through the real importer, writer and lifecycle, so every
test module that checks a generated document builds, validates and reads it the one way a host would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nacca_layout_pdf import WrittenPdf
from package_view import PackageView

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.operator_rights import decision_now, package_key, record_decision
from kgfegmcp.core.rights import ReviewStatus
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageBatch, PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.importer import NaccaPdfSource


def build_content(pdf: Path, profiles_root: Path) -> PackageContent:
    """The one package the real importer builds from ``pdf`` (with its profile's rights, as every build)."""
    (content,) = NaccaPdfSource().build(pdf, ProfileRepository(profiles_root))
    return content


def operator_rights_beside(root: Path) -> Path:
    """An operator rights file for the packages under ``root``, outside that root (as the setting requires)."""
    return root.parent / f"{root.name}-operator-rights.json"


def record_reviews(rights_file: Path, graph_package_ids: Sequence[str], status: ReviewStatus) -> Path:
    """The operator's review of each package, recorded in ``rights_file`` as `packages build --review-status` does."""
    for graph_package_id in graph_package_ids:
        decision = decision_now("test operator", "given at build time", review_status=status)
        record_decision(rights_file, package_key(graph_package_id), decision)
    return rights_file


def write_and_validate(contents: Sequence[PackageContent], profiles_root: Path, root: Path) -> None:
    """Write the packages pending under ``root`` and move each to ``passed`` through the real lifecycle.

    Written in one :class:`PackageBatch`, as a command writes them; validated after it closes, so a package that
    fails stays on disk to be looked at, and the test fails with its errors.
    """
    with PackageBatch(root) as batch:
        locations = [batch.write(content) for content in contents]
    lifecycle = PackageLifecycle(
        PackageValidator(ProfileRepository(profiles_root)), PackageWriter(), InvalidPackagePolicy.FAIL
    )
    for location in locations:
        outcome = lifecycle.validate(location)
        errors = sorted({(f.code, f.message) for f in outcome.outcome.findings if f.severity == "error"})
        assert outcome.result == "passed", errors


@dataclass(frozen=True)
class Built:
    """One generated document, its package content, and the validated package read back."""

    pdf: WrittenPdf
    content: PackageContent
    view: PackageView

    def item(self, code: str) -> ItemNode:
        """The item of a statement code."""
        return self.view.item_by_code()[code]

    def parent_code(self, code: str) -> str | None:
        """The statement code of an item's one parent (``None`` for a grouping node)."""
        (parent,) = self.view.parents(self.item(code).identifier)
        found: str | None = self.view.nodes[parent].statement_code
        return found

    def locator(self, code: str) -> dict[str, Any]:
        """Where the entity provenance says a statement was read."""
        locator: dict[str, Any] = self.view.provenance[self.item(code).identifier]["locator"]
        return locator

    def details(self, code: str) -> dict[str, Any]:
        """A statement's ``curriculumPdf`` source details (standardsFrameworkItems)."""
        details: dict[str, Any] = self.view.details[self.item(code).identifier]["sourceDetails"]["curriculumPdf"]
        return details

    def findings(self, code: str | None = None, *, warnings: bool = False) -> list[dict[str, Any]]:
        """The validation report's findings (of one code; only warnings and errors with ``warnings``)."""
        return [
            f
            for f in self.view.report["findings"]
            if (code is None or f["code"] == code) and (not warnings or f["severity"] != "info")
        ]
