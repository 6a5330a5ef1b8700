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
from kgfegmcp.core.rights import ReviewStatus
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageBatch, PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.importer import NaccaPdfSource


def build_content(pdf: Path, profiles_root: Path, review_status: ReviewStatus | None = None) -> PackageContent:
    """The one package the real importer builds from ``pdf`` (``review_status`` as ``--review-status`` gives it)."""
    (content,) = NaccaPdfSource(review_status=review_status).build(pdf, ProfileRepository(profiles_root))
    return content


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
