"""The default catalog: every registry source built, written and validated in one call.

``kgfegmcp catalog init`` (and so ``scripts/setup.sh``), the bundle build, tests and benchmarks all
call it, so they agree on what "default" is.
"""

from __future__ import annotations

from pathlib import Path

from kgfegmcp.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import LifecycleOutcome, PackageLifecycle
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageBatch, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import load_importer
from kgfegmcp.sources.importer import ProgressCallback

#: Sources whose data ships in pinned registry packages (no input file needed).
DEFAULT_SOURCES: tuple[str, ...] = ("bncc", "ccss")


def write_default_catalog(
    root: Path, profiles: ProfileRepository, progress: ProgressCallback | None = None
) -> list[PackageLocation]:
    """Build every default source and write its packages as pending packages under ``root``.

    All of them or, should any build or write fail, none of those this call created.
    """
    with PackageBatch(root) as batch:
        return _write(batch, profiles, progress)


def _write(
    batch: PackageBatch, profiles: ProfileRepository, progress: ProgressCallback | None
) -> list[PackageLocation]:
    locations: list[PackageLocation] = []
    for source in DEFAULT_SOURCES:
        for content in load_importer(source).build(None, profiles, progress):
            if progress is not None:
                progress(f"writing {content.framework_id}@{content.snapshot_id}")
            locations.append(batch.write(content))
    return locations


def build_default_catalog(
    root: Path,
    profiles: ProfileRepository,
    progress: ProgressCallback | None = None,
    policy: InvalidPackagePolicy = InvalidPackagePolicy.FAIL,
) -> list[LifecycleOutcome]:
    """Build, write and validate the default catalog; each outcome says whether it passed.

    Should anything fail on the way (a build, a write, a recording), the packages this call created
    are removed again: a failed ``catalog init`` leaves no half-made catalog behind.
    """
    lifecycle = PackageLifecycle(PackageValidator(profiles), PackageWriter(), policy)
    with PackageBatch(root) as batch:
        outcomes: list[LifecycleOutcome] = []
        for location in _write(batch, profiles, progress):
            if progress is not None:
                progress(f"validating {location.graph_package_id}")
            outcomes.append(lifecycle.validate(location))
    return outcomes
