"""An accepted package's decoded content: what the validation gate hands on to be served."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kgfegmcp.packages.manifest import PackageManifest
from kgfegmcp.packages.records import ComponentNode, FrameworkNode, ItemNode
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.validator import Gate
from kgfegmcp.profiles.repository import LoadedProfile


@dataclass(frozen=True, slots=True)
class PackageRuntime:
    """One accepted package: manifest, bound profile and decoded delivery records."""

    path: Path
    manifest: PackageManifest
    profile: LoadedProfile
    framework: FrameworkNode
    items: tuple[ItemNode, ...]
    components: tuple[ComponentNode, ...]
    relationships: RelationshipTable
    accepted_from: Literal["passed", "pending"]
    manifest_sha256: str
    gate: Gate = "every_rule"

    @property
    def graph_package_id(self) -> str:
        """``<framework-id>@<snapshot-id>``."""
        return self.manifest.graph_package_id

    @property
    def framework_id(self) -> str:
        """The framework family id."""
        return self.manifest.framework_id

    @property
    def snapshot_id(self) -> str:
        """The exact snapshot id."""
        return self.manifest.snapshot_id
