"""Any 1EdTech CASE 1.0/1.1 ``CFPackage`` JSON file as one graph package.

Mapping: CFDocument → framework; CFItems → items (``humanCodingScheme`` → statementCode,
``fullStatement`` → description, ``CFItemType`` → statementType, ``educationLevel`` →
gradeLevel, ``language``); ``isChildOf`` → hasChild (parent = the association's destination),
``precedes`` → buildsTowards, ``isRelatedTo`` → relatesTo. Associations that reach outside the
document become unresolved evidence; association types the mapping cannot represent become
``source_mapping_gap`` build findings. Nothing is guessed.

Statement types and grade labels. CFItemType is an open vocabulary, while a package's profile
must declare every statement type (and whether it is a standard or a grouping). The adapter
binds the package to a profile named after the framework id when one exists under the profiles
root (``config/profiles/<framework-id>/<version>.json``, highest version), and otherwise to
``case-generic``, which declares common CFItemType values and the CEDS education levels. Types
or levels the chosen profile does not declare fail the build with ``manifest_build_error``,
listing each value, so the operator adds a framework profile instead of the adapter inventing
roles. A CFItem with no CFItemType gets the generic type ``Item`` (reported as a finding).
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgfegmcp.errors import ManifestBuildError
from kgfegmcp.identifiers import identifier_problem, stable_uuid
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, FrameworkNode, RelationshipLabel
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.model import PROFILE_VERSION_PATTERN
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.rights import RightsPolicy
from kgfegmcp.sources.base import ProgressCallback
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, identifier_from, slugify

GENERIC_PROFILE = ("case-generic", "2.1")
DEFAULT_ITEM_TYPE = "Item"
MAX_INPUT_BYTES = 512 * 1024 * 1024
FRAMEWORK_ID_LENGTH = 64
#: CASE association type → package relationship label.
ASSOCIATION_LABELS: dict[str, RelationshipLabel] = {
    "isChildOf": HAS_CHILD,
    "precedes": BUILDS_TOWARDS,
    "isRelatedTo": RELATES_TO,
}
ITEM_DETAIL_FIELDS = (
    "CFItemType",
    "CFItemTypeURI",
    "abbreviatedStatement",
    "alternativeLabel",
    "listEnumeration",
    "conceptKeywords",
    "conceptKeywordsURI",
    "educationLevel",
    "language",
    "lastChangeDateTime",
    "statusStartDate",
    "statusEndDate",
    "licenseURI",
)


def _text(value: Any) -> str | None:
    """A non-blank string, verbatim; anything else is absent."""
    return value if isinstance(value, str) and value.strip() else None


def canonical_uuid(value: str) -> str | None:
    """Lowercase hyphenated UUID, or ``None`` when ``value`` is not one."""
    try:
        return str(uuid.UUID(value.strip()))
    except (ValueError, AttributeError):
        return None


def parse_datetime(value: Any) -> datetime | None:
    """A CASE date-time (``Z`` or offset; naive means UTC), in UTC."""
    text = _text(value)
    if text is None:
        return None
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)


def default_framework_id(document: Mapping[str, Any]) -> str:
    """Slug of the CFDocument title, or ``case-<uuid prefix>`` when the title gives no usable slug."""
    slug = slugify(str(document.get("title") or ""), FRAMEWORK_ID_LENGTH)
    if identifier_problem(slug) is None:
        return slug
    return identifier_from(f"case-{str(document.get('identifier', ''))[:8]}", "framework id")


def default_snapshot_id(document: Mapping[str, Any], data: bytes) -> str:
    """``v<version>-<lastChange yyyymmdd-hhmmss>``, either part when alone, else a content hash."""
    parts = []
    version = slugify(str(document.get("version") or ""), 40)
    if version:
        parts.append(version if version.startswith("v") else f"v{version}")
    changed = parse_datetime(document.get("lastChangeDateTime"))
    if changed is not None:
        parts.append(changed.strftime("%Y%m%d-%H%M%S"))
    if not parts:
        parts.append(f"sha-{hashlib.sha256(data).hexdigest()[:12]}")
    return identifier_from("-".join(parts), "snapshot id")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def select_profile(profiles: ProfileRepository, framework_id: str) -> LoadedProfile:
    """The framework's own profile (highest version) when present, else ``case-generic``."""
    versions = [
        v for pid, v in profiles.list_refs() if pid == framework_id and re.fullmatch(PROFILE_VERSION_PATTERN, v)
    ]
    if versions:
        return profiles.load(framework_id, max(versions, key=_version_key))
    return profiles.load(*GENERIC_PROFILE)


