"""The package writer: the single place that writes graph packages.

Builders hand it typed content; it produces deterministic bytes (sorted keys, stable order,
``\\n`` line ends), checksums, counts, the 64 checked provenance parts and a pending manifest.
Validation outcomes are recorded through it too, so checksums are refreshed in one place.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError, filesystem_error
from kgfegmcp.core.finding_codes import FindingCode, require_declared
from kgfegmcp.core.identifiers import InvalidIdentifier, check_identifier, graph_package_id
from kgfegmcp.core.models import canonical_bytes, canonical_json, pretty_json_bytes, sha256_hex
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.artifact_roles import PROVENANCE_PARTS, declared_roles, provenance_part_name
from kgfegmcp.packages.encoder import node_wire, relationship_wire, typed_fields
from kgfegmcp.packages.findings import Finding, ValidationReport, summarize
from kgfegmcp.packages.framework_origin import refuse_other_document
from kgfegmcp.packages.lc_artifacts import (
    NORMALIZATION,
    ComponentProduction,
    DedupGroups,
    GenerationCounts,
    GenerationSummary,
    dedup_groups,
)
from kgfegmcp.packages.manifest import (
    DELIVERY_SCHEMA_VERSION,
    MANIFEST_FILENAME,
    MANIFEST_SCHEMA_VERSION,
    ArtifactEntry,
    Capabilities,
    GraphType,
    GraphTypes,
    LearningComponentCounts,
    PackageCounts,
    PackageManifest,
    RelationshipCounts,
    SourceInfo,
    StandardsCounts,
    ValidationState,
    ValidationStatus,
)
from kgfegmcp.packages.package_lock import package_lock
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.record_spool import RecordSpool, SpooledList
from kgfegmcp.packages.recording import RECORDED_REPORTS, TerminalStateRecording
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    HAS_CHILD,
    RELATES_TO,
    RELATIONSHIP_LABELS,
    SUPPORTS,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    RelationshipRecord,
)
from kgfegmcp.packages.staging import Staging, Written, remove_empty, replace_directory
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import ValidationOutcome, seal_of
from kgfegmcp.profiles.repository import LoadedProfile


@dataclass(frozen=True, slots=True)
class PackageContent:
    """Everything a builder supplies; the writer derives the rest."""

    framework_id: str
    snapshot_id: str
    title: str
    subject_slug: str
    profile: LoadedProfile
    rights: RightsPolicy
    source: SourceInfo
    framework: FrameworkNode
    items: Sequence[ItemNode]
    components: Sequence[ComponentNode] = ()
    relationships: Sequence[RelationshipRecord] = ()
    provenance: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    unresolved: Sequence[Mapping[str, Any]] = ()
    item_details: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    build_findings: Sequence[Finding] = ()
    component_production: ComponentProduction | None = None
    is_current: bool = True
    supersedes: str | None = None


#: The codes a package build may record in its report (the source adapters of kgfegmcp.sources emit them).
BUILD_FINDING_CODES: tuple[FindingCode, ...] = (
    FindingCode.SOURCE_TEXT_DIFFERENCE,
    FindingCode.SOURCE_MAPPING_GAP,
    FindingCode.SOURCE_VARIANT_ACCEPTED,
    FindingCode.SOURCE_CODE_OUTSIDE_PARENT,
    FindingCode.SOURCE_CODE_GAP,
    FindingCode.SOURCE_CODE_REPEATED,
    FindingCode.SOURCE_COUNTS,
    FindingCode.PROFILE_DERIVED,
    FindingCode.UNSAFE_TEXT,
)


#: Small learning-component documents people read: indented, like the validation report.
_PRETTY = frozenset({"lcGenerationSummary", "lcValidationReport"})


def _document(value: Mapping[str, Any]) -> bytes:
    """Large detailed documents: canonical compact JSON (C encoder) plus a final newline."""
    return canonical_bytes(value) + b"\n"


def _line(record: Mapping[str, Any]) -> bytes:
    """One JSONL line: the record's canonical JSON and a newline."""
    return canonical_bytes(record) + b"\n"


