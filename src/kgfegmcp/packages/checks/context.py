"""What every package check reads, with the facts several checks need derived once, up front."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.checks.relationship_triage import RelationshipTriage, triage_relationships
from kgfegmcp.packages.manifest import PackageManifest
from kgfegmcp.packages.records import DecodedPackage, NodeRecord
from kgfegmcp.profiles.model import InterpretationProfile


def all_nodes(content: DecodedPackage) -> list[NodeRecord]:
    """The framework root, then the items, then the learning components (the order identity rules use)."""
    nodes: list[NodeRecord] = [] if content.framework is None else [content.framework]
    return [*nodes, *content.items, *content.components]


def index_nodes(content: DecodedPackage) -> dict[str, NodeRecord]:
    """Nodes by identifier, the first of a repeated identifier winning (the repeat is a finding)."""
    nodes: dict[str, NodeRecord] = {}
    for node in all_nodes(content):
        nodes.setdefault(node.identifier, node)
    return nodes


@dataclass(frozen=True, slots=True)
class CheckContext:
    """A decoded package as the checks see it, built once before the first check runs.

    ``nodes`` and ``relationships`` are derived here rather than by an earlier check, so a check
    that needs them depends on this context only, not on which checks ran before it.
    """

    manifest: PackageManifest
    profile: InterpretationProfile | None
    content: DecodedPackage
    reader: ArtifactReader
    nodes: Mapping[str, NodeRecord]
    relationships: RelationshipTriage
    #: Detailed documents parsed into their models, by logical name: read once, whichever check asks first.
    models: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def build(
        cls,
        manifest: PackageManifest,
        profile: InterpretationProfile | None,
        content: DecodedPackage,
        reader: ArtifactReader,
    ) -> CheckContext:
        """Index the nodes and triage the relationships of a completely decoded package."""
        nodes = index_nodes(content)
        return cls(manifest, profile, content, reader, nodes, triage_relationships(content, nodes, profile))
