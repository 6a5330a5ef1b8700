"""Composition root: settings → cursor secret → profiles → packages → validation gate → catalog → indexes
→ services.

The derived-index cache (``KGFEGMCP_CACHE_DIR``) spares decoding and indexing packages whose
verified bytes it has seen before; it never spares verifying them.

Everything the server serves for one lifespan hangs off one immutable :class:`AppState`: the catalog of
served packages (each with its store, indexes and facts) and the services that read it.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.catalog.served import PackageServer
from kgfegmcp.core.config import BackendSettings, profile_roots
from kgfegmcp.core.cursor_secret import resolve_cursor_secret
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.gc_pause import cyclic_gc_paused
from kgfegmcp.core.identifiers import split_graph_package_id
from kgfegmcp.core.operator_rights import read_operator_rights
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.prompts.repository import PromptConfigRepository
from kgfegmcp.resources.policy import SizePolicy
from kgfegmcp.services.comparison import ComparisonService
from kgfegmcp.services.components import LearningComponentService
from kgfegmcp.services.evidence import EvidenceService
from kgfegmcp.services.frameworks import FrameworkService
from kgfegmcp.services.progressions import ProgressionService
from kgfegmcp.services.prompts import PromptService
from kgfegmcp.services.resources import ResourceService
from kgfegmcp.services.standards import StandardsService

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AppState:
    """The immutable state of one server lifespan."""

    settings: BackendSettings
    catalog: AcceptedCatalog
    cursors: CursorCodec
    frameworks: FrameworkService
    standards: StandardsService
    resources: ResourceService
    evidence: EvidenceService
    prompts: PromptService
    components: LearningComponentService
    progressions: ProgressionService
    comparison: ComparisonService


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
    cursor_secret = resolve_cursor_secret(settings)  # an unfit secret file stops start-up before any work
    decisions = read_operator_rights(settings.operator_rights_file)  # so does an invalid operator rights file
    profiles = ProfileRepository(*profile_roots(settings))
    cache = DerivedIndexCache(settings.cache_dir) if settings.cache_dir is not None else None
    sizes = SizePolicy.from_settings(settings)
    server = PackageServer(sizes, profiles, cache)
    loader = CatalogLoader(
        settings.graph_packages_dir, profiles, settings.invalid_package_policy, cache, server, decisions=decisions
    )
    catalog = loader.load(progress)
    # Prompt configurations are resolved against the accepted catalog; a bad one stops start-up here.
    excluded = {split_graph_package_id(e.graph_package_id)[0] for e in catalog.excluded}
    prompt_registry = PromptConfigRepository(settings.prompts_dir).load(catalog.framework_ids(), excluded)
    cursors = CursorCodec(catalog.fingerprint, cursor_secret)
    standards = StandardsService(catalog, cursors)
    resources = ResourceService(catalog, sizes)
    state = AppState(
        settings=settings,
        catalog=catalog,
        cursors=cursors,
        frameworks=FrameworkService(catalog, cursors),
        standards=standards,
        resources=resources,
        evidence=EvidenceService(resources, cursors),
        prompts=PromptService(catalog, prompt_registry),
        components=LearningComponentService(catalog, standards, cursors),
        progressions=ProgressionService(catalog, standards, cursors),
        comparison=ComparisonService(catalog),
    )
    log.info(
        "catalog ready: %d packages accepted, %d excluded%s, in %.2fs",
        len(catalog.packages),
        len(catalog.excluded),
        f" ({', '.join(f'{e.graph_package_id} {e.status}' for e in catalog.excluded)})" if catalog.excluded else "",
        time.perf_counter() - started,
    )
    return state
