"""Builds the accepted catalog: discover, re-validate read-only, apply the policy, publish."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kgfegmcp.catalog import advice
from kgfegmcp.catalog.catalog import AcceptedCatalog, ExcludedPackage
from kgfegmcp.catalog.served import PackageServer
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import CatalogError
from kgfegmcp.core.operator_rights import OperatorDecision, OperatorRights
from kgfegmcp.core.package_files import PackageFileError
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.manifest import read_manifest_json
from kgfegmcp.packages.package_lock import package_lock
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.runtime import PackageRuntime, read_generation_summary, read_link_judgements
from kgfegmcp.packages.tree import Discovery, PackageLocation, discover_packages
from kgfegmcp.packages.validator import VALIDATOR_VERSION, PackageValidator, ValidationOutcome
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.resources.policy import SizePolicy

log = logging.getLogger(__name__)

ProgressCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A package start-up leaves out: which, why (``package``), what to do, and the line it logs."""

    package: ExcludedPackage
    remedy: str
    log_line: str


@dataclass(frozen=True, slots=True)
class PackageVerdict:
    """What start-up does with one package: serve it, leave it out (``exclusion``), or refuse to start (``refusal``)."""

    outcome: ValidationOutcome
    status: str  # the recorded state (``unreadable`` without a readable manifest)
    refusal: CatalogError | None = None
    exclusion: Exclusion | None = None


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
    #: The operator's rights decisions (``KGFEGMCP_OPERATOR_RIGHTS_FILE``), applied to each package it serves.
    decisions: OperatorRights = field(default_factory=OperatorRights)

    def load(self, progress: ProgressCallback | None = None) -> AcceptedCatalog:
        """Publish the accepted catalog, or raise ``catalog_error`` naming what to fix."""
        discovery = self.discover()
        for finding in discovery.root_findings:
            log.warning("graph-package root: %s %s: %s", finding.code, finding.location, finding.message)
        accepted: list[PackageRuntime] = []
        excluded: list[Exclusion] = []
        for verdict in self.judge(discovery, progress):
            if verdict.refusal is not None:
                raise verdict.refusal
            if verdict.exclusion is not None:
                log.warning(verdict.exclusion.log_line)
                excluded.append(verdict.exclusion)
                continue
            accepted.append(self._runtime(verdict.outcome, "passed" if verdict.status == "passed" else "pending"))
        if not accepted:
            raise self.all_excluded(excluded)
        server = self.server or PackageServer(SizePolicy.defaults(), self.profiles, self.cache)
        return AcceptedCatalog(tuple(server.serve(r) for r in accepted), tuple(e.package for e in excluded))

    def discover(self) -> Discovery:
        """The root's packages; ``catalog_error`` when the root is missing or holds none."""
        if not self.root.is_dir():
            raise advice.missing_root(self.root)
        discovery = discover_packages(self.root)
        self.root_findings = list(discovery.root_findings)
        if not discovery.packages:
            raise advice.empty_root(self.root, len(discovery.root_findings))
        return discovery

    def judge(self, discovery: Discovery, progress: ProgressCallback | None = None) -> Iterator[PackageVerdict]:
        """Each discovered package through the whole gate, in order, judged as start-up judges it.

        Read-only and silent (``load`` logs): ``kgfegmcp doctor`` runs exactly this to say what
        ``serve`` would do with each package.
        """
        validator = PackageValidator(self.profiles)
        for location in discovery.packages:
            if progress is not None:
                progress(location.graph_package_id)
            prior = discovery.package_findings.get(location.graph_package_id, ())
            with package_lock(location.path, shared=True, on_wait=_waiting):  # never mid-recording
                outcome = self._validate(validator, location, prior)
            yield self._verdict(outcome)

    def all_excluded(self, excluded: list[Exclusion]) -> CatalogError:
        """The refusal when every discovered package is excluded (the one's remedy when there is one)."""
        only = excluded[0].remedy if len(excluded) == 1 else None
        return advice.all_excluded(self.root, [e.package for e in excluded], only)

    def _verdict(self, outcome: ValidationOutcome) -> PackageVerdict:
        status = outcome.manifest.validation.status if outcome.manifest else "unreadable"
        codes = advice.failing_codes(outcome)
        if status in ("failed", "quarantined"):
            return PackageVerdict(outcome, status, exclusion=self._exclusion(outcome, status, recorded=True))
        if status == "passed" and not outcome.passed:
            refusal = CatalogError(
                f"Package {outcome.graph_package_id} is marked passed but no longer validates "
                f"({', '.join(codes)}); catalog publication stops.",
                hint=advice.hint(outcome, self.profiles.root, advice.DAMAGED),
                details={"findings": [f.to_wire() for f in outcome.findings[:20]]},
            )
            return PackageVerdict(outcome, status, refusal=refusal)
        if not outcome.passed:
            if self.policy == InvalidPackagePolicy.FAIL:
                refusal = CatalogError(
                    f"Pending package {outcome.graph_package_id} does not validate ({', '.join(codes)}).",
                    hint=advice.hint(outcome, self.profiles.root, advice.PENDING_FAILS),
                )
                return PackageVerdict(outcome, status, refusal=refusal)
            return PackageVerdict(outcome, status, exclusion=self._exclusion(outcome, "quarantined", recorded=False))
        return PackageVerdict(outcome, status)

    def _exclusion(self, outcome: ValidationOutcome, status: str, recorded: bool) -> Exclusion:
        """The excluded package with its remedy and the one log line naming its state, codes and remedy."""
        todo = advice.exclusion_advice(outcome, recorded, self.profiles.root)
        return Exclusion(
            ExcludedPackage(outcome.graph_package_id, status, advice.failing_codes(outcome)),
            todo,
            advice.excluded_line(outcome, status, recorded, todo),
        )

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

    def _runtime(self, outcome: ValidationOutcome, accepted_from: str) -> PackageRuntime:
        """The accepted package, served under its rights with the operator's decision for it applied."""
        manifest = outcome.manifest
        assert manifest is not None
        return accepted_runtime(
            outcome, accepted_from, self.decisions.decision(manifest.framework_id, manifest.snapshot_id)
        )


def _waiting(directory: Path) -> None:
    log.warning("waiting for a `packages validate` that is recording %s/%s", directory.parent.name, directory.name)


def _sealed_manifest_sha256(location: PackageLocation) -> str | None:
    """The manifest's SHA-256 when it claims ``passed`` by this validator version, or is a supplied manifest its
    pipeline passed (the key of its cache entry; the entry exists only if this code passed it through every rule).

    ``None`` for any manifest that cannot be read as strict JSON: the gate then reports why.
    """
    try:
        data, document = read_manifest_json(location.path)
        state = document.get("validation", {})
        supplied = "manifestVersion" in document
    except (PackageFileError, AttributeError):
        return None
    sealed = (
        isinstance(state, dict)
        and state.get("status") == "passed"
        and (supplied or state.get("validatorVersion") == VALIDATOR_VERSION)
    )
    return hashlib.sha256(data).hexdigest() if sealed else None


def accepted_runtime(
    outcome: ValidationOutcome, accepted_from: str, decision: OperatorDecision | None
) -> PackageRuntime:
    """The runtime of a package the gate passed: what its served package and its derived-index entry are built from."""
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
        link_judgements=read_link_judgements(outcome.location.path, manifest),
        operator_decision=decision,
    )
