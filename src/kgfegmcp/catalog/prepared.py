"""Derived-index entries stored by the command that validated the packages, so the next start is warm.

``kgfegmcp catalog init`` passes each new package through every rule and records ``passed``. Left there, the
first start would pass the same bytes through every rule again and then build the search indexes, while a host
waits on it. Storing the entries from the recording's own pass spares that second pass and moves index building
into the command that already shows progress. ``PackageValidator.confirm_recording`` decides whether the pass
carries over: only when what a start will read is byte for byte what was judged and recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from kgfegmcp.catalog.loader import accepted_runtime
from kgfegmcp.derived.cache import DerivedIndexCache, cacheable
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.lifecycle import LifecycleOutcome
from kgfegmcp.packages.package_lock import package_lock
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.profiles.repository import ProfileRepository

log = logging.getLogger(__name__)


def store_derived_indexes(
    outcomes: Iterable[LifecycleOutcome],
    profiles: ProfileRepository,
    cache: DerivedIndexCache,
    progress: Callable[[str], None] | None = None,
) -> list[str]:
    """Store the entry of each package these outcomes recorded ``passed``; the ids of those stored.

    A package whose bytes changed since its recording, or that was not recorded here, gets no entry: the next
    start judges it cold, as it would have without this step.
    """
    validator = PackageValidator(profiles)
    stored: list[str] = []
    for lifecycle in outcomes:
        written = lifecycle.recorded_manifest_sha256
        if lifecycle.result != "passed" or written is None:
            continue
        location = lifecycle.outcome.location
        if progress is not None:
            progress(f"indexing {location.graph_package_id}")
        with package_lock(location.path, shared=True):  # never while another command records it
            confirmed = validator.confirm_recording(lifecycle.outcome, written)
        if not confirmed.passed:
            continue
        runtime = accepted_runtime(confirmed, "passed", None)
        if not cacheable(runtime):
            continue
        try:
            cache.entry(GraphStore(runtime))  # stored, not opened: the first start opens it
        except (OSError, ValueError) as exc:
            log.warning(
                "derived-index cache: no entry for %s (%s); the first start indexes it", location.graph_package_id, exc
            )
            continue
        stored.append(runtime.graph_package_id)
    return stored