def _unresolved_bodies(entries: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """The canonical JSON of each unresolved entry, in order (read back from the builder's spool when spooled)."""
    if isinstance(entries, SpooledList):
        return entries.spool.in_order_added()
    return (canonical_json(dict(entry)) for entry in entries)


def _ordered_relationships(relationships: Sequence[RelationshipRecord]) -> list[RelationshipRecord]:
    """hasChild, supports, buildsTowards, relatesTo; builder order within each label."""
    rank = {label: index for index, label in enumerate(RELATIONSHIP_LABELS)}
    return sorted(relationships, key=lambda r: rank[r.label])


class PackageWriter:
    """Writes pending packages and records validation outcomes."""

    def write_pending(self, content: PackageContent, root: Path, created: list[Path] | None = None) -> PackageLocation:
        """Write ``content`` as a pending package under ``root``; replaces an existing snapshot of the same document.

        ``manifest_build_error`` when ``root`` holds the framework id built from another source document
        (:func:`~kgfegmcp.packages.framework_origin.refuse_other_document`).

        ``created`` is told every directory above the package that this call created (for
        :class:`PackageBatch`); on failure, this call removes them itself.
        """
        try:
            package_id = graph_package_id(content.framework_id, content.snapshot_id)
            check_identifier(content.subject_slug, "subject slug")
        except InvalidIdentifier as exc:
            raise ManifestBuildError(f"Cannot build a package: {exc}") from None
        for finding in content.build_findings:
            require_declared(finding.code, BUILD_FINDING_CODES, "a package build")
        refuse_other_document(root, content.framework_id, content.snapshot_id, content.framework)

        def fill(staging: Path) -> None:
            written = self._write_artifacts(content, package_id, staging)
            manifest = self._manifest(content, package_id, written)
            (staging / MANIFEST_FILENAME).write_bytes(pretty_json_bytes(manifest.to_wire()))

        target = root / content.framework_id / content.snapshot_id
        try:
            replace_directory(target, fill, created)
        except OSError as exc:
            raise filesystem_error(
                exc, f"Could not write the package {package_id} under {root} (nothing of it was left there)"
            ) from None
        return PackageLocation(content.framework_id, content.snapshot_id, target)

    def record_validation(self, outcome: ValidationOutcome, status: ValidationStatus) -> str:
        """Write the reports of ``outcome`` and the terminal ``status`` into the package; the SHA-256 of the
        manifest bytes written (what a later reader can compare to know it reads this recording)."""
        manifest = outcome.manifest
        if manifest is None or status == "pending":
            raise ManifestBuildError("Only a readable manifest can record a terminal validation state.")
        if manifest.shape != "1.0":
            raise ManifestBuildError("A supplied package is never written to: its pipeline recorded its state.")
        report = outcome.report(status)
        reports = {"validationReport": report, "lcValidationReport": outcome.component_report(status)}
        written: dict[str, bytes] = {}
        refreshed: dict[str, ArtifactEntry] = {}
        for role in RECORDED_REPORTS:
            entry = manifest.artifact(role)
            if entry is None:
                if role == "validationReport":
                    raise ManifestBuildError("The manifest declares no validationReport artifact.")
                continue
            data = pretty_json_bytes(reports[role].to_wire())
            written[entry.path] = data
            refreshed[role] = entry.model_copy(update={"sha256": sha256_hex(data), "bytes": len(data)})
        artifacts = tuple(refreshed.get(a.logical_name, a) for a in manifest.artifacts)
        unsealed = manifest.model_copy(update={"artifacts": artifacts})
        state = ValidationState(
            status=status,
            validator_version=report.validator_version,
            report_sha256=refreshed["validationReport"].sha256,
            seal_sha256=seal_of(unsealed),
            findings=summarize(report.findings, report.omitted_findings),
        )
        final = unsealed.model_copy(update={"validation": state})
        recording = TerminalStateRecording(outcome.location.path, tuple(written))
        manifest_bytes = pretty_json_bytes(final.to_wire())
        try:
            recording.commit(written, manifest_bytes)
        except OSError as exc:
            kept = manifest.validation.status
            action = (
                f"Could not record {outcome.graph_package_id} {status} in {outcome.location.path} (it is still {kept})"
            )
            raise filesystem_error(exc, action) from None
        return sha256_hex(manifest_bytes)

    # -- artifact bytes ------------------------------------------------------------------------

    def _write_artifacts(self, content: PackageContent, package_id: str, staging: Path) -> dict[str, Written]:
        """Write every artifact into ``staging``, each streamed as it is produced; logical name → what was written,
        in the order of the roles a package declares.

        Nothing large is held whole: lines are written as they are encoded, the bundle is assembled
        from the JSONL artifacts just written, and provenance comes back from its spool in id order,
        each record going to ``entityProvenance`` and to its part in the same pass.
        """
        out = Staging(staging, content.subject_slug)
        relationships = _ordered_relationships(content.relationships)
        parents: dict[str, list[str]] = {}
        for rel in relationships:
            if rel.label == HAS_CHILD:
                parents.setdefault(rel.target_identifier, []).append(rel.source_identifier)
        with out.stream("nodes") as nodes:
            nodes.write(_line(node_wire(content.framework)))
            for item in content.items:
                nodes.write(_line(node_wire(item)))
            for component in content.components:
                nodes.write(_line(node_wire(component)))
        with out.stream("relationships") as lines:
            for rel in relationships:
                lines.write(_line(relationship_wire(rel)))
        with out.stream("relationshipsHasChild") as lines:
            for rel in relationships:
                if rel.label == HAS_CHILD:
                    lines.write(_line(relationship_wire(rel)))
        framework = typed_fields(content.framework)
        out.document("standardsFramework", _document({"graphPackageId": package_id, "framework": framework}))
        with out.stream("standardsFrameworkItems") as lines:
            for item in content.items:
                record = typed_fields(item)
                record["parentIdentifiers"] = parents.get(item.identifier, [])
                details = content.item_details.get(item.identifier)
                if details is not None:
                    record["sourceDetails"] = dict(details)
                lines.write(_line(record))
        with out.stream("academicStandardsBundle") as bundle:
            # The canonical JSON of {framework, graphPackageId, hasChild, items}: the arrays are the JSONL lines.
            bundle.write(b'{"framework":' + canonical_bytes(framework))
            bundle.write(b',"graphPackageId":' + canonical_bytes(package_id) + b',"hasChild":[')
            bundle.write_joined(out.lines("relationshipsHasChild"))
            bundle.write(b'],"items":[')
            bundle.write_joined(out.lines("standardsFrameworkItems"))
            bundle.write(b"]}\n")
        components = self._write_provenance(content, package_id, out)
        with out.stream("unresolvedItems") as unresolved:
            unresolved.write(b'{"graphPackageId":' + canonical_bytes(package_id) + b',"items":[')
            unresolved.write_joined(body.encode("utf-8") for body in _unresolved_bodies(content.unresolved))
            unresolved.write(b"]}\n")
        report = ValidationReport(
            graph_package_id=package_id,
            status="pending",
            findings=tuple(
                sorted((f.model_copy(update={"stage": "build"}) for f in content.build_findings), key=Finding.sort_key)
            ),
        )
        out.document("validationReport", pretty_json_bytes(report.to_wire()))
        if content.components:
            for name, data in self._component_files(content, package_id, relationships, components).items():
                out.document(name, data)
        return {role.logical_name: out.written[role.logical_name] for role in declared_roles(len(content.components))}

    @staticmethod
    def _write_provenance(content: PackageContent, package_id: str, out: Staging) -> dict[str, dict[str, Any]]:
        """``entityProvenance`` and its 64 parts in one pass over the records in id order; the components' records.

        The parts index both provenance documents, so components are in the parts but not in
        ``entityProvenance`` (their records go to the learning-component collection).
        """
        component_ids = {c.identifier for c in content.components}
        components: dict[str, dict[str, Any]] = {}
        tail = b',"graphPackageId":' + canonical_bytes(package_id)
        with contextlib.ExitStack() as streams:
            entities = streams.enter_context(out.stream("entityProvenance"))
            entities.write(b'{"entities":{')
            parts = []
            for index in range(PROVENANCE_PARTS):
                part = streams.enter_context(out.stream(provenance_part_name(index), buffer=64 * 1024))
                part.write(b'{"entities":{')
                parts.append(part)
            for key, body in RecordSpool.of(content.provenance).by_key():
                member = canonical_bytes(key) + b":" + body.encode("utf-8")
                if key in component_ids:
                    components[key] = json.loads(body)
                else:
                    entities.write_member(member)
                parts[provenance_part_of(key)].write_member(member)
            entities.write(b"}" + tail + b"}\n")
            for index, part in enumerate(parts):
                part.write(b"}" + tail + b',"part":' + str(index).encode("ascii") + b"}\n")
        return components

    @staticmethod
    def _component_files(
        content: PackageContent,
        package_id: str,
        relationships: Sequence[RelationshipRecord],
        provenance: Mapping[str, dict[str, Any]],
    ) -> dict[str, bytes]:
        """The learning-component collection: bundle, dedup groups, provenance, generation summary, report."""
        production = content.component_production
        if production is None:
            raise ManifestBuildError(f"{package_id} has learning components but declares no componentProduction.")
        supports = [r for r in relationships if r.label == SUPPORTS]
        groups = dedup_groups((c.identifier, c.description) for c in content.components)
        summary = GenerationSummary(
            graph_package_id=package_id,
            **production.model_dump(),
            counts=GenerationCounts(
                components=len(content.components),
                supports=len(supports),
                supported_items=len({r.target_identifier for r in supports}),
                dedup_groups=len(groups),
                components_in_dedup_groups=sum(len(g.component_identifiers) for g in groups),
            ),
        )
        component_ids = [c.identifier for c in content.components]
        documents: dict[str, Any] = {
            "learningComponentBundle": {
                "graphPackageId": package_id,
                "components": [typed_fields(c) for c in content.components],
                "supports": [relationship_wire(r) for r in supports],
            },
            "lcDedupGroups": DedupGroups(
                graph_package_id=package_id, normalization=NORMALIZATION, groups=tuple(groups)
            ).to_wire(),
            "lcEntityProvenance": {
                "graphPackageId": package_id,
                "entities": {key: provenance[key] for key in sorted(component_ids) if key in provenance},
            },
            "lcGenerationSummary": summary.to_wire(),
            "lcValidationReport": ValidationReport(
                graph_package_id=package_id, status="pending", findings=()
            ).to_wire(),
        }
        return {name: pretty_json_bytes(doc) if name in _PRETTY else _document(doc) for name, doc in documents.items()}

    def _manifest(self, content: PackageContent, package_id: str, written: Mapping[str, Written]) -> PackageManifest:
        profile = content.profile.profile
        by_label = Counter(r.label for r in content.relationships)
        by_type = Counter(i.statement_type for i in content.items)
        roles = Counter(
            rule.role if (rule := profile.statement_type(i.statement_type)) else "unknown" for i in content.items
        )
        has_codes = any(i.statement_code is not None for i in content.items)
        links = by_label[BUILDS_TOWARDS] + by_label[RELATES_TO]
        exact = has_codes and profile.code_policy.exact_search
        contains: list[GraphType] = ["AcademicStandards"]
        if content.components:
            contains.append("LearningComponents")
        if links:
            contains.append("LearningProgressions")
        try:
            return PackageManifest(
                manifest_schema_version=MANIFEST_SCHEMA_VERSION,
                graph_package_id=package_id,
                framework_id=content.framework_id,
                snapshot_id=content.snapshot_id,
                title=content.title,
                delivery_schema_version=DELIVERY_SCHEMA_VERSION,
                profile=content.profile.ref,
                artifacts=tuple(
                    ArtifactEntry(
                        logical_name=name, path=w.path, sha256=w.sha256, bytes=w.size, media_type=w.media_type
                    )
                    for name, w in written.items()
                ),
                counts=PackageCounts(
                    standards=StandardsCounts(
                        frameworks=1,
                        items=len(content.items),
                        standards=roles["standard"],
                        groupings=roles["grouping"],
                        items_by_statement_type=dict(sorted(by_type.items())),
                        items_with_code=sum(1 for i in content.items if i.statement_code is not None),
                    ),
                    learning_components=LearningComponentCounts(components=len(content.components)),
                    relationships=RelationshipCounts(
                        has_child=by_label[HAS_CHILD],
                        supports=by_label[SUPPORTS],
                        builds_towards=by_label[BUILDS_TOWARDS],
                        relates_to=by_label[RELATES_TO],
                    ),
                    unresolved_items=len(content.unresolved),
                    provenance_entities=len(content.provenance),
                ),
                capabilities=Capabilities(
                    text_search=bool(content.items),
                    exact_code_search=exact,
                    prefix_code_search=exact and profile.code_policy.prefix_search,
                    learning_components=bool(content.components),
                    learning_progressions=bool(links),
                    has_detailed_provenance=bool(content.provenance),
                ),
                graph_types=GraphTypes(filed_as="AcademicStandards", contains=tuple(contains)),
                rights=content.rights,
                source=content.source,
                is_current=content.is_current,
                supersedes=content.supersedes,
                validation=ValidationState(status="pending"),
            )
        except ValueError as exc:
            raise ManifestBuildError(f"Cannot build the manifest of {package_id}: {exc}") from None


class PackageBatch:
    """The packages one command writes: they all stay, or, if the command fails, those it created go again.

    ``with PackageBatch(root) as batch: batch.write(content)`` for each package, then whatever else
    the command does with them (``catalog init`` validates them). Should anything in the block fail,
    the packages the batch created are removed, with every directory it created for them, and the
    failure goes on. A package it replaced keeps its new, complete bytes (the old ones are gone by
    then), pending like any freshly written package.
    """

    def __init__(self, root: Path, writer: PackageWriter | None = None) -> None:
        self.root = root
        self._writer = writer or PackageWriter()
        self._created: list[Path] = []  # new packages and the directories above them, outermost first

    def write(self, content: PackageContent) -> PackageLocation:
        """Write one pending package (see :meth:`PackageWriter.write_pending`)."""
        target = self.root / content.framework_id / content.snapshot_id
        existed = target.exists() or target.is_symlink()
        location = self._writer.write_pending(content, self.root, self._created)
        if not existed:
            self._created.append(location.path)
        return location

    def __enter__(self) -> PackageBatch:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            return
        for path in reversed(self._created):
            if path.is_dir() and not path.is_symlink() and (path / MANIFEST_FILENAME).exists():
                with package_lock(path):
                    shutil.rmtree(path, ignore_errors=True)
        remove_empty(self._created)