def load_package(path: Path | None) -> tuple[dict[str, Any], bytes]:
    """The CFPackage object of a JSON file; ``manifest_build_error`` for anything else."""
    if path is None:
        raise ManifestBuildError(
            "The case source needs a CASE CFPackage JSON file.",
            hint="Run `kgfegmcp packages build --source case FILE.json`.",
        )
    if not path.is_file():
        raise ManifestBuildError(f"CASE input {path.name} is not a readable file.")
    if path.stat().st_size > MAX_INPUT_BYTES:
        raise ManifestBuildError(f"CASE input {path.name} exceeds {MAX_INPUT_BYTES // (1024 * 1024)} MiB.")
    data = path.read_bytes()
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ManifestBuildError(f"CASE input {path.name} is not UTF-8 text ({exc.reason}).") from None
    except json.JSONDecodeError as exc:
        raise ManifestBuildError(
            f"CASE input {path.name} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
        ) from None
    if isinstance(document, dict) and isinstance(document.get("CFPackage"), dict):
        document = document["CFPackage"]
    if not isinstance(document, dict) or not isinstance(document.get("CFDocument"), dict):
        raise ManifestBuildError(f"CASE input {path.name} is not a CFPackage: it has no CFDocument object.")
    cf_document = document["CFDocument"]
    if _text(cf_document.get("identifier")) is None or _text(cf_document.get("title")) is None:
        raise ManifestBuildError(f"CASE input {path.name}: the CFDocument needs an identifier and a title.")
    return document, data


@dataclass(slots=True)
class _Item:
    index: int
    record: Mapping[str, Any]
    source_identifier: str
    identifier: str
    statement_type: str
    grades: list[str]


@dataclass(slots=True)
class _Resolver:
    """Maps CASE node references (identifier or URI) to package ids."""

    document_ids: set[str]
    root_id: str
    by_key: dict[str, str] = field(default_factory=dict)

    def add(self, item_id: str, *keys: str | None) -> None:
        for key in keys:
            if key:
                self.by_key[key] = item_id
                canonical = canonical_uuid(key)
                if canonical:
                    self.by_key[canonical] = item_id

    def resolve(self, reference: Any) -> tuple[str, str | None]:
        """``("item", id)``, ``("document", root)`` or ``("outside", None)``."""
        if not isinstance(reference, Mapping):
            return "outside", None
        for key in (_text(reference.get("identifier")), _text(reference.get("uri"))):
            if key is None:
                continue
            if key in self.document_ids or canonical_uuid(key) in self.document_ids:
                return "document", self.root_id
            found = self.by_key.get(key) or self.by_key.get(canonical_uuid(key) or "")
            if found:
                return "item", found
        return "outside", None


def _describe_reference(reference: Any) -> str:
    if isinstance(reference, Mapping):
        return str(_text(reference.get("uri")) or _text(reference.get("identifier")) or "(no identifier)")
    return "(no node reference)"


