"""The package validation gate: decides, with findings, whether a package may be served.

One pass reads every declared artifact once, hashing and decoding it together. Semantic checks
run only on what decoded completely, so one corruption yields its own finding instead of a
cascade of consequences.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kgfegmcp.errors import DeliveryPropertyDecodingError, JsonlParsingError, KgfegmcpError
from kgfegmcp.identifiers import identifier_problem
from kgfegmcp.models import canonical_bytes, sha256_hex
from kgfegmcp.packages.decoder import decode_node, decode_relationship, iter_physical_lines
from kgfegmcp.packages.findings import Finding, Severity, ValidationReport
from kgfegmcp.packages.manifest import (
    MANIFEST_FILENAME,
    PART_ARTIFACTS,
    REQUIRED_ARTIFACTS,
    PackageManifest,
)
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    COMPONENT,
    HAS_CHILD,
    ITEM,
    PROGRESSION_LABELS,
    RELATES_TO,
    SUPPORTS,
    UNRESOLVED_STATUSES,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipLabel,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.packages.tree import PackageLocation, scan_package_tree
from kgfegmcp.profiles.model import FRAMEWORK_PARENT_TYPE, InterpretationProfile
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository

VALIDATOR_VERSION = "1.0.0"
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
MAX_FINDINGS_PER_CODE = 50


class FindingCollector:
    """Keeps the first findings of each code and counts the rest, so reports stay bounded."""

    def __init__(self, limit: int = MAX_FINDINGS_PER_CODE) -> None:
        self._limit = limit
        self.findings: list[Finding] = []
        self.omitted: Counter[str] = Counter()
        self._per_code: Counter[str] = Counter()

    def add(
        self,
        code: str,
        message: str,
        *,
        artifact: str | None = None,
        location: str | None = None,
        severity: Severity = "error",
    ) -> None:
        """Record one finding (or count it once the code's limit is reached)."""
        self._per_code[code] += 1
        if self._per_code[code] > self._limit:
            self.omitted[code] += 1
            return
        self.findings.append(
            Finding(code=code, severity=severity, artifact=artifact, location=location, message=message)
        )

    def extend(self, findings: Iterable[Finding]) -> None:
        """Adopt findings produced elsewhere (tree scan, discovery)."""
        for finding in findings:
            self._per_code[finding.code] += 1
            if self._per_code[finding.code] > self._limit:
                self.omitted[finding.code] += 1
            else:
                self.findings.append(finding)

    @property
    def error_count(self) -> int:
        """Errors kept plus errors omitted."""
        return sum(1 for f in self.findings if f.severity == "error") + sum(self.omitted.values())


@dataclass(slots=True)
class DecodedPackage:
    """Typed delivery content of one package, in file order."""

    framework: FrameworkNode | None = None
    items: list[ItemNode] = field(default_factory=list)
    components: list[ComponentNode] = field(default_factory=list)
    relationships: list[RelationshipRecord] = field(default_factory=list)


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


def _line(number: int) -> str:
    return f"line {number}"


class _ArtifactReader:
    """Reads each declared, present artifact once, verifying size and SHA-256 on the way."""

    def __init__(self, package_dir: Path, manifest: PackageManifest, present: set[str], out: FindingCollector):
        self._dir = package_dir
        self._manifest = manifest
        self._present = present
        self._out = out
        self._read: set[str] = set()

    def available(self, logical_name: str) -> bool:
        entry = self._manifest.artifact(logical_name)
        return entry is not None and entry.path in self._present

    def verify_remaining(self) -> None:
        """Hash every available artifact no check has read yet."""
        for entry in self._manifest.all_artifacts():
            if entry.logical_name not in self._read and self.available(entry.logical_name):
                self.raw(entry.logical_name)

    def _verify(self, logical_name: str, digest: str, size: int) -> None:
        self._read.add(logical_name)
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        if digest != entry.sha256 or size != entry.bytes:
            self._out.add(
                "checksum_mismatch",
                f"bytes differ from the manifest (declared {entry.bytes} bytes, found {size})",
                artifact=logical_name,
                location=entry.path,
            )

    def lines(self, logical_name: str) -> Iterator[tuple[int, bytes]]:
        """Stream lines of a JSONL artifact; the checksum is verified when the stream ends."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        hasher = hashlib.sha256()
        size = 0

        def sink(chunk: bytes) -> None:
            nonlocal size
            hasher.update(chunk)
            size += len(chunk)

        with (self._dir / entry.path).open("rb") as stream:
            yield from iter_physical_lines(stream, sink)
        self._verify(logical_name, hasher.hexdigest(), size)

    def document(self, logical_name: str) -> Any:
        """Read, verify and parse a JSON artifact; ``None`` (with a finding) when unparsable."""
        data = self.raw(logical_name)
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._out.add(
                "invalid_encoding",
                f"not a UTF-8 JSON document ({type(exc).__name__})",
                artifact=logical_name,
            )
            return None

    def raw(self, logical_name: str) -> bytes:
        """Read and verify an artifact's bytes."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        data = (self._dir / entry.path).read_bytes()
        self._verify(logical_name, hashlib.sha256(data).hexdigest(), len(data))
        return data


class PackageValidator:
    """Runs every check of the gate; never writes anything."""

    def __init__(self, profiles: ProfileRepository, max_findings_per_code: int = MAX_FINDINGS_PER_CODE):
        self._profiles = profiles
        self._limit = max_findings_per_code

    def validate(
        self, location: PackageLocation, prior_findings: Iterable[Finding] = (), *, recheck_semantics: bool = True
    ) -> ValidationOutcome:
        """Validate one package directory; the outcome carries findings and decoded content.

        ``recheck_semantics=False`` is for re-opening a package this validator version already passed:
        identity, tree, every byte (SHA-256), the profile binding, decoding and the recorded state are
        all checked again, but topology and detailed-artifact rules are not re-derived, because they
        are a deterministic function of exactly those verified bytes, profile and validator version.
        """
        out = FindingCollector(self._limit)
        out.extend(prior_findings)
        manifest = self._read_manifest(location, out)
        if manifest is None:
            return ValidationOutcome(location, None, None, out.findings, dict(out.omitted), None)
        self._check_identity(location, manifest, out)
        declared = {a.path: a.logical_name for a in manifest.all_artifacts()}
        for missing in sorted(set(REQUIRED_ARTIFACTS) - {a.logical_name for a in manifest.artifacts}):
            out.add("missing_artifact", "required logical artifact is not declared", artifact=missing)
        scan = scan_package_tree(location.path, declared)
        out.extend(scan.findings)
        reader = _ArtifactReader(location.path, manifest, scan.present, out)
        profile = self._check_profile(manifest, out)

        content, decoded_cleanly = self._decode_delivery(reader, out)
        build_findings = self._read_report(reader, manifest, out)
        if decoded_cleanly and recheck_semantics:
            checks = _SemanticChecks(manifest, profile.profile if profile else None, content, out)
            checks.run()
            _DetailedChecks(manifest, reader, content, out).run()
        reader.verify_remaining()
        self._check_recorded_state(manifest, out)
        findings = sorted(out.findings, key=Finding.sort_key)
        return ValidationOutcome(
            location, manifest, profile, findings, dict(sorted(out.omitted.items())), content, build_findings
        )

    # -- manifest, identity, profile -------------------------------------------------------

    @staticmethod
    def _read_manifest(location: PackageLocation, out: FindingCollector) -> PackageManifest | None:
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
            return PackageManifest.model_validate_json(data)
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
    def _decode_delivery(reader: _ArtifactReader, out: FindingCollector) -> tuple[DecodedPackage, bool]:
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
                    out.add(code, exc.message, artifact=logical_name, location=_line(number))
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
                        location=_line(number),
                    )
        if clean and content.framework is None:
            out.add("identity_mismatch", "no StandardsFramework node in the package", artifact="nodes")
        return content, clean

    @staticmethod
    def _read_report(reader: _ArtifactReader, manifest: PackageManifest, out: FindingCollector) -> list[Finding]:
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


