"""Composition root: settings → profiles → packages → validation gate → catalog → indexes → services.

The derived-index cache (``KGFEGMCP_CACHE_DIR``) spares decoding and indexing packages whose
verified bytes it has seen before; it never spares verifying them.

Everything the server serves for one lifespan hangs off one immutable :class:`AppState`, and every
service in it shares the same catalog and graph stores.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.config import BackendSettings
from kgfegmcp.cursors import CursorCodec
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.gc_pause import cyclic_gc_paused
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.identifiers import split_graph_package_id
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.prompts.repository import PromptConfigRepository
from kgfegmcp.search.components import ComponentSearch
from kgfegmcp.search.package_indexes import PackageTextIndexes
from kgfegmcp.search.service import SearchService
from kgfegmcp.services.comparison import ComparisonService
from kgfegmcp.services.components import LearningComponentService
from kgfegmcp.services.evidence import EvidenceService
from kgfegmcp.services.frameworks import FrameworkService
from kgfegmcp.services.progressions import ProgressionService
from kgfegmcp.services.prompts import PromptService
from kgfegmcp.services.resources import ResourceService
from kgfegmcp.services.standards import StandardsService
from kgfegmcp.services.unresolved import UnresolvedEvidence

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AppState:
    """The immutable state of one server lifespan."""

    settings: BackendSettings
    catalog: AcceptedCatalog
    stores: dict[str, GraphStore]
    search: SearchService
    cursors: CursorCodec
    frameworks: FrameworkService
    standards: StandardsService
    resources: ResourceService
    evidence: EvidenceService
    prompts: PromptService
    unresolved: UnresolvedEvidence
    component_search: ComponentSearch
    components: LearningComponentService
    progressions: ProgressionService
    comparison: ComparisonService

    def __post_init__(self) -> None:
        if set(self.stores) != {p.graph_package_id for p in self.catalog.packages}:
            raise AssertionError("graph stores must cover exactly the accepted catalog")
        if self.search.catalog is not self.catalog:
            raise AssertionError("the search service must index this state's catalog")
        if self.component_search.catalog is not self.catalog:
            raise AssertionError("the component search must index this state's catalog")
        if self.resources.catalog is not self.catalog:
            raise AssertionError("the resource service must read this state's catalog")
        if self.prompts.catalog is not self.catalog:
            raise AssertionError("the prompt service must render for this state's catalog")


def build_serving_state(settings: BackendSettings) -> AppState:
    """The state a server process keeps for its whole life, moved out of the cyclic collector's reach
    (``gc.freeze``) so later collections never rescan the catalog while requests wait."""
    state = build_app_state(settings)
    gc.freeze()
    return state


def build_app_state(settings: BackendSettings, progress: Callable[[str], None] | None = None) -> AppState:
    """Run the bootstrap sequence; raises a domain error (``catalog_error`` …) when it cannot."""
    with cyclic_gc_paused():  # start-up allocates long-lived objects, next to no garbage
        return _bootstrap(settings, progress)


def _bootstrap(settings: BackendSettings, progress: Callable[[str], None] | None) -> AppState:
    started = time.perf_counter()
    profiles = ProfileRepository(settings.profiles_dir)
    cache = DerivedIndexCache(settings.cache_dir) if settings.cache_dir is not None else None
    loader = CatalogLoader(settings.graph_packages_dir, profiles, settings.invalid_package_policy, cache)
    catalog = loader.load(progress)
    # Prompt configurations are resolved against the accepted catalog; a bad one stops start-up here.
    excluded = {split_graph_package_id(e.graph_package_id)[0] for e in catalog.excluded}
    prompt_registry = PromptConfigRepository(settings.prompts_dir).load(catalog.framework_ids(), excluded)
    stores = {p.graph_package_id: GraphStore(p) for p in catalog.packages}
    text = {
        package_id: cache.text_indexes(store) if cache is not None else PackageTextIndexes.build(store)
        for package_id, store in stores.items()
    }
    search = SearchService(catalog, stores, text)
    cursors = CursorCodec(catalog.fingerprint, settings.cursor_secret)
    standards = StandardsService(catalog, stores, search, cursors)
    unresolved = UnresolvedEvidence.load(catalog)
    component_search = ComponentSearch(catalog, stores, text)
    resources = ResourceService(catalog, stores, settings)
    state = AppState(
        settings=settings,
        catalog=catalog,
        stores=stores,
        search=search,
        cursors=cursors,
        frameworks=FrameworkService(catalog, stores, cursors),
        standards=standards,
        resources=resources,
        evidence=EvidenceService(resources, cursors),
        prompts=PromptService(catalog, prompt_registry),
        unresolved=unresolved,
        component_search=component_search,
        components=LearningComponentService(catalog, stores, standards, component_search, cursors),
        progressions=ProgressionService(catalog, stores, standards, search, unresolved, cursors),
        comparison=ComparisonService(catalog, stores, search, unresolved),
    )
    log.info(
        "catalog ready: %d packages accepted, %d excluded%s, in %.2fs",
        len(catalog.packages),
        len(catalog.excluded),
        f" ({', '.join(f'{e.graph_package_id} {e.status}' for e in catalog.excluded)})" if catalog.excluded else "",
        time.perf_counter() - started,
    )
    return state
