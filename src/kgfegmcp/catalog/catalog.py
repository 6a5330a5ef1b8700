"""The accepted catalog: the served packages of one lifespan and the selectors that route requests to them."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.errors import AmbiguousFrameworkError, CatalogError, FrameworkNotFoundError
from kgfegmcp.core.identifiers import graph_package_id


@dataclass(frozen=True, slots=True)
class ExcludedPackage:
    """A discovered package that is not served, and why."""

    graph_package_id: str
    status: str
    finding_codes: tuple[str, ...]


class AcceptedCatalog:
    """The packages one server lifespan serves; never mutated after construction."""

    def __init__(self, packages: tuple[ServedPackage, ...], excluded: tuple[ExcludedPackage, ...] = ()) -> None:
        if not packages:
            raise CatalogError(
                "No accepted graph package: the server will not start with an empty catalog.",
                hint="Build and validate packages (see README), then start again.",
            )
        ordered = tuple(sorted(packages, key=lambda p: (p.framework_id, p.snapshot_id)))
        ids = [p.graph_package_id for p in ordered]
        if len(set(ids)) != len(ids):
            raise CatalogError("Two accepted packages share one graph-package id.")
        self._packages = ordered
        self._excluded = tuple(sorted(excluded, key=lambda e: e.graph_package_id))
        self._by_id = {p.graph_package_id: p for p in ordered}
        self._by_snapshot = {(p.framework_id, p.snapshot_id): p for p in ordered}
        digest = hashlib.sha256()
        for package in ordered:
            digest.update(package.graph_package_id.encode())
            digest.update(b"\0")
            digest.update((package.manifest.validation.seal_sha256 or "pending").encode())
            for artifact in package.manifest.all_artifacts():
                digest.update(f"{artifact.logical_name}={artifact.sha256};".encode())
            digest.update(package.profile.sha256.encode())
        self._fingerprint = digest.hexdigest()

    @property
    def packages(self) -> tuple[ServedPackage, ...]:
        """Served packages sorted by framework id, then snapshot id."""
        return self._packages

    @property
    def excluded(self) -> tuple[ExcludedPackage, ...]:
        """Discovered but not served packages."""
        return self._excluded

    @property
    def fingerprint(self) -> str:
        """SHA-256 identifying exactly this accepted content (binds cursors to the catalog)."""
        return self._fingerprint

    def framework_ids(self) -> tuple[str, ...]:
        """Distinct framework ids, sorted."""
        return tuple(sorted({p.framework_id for p in self._packages}))

    def by_graph_package_id(self, graph_package_id: str) -> ServedPackage | None:
        """Exact lookup by the graph-package id an answer names."""
        return self._by_id.get(graph_package_id)

    def by_snapshot(self, framework_id: str, snapshot_id: str) -> ServedPackage | None:
        """Exact lookup by framework and snapshot id (what a resource address or a request names)."""
        return self._by_snapshot.get((framework_id, snapshot_id))

    def resolve(self, framework_id: str, snapshot_id: str | None = None) -> ServedPackage:
        """Exact snapshot, or the unique current snapshot when ``snapshot_id`` is omitted."""
        candidates = [p for p in self._packages if p.framework_id == framework_id]
        if snapshot_id is not None:
            for package in candidates:
                if package.snapshot_id == snapshot_id:
                    return package
            raise FrameworkNotFoundError(f"No accepted package {graph_package_id(framework_id, snapshot_id)}.")
        current = [p for p in candidates if p.manifest.is_current]
        if not current:
            raise FrameworkNotFoundError(
                f"No current snapshot of framework {framework_id!r} is accepted."
                if candidates
                else f"No accepted framework {framework_id!r}."
            )
        if len(current) > 1:
            snapshots = ", ".join(p.snapshot_id for p in current)
            raise AmbiguousFrameworkError(f"Framework {framework_id!r} has several current snapshots: {snapshots}.")
        return current[0]

    def select(self, framework_ids: Sequence[str] | None, snapshot_ids: Sequence[str] | None) -> list[ServedPackage]:
        """Packages for a multi-package request, sorted and without repeats.

        Framework ids alone resolve to each unique current snapshot; with snapshot ids, every named
        snapshot of those frameworks; snapshot ids alone, every package with such a snapshot; neither,
        every current package.
        """
        chosen: list[ServedPackage] = []
        if framework_ids:
            for framework_id in framework_ids:
                if not snapshot_ids:
                    chosen.append(self.resolve(framework_id))
                    continue
                matching = [
                    p for p in self._packages if p.framework_id == framework_id and p.snapshot_id in snapshot_ids
                ]
                if not matching:
                    raise FrameworkNotFoundError(
                        f"No accepted snapshot of {framework_id!r} among snapshotIds {list(snapshot_ids)}."
                    )
                chosen.extend(matching)
        elif snapshot_ids:
            chosen = [p for p in self._packages if p.snapshot_id in snapshot_ids]
            if not chosen:
                raise FrameworkNotFoundError(f"No accepted package has a snapshotId in {list(snapshot_ids)}.")
        else:
            chosen = [p for p in self._packages if p.manifest.is_current]
        return sorted({p.graph_package_id: p for p in chosen}.values(), key=lambda p: (p.framework_id, p.snapshot_id))
