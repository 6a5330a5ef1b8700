"""One accepted package as the server serves it, built once at start-up.

Everything a request needs from one package hangs off one :class:`ServedPackage`: its identity and
manifest, graph store, standards and component indexes, the facts computed once for progressions and
prompts, its unresolved evidence and the reader that serves its files verified. The catalog's
selectors return it, so a service resolves a package once and never joins per-package state by id.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgfegmcp.core.operator_rights import OperatorDecision
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.graph.progressions import ProgressionFacts
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.manifest import PackageManifest
from kgfegmcp.packages.records import ComponentNode, FrameworkNode, ItemNode
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.packages.unresolved import PackageUnresolved, load_unresolved
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.prompts.facts import package_facts
from kgfegmcp.prompts.render import PackageFacts
from kgfegmcp.resources.artifact_reader import VerifiedArtifactReader
from kgfegmcp.resources.policy import SizePolicy
from kgfegmcp.search.components import PackageComponentIndex
from kgfegmcp.search.package_indexes import PackageTextIndexes
from kgfegmcp.search.service import PackageSearchIndex


@dataclass(frozen=True, slots=True)
class ServedPackage:
    """One accepted package and everything built from it to serve requests."""

    runtime: PackageRuntime
    store: GraphStore
    standards_index: PackageSearchIndex
    component_index: PackageComponentIndex | None
    progression_facts: ProgressionFacts
    prompt_facts: PackageFacts
    unresolved: PackageUnresolved
    artifacts: VerifiedArtifactReader

    @property
    def graph_package_id(self) -> str:
        """``<framework-id>@<snapshot-id>``."""
        return self.runtime.graph_package_id

    @property
    def framework_id(self) -> str:
        """The framework family id."""
        return self.runtime.framework_id

    @property
    def snapshot_id(self) -> str:
        """The exact snapshot id."""
        return self.runtime.snapshot_id

    @property
    def manifest(self) -> PackageManifest:
        """The validated manifest."""
        return self.runtime.manifest

    @property
    def rights(self) -> RightsPolicy:
        """The rights it is served under (the manifest's, the operator's decision applied): every gate reads these."""
        return self.runtime.rights

    @property
    def operator_decision(self) -> OperatorDecision | None:
        """The operator's rights decision for it, if any."""
        return self.runtime.operator_decision

    @property
    def profile(self) -> LoadedProfile:
        """The bound interpretation profile."""
        return self.runtime.profile

    @property
    def framework(self) -> FrameworkNode:
        """The framework root record."""
        return self.runtime.framework

    @property
    def items(self) -> tuple[ItemNode, ...]:
        """Standards framework items, file order."""
        return self.runtime.items

    @property
    def components(self) -> tuple[ComponentNode, ...]:
        """Learning components, file order."""
        return self.runtime.components

    @property
    def relationships(self) -> RelationshipTable:
        """Every relationship, file order."""
        return self.runtime.relationships


@dataclass(frozen=True, slots=True)
class PackageServer:
    """Builds the served package of each accepted runtime (text indexes from the derived cache when warm)."""

    sizes: SizePolicy
    profiles: ProfileRepository
    cache: DerivedIndexCache | None = None

    def serve(self, runtime: PackageRuntime) -> ServedPackage:
        """Everything one package serves, built once; ``catalog_error`` when its unresolved evidence changed."""
        store = GraphStore(runtime)
        text = self.cache.text_indexes(store) if self.cache is not None else PackageTextIndexes.build(store)
        return ServedPackage(
            runtime=runtime,
            store=store,
            standards_index=PackageSearchIndex(store, text.standards),
            component_index=PackageComponentIndex(store, text.components) if text.components is not None else None,
            progression_facts=ProgressionFacts.of(store),
            prompt_facts=package_facts(runtime),
            unresolved=load_unresolved(runtime),
            artifacts=VerifiedArtifactReader(
                runtime,
                self.sizes,
                self.profiles.path_of(runtime.manifest.profile.profile_id, runtime.manifest.profile.version),
            ),
        )
