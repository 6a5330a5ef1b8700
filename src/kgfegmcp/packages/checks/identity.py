"""Node identity: every node identifier once, and a standards node identified by its CASE UUID."""

from __future__ import annotations

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.checks.context import all_nodes
from kgfegmcp.packages.records import FrameworkNode, ItemNode


class NodeIdentityCheck(PackageCheck):
    """Relationships, provenance and search all address nodes by identifier, so each must be unique."""

    codes = (FindingCode.DUPLICATE_IDENTIFIER, FindingCode.IDENTITY_MISMATCH)

    def run(self) -> None:
        seen: set[str] = set()
        case_ids: set[str] = set()
        for node in all_nodes(self.content):
            if node.identifier in seen:
                self.out.add(
                    FindingCode.DUPLICATE_IDENTIFIER,
                    f"node identifier {node.identifier} repeats",
                    artifact="nodes",
                    location=node.identifier,
                )
                continue
            seen.add(node.identifier)
            if isinstance(node, FrameworkNode | ItemNode):
                if node.case_identifier_uuid in case_ids:
                    self.out.add(
                        FindingCode.DUPLICATE_IDENTIFIER,
                        f"caseIdentifierUUID {node.case_identifier_uuid} repeats",
                        artifact="nodes",
                        location=node.identifier,
                    )
                case_ids.add(node.case_identifier_uuid)
                if node.identifier != node.case_identifier_uuid:
                    self.out.add(
                        FindingCode.IDENTITY_MISMATCH,
                        "a standards node's identifier must equal its caseIdentifierUUID",
                        artifact="nodes",
                        location=node.identifier,
                    )