class _SemanticChecks:
    """Identity, endpoint, hierarchy, component, progression, code and count rules."""

    def __init__(
        self,
        manifest: PackageManifest,
        profile: InterpretationProfile | None,
        content: DecodedPackage,
        out: FindingCollector,
    ) -> None:
        self.manifest = manifest
        self.profile = profile
        self.content = content
        self.out = out
        self.nodes: dict[str, NodeRecord] = {}

    def run(self) -> None:
        self._index_nodes()
        self._check_items()
        valid_edges = self._check_relationships()
        self._check_hierarchy(valid_edges)
        self._check_components(valid_edges)
        self._check_codes()
        self._check_counts()

    def _index_nodes(self) -> None:
        content = self.content
        all_nodes: list[NodeRecord] = []
        if content.framework is not None:
            all_nodes.append(content.framework)
        all_nodes.extend(content.items)
        all_nodes.extend(content.components)
        case_ids: set[str] = set()
        for node in all_nodes:
            if node.identifier in self.nodes:
                self.out.add(
                    "duplicate_identifier",
                    f"node identifier {node.identifier} repeats",
                    artifact="nodes",
                    location=node.identifier,
                )
                continue
            self.nodes[node.identifier] = node
            if isinstance(node, FrameworkNode | ItemNode):
                if node.case_identifier_uuid in case_ids:
                    self.out.add(
                        "duplicate_identifier",
                        f"caseIdentifierUUID {node.case_identifier_uuid} repeats",
                        artifact="nodes",
                        location=node.identifier,
                    )
                case_ids.add(node.case_identifier_uuid)
                if node.identifier != node.case_identifier_uuid:
                    self.out.add(
                        "identity_mismatch",
                        "a standards node's identifier must equal its caseIdentifierUUID",
                        artifact="nodes",
                        location=node.identifier,
                    )

    def _check_items(self) -> None:
        profile = self.profile
        if profile is None:
            return
        for item in self.content.items:
            rule = profile.statement_type(item.statement_type)
            if rule is None:
                self.out.add(
                    "unknown_statement_type",
                    f"statement type {item.statement_type!r} is not in the profile",
                    artifact="nodes",
                    location=item.identifier,
                )
            elif item.normalized_statement_type is not None and item.normalized_statement_type != rule.normalized:
                self.out.add(
                    "unknown_statement_type",
                    f"normalizedStatementType {item.normalized_statement_type!r} differs from the profile's "
                    f"{rule.normalized!r}",
                    artifact="nodes",
                    location=item.identifier,
                )
            for grade in item.grade_level:
                if profile.grade_label(grade) is None:
                    self.out.add(
                        "unknown_grade_label",
                        f"grade label {grade!r} is not in the profile",
                        artifact="nodes",
                        location=item.identifier,
                    )

    def _check_relationships(self) -> list[RelationshipRecord]:
        """Check every relationship; return the ones whose endpoints resolved correctly."""
        valid: list[RelationshipRecord] = []
        seen_ids: set[str] = set()
        seen_edges: set[tuple[str, str, str]] = set()
        allowed_links = set(self.profile.progression_labels) if self.profile else set(PROGRESSION_LABELS)
        for rel in self.content.relationships:
            where = rel.identifier
            if rel.identifier in seen_ids or rel.identifier in self.nodes:
                self.out.add(
                    "duplicate_identifier",
                    f"relationship identifier {rel.identifier} repeats",
                    artifact="relationships",
                    location=where,
                )
                continue
            seen_ids.add(rel.identifier)
            edge = (rel.label, rel.source_identifier, rel.target_identifier)
            if edge in seen_edges:
                self.out.add(
                    "duplicate_identifier",
                    f"{rel.label} edge between the same endpoints repeats",
                    artifact="relationships",
                    location=where,
                )
                continue
            seen_edges.add(edge)
            if rel.unresolved_status is not None and rel.unresolved_status not in UNRESOLVED_STATUSES:
                self.out.add(
                    "unresolved_without_status",
                    f"unresolvedStatus {rel.unresolved_status!r} is not a supported status",
                    artifact="relationships",
                    location=where,
                )
            if not self._endpoints_agree(rel):
                continue
            source = self.nodes[rel.source_identifier].label
            target = self.nodes[rel.target_identifier].label
            if rel.label == HAS_CHILD:
                if COMPONENT in (source, target):
                    self.out.add(
                        "component_in_hierarchy",
                        "a learning component appears in hasChild",
                        artifact="relationships",
                        location=where,
                    )
                    continue
                if target != ITEM:
                    self.out.add(
                        "hierarchy_edge_type",
                        "hasChild must point at a StandardsFrameworkItem",
                        artifact="relationships",
                        location=where,
                    )
                    continue
            elif rel.label == SUPPORTS:
                if source != COMPONENT or target != ITEM:
                    self.out.add(
                        "supports_direction",
                        "supports must run from a LearningComponent to an item",
                        artifact="relationships",
                        location=where,
                    )
                    continue
            else:
                if source != ITEM or target != ITEM or rel.source_identifier == rel.target_identifier:
                    self.out.add(
                        "progression_endpoint",
                        f"{rel.label} must join two distinct items of this package",
                        artifact="relationships",
                        location=where,
                    )
                    continue
                if rel.label not in allowed_links:
                    self.out.add(
                        "progression_endpoint",
                        f"the profile does not declare {rel.label} links",
                        artifact="relationships",
                        location=where,
                    )
                    continue
            if rel.support_confidence is not None and rel.label != SUPPORTS:
                self.out.add(
                    "invalid_encoding",
                    "supportConfidence belongs only to supports",
                    artifact="relationships",
                    location=where,
                )
            valid.append(rel)
        return valid

    def _endpoints_agree(self, rel: RelationshipRecord) -> bool:
        ok = True
        for side, identifier, label, key in (
            ("source", rel.source_identifier, rel.source_label, rel.source_entity_key),
            ("target", rel.target_identifier, rel.target_label, rel.target_entity_key),
        ):
            node = self.nodes.get(identifier)
            if node is None:
                self.out.add(
                    "dangling_endpoint",
                    f"{side} {identifier} is not a node of this package",
                    artifact="relationships",
                    location=rel.identifier,
                )
                ok = False
            elif node.label != label or key != entity_key_for(node.label):
                self.out.add(
                    "endpoint_key_mismatch",
                    f"{side} is a {node.label} (referenced by {entity_key_for(node.label)}), "
                    f"but the record says {label} by {key}",
                    artifact="relationships",
                    location=rel.identifier,
                )
                ok = False
        return ok

    def _check_hierarchy(self, edges: list[RelationshipRecord]) -> None:
        framework = self.content.framework
        if framework is None:
            return
        children: dict[str, list[str]] = defaultdict(list)
        parents: dict[str, list[str]] = defaultdict(list)
        for rel in edges:
            if rel.label == HAS_CHILD:
                children[rel.source_identifier].append(rel.target_identifier)
                parents[rel.target_identifier].append(rel.source_identifier)
        rules = self.profile.hierarchy if self.profile else None
        allowed = (
            {(e.parent_type, e.child_type) for e in rules.allowed_edges}
            if rules is not None and rules.allowed_edges is not None
            else None
        )
        for item in self.content.items:
            item_parents = parents.get(item.identifier, [])
            if not item_parents:
                self.out.add(
                    "parent_cardinality",
                    "item has no hasChild parent",
                    artifact="relationships",
                    location=item.identifier,
                )
            elif rules is not None and len(item_parents) > rules.max_parents:
                self.out.add(
                    "parent_cardinality",
                    f"item has {len(item_parents)} parents; the profile's {rules.rule} allows {rules.max_parents}",
                    artifact="relationships",
                    location=item.identifier,
                )
            if allowed is not None:
                for parent_id in item_parents:
                    parent = self.nodes[parent_id]
                    parent_type = parent.statement_type if isinstance(parent, ItemNode) else FRAMEWORK_PARENT_TYPE
                    if (parent_type, item.statement_type) not in allowed:
                        self.out.add(
                            "hierarchy_edge_type",
                            f"{parent_type!r} → {item.statement_type!r} is not an allowed hasChild pair",
                            artifact="relationships",
                            location=item.identifier,
                        )
        # Kahn's algorithm from the root: whatever is never released sits on or below a cycle.
        indegree = {node_id: len(p) for node_id, p in parents.items()}
        depth: dict[str, int] = {framework.identifier: 0}
        queue = deque([framework.identifier])
        released = 0
        while queue:
            node_id = queue.popleft()
            released += 1
            for child in children.get(node_id, ()):
                depth[child] = max(depth.get(child, 0), depth[node_id] + 1)
                indegree[child] -= 1
                if indegree[child] == 0:
                    queue.append(child)
        stuck = sorted(n for n, d in indegree.items() if d > 0)
        if stuck:
            self.out.add(
                "hierarchy_cycle",
                f"{len(stuck)} items sit on or below a hasChild cycle",
                artifact="relationships",
                location=stuck[0],
            )
        if rules is not None:
            deepest = max(depth.values())
            if deepest > rules.max_depth:
                too_deep = sorted(n for n, d in depth.items() if d > rules.max_depth)
                self.out.add(
                    "depth_exceeded",
                    f"hierarchy depth {deepest} exceeds the profile's maximum {rules.max_depth}",
                    artifact="relationships",
                    location=too_deep[0],
                )

    def _check_components(self, edges: list[RelationshipRecord]) -> None:
        supported = {rel.source_identifier for rel in edges if rel.label == SUPPORTS}
        for component in self.content.components:
            if component.identifier not in supported:
                self.out.add(
                    "unsupported_component",
                    "no supports relationship starts at this component",
                    artifact="relationships",
                    location=component.identifier,
                )

    def _check_codes(self) -> None:
        if self.profile is None:
            return
        policy = self.profile.code_policy
        pattern = re.compile(policy.pattern) if policy.pattern else None
        seen: dict[str, str] = {}
        for item in self.content.items:
            code = item.statement_code
            rule = self.profile.statement_type(item.statement_type)
            if code is None:
                if policy.codes_present == "allStandards" and rule is not None and rule.role == "standard":
                    self.out.add(
                        "code_policy_violation",
                        "the profile requires a code on every standard",
                        artifact="nodes",
                        location=item.identifier,
                    )
                continue
            if policy.codes_present == "none":
                self.out.add(
                    "code_policy_violation",
                    "the profile declares that items carry no codes",
                    artifact="nodes",
                    location=item.identifier,
                )
                continue
            if pattern is not None and pattern.fullmatch(code) is None:
                self.out.add(
                    "code_policy_violation",
                    f"code {code!r} does not match the profile's pattern",
                    artifact="nodes",
                    location=item.identifier,
                )
            key = code.casefold() if policy.normalization == "casefold" else code
            if policy.unique and key in seen:
                self.out.add(
                    "code_policy_violation",
                    f"code {code!r} repeats but the profile says codes are unique",
                    artifact="nodes",
                    location=item.identifier,
                )
            seen.setdefault(key, item.identifier)

    def _check_counts(self) -> None:
        content, declared = self.content, self.manifest.counts
        by_label = Counter(rel.label for rel in content.relationships)
        by_type = Counter(item.statement_type for item in content.items)
        roles = (
            Counter(
                (rule.role if (rule := self.profile.statement_type(t)) else "unknown")
                for t in (item.statement_type for item in content.items)
            )
            if self.profile
            else None
        )
        actual: list[tuple[str, object, object]] = [
            ("standards.frameworks", declared.standards.frameworks, 1 if content.framework else 0),
            ("standards.items", declared.standards.items, len(content.items)),
            (
                "standards.itemsByStatementType",
                declared.standards.items_by_statement_type,
                dict(sorted(by_type.items())),
            ),
            (
                "standards.itemsWithCode",
                declared.standards.items_with_code,
                sum(1 for i in content.items if i.statement_code is not None),
            ),
            ("learningComponents.components", declared.learning_components.components, len(content.components)),
            ("relationships.hasChild", declared.relationships.has_child, by_label[HAS_CHILD]),
            ("relationships.supports", declared.relationships.supports, by_label[SUPPORTS]),
            ("relationships.buildsTowards", declared.relationships.builds_towards, by_label[BUILDS_TOWARDS]),
            ("relationships.relatesTo", declared.relationships.relates_to, by_label[RELATES_TO]),
        ]
        if roles is not None:
            actual.append(("standards.standards", declared.standards.standards, roles["standard"]))
            actual.append(("standards.groupings", declared.standards.groupings, roles["grouping"]))
        for name, expected, found in actual:
            if expected != found:
                self.out.add(
                    "count_mismatch",
                    f"counts.{name} declares {expected}, the package has {found}",
                    location=MANIFEST_FILENAME,
                )
        self._check_capabilities(by_label)

    def _check_capabilities(self, by_label: Counter[RelationshipLabel]) -> None:
        caps, content = self.manifest.capabilities, self.content
        links = by_label[BUILDS_TOWARDS] + by_label[RELATES_TO]
        has_codes = any(i.statement_code is not None for i in content.items)
        policy = self.profile.code_policy if self.profile else None
        problems = []
        if caps.learning_components != bool(content.components):
            problems.append("learningComponents must be true exactly when the package has components")
        if caps.learning_progressions != bool(links):
            problems.append("learningProgressions must be true exactly when the package has progression links")
        if caps.text_search and not content.items:
            problems.append("textSearch needs items")
        if caps.exact_code_search and not (has_codes and (policy is None or policy.exact_search)):
            problems.append("exactCodeSearch needs codes and a profile that allows it")
        if caps.prefix_code_search and not (caps.exact_code_search and (policy is None or policy.prefix_search)):
            problems.append("prefixCodeSearch needs exactCodeSearch and a profile that allows it")
        contains = ["AcademicStandards"]
        if content.components:
            contains.append("LearningComponents")
        if links:
            contains.append("LearningProgressions")
        if list(self.manifest.graph_types.contains) != contains:
            problems.append(f"graphTypes.contains must be {contains}")
        for problem in problems:
            self.out.add("capability_mismatch", problem, location=MANIFEST_FILENAME)


