"""The package validation gate: decides, with findings, whether a package may be served.

One pass reads every declared artifact once, hashing and decoding it together. Semantic checks
run only on what decoded completely, so one corruption yields its own finding instead of a
cascade of consequences.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import ValidationError

from kgfegmcp.core.errors import KgfegmcpError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import graph_package_id, snapshot_problem
from kgfegmcp.core.models import canonical_bytes, sha256_hex
from kgfegmcp.core.package_files import PackageFileError
from kgfegmcp.core.rights import rights_beyond
from kgfegmcp.packages.artifact_roles import (
    ARTIFACT_ROLE,
    COMPONENT_ARTIFACTS,
    PROGRESSION_ARTIFACTS,
    required_roles,
    role_at,
)
from kgfegmcp.packages.artifacts import ARTIFACT_READING_CODES, ArtifactReader
from kgfegmcp.packages.checks.checklist import PACKAGE_CHECK_CODES, PACKAGE_CHECKS_BY_SHAPE, run_package_checks
from kgfegmcp.packages.checks.context import CheckContext
from kgfegmcp.packages.collector import MAX_FINDINGS_PER_CODE, BoundedFindings, FindingCollector
from kgfegmcp.packages.delivery import DELIVERY_CODES, DecodedDelivery, decode_delivery
from kgfegmcp.packages.findings import Finding, ValidationReport
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest, read_manifest_json
from kgfegmcp.packages.manifest_reader import parse_manifest
from kgfegmcp.packages.records import DecodedPackage
from kgfegmcp.packages.supplied_manifest import checksum_set_digest
from kgfegmcp.packages.tree import DISCOVERY_CODES, TREE_SCAN_CODES, PackageLocation, scan_package_tree
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository

#: Bumped whenever a rule is added or tightened: a pass recorded by another version is never trusted
#: without running every rule (1.1.0: the learning-component collection and the epistemic labels;
#: 1.2.0: every copy of an entity's fields is compared with the others, ``cross_artifact_mismatch``;
#: 1.3.0: no control or bidirectional-formatting character in served text, ``unsafe_text``).
VALIDATOR_VERSION = "1.3.0"

#: How much of the gate ran: every rule, the checks that bind a cached verdict to these bytes, or those
#: checks plus decoding the delivery, for a package whose recorded pass vouches for the rest.
Gate = Literal["every_rule", "cached_verdict", "recorded_verdict"]

#: What reading the manifest may find (``read_manifest_json`` says which, before the contract is checked).
MANIFEST_READING_CODES: tuple[FindingCode, ...] = (
    FindingCode.UNSAFE_PATH,
    FindingCode.MISSING_ARTIFACT,
    FindingCode.UNREADABLE_FILE,
    FindingCode.INVALID_MANIFEST,
    FindingCode.INVALID_RIGHTS_POLICY,
)
#: What comparing the manifest's identity with its directory, and its artifacts with the required ones, may find.
MANIFEST_CONTRACT_CODES: tuple[FindingCode, ...] = (
    FindingCode.IDENTITY_MISMATCH,
    FindingCode.MISSING_ARTIFACT,
    FindingCode.LC_ARTIFACT_MISMATCH,
)
#: What loading the bound profile may find.
PROFILE_BINDING_CODES: tuple[FindingCode, ...] = (FindingCode.PROFILE_BINDING_MISMATCH,)
#: What holding the manifest's rights to its bound profile's default rights may find.
RIGHTS_WITNESS_CODES: tuple[FindingCode, ...] = (FindingCode.RIGHTS_EXCEED_PROFILE,)
#: What reading the recorded report, and the manifest's recorded validation state, may find.
RECORDED_STATE_CODES: tuple[FindingCode, ...] = (FindingCode.VALIDATION_STATE_MISMATCH, FindingCode.IDENTITY_MISMATCH)

#: Every code a validation can emit: the union of what each of its emitters declares.
VALIDATION_CODES: frozenset[FindingCode] = frozenset(
    (
        *DISCOVERY_CODES,
        *MANIFEST_READING_CODES,
        *MANIFEST_CONTRACT_CODES,
        *TREE_SCAN_CODES,
        *ARTIFACT_READING_CODES,
        *PROFILE_BINDING_CODES,
        *RIGHTS_WITNESS_CODES,
        *DELIVERY_CODES,
        *RECORDED_STATE_CODES,
        *PACKAGE_CHECK_CODES,
    )
)


#: Codes that only ever speak of learning components (wherever the finding is located).
COMPONENT_FINDING_CODES: frozenset[str] = frozenset(
    {
        FindingCode.COMPONENT_IN_HIERARCHY,
        FindingCode.SUPPORTS_DIRECTION,
        FindingCode.UNSUPPORTED_COMPONENT,
        FindingCode.LC_ARTIFACT_MISMATCH,
        FindingCode.LC_DEDUP_OVERLAP,
        FindingCode.LC_GENERATION_COUNT_MISMATCH,
    }
)


def concerns_components(finding: Finding) -> bool:
    """Whether ``finding`` belongs in the learning-component validation report.

    It does when its code only speaks of components, or when it is located in one of the collection's
    artifacts (by logical name or path).
    """
    if finding.code in COMPONENT_FINDING_CODES:
        return True
    if finding.artifact is None:
        return False
    role = ARTIFACT_ROLE.get(finding.artifact) or role_at(finding.artifact)
    return role is not None and role.requirement == "with_components"


@dataclass(slots=True)
class ValidationOutcome:
    """Everything the gate concluded about one package."""

    location: PackageLocation
    manifest: PackageManifest | None
    profile: LoadedProfile | None
    findings: list[Finding]
    omitted: dict[str, int]
    content: DecodedPackage | None
    build_findings: list[Finding] = field(default_factory=list)
    manifest_sha256: str | None = None
    gate: Gate = "every_rule"

    @property
    def graph_package_id(self) -> str:
        """The manifest's id when readable, else the directory identity."""
        return self.manifest.graph_package_id if self.manifest else self.location.graph_package_id

    @property
    def passed(self) -> bool:
        """No error finding at all (omitted findings are errors too)."""
        return not self.omitted and all(f.severity != "error" for f in self.findings)

    def report(self, status: str) -> ValidationReport:
        """The report artifact recording this outcome under ``status``."""
        return ValidationReport(
            graph_package_id=self.graph_package_id,
            status=status,  # type: ignore[arg-type]
            validator_version=VALIDATOR_VERSION,
            profile_sha256=self.profile.sha256 if self.profile else None,
            findings=tuple(sorted([*self.build_findings, *self.findings], key=Finding.sort_key)),
            omitted_findings=dict(sorted(self.omitted.items())),
        )

    def component_report(self, status: str) -> ValidationReport:
        """The ``lcValidationReport``: the same terminal status, with the findings about components only.

        The package is accepted or refused whole, so the status is the package's; the findings are
        those a reader of the component collection needs (omitted repeats are counted per code).
        """
        whole = self.report(status)
        return whole.model_copy(
            update={
                "findings": tuple(f for f in whole.findings if concerns_components(f)),
                "omitted_findings": {
                    code: n for code, n in whole.omitted_findings.items() if code in COMPONENT_FINDING_CODES
                },
            }
        )


