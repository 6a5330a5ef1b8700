"""Small invented CFPackages with the quirks real CASE exports have, and a build that validates them.

The statements are written here (no publisher's text); each quirk is one change to :func:`framework`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import LifecycleOutcome, PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseSource

DOC = "5eed0000-0000-4000-8000-000000000001"
CLAIM, TARGET_A, TARGET_B = (
    "5eed0000-0000-4000-8000-000000000010",
    "5eed0000-0000-4000-8000-000000000011",
    "5eed0000-0000-4000-8000-000000000012",
)
SKILL_A, SKILL_B, EXAMPLE = (
    "5eed0000-0000-4000-8000-000000000020",
    "5eed0000-0000-4000-8000-000000000021",
    "5eed0000-0000-4000-8000-000000000022",
)
FRAMEWORK = "invented-reasoning-framework"
HOST = "https://case.invalid/uri/"


def item(identifier: str, statement: str, item_type: str | None, code: str | None, *levels: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "identifier": identifier,
        "uri": HOST + identifier,
        "fullStatement": statement,
        "CFDocumentURI": {"title": "Invented", "identifier": DOC, "uri": HOST + DOC},
    }
    if item_type is not None:
        record["CFItemType"] = item_type
    if code is not None:
        record["humanCodingScheme"] = code
    if levels:
        record["educationLevel"] = list(levels)
    return record


def child_of(identifier: str, child: str, parent: str) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "associationType": "isChildOf",
        "uri": HOST + identifier,
        "originNodeURI": {"title": "child", "identifier": child, "uri": HOST + child},
        "destinationNodeURI": {"title": "parent", "identifier": parent, "uri": HOST + parent},
        "CFDocumentURI": {"title": "Invented", "identifier": DOC, "uri": HOST + DOC},
    }


def framework(**document: Any) -> dict[str, Any]:
    """A claim over two targets, two measured skills under the first and an example under the second.

    Claim, Target, Measured Skill and Example are types the generic CASE vocabulary does not list.
    Every CASE 1.0 member is present and well-formed, so the build reports no variant.
    """
    return {
        "CFDocument": {
            "identifier": DOC,
            "uri": HOST + DOC,
            "title": "Invented Reasoning Framework",
            "creator": "Invented Board",
            "lastChangeDateTime": "2024-05-01T08:00:00+00:00",
            "language": "en",
            "CFPackageURI": {"title": "Invented", "identifier": DOC, "uri": HOST + DOC},
            **document,
        },
        "CFItems": [
            item(CLAIM, "Reason about quantities in context.", "Claim", "C1", "05"),
            item(TARGET_A, "Compare two quantities.", "Target", "C1.A", "05"),
            item(TARGET_B, "Explain a comparison.", "Target", "C1.B", "05"),
            item(SKILL_A, "Order three whole numbers.", "Measured Skill", "C1.A.1", "05"),
            item(SKILL_B, "Order two fractions with like denominators.", "Measured Skill", "C1.A.2", "05"),
            item(EXAMPLE, "A table of lengths to order.", "Example", "C1.B.x", "05"),
        ],
        "CFAssociations": [
            child_of("5eed0000-0000-4000-8000-000000000100", CLAIM, DOC),
            child_of("5eed0000-0000-4000-8000-000000000101", TARGET_A, CLAIM),
            child_of("5eed0000-0000-4000-8000-000000000102", TARGET_B, CLAIM),
            child_of("5eed0000-0000-4000-8000-000000000103", SKILL_A, TARGET_A),
            child_of("5eed0000-0000-4000-8000-000000000104", SKILL_B, TARGET_A),
            child_of("5eed0000-0000-4000-8000-000000000105", EXAMPLE, TARGET_B),
        ],
    }


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def build_and_validate(source: Path, profiles_root: Path, out: Path) -> tuple[PackageContent, LifecycleOutcome]:
    """Build ``source`` with the profiles in ``profiles_root``, write it under ``out`` and validate it."""
    profiles = ProfileRepository(profiles_root)
    (content,) = CaseSource().build(source, profiles)
    location = PackageWriter().write_pending(content, out)
    validator = PackageValidator(ProfileRepository(profiles_root))  # a fresh repository: reads the stored file
    result = PackageLifecycle(validator, PackageWriter(), InvalidPackagePolicy.FAIL).validate(location)
    return content, result


def variant_findings(content: PackageContent) -> dict[str, str]:
    """``location`` → message of each ``source_variant_accepted`` warning."""
    found = {}
    for finding in content.build_findings:
        if finding.code == "source_variant_accepted":
            assert finding.severity == "warning" and finding.location is not None
            found[finding.location] = finding.message
    return found
