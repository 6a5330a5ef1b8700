"""Builds the accepted catalog: discover, re-validate read-only, apply the policy, publish."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kgfegmcp.catalog import advice
from kgfegmcp.catalog.catalog import AcceptedCatalog, ExcludedPackage
from kgfegmcp.catalog.served import PackageServer
from kgfegmcp.config import InvalidPackagePolicy
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.errors import CatalogError
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.manifest import read_manifest_json
from kgfegmcp.packages.package_files import PackageFileError
from kgfegmcp.packages.package_lock import package_lock
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.runtime import PackageRuntime, read_generation_summary
from kgfegmcp.packages.tree import PackageLocation, discover_packages
from kgfegmcp.packages.validator import VALIDATOR_VERSION, PackageValidator, ValidationOutcome
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.resources.policy import SizePolicy

log = logging.getLogger(__name__)

ProgressCallback = Callable[[str], None]


@dataclass(slots=True)
class CatalogLoader:
    """Read-only: it never writes a package, whatever it finds.

    Every package goes through every rule of the gate, except one whose manifest this validator
    version sealed and for whose exact manifest bytes the derived-index cache holds an entry. That
    entry was stored only after every rule passed those bytes, and it lives outside the package
    root, so nothing written inside a package directory can produce one. Such a package is still
    verified byte for byte against its manifest, its tree, profile binding and seal; its records
    come from the entry instead of being decoded and re-checked.
    """

    root: Path
    profiles: ProfileRepository
    policy: InvalidPackagePolicy
    cache: DerivedIndexCache | None = None
    server: PackageServer | None = None
    root_findings: list[Finding] = field(default_factory=list)

    def load(self, progress: ProgressCallback | None = None) -> AcceptedCatalog:
        """Publish the accepted catalog, or raise ``catalog_error`` naming what to fix."""
        if not self.root.is_dir():
            raise advice.missing_root(self.root)
        validator = PackageValidator(self.profiles)
        discovery = discover_packages(self.root)
        self.root_findings = list(discovery.root_findings)
        for finding in discovery.root_findings:
            log.warning("graph-package root: %s %s: %s", finding.code, finding.location, finding.message)
        if not discovery.packages:
            raise advice.empty_root(self.root, len(discovery.root_findings))
        accepted: list[PackageRuntime] = []
        excluded: list[tuple[ExcludedPackage, str]] = []
        for location in discovery.packages:
            if progress is not None:
                progress(location.graph_package_id)
            prior = discovery.package_findings.get(location.graph_package_id, ())
            with package_lock(location.path, shared=True, on_wait=_waiting):  # never mid-recording
                outcome = self._validate(validator, location, prior)
            status = outcome.manifest.validation.status if outcome.manifest else "unreadable"
            codes = advice.failing_codes(outcome)
            if status in ("failed", "quarantined"):
                excluded.append(self._exclude(outcome, status, recorded=True))
                continue
            if status == "passed" and not outcome.passed:
                raise CatalogError(
                    f"Package {outcome.graph_package_id} is marked passed but no longer validates "
                    f"({', '.join(codes)}); catalog publication stops.",
                    hint=advice.hint(outcome, self.profiles.root, advice.DAMAGED),
                    details={"findings": [f.to_wire() for f in outcome.findings[:20]]},
                )
            if not outcome.passed:
                if self.policy == InvalidPackagePolicy.FAIL:
                    raise CatalogError(
                        f"Pending package {outcome.graph_package_id} does not validate ({', '.join(codes)}).",
                        hint=advice.hint(outcome, self.profiles.root, advice.PENDING_FAILS),
                    )
                excluded.append(self._exclude(outcome, "quarantined", recorded=False))
                continue
            accepted.append(_runtime(outcome, "passed" if status == "passed" else "pending"))
        if not accepted:
            only = excluded[0][1] if len(excluded) == 1 else None
            raise advice.all_excluded(self.root, [e for e, _ in excluded], only)
        server = self.server or PackageServer(SizePolicy.defaults(), self.profiles.root, self.cache)
        return AcceptedCatalog(tuple(server.serve(r) for r in accepted), tuple(e for e, _ in excluded))

    def _exclude(self, outcome: ValidationOutcome, status: str, recorded: bool) -> tuple[ExcludedPackage, str]:
        """Log one line naming the package, its state, codes and remedy; return it with that remedy."""
        todo = advice.exclusion_advice(outcome, recorded, self.profiles.root)
        log.warning(advice.excluded_line(outcome, status, recorded, todo))
        return ExcludedPackage(outcome.graph_package_id, status, advice.failing_codes(outcome)), todo

    def _validate(
        self, validator: PackageValidator, location: PackageLocation, prior: Iterable[Finding]
    ) -> ValidationOutcome:
        manifest_sha256 = _sealed_manifest_sha256(location)
        verdict = None
        if manifest_sha256 is not None and self.cache is not None:
            verdict = self.cache.content(location.graph_package_id, manifest_sha256)
        if verdict is None:
            return validator.validate(location, prior)
        outcome = validator.validate(location, prior, verdict=verdict)
        if outcome.manifest_sha256 != manifest_sha256:
            # The manifest changed while this package was loading: check the new bytes from scratch.
            return validator.validate(location, prior)
        return outcome


def _waiting(directory: Path) -> None:
    log.warning("waiting for a `packages validate` that is recording %s/%s", directory.parent.name, directory.name)


def _sealed_manifest_sha256(location: PackageLocation) -> str | None:
    """The manifest's SHA-256 when it claims ``passed`` by this validator version (the key of its cache entry).

    ``None`` for any manifest that cannot be read as strict JSON: the gate then reports why.
    """
    try:
        data, document = read_manifest_json(location.path)
        state = document.get("validation", {})
    except (PackageFileError, AttributeError):
        return None
    sealed = (
        isinstance(state, dict)
        and state.get("status") == "passed"
        and state.get("validatorVersion") == VALIDATOR_VERSION
    )
    return hashlib.sha256(data).hexdigest() if sealed else None


def _runtime(outcome: ValidationOutcome, accepted_from: str) -> PackageRuntime:
    content, manifest, profile = outcome.content, outcome.manifest, outcome.profile
    assert content is not None and manifest is not None and profile is not None and content.framework is not None
    assert outcome.manifest_sha256 is not None
    return PackageRuntime(
        path=outcome.location.path,
        manifest=manifest,
        profile=profile,
        framework=content.framework,
        items=tuple(content.items),
        components=tuple(content.components),
        relationships=RelationshipTable.of(content),
        accepted_from="passed" if accepted_from == "passed" else "pending",
        manifest_sha256=outcome.manifest_sha256,
        gate=outcome.gate,
        component_generation=read_generation_summary(outcome.location.path, manifest),
    )