class _DetailedChecks:
    """Detailed artifacts must agree with the delivery records they elaborate."""

    def __init__(
        self, manifest: PackageManifest, reader: _ArtifactReader, content: DecodedPackage, out: FindingCollector
    ) -> None:
        self.manifest = manifest
        self.reader = reader
        self.content = content
        self.out = out

    def run(self) -> None:
        self._check_framework_document()
        self._check_item_lines()
        self._check_has_child_lines()
        self._check_bundle()
        self._check_unresolved()
        self._check_provenance()

    def _document(self, logical_name: str) -> dict[str, Any] | None:
        if not self.reader.available(logical_name):
            return None
        document = self.reader.document(logical_name)
        if document is None:
            return None
        if not isinstance(document, dict):
            self.out.add("detailed_artifact_mismatch", "expected a JSON object", artifact=logical_name)
            return None
        if document.get("graphPackageId") != self.manifest.graph_package_id:
            self.out.add("identity_mismatch", "graphPackageId differs from the manifest", artifact=logical_name)
        return document

    def _mismatch(self, logical_name: str, message: str, location: str | None = None) -> None:
        self.out.add("detailed_artifact_mismatch", message, artifact=logical_name, location=location)

    def _check_framework_document(self) -> None:
        document = self._document("standardsFramework")
        framework = self.content.framework
        if (
            document is not None
            and framework is not None
            and document.get("framework", {}).get("caseIdentifierUUID") != framework.case_identifier_uuid
        ):
            self._mismatch("standardsFramework", "framework caseIdentifierUUID differs from the nodes artifact")

    def _jsonl_ids(self, logical_name: str, key: str) -> list[str] | None:
        if not self.reader.available(logical_name):
            return None
        ids = []
        for number, line in self.reader.lines(logical_name):
            try:
                record = json.loads(line)
                ids.append(str(record[key]))
            except (ValueError, KeyError, TypeError):
                self.out.add(
                    "invalid_json_line", f"not a JSON object with {key}", artifact=logical_name, location=_line(number)
                )
                return None
        return ids

    def _check_item_lines(self) -> None:
        ids = self._jsonl_ids("standardsFrameworkItems", "caseIdentifierUUID")
        if ids is not None and ids != [item.case_identifier_uuid for item in self.content.items]:
            self._mismatch("standardsFrameworkItems", "items differ from the nodes artifact (ids or order)")

    def _check_has_child_lines(self) -> None:
        ids = self._jsonl_ids("relationshipsHasChild", "identifier")
        expected = [rel.identifier for rel in self.content.relationships if rel.label == HAS_CHILD]
        if ids is not None and ids != expected:
            self._mismatch("relationshipsHasChild", "hasChild records differ from the relationships artifact")

    def _check_bundle(self) -> None:
        document = self._document("academicStandardsBundle")
        if document is None:
            return
        items = document.get("items")
        if not isinstance(items, list) or [i.get("caseIdentifierUUID") for i in items if isinstance(i, dict)] != [
            item.case_identifier_uuid for item in self.content.items
        ]:
            self._mismatch("academicStandardsBundle", "bundle items differ from the nodes artifact")

    def _check_unresolved(self) -> None:
        document = self._document("unresolvedItems")
        if document is None:
            return
        entries = document.get("items")
        if not isinstance(entries, list):
            self._mismatch("unresolvedItems", "items must be a JSON array")
            return
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            where = f"items[{index}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("unresolvedId"), str):
                self._mismatch("unresolvedItems", "each entry is an object with an unresolvedId", where)
                continue
            if entry["unresolvedId"] in seen:
                self.out.add("duplicate_identifier", "unresolvedId repeats", artifact="unresolvedItems", location=where)
            seen.add(entry["unresolvedId"])
            if entry.get("status") not in UNRESOLVED_STATUSES:
                self.out.add(
                    "unresolved_without_status",
                    "unresolved entry lacks a supported status",
                    artifact="unresolvedItems",
                    location=entry["unresolvedId"],
                )
        if len(entries) != self.manifest.counts.unresolved_items:
            self.out.add(
                "count_mismatch",
                f"counts.unresolvedItems declares {self.manifest.counts.unresolved_items}, "
                f"the artifact has {len(entries)}",
                location=MANIFEST_FILENAME,
            )

    def _check_provenance(self) -> None:
        document = self._document("entityProvenance")
        if document is None:
            return
        entities = document.get("entities")
        if not isinstance(entities, dict):
            self.out.add("provenance_mismatch", "entities must be a JSON object", artifact="entityProvenance")
            return
        known = [self.content.framework.identifier] if self.content.framework else []
        known += [n.identifier for n in self.content.items]
        known += [n.identifier for n in self.content.components]
        known += [r.identifier for r in self.content.relationships]
        if self.manifest.capabilities.has_detailed_provenance:
            missing = [entity for entity in known if entity not in entities]
            if missing:
                self.out.add(
                    "provenance_mismatch",
                    f"{len(missing)} entities have no provenance",
                    artifact="entityProvenance",
                    location=missing[0],
                )
        unknown = sorted(set(entities) - set(known))
        if unknown:
            self.out.add(
                "provenance_mismatch",
                f"{len(unknown)} provenance entries name no entity",
                artifact="entityProvenance",
                location=unknown[0],
            )
        if len(entities) != self.manifest.counts.provenance_entities:
            self.out.add(
                "count_mismatch",
                f"counts.provenanceEntities declares {self.manifest.counts.provenance_entities}, "
                f"the artifact has {len(entities)}",
                location=MANIFEST_FILENAME,
            )
        expected_parts: list[dict[str, Any]] = [{} for _ in PART_ARTIFACTS]
        for entity_id, record in entities.items():
            expected_parts[provenance_part_of(entity_id)][entity_id] = record
        for index, logical_name in enumerate(PART_ARTIFACTS):
            part = self._document(logical_name)
            if part is None:
                continue
            if part.get("part") != index or part.get("entities") != expected_parts[index]:
                self.out.add(
                    "provenance_mismatch",
                    "part differs from the entities entityProvenance assigns it",
                    artifact=logical_name,
                )