def seal_of(manifest: PackageManifest) -> str:
    """SHA-256 of the canonical manifest without its validation block."""
    return sha256_hex(canonical_bytes(manifest.seal_payload()))


class PackageValidator:
    """Runs every check of the gate; never writes anything."""

    def __init__(self, profiles: ProfileRepository, max_findings_per_code: int = MAX_FINDINGS_PER_CODE):
        self._profiles = profiles
        self._limit = max_findings_per_code

    def validate(
        self,
        location: PackageLocation,
        prior_findings: Iterable[Finding] = (),
        *,
        verdict: DecodedPackage | None = None,
    ) -> ValidationOutcome:
        """Validate one package directory; the outcome carries findings and decoded content.

        Every rule runs unless ``verdict`` is given: the records that this validator version decoded,
        and passed through every rule, from exactly the bytes this manifest pins, as the derived-index
        cache (outside the package root) keeps them. Then identity, tree, every byte (SHA-256), the
        profile binding and the recorded state are still checked; only decoding and re-deriving the
        topology and detailed-artifact rules are spared. Nothing inside the package can supply it.
        """
        return self._gate(location, prior_findings, verdict, trust_recorded_pass=False)

    def verify_recorded_pass(self, location: PackageLocation) -> ValidationOutcome:
        """The gate for reading a package this validator version recorded ``passed``, rules not re-derived.

        Identity, tree, every byte (SHA-256), the profile binding and the recorded state (report and seal)
        are checked and the delivery is decoded strictly, so the records are exactly those the recorded
        pass judged. Every rule still runs when the manifest records anything else (pending, failed, or a
        pass by another validator version). Offline readers use it (``packages diff``); start-up does not,
        and it never leads to a recorded state.
        """
        return self._gate(location, (), None, trust_recorded_pass=True)

    def confirm_recording(self, judged: ValidationOutcome, recorded_manifest_sha256: str) -> ValidationOutcome:
        """The gate over a package that ``judged`` (every rule, in this process) passed and its recording sealed.

        Identity, tree, every byte, the profile binding and the recorded state are checked as at any start, with
        the records ``judged`` decoded. Only when the manifest read is byte for byte the one the recording wrote
        (``recorded_manifest_sha256``) does the outcome keep ``judged``'s gate, so that it may store a derived-index
        entry: the rules then ran on these very artifacts, and recording changed nothing but the reports and the
        validation block, which this gate checks. A package changed since is judged by a later start, cold.
        """
        if judged.gate != "every_rule" or not judged.passed or judged.content is None:
            raise ValueError("only a pass through every rule can be confirmed")
        outcome = self._gate(judged.location, (), judged.content, trust_recorded_pass=False)
        if outcome.passed and outcome.manifest_sha256 == recorded_manifest_sha256:
            outcome.gate = judged.gate
        return outcome

    def _gate(
        self,
        location: PackageLocation,
        prior_findings: Iterable[Finding],
        verdict: DecodedPackage | None,
        *,
        trust_recorded_pass: bool,
    ) -> ValidationOutcome:
        out = FindingCollector(VALIDATION_CODES, "PackageValidator", BoundedFindings(self._limit))
        out.restricted_to(DISCOVERY_CODES, "discover_packages").extend(prior_findings)
        read = self._read_manifest(location, out)
        if read is None:
            return ValidationOutcome(location, None, None, out.findings, dict(out.omitted), None)
        manifest, manifest_sha256 = read
        recorded = manifest.validation
        rules = not (
            trust_recorded_pass and recorded.status == "passed" and recorded.validator_version == VALIDATOR_VERSION
        )
        self._check_manifest_contract(location, manifest, out)
        declared = {a.path: a.logical_name for a in manifest.all_artifacts()}
        scan = scan_package_tree(location.path, declared)
        out.restricted_to(TREE_SCAN_CODES, "scan_package_tree").extend(scan.findings)
        reader = ArtifactReader(location.path, manifest, scan.present, out)
        profile = self._check_profile(manifest, out)
        self._check_rights(manifest, profile, out)

        delivery = DecodedDelivery(verdict, True) if verdict is not None else self._decode_delivery(reader, out)
        content = delivery.content
        build_findings = self._read_report(reader, manifest, out)
        if delivery.complete and verdict is None and rules:
            context = CheckContext.build(manifest, profile.profile if profile else None, content, reader)
            run_package_checks(context, out, PACKAGE_CHECKS_BY_SHAPE[manifest.shape])
        reader.verify_remaining()
        self._check_recorded_state(manifest, out)
        findings = sorted(out.findings, key=Finding.sort_key)
        return ValidationOutcome(
            location,
            manifest,
            profile,
            findings,
            dict(sorted(out.omitted.items())),
            content,
            build_findings,
            manifest_sha256,
            "cached_verdict" if verdict is not None else "every_rule" if rules else "recorded_verdict",
        )

    # -- manifest, identity, profile -------------------------------------------------------

    @staticmethod
    def _read_manifest(location: PackageLocation, out: FindingCollector) -> tuple[PackageManifest, str] | None:
        """The manifest and the SHA-256 of the bytes read, or ``None`` with findings when unusable."""
        out = out.restricted_to(MANIFEST_READING_CODES, "manifest reading")
        try:
            data, _ = read_manifest_json(location.path)
        except PackageFileError as exc:
            out.add(exc.code, f"the manifest {exc.reason}", location=MANIFEST_FILENAME)
            return None
        try:
            return parse_manifest(data, location.path), sha256_hex(data)
        except ValidationError as exc:
            for error in exc.errors():
                loc = ".".join(str(part) for part in error["loc"])
                code = FindingCode.INVALID_RIGHTS_POLICY if loc.startswith("rights") else FindingCode.INVALID_MANIFEST
                out.add(code, f"{loc or '(document)'}: {error['msg']}", location=MANIFEST_FILENAME)
            return None

    @staticmethod
    def _check_manifest_contract(location: PackageLocation, manifest: PackageManifest, out: FindingCollector) -> None:
        """The manifest names the package its directories name, and declares every required artifact."""
        out = out.restricted_to(MANIFEST_CONTRACT_CODES, "manifest contract")
        # A supplied manifest's own model checks its id (its snapshot, with its graph type and revision).
        own_id = graph_package_id(manifest.framework_id, manifest.snapshot_id)
        if manifest.shape == "1.0" and manifest.graph_package_id != own_id:
            out.add(
                FindingCode.IDENTITY_MISMATCH,
                "graphPackageId is not <frameworkId>@<snapshotId> (or, for a supplied snapshot id, that id)",
                location=MANIFEST_FILENAME,
            )
        if manifest.shape == "1.1":
            named, found = manifest.snapshot_id.rpartition("+")[2], checksum_set_digest(manifest)
            if not found.startswith(named):
                out.add(
                    FindingCode.IDENTITY_MISMATCH,
                    f"snapshotId ends with {named}, but the declared files' checksums digest to "
                    f"{found[: len(named)]}: a file was changed and its checksum re-pinned",
                    location=MANIFEST_FILENAME,
                )
        if manifest.framework_id != location.framework_id:
            out.add(
                FindingCode.IDENTITY_MISMATCH,
                f"frameworkId {manifest.framework_id!r} differs from its directory {location.framework_id!r}",
                location=MANIFEST_FILENAME,
            )
        if manifest.snapshot_id != location.snapshot_id:
            out.add(
                FindingCode.IDENTITY_MISMATCH,
                f"snapshotId {manifest.snapshot_id!r} differs from its directory {location.snapshot_id!r}",
                location=MANIFEST_FILENAME,
            )
        if manifest.supersedes is not None:
            framework, _, snapshot = manifest.supersedes.partition("@")
            if framework != manifest.framework_id or snapshot_problem(snapshot) or snapshot == manifest.snapshot_id:
                out.add(
                    FindingCode.IDENTITY_MISMATCH,
                    "supersedes must name an earlier snapshot of the same framework",
                    location=MANIFEST_FILENAME,
                )
        declared = {a.logical_name for a in manifest.all_artifacts()}
        components = manifest.counts.components
        progressions = "LearningProgressions" in manifest.graph_types.contains and manifest.shape == "1.1"
        required = required_roles(manifest.shape, components, declared, progressions)
        for missing in sorted({role.logical_name for role in required} - declared):
            out.add(FindingCode.MISSING_ARTIFACT, "required logical artifact is not declared", artifact=missing)
        if not progressions:
            for stray in sorted(declared & set(PROGRESSION_ARTIFACTS)):
                out.add(
                    FindingCode.MISSING_ARTIFACT,
                    "a package without learning progressions declares none of their artifacts",
                    artifact=stray,
                )
        if not components:
            for stray in sorted(declared & set(COMPONENT_ARTIFACTS)):
                out.add(
                    FindingCode.LC_ARTIFACT_MISMATCH,
                    "a package without learning components declares no learning-component artifact",
                    artifact=stray,
                )

    def _check_profile(self, manifest: PackageManifest, out: FindingCollector) -> LoadedProfile | None:
        """The profile the manifest binds, byte for byte, or ``None`` (profile rules are then skipped)."""
        out = out.restricted_to(PROFILE_BINDING_CODES, "profile binding")
        ref = manifest.profile
        try:
            loaded = self._profiles.load(ref.profile_id, ref.version)
        except KgfegmcpError as exc:
            out.add(FindingCode.PROFILE_BINDING_MISMATCH, exc.message, location="profile")
            return None
        if loaded.sha256 != ref.sha256:
            out.add(
                FindingCode.PROFILE_BINDING_MISMATCH,
                f"profile {ref.profile_id}/{ref.version} has SHA-256 {loaded.sha256}, manifest binds {ref.sha256}",
                location="profile",
            )
            return None
        named = loaded.profile.framework_ids
        if named is not None and manifest.framework_id not in named:
            out.add(
                FindingCode.PROFILE_BINDING_MISMATCH,
                f"profile {ref.profile_id}/{ref.version} is for frameworks {list(named)}, not {manifest.framework_id}",
                location="profile",
            )
            return None
        return loaded

    @staticmethod
    def _check_rights(manifest: PackageManifest, profile: LoadedProfile | None, out: FindingCollector) -> None:
        """The manifest's rights are no wider than the default rights of the profile it binds by SHA-256.

        The seal is no witness (anyone who writes the manifest can recompute it), so the rights are held to a
        file outside the package: a manifest may narrow its profile's rights, never widen them (the operator's
        rights file does, outside the package too). Every gate runs this, a cached verdict or not.
        """
        if profile is None:
            return  # the binding already failed: nothing bound to hold the rights to
        out = out.restricted_to(RIGHTS_WITNESS_CODES, "rights witness")
        ref = manifest.profile
        for name, why in rights_beyond(manifest.rights, profile.profile.default_rights):
            out.add(
                FindingCode.RIGHTS_EXCEED_PROFILE,
                f"rights.{name} {why} ({ref.profile_id}/{ref.version}): a manifest never widens the rights its "
                "profile grants; the operator's decision does (`kgfegmcp packages review`)",
                location=MANIFEST_FILENAME,
            )

    @staticmethod
    def _decode_delivery(reader: ArtifactReader, out: FindingCollector) -> DecodedDelivery:
        """Decode the delivery; a method of its own so a test can count that a warm start skips it."""
        return decode_delivery(reader, out)

    # -- recorded report and state ---------------------------------------------------------

    @staticmethod
    def _read_report(reader: ArtifactReader, manifest: PackageManifest, out: FindingCollector) -> list[Finding]:
        """The build findings of the recorded report, which must belong to this package and state."""
        out = out.restricted_to(RECORDED_STATE_CODES, "recorded report")
        if manifest.shape != "1.0" or not reader.available("validationReport"):
            # A supplied package's report is its pipeline's own (served as it is), not this validator's record.
            return []
        document = reader.document("validationReport")
        if document is None:
            return []
        try:
            report = ValidationReport.model_validate_json(json.dumps(document))
        except ValidationError as exc:
            out.add(
                FindingCode.VALIDATION_STATE_MISMATCH,
                f"validation report is malformed: {exc.error_count()} errors",
                artifact="validationReport",
            )
            return []
        if report.graph_package_id != manifest.graph_package_id:
            out.add(
                FindingCode.IDENTITY_MISMATCH, "validation report names another package", artifact="validationReport"
            )
        if report.status != manifest.validation.status:
            out.add(
                FindingCode.VALIDATION_STATE_MISMATCH,
                f"report status {report.status!r} differs from manifest status {manifest.validation.status!r}",
                artifact="validationReport",
            )
        return [f for f in report.findings if f.stage == "build"]

    @staticmethod
    def _check_recorded_state(manifest: PackageManifest, out: FindingCollector) -> None:
        """A ``passed`` manifest still pins its report and its own content (the seal)."""
        out = out.restricted_to(RECORDED_STATE_CODES, "recorded state")
        state = manifest.validation
        if state.status != "passed" or manifest.shape != "1.0":
            return
        entry = manifest.artifact("validationReport")
        if entry is not None and state.report_sha256 != entry.sha256:
            out.add(
                FindingCode.VALIDATION_STATE_MISMATCH,
                "reportSha256 differs from the validation report artifact",
                location=MANIFEST_FILENAME,
            )
        if state.seal_sha256 != seal_of(manifest):
            out.add(
                FindingCode.VALIDATION_STATE_MISMATCH,
                "the manifest changed after it was validated (seal differs)",
                location=MANIFEST_FILENAME,
            )
