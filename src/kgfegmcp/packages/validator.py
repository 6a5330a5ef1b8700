"""The package validation gate: decides, with findings, whether a package may be served.

One pass reads every declared artifact once, hashing and decoding it together. Semantic checks
run only on what decoded completely, so one corruption yields its own finding instead of a
cascade of consequences.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from kgfegmcp.errors import DeliveryPropertyDecodingError, JsonlParsingError, KgfegmcpError
from kgfegmcp.identifiers import identifier_problem
from kgfegmcp.models import canonical_bytes, sha256_hex
from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.collector import MAX_FINDINGS_PER_CODE, FindingCollector, line_location
from kgfegmcp.packages.decoder import decode_node, decode_relationship
from kgfegmcp.packages.findings import Finding, ValidationReport
from kgfegmcp.packages.manifest import (
    MANIFEST_FILENAME,
    REQUIRED_ARTIFACTS,
    PackageManifest,
)
from kgfegmcp.packages.records import (
    ComponentNode,
    DecodedPackage,
    ItemNode,
    RelationshipRecord,
)
from kgfegmcp.packages.rules import DetailedArtifactRules, SemanticRules
from kgfegmcp.packages.tree import PackageLocation, scan_package_tree
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository

VALIDATOR_VERSION = "1.0.0"

#: How much of the gate ran: every rule, or the checks that bind a cached verdict to these bytes.
Gate = Literal["every_rule", "cached_verdict"]
MAX_MANIFEST_BYTES = 16 * 1024 * 1024


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
        out = FindingCollector(self._limit)
        out.extend(prior_findings)
        read = self._read_manifest(location, out)
        if read is None:
            return ValidationOutcome(location, None, None, out.findings, dict(out.omitted), None)
        manifest, manifest_sha256 = read
        self._check_identity(location, manifest, out)
        declared = {a.path: a.logical_name for a in manifest.all_artifacts()}
        for missing in sorted(set(REQUIRED_ARTIFACTS) - {a.logical_name for a in manifest.artifacts}):
            out.add("missing_artifact", "required logical artifact is not declared", artifact=missing)
        scan = scan_package_tree(location.path, declared)
        out.extend(scan.findings)
        reader = ArtifactReader(location.path, manifest, scan.present, out)
        profile = self._check_profile(manifest, out)

        if verdict is not None:
            content, decoded_cleanly = verdict, True
        else:
            content, decoded_cleanly = self._decode_delivery(reader, out)
        build_findings = self._read_report(reader, manifest, out)
        if decoded_cleanly and verdict is None:
            checks = SemanticRules(manifest, profile.profile if profile else None, content, out)
            checks.run()
            DetailedArtifactRules(manifest, reader, content, out).run()
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
            "every_rule" if verdict is None else "cached_verdict",
        )

    # -- manifest, identity, profile -------------------------------------------------------

    @staticmethod
    def _read_manifest(location: PackageLocation, out: FindingCollector) -> tuple[PackageManifest, str] | None:
        """The manifest and the SHA-256 of the bytes read, or ``None`` with findings when unusable."""
        path = location.path / MANIFEST_FILENAME
        if path.is_symlink() or (path.exists() and not path.is_file()):
            out.add("unsafe_path", "the manifest must be a regular file", location=MANIFEST_FILENAME)
            return None
        if not path.is_file():
            out.add("missing_artifact", "package_manifest.json is missing", location=MANIFEST_FILENAME)
            return None
        data = path.read_bytes()
        if len(data) > MAX_MANIFEST_BYTES:
            out.add("invalid_manifest", "the manifest exceeds 16 MiB", location=MANIFEST_FILENAME)
            return None
        try:
            return PackageManifest.model_validate_json(data), sha256_hex(data)
        except ValidationError as exc:
            for error in exc.errors():
                loc = ".".join(str(part) for part in error["loc"])
                code = "invalid_rights_policy" if loc.startswith("rights") else "invalid_manifest"
                out.add(code, f"{loc or '(document)'}: {error['msg']}", location=MANIFEST_FILENAME)
            return None

    @staticmethod
    def _check_identity(location: PackageLocation, manifest: PackageManifest, out: FindingCollector) -> None:
        if manifest.graph_package_id != f"{manifest.framework_id}@{manifest.snapshot_id}":
            out.add("identity_mismatch", "graphPackageId is not <frameworkId>@<snapshotId>", location=MANIFEST_FILENAME)
        if manifest.framework_id != location.framework_id:
            out.add(
                "identity_mismatch",
                f"frameworkId {manifest.framework_id!r} differs from its directory {location.framework_id!r}",
                location=MANIFEST_FILENAME,
            )
        if manifest.snapshot_id != location.snapshot_id:
            out.add(
                "identity_mismatch",
                f"snapshotId {manifest.snapshot_id!r} differs from its directory {location.snapshot_id!r}",
                location=MANIFEST_FILENAME,
            )
        if manifest.supersedes is not None:
            framework, _, snapshot = manifest.supersedes.partition("@")
            if framework != manifest.framework_id or identifier_problem(snapshot) or snapshot == manifest.snapshot_id:
                out.add(
                    "identity_mismatch",
                    "supersedes must name an earlier snapshot of the same framework",
                    location=MANIFEST_FILENAME,
                )

    def _check_profile(self, manifest: PackageManifest, out: FindingCollector) -> LoadedProfile | None:
        ref = manifest.profile
        try:
            loaded = self._profiles.load(ref.profile_id, ref.version)
        except KgfegmcpError as exc:
            out.add("profile_binding_mismatch", exc.message, location="profile")
            return None
        if loaded.sha256 != ref.sha256:
            out.add(
                "profile_binding_mismatch",
                f"profile {ref.profile_id}/{ref.version} has SHA-256 {loaded.sha256}, manifest binds {ref.sha256}",
                location="profile",
            )
            return None
        return loaded

    # -- delivery ----------------------------------------------------------------------------

    @staticmethod
    def _decode_delivery(reader: ArtifactReader, out: FindingCollector) -> tuple[DecodedPackage, bool]:
        content = DecodedPackage()
        clean = reader.available("nodes") and reader.available("relationships")
        decoders: tuple[tuple[str, Callable[[bytes, str, int], Any]], ...] = (
            ("nodes", decode_node),
            ("relationships", decode_relationship),
        )
        for logical_name, decode in decoders:
            if not reader.available(logical_name):
                continue
            for number, line in reader.lines(logical_name):
                try:
                    record = decode(line, logical_name, number)
                except (JsonlParsingError, DeliveryPropertyDecodingError) as exc:
                    clean = False
                    code = str(exc.details.get("findingCode", "invalid_json_line"))
                    out.add(code, exc.message, artifact=logical_name, location=line_location(number))
                    continue
                if isinstance(record, RelationshipRecord):
                    content.relationships.append(record)
                elif isinstance(record, ItemNode):
                    content.items.append(record)
                elif isinstance(record, ComponentNode):
                    content.components.append(record)
                elif content.framework is None:
                    content.framework = record
                else:
                    out.add(
                        "identity_mismatch",
                        "a package has exactly one StandardsFramework node",
                        artifact=logical_name,
                        location=line_location(number),
                    )
        if clean and content.framework is None:
            out.add("identity_mismatch", "no StandardsFramework node in the package", artifact="nodes")
        return content, clean

    @staticmethod
    def _read_report(reader: ArtifactReader, manifest: PackageManifest, out: FindingCollector) -> list[Finding]:
        if not reader.available("validationReport"):
            return []
        document = reader.document("validationReport")
        if document is None:
            return []
        try:
            report = ValidationReport.model_validate_json(json.dumps(document))
        except ValidationError as exc:
            out.add(
                "validation_state_mismatch",
                f"validation report is malformed: {exc.error_count()} errors",
                artifact="validationReport",
            )
            return []
        if report.graph_package_id != manifest.graph_package_id:
            out.add("identity_mismatch", "validation report names another package", artifact="validationReport")
        if report.status != manifest.validation.status:
            out.add(
                "validation_state_mismatch",
                f"report status {report.status!r} differs from manifest status {manifest.validation.status!r}",
                artifact="validationReport",
            )
        return [f for f in report.findings if f.stage == "build"]

    @staticmethod
    def _check_recorded_state(manifest: PackageManifest, out: FindingCollector) -> None:
        state = manifest.validation
        if state.status != "passed":
            return
        entry = manifest.artifact("validationReport")
        if entry is not None and state.report_sha256 != entry.sha256:
            out.add(
                "validation_state_mismatch",
                "reportSha256 differs from the validation report artifact",
                location=MANIFEST_FILENAME,
            )
        if state.seal_sha256 != seal_of(manifest):
            out.add(
                "validation_state_mismatch",
                "the manifest changed after it was validated (seal differs)",
                location=MANIFEST_FILENAME,
            )
