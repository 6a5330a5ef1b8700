"""The default catalog: every default source built, written and validated in one call.

``kgfegmcp catalog init`` (and so ``scripts/setup.sh``), the bundle build, tests and benchmarks all
call it, so they agree on what "default" is. Two kinds of source make it: pinned registry packages
(BNCC, CCSS) and official files shipped inside this package under their licences
(``shipped/sources/``: MEXT's code tables, ACARA's ASN document), each with its SOURCES.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgfegmcp.core.config import SHIPPED_DIR, InvalidPackagePolicy
from kgfegmcp.core.identifiers import named_package_id
from kgfegmcp.packages.lifecycle import LifecycleOutcome, PackageLifecycle
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageBatch, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import load_importer
from kgfegmcp.sources.importer import ProgressCallback

#: Official source files shipped with the project, read by the default catalog's file sources.
SHIPPED_SOURCES_DIR = SHIPPED_DIR / "sources"


@dataclass(frozen=True, slots=True)
class DefaultSource:
    """One source of the default catalog, with the shipped files it reads (none: a registry package)."""

    source: str
    inputs: tuple[str, ...] = ()

    def input_paths(self) -> list[Path | None]:
        """Each input as a path in this installation, or one ``None`` for a source that takes no file."""
        return [SHIPPED_SOURCES_DIR / name for name in self.inputs] or [None]


#: Every source of the default catalog, in build order.
DEFAULT_SOURCES: tuple[DefaultSource, ...] = (
    DefaultSource("bncc"),
    DefaultSource("ccss"),
    DefaultSource(
        "mext-code-table",
        (
            "japan-mext/82V11-elementary.xlsx",
            "japan-mext/83V11-lower-secondary.xlsx",
            "japan-mext/84V10-upper-secondary.xlsx",
        ),
    ),
    DefaultSource("asn", ("australia-acara-v9/MAT.jsonld",)),
)


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
    for default in DEFAULT_SOURCES:
        importer = load_importer(default.source)
        for source_input in default.input_paths():
            for content in importer.build(source_input, profiles, progress):
                if progress is not None:
                    progress(f"writing {named_package_id(content.framework_id, content.snapshot_id)}")
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
