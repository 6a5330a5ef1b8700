"""Composition root: settings → profiles → packages → validation gate → catalog → indexes → services.

Everything the server serves for one lifespan hangs off one immutable :class:`AppState`, and every
service in it shares the same catalog and graph stores.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.config import BackendSettings
from kgfegmcp.cursors import CursorCodec
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.search.service import SearchService
from kgfegmcp.services.frameworks import FrameworkService
from kgfegmcp.services.standards import StandardsService

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

    def __post_init__(self) -> None:
        if set(self.stores) != {p.graph_package_id for p in self.catalog.packages}:
            raise AssertionError("graph stores must cover exactly the accepted catalog")
        if self.search.catalog is not self.catalog:
            raise AssertionError("the search service must index this state's catalog")


def build_app_state(settings: BackendSettings, progress: Callable[[str], None] | None = None) -> AppState:
    """Run the bootstrap sequence; raises a domain error (``catalog_error`` …) when it cannot."""
    started = time.perf_counter()
    profiles = ProfileRepository(settings.profiles_dir)
    catalog = CatalogLoader(settings.graph_packages_dir, profiles, settings.invalid_package_policy).load(progress)
    stores = {p.graph_package_id: GraphStore(p) for p in catalog.packages}
    search = SearchService(catalog, stores)
    cursors = CursorCodec(catalog.fingerprint)
    state = AppState(
        settings=settings,
        catalog=catalog,
        stores=stores,
        search=search,
        cursors=cursors,
        frameworks=FrameworkService(catalog, stores, cursors),
        standards=StandardsService(catalog, stores, search, cursors),
    )
    log.info(
        "catalog ready: %d packages accepted, %d excluded, in %.2fs",
        len(catalog.packages),
        len(catalog.excluded),
        time.perf_counter() - started,
    )
    return state