class CaseSource:
    """``--source case FILE``: one CFPackage → one package; ids and profile default from the document."""

    name = "case"

    def __init__(self, framework_id: str | None = None, snapshot_id: str | None = None) -> None:
        self._framework_id = framework_id
        self._snapshot_id = snapshot_id

    def build(
        self,
        source_input: Path | None,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """Read one CFPackage JSON file and return its package content."""
        report = progress or (lambda _step: None)
        report("reading the CASE CFPackage")
        package, data = load_package(source_input)
        assert source_input is not None
        return [_CaseBuild(package, data, source_input.name, profiles, self._framework_id, self._snapshot_id).run()]


class _CaseBuild:
    def __init__(
        self,
        package: dict[str, Any],
        data: bytes,
        file_name: str,
        profiles: ProfileRepository,
        framework_id: str | None,
        snapshot_id: str | None,
    ) -> None:
        self.package = package
        self.document: Mapping[str, Any] = package["CFDocument"]
        self.file_name = file_name
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.framework_id = framework_id or default_framework_id(self.document)
        self.snapshot_id = snapshot_id or default_snapshot_id(self.document, data)
        for value, kind in ((self.framework_id, "framework id"), (self.snapshot_id, "snapshot id")):
            problem = identifier_problem(value, kind)
            if problem:
                raise ManifestBuildError(f"Cannot build the CASE package: {problem}.")
        self.profile = select_profile(profiles, self.framework_id)
        self.findings: list[tuple[str, str, str | None]] = []
        self.source_ids: dict[str, tuple[str, str]] = {}

    # -- helpers -------------------------------------------------------------------------------

    def _dataset(self) -> dict[str, str]:
        return {"name": "CASE CFPackage", "file": self.file_name, "sha256": self.sha256}

    def _provenance(self, **locator: Any) -> Provenance:
        return {
            "epistemicStatus": "source_asserted",
            "dataset": self._dataset(),
            "locator": {"file": self.file_name, **{k: v for k, v in locator.items() if v is not None}},
        }

    def _gap(self, message: str, severity: str = "warning", location: str | None = None) -> None:
        self.findings.append((severity, message, location))

    def _language(self, value: Any) -> str:
        return _text(value) or _text(self.document.get("language")) or self.profile.profile.in_language

    def _rights(self) -> RightsPolicy:
        rights = self.profile.profile.default_rights
        license_ref = self.document.get("licenseURI")
        update: dict[str, Any] = {}
        if isinstance(license_ref, Mapping):
            licence_text = _text(license_ref.get("title"))
            definitions = self.package.get("CFDefinitions")
            licences = definitions.get("CFLicenses") if isinstance(definitions, Mapping) else None
            for licence in licences if isinstance(licences, list) else []:
                if isinstance(licence, Mapping) and licence.get("identifier") == license_ref.get("identifier"):
                    licence_text = _text(licence.get("licenseText")) or _text(licence.get("title")) or licence_text
            if licence_text:
                update["source_license"] = licence_text[:4000]
            if _text(license_ref.get("uri")):
                update["license_uri"] = str(license_ref["uri"])[:2000]
        publisher = _text(self.document.get("publisher")) or _text(self.document.get("creator"))
        origin = f"{self.document['title']}" + (f" — {publisher}" if publisher else "")
        update["attribution_statement"] = f"{origin}. {rights.attribution_statement}"[:8000]
        return rights.model_copy(update=update)

    # -- steps ---------------------------------------------------------------------------------

    def _items(self) -> list[_Item]:
        records = self.package.get("CFItems") or []
        if not isinstance(records, list):
            raise ManifestBuildError(f"CASE input {self.file_name}: CFItems must be a JSON array.")
        items: list[_Item] = []
        seen: set[str] = set()
        untyped = 0
        for index, record in enumerate(records):
            if not isinstance(record, Mapping):
                self._gap(f"CFItems[{index}] is not an object; it was skipped.", location=f"CFItems[{index}]")
                continue
            source_identifier = _text(record.get("identifier"))
            if source_identifier is None or _text(record.get("fullStatement")) is None:
                self._gap(
                    f"CFItems[{index}] has no identifier or no fullStatement; it was skipped.",
                    location=f"CFItems[{index}]",
                )
                continue
            identifier = canonical_uuid(source_identifier)
            if identifier is None:
                identifier = stable_uuid(self.framework_id, "case-item", source_identifier)
                self._gap(
                    f"CFItems[{index}] identifier {source_identifier!r} is not a UUID; a deterministic UUID was "
                    "derived from it.",
                    location=identifier,
                )
            if identifier in seen:
                self._gap(
                    f"CFItems[{index}] repeats identifier {source_identifier!r}; the repeat was skipped.",
                    location=f"CFItems[{index}]",
                )
                continue
            seen.add(identifier)
            item_type = _text(record.get("CFItemType"))
            type_ref = record.get("CFItemTypeURI")
            if item_type is None and isinstance(type_ref, Mapping):
                item_type = _text(type_ref.get("title"))
            if item_type is None:
                untyped += 1
                item_type = DEFAULT_ITEM_TYPE
            levels = record.get("educationLevel") or []
            grades = [str(g) for g in dict.fromkeys(levels if isinstance(levels, list) else [levels])]
            items.append(_Item(index, record, source_identifier, identifier, item_type, grades))
        if not items:
            raise ManifestBuildError(
                f"CASE input {self.file_name} has no usable CFItems ({len(records)} present; each needs an "
                "identifier and a fullStatement).",
            )
        if untyped:
            self._gap(
                f"{untyped} CFItems have no CFItemType; they carry the generic statement type {DEFAULT_ITEM_TYPE!r}.",
                severity="info",
            )
        self._check_vocabulary(items)
        return items

    def _check_vocabulary(self, items: list[_Item]) -> None:
        profile = self.profile.profile
        types = Counter(i.statement_type for i in items if profile.statement_type(i.statement_type) is None)
        grades = Counter(g for i in items for g in i.grades if profile.grade_label(g) is None)
        if not types and not grades:
            return
        problems = []
        if types:
            problems.append("CFItemType values " + ", ".join(f"{t!r} ({n} items)" for t, n in sorted(types.items())))
        if grades:
            problems.append(
                "educationLevel values " + ", ".join(f"{g!r} ({n} items)" for g, n in sorted(grades.items()))
            )
        raise ManifestBuildError(
            f"CASE input {self.file_name} uses {' and '.join(problems)} that profile "
            f"{profile.profile_id}/{profile.version} does not declare.",
            hint=f"Add config/profiles/{self.framework_id}/1.0.json (start from case-generic/2.1.json) declaring "
            "them and whether each type is a standard or a grouping; the case source uses it automatically.",
        )

    def run(self) -> PackageContent:
        items = self._items()
        document = self.document
        rights = self._rights()
        source_root = _text(document.get("identifier")) or ""
        root_id = canonical_uuid(source_root) or stable_uuid(self.framework_id, "framework")
        subjects = [str(s) for s in document.get("subject") or [] if isinstance(s, str) and s.strip()]
        subject = ", ".join(subjects) or "Not specified"
        builder = PackageGraphBuilder(
            self.framework_id,
            self.profile,
            FrameworkNode(
                identifier=root_id,
                case_identifier_uuid=root_id,
                name=str(document["title"]),
                jurisdiction=_text(document.get("publisher")) or _text(document.get("creator")) or "Not specified",
                academic_subject=subject,
                in_language=self._language(None),
                case_identifier_uri=_text(document.get("uri")),
                description=_text(document.get("description")),
                adoption_status=_text(document.get("adoptionStatus")),
                date_modified=_text(document.get("lastChangeDateTime")),
                author=_text(document.get("creator")),
                provider=_text(document.get("publisher")),
                license=rights.source_license,
                attribution_statement=rights.attribution_statement,
            ),
            self._provenance(object="CFDocument", identifier=source_root, uri=_text(document.get("uri"))),
        )
        resolver = _Resolver({source_root, root_id}, root_id)
        for item in items:
            record = item.record
            builder.add_item(
                f"case/{item.identifier}",
                identifier=item.identifier,
                description=str(record["fullStatement"]),
                statement_type=item.statement_type,
                provenance=self._provenance(
                    collection="CFItems",
                    index=item.index,
                    identifier=item.source_identifier,
                    uri=_text(record.get("uri")),
                ),
                grades=item.grades,
                statement_code=_text(record.get("humanCodingScheme")),
                academic_subject=subject if subjects else None,
                in_language=self._language(record.get("language")),
                case_identifier_uri=_text(record.get("uri")),
                notes=_text(record.get("notes")),
                date_modified=_text(record.get("lastChangeDateTime")),
                details={"case": {k: record[k] for k in ITEM_DETAIL_FIELDS if record.get(k) not in (None, "", [])}},
            )
            resolver.add(item.identifier, item.source_identifier, _text(record.get("uri")))
            self.source_ids[item.identifier] = (item.source_identifier, str(record["fullStatement"]))
        self._associations(builder, resolver)
        self._root_fallback(builder)
        rubrics = self.package.get("CFRubrics")
        if isinstance(rubrics, list) and rubrics:
            self._gap(f"{len(rubrics)} CFRubrics have no counterpart in the package; they were not converted.")
        for severity, message, location in self.findings:
            builder.add_finding("source_mapping_gap", severity, message, location)
        subject_slug = slugify(subjects[0], 40) if subjects else ""
        return builder.content(
            snapshot_id=self.snapshot_id,
            title=str(document["title"])[:512],
            subject_slug=subject_slug if identifier_problem(subject_slug) is None else "case",
            source=self._source(rights),
            rights=rights,
        )

    def _associations(self, builder: PackageGraphBuilder, resolver: _Resolver) -> None:
        records = self.package.get("CFAssociations") or []
        if not isinstance(records, list):
            raise ManifestBuildError(f"CASE input {self.file_name}: CFAssociations must be a JSON array.")
        unmapped: dict[str, list[str]] = defaultdict(list)
        for index, record in enumerate(records):
            if not isinstance(record, Mapping) or _text(record.get("associationType")) is None:
                self._gap(f"CFAssociations[{index}] has no associationType; it was skipped.")
                continue
            kind = str(record["associationType"])
            assoc_id = _text(record.get("identifier")) or f"CFAssociations[{index}]"
            label = ASSOCIATION_LABELS.get(kind)
            if label is None:
                unmapped[kind].append(assoc_id)
                continue
            origin, destination = record.get("originNodeURI"), record.get("destinationNodeURI")
            origin_kind, origin_id = resolver.resolve(origin)
            target_kind, target_id = resolver.resolve(destination)
            # isChildOf runs child → parent; the package edge runs parent → child.
            source_kind, source_id, end_kind, end_id = (
                (target_kind, target_id, origin_kind, origin_id)
                if label == HAS_CHILD
                else (origin_kind, origin_id, target_kind, target_id)
            )
            where = {"collection": "CFAssociations", "index": index, "identifier": assoc_id, "associationType": kind}
            if "outside" in (origin_kind, target_kind):
                outside_ref = origin if origin_kind == "outside" else destination
                inside = target_id if origin_kind == "outside" else origin_id
                builder.add_unresolved(
                    f"association/{index}/{assoc_id}",
                    {
                        "status": "unresolvedExternalReference",
                        "reference": _describe_reference(outside_ref),
                        "sourceEntityId": inside if inside != builder.root_id else None,
                        "sourceText": str(
                            (outside_ref.get("title") if isinstance(outside_ref, Mapping) else None) or ""
                        ),
                        "reason": f"{kind} association {assoc_id} reaches a node outside this CFDocument",
                        "associationType": kind,
                        "relationshipLabel": label,
                        "locator": {"file": self.file_name, **where},
                    },
                )
                continue
            if end_kind != "item" or source_id is None or end_id is None:
                self._gap(
                    f"{kind} association {assoc_id} joins the CFDocument itself in a way a {label} edge "
                    "cannot represent; it was not converted.",
                    location=assoc_id,
                )
                continue
            if label != HAS_CHILD and source_kind != "item":
                self._gap(
                    f"{kind} association {assoc_id} involves the CFDocument, not two items; it was not converted.",
                    location=assoc_id,
                )
                continue
            if source_id == end_id:
                self._gap(
                    f"{kind} association {assoc_id} joins an item to itself; it was not converted.", location=assoc_id
                )
                continue
            sequence = record.get("sequenceNumber")
            provenance = self._provenance(**where, sequenceNumber=sequence if isinstance(sequence, int) else None)
            rel_id, created = builder.link(label, source_id, end_id, provenance)
            if not created:
                existing = builder.provenance(rel_id).setdefault("duplicateAssociations", [])
                existing.append(assoc_id)
        for kind, identifiers in sorted(unmapped.items()):
            sample = ", ".join(identifiers[:5]) + (" …" if len(identifiers) > 5 else "")
            self._gap(
                f"{len(identifiers)} CFAssociations of type {kind!r} have no counterpart in the package "
                f"(only isChildOf, precedes and isRelatedTo are mapped); they were not converted: {sample}.",
                location=kind,
            )

    def _root_fallback(self, builder: PackageGraphBuilder) -> None:
        orphans = builder.items_without_parent()
        for item_id in orphans:
            builder.link(
                HAS_CHILD,
                builder.root_id,
                item_id,
                {
                    "epistemicStatus": "deterministic_derived",
                    "dataset": self._dataset(),
                    "locator": {"file": self.file_name, "collection": "CFAssociations"},
                    "reason": "no isChildOf association places this item inside the document",
                },
                unresolved_status="unresolvedRootFallback",
            )
            builder.add_unresolved(
                f"root-fallback/{item_id}",
                {
                    "status": "unresolvedRootFallback",
                    "reference": self.source_ids[item_id][0],
                    "sourceEntityId": item_id,
                    "sourceText": self.source_ids[item_id][1],
                    "reason": "no isChildOf association places this item inside the document; "
                    "it hangs from the framework root",
                },
            )
        if orphans:
            self._gap(
                f"{len(orphans)} CFItems have no isChildOf parent inside the document; they hang from the framework "
                "root with unresolvedStatus unresolvedRootFallback."
            )

    def _source(self, rights: RightsPolicy) -> SourceInfo:
        document = self.document
        version = _text(document.get("version")) or _text(document.get("lastChangeDateTime")) or "unversioned"
        uri = _text(document.get("officialSourceURL")) or _text(document.get("uri"))
        return SourceInfo(
            name=f"CASE CFPackage: {document['title']}"[:256],
            version=version[:64],
            uri=uri[:2000] if uri else None,
            datasets=(
                SourceDataset(
                    name=self.file_name[:256],
                    version=version[:64],
                    uri=uri[:2000] if uri else None,
                    license=rights.source_license[:1000],
                    role=f"1EdTech CASE CFPackage: CFDocument, CFItems and CFAssociations (input sha256 {self.sha256})",
                ),
            ),
        )
