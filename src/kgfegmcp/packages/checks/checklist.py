"""The package checks in the order the gate runs them, and the finding codes they declare.

The order is part of the report: a collector keeps the first findings of each code, so a code two
checks share (``duplicate_identifier``, ``count_mismatch``, ...) keeps the earlier check's first.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.artifact_roles import PackageShape
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.checks.capabilities import CapabilityCheck
from kgfegmcp.packages.checks.code_policy import CodePolicyCheck
from kgfegmcp.packages.checks.components import ComponentSupportCheck
from kgfegmcp.packages.checks.context import CheckContext
from kgfegmcp.packages.checks.counts import CountCheck
from kgfegmcp.packages.checks.detailed_records import FrameworkDocumentCheck, HasChildLinesCheck, ItemCopiesCheck
from kgfegmcp.packages.checks.entity_provenance import ProvenanceCheck
from kgfegmcp.packages.checks.hierarchy import HierarchyCheck
from kgfegmcp.packages.checks.identity import NodeIdentityCheck
from kgfegmcp.packages.checks.learning_components import LearningComponentArtifactCheck
from kgfegmcp.packages.checks.relationships import RelationshipCheck
from kgfegmcp.packages.checks.statement_terms import StatementTermCheck
from kgfegmcp.packages.checks.supplied_declarations import SuppliedCapabilityCheck, SuppliedCountCheck
from kgfegmcp.packages.checks.supplied_entity_provenance import SuppliedEntityProvenanceCheck
from kgfegmcp.packages.checks.supplied_progressions import SuppliedProgressionCheck
from kgfegmcp.packages.checks.text_safety import TextSafetyCheck
from kgfegmcp.packages.checks.unresolved_items import UnresolvedItemsCheck
from kgfegmcp.packages.collector import FindingCollector

#: Topology and profile rules first, then the detailed artifacts against the delivery records.
#: The rules of the delivery records and the profile, whichever shape carries them.
RECORD_CHECKS: tuple[type[PackageCheck], ...] = (
    NodeIdentityCheck,
    StatementTermCheck,
    RelationshipCheck,
    HierarchyCheck,
    ComponentSupportCheck,
    CodePolicyCheck,
    TextSafetyCheck,
)
PACKAGE_CHECKS: tuple[type[PackageCheck], ...] = (
    *RECORD_CHECKS,
    CountCheck,
    CapabilityCheck,
    FrameworkDocumentCheck,
    HasChildLinesCheck,
    ItemCopiesCheck,
    UnresolvedItemsCheck,
    ProvenanceCheck,
    LearningComponentArtifactCheck,
)


#: A supplied package: the same topology and profile rules, its own declarations, and its progression
#: evidence. Its other detailed artifacts are the pipeline's own records, in the pipeline's format: they are
#: pinned by SHA-256 and served as they are, not compared field by field (docs/packages.md).
SUPPLIED_PACKAGE_CHECKS: tuple[type[PackageCheck], ...] = (
    *RECORD_CHECKS,
    SuppliedCountCheck,
    SuppliedCapabilityCheck,
    SuppliedEntityProvenanceCheck,
    SuppliedProgressionCheck,
)
#: The checks each package shape runs (``artifact_roles.PackageShape``).
PACKAGE_CHECKS_BY_SHAPE: dict[PackageShape, tuple[type[PackageCheck], ...]] = {
    "1.0": PACKAGE_CHECKS,
    "1.1": SUPPLIED_PACKAGE_CHECKS,
}


def codes_declared_by(checks: Iterable[type[PackageCheck]]) -> frozenset[FindingCode]:
    """Every finding code any of ``checks`` may emit."""
    return frozenset(code for check in checks for code in check.codes)


#: Every finding code the package checks may emit.
PACKAGE_CHECK_CODES = codes_declared_by((*PACKAGE_CHECKS, *SUPPLIED_PACKAGE_CHECKS))


def run_package_checks(
    context: CheckContext, out: FindingCollector, checks: Iterable[type[PackageCheck]] = PACKAGE_CHECKS
) -> None:
    """Run ``checks`` in order, each through a collector limited to its declared codes."""
    for check in checks:
        check(context, out).run()
