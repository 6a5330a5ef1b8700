"""Any 1EdTech CASE 1.0/1.1 ``CFPackage`` JSON file as one graph package.

Mapping: CFDocument → framework; CFItems → items (``humanCodingScheme`` → statementCode,
``fullStatement`` → description, ``CFItemType`` → statementType, ``educationLevel`` →
gradeLevel, ``language``); ``isChildOf`` → hasChild (parent = the association's destination),
``precedes`` → buildsTowards, ``isRelatedTo`` → relatesTo. An association that reaches outside the
document and relates two statements (``exactMatchOf``, ``isPeerOf``, ``isRelatedTo`` …, see
:data:`CROSS_FRAMEWORK_TYPES`) is kept as a source-asserted, unresolved cross-framework reference:
never followed, never merged, never made an edge. Other association types the mapping cannot
represent become ``source_mapping_gap`` build findings. Nothing is guessed.

The CFPackage comes from a file (``packages build --source case FILE``) or from its publisher's
CASE API (``packages fetch --case-url``, see :mod:`kgfegmcp.sources.case_client`); the package's
provenance names the file, or the URL, and the SHA-256 of the bytes read. The JSON is read through
:class:`kgfegmcp.sources.case_document.CasePackageReader`, which accepts the CASE 1.0 and 1.1
variants and refuses any other type, naming the field. It streams the records, one pass for the
items and one for the associations, so a build holds the package's graph but never the document.

Statement types and grade labels. CFItemType is an open vocabulary, while a package's profile
must declare every statement type (and whether it is a standard or a grouping). The adapter
binds the package to a profile named after the framework id when one exists under the profiles
root (``<framework-id>/<version>.json`` under ``KGFEGMCP_PROFILES_DIR``, highest version), and otherwise to
``case-generic``, which declares common CFItemType values and the CEDS education levels. Types
or levels the chosen profile does not declare fail the build with ``manifest_build_error``,
listing each value, so the operator adds a framework profile instead of the adapter inventing
roles. A CFItem with no CFItemType gets the generic type ``Item`` (reported as a finding).
"""

from __future__ import annotations

import hashlib
import io
import re
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from kgfegmcp.errors import ManifestBuildError, echo
from kgfegmcp.identifiers import identifier_problem, stable_uuid
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO, FrameworkNode, RelationshipLabel
from kgfegmcp.packages.unresolved import CROSS_FRAMEWORK_REFERENCE
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.model import PROFILE_VERSION_PATTERN
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.rights import RightsPolicy
from kgfegmcp.sources.base import ProgressCallback
from kgfegmcp.sources.case_document import (
    CaseAssociation,
    CaseDocument,
    CaseItem,
    CasePackageReader,
    LinkUri,
    NodeLink,
)
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, identifier_from, slugify

GENERIC_PROFILE = ("case-generic", "2.1")
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DEFAULT_ITEM_TYPE = "Item"
MAX_INPUT_BYTES = 512 * 1024 * 1024
FRAMEWORK_ID_LENGTH = 64
#: CASE association type → package relationship label.
ASSOCIATION_LABELS: dict[str, RelationshipLabel] = {
    "isChildOf": HAS_CHILD,
    "precedes": BUILDS_TOWARDS,
    "isRelatedTo": RELATES_TO,
}
#: CASE 1.0/1.1 association types that relate one statement (CFItem or CFDocument) to another, so an
#: endpoint outside this CFDocument is a statement of another framework. ``exemplar`` and
#: ``hasSkillLevel`` point at an example or a skill level, not a statement, and an ``ext:`` type's
#: meaning is unknown: those stay ``source_mapping_gap`` findings.
CROSS_FRAMEWORK_TYPES = frozenset(
    {"isChildOf", "isPeerOf", "isPartOf", "exactMatchOf", "precedes", "isRelatedTo", "replacedBy", "isTranslationOf"}
)
#: CFItem members copied verbatim into the item's ``sourceDetails`` (detailed items artifact).
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
    "subject",
    "subjectURI",
)
#: CFDocument members recorded in the framework's provenance when present (CASE 1.1 adds the last two).
DOCUMENT_DETAIL_FIELDS = (
    "adoptionStatus",
    "statusStartDate",
    "statusEndDate",
    "CFPackageURI",
    "caseVersion",
    "frameworkType",
)


def _text(value: Any) -> str | None:
    """A non-blank string, verbatim; anything else is absent."""
    return value if isinstance(value, str) and value.strip() else None


def canonical_uuid(value: str) -> str | None:
    """Lowercase hyphenated UUID, or ``None`` when ``value`` is not one."""
    if isinstance(value, str) and _CANONICAL_UUID.fullmatch(value):
        return value  # already canonical (most CASE identifiers): no need to parse it
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


def default_framework_id(document: CaseDocument) -> str:
    """Slug of the CFDocument title, or ``case-<uuid prefix>`` when the title gives no usable slug."""
    slug = slugify(document.title or "", FRAMEWORK_ID_LENGTH)
    if identifier_problem(slug) is None:
        return slug
    return identifier_from(f"case-{(document.identifier or '')[:8]}", "framework id")


def default_snapshot_id(document: CaseDocument, data: bytes) -> str:
    """``v<version>-<lastChange yyyymmdd-hhmmss>``, either part when alone, else a hash of ``data``."""
    return snapshot_id_of(document, hashlib.sha256(data).hexdigest())


def snapshot_id_of(document: CaseDocument, sha256: str) -> str:
    """``v<version>-<lastChange yyyymmdd-hhmmss>``, either part when alone, else the content hash ``sha256``."""
    parts = []
    version = slugify(document.version or "", 40)
    if version:
        parts.append(version if version.startswith("v") else f"v{version}")
    changed = parse_datetime(document.last_change_date_time)
    if changed is not None:
        parts.append(changed.strftime("%Y%m%d-%H%M%S"))
    if not parts:
        parts.append(f"sha-{sha256[:12]}")
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


@dataclass(frozen=True, slots=True)
class CaseInputOrigin:
    """Where the CFPackage bytes came from: a local file (by name) or a publisher's CASE API URL.

    Provenance names it (every entity's ``dataset`` and ``locator``, the manifest's source dataset),
    so an accepted package says which bytes it was built from.
    """

    label: str
    dataset_name: str
    file_name: str | None = None
    url: str | None = None
    retrieved_url: str | None = None
    hint: str | None = None

    @classmethod
    def file(cls, path: Path) -> CaseInputOrigin:
        """A file given to ``packages build --source case``; provenance keeps its name, never its path."""
        return cls(label=f"CASE input {path.name}", dataset_name=path.name, file_name=path.name)

    @classmethod
    def fetched(cls, url: str, retrieved_url: str, hint: str | None = None) -> CaseInputOrigin:
        """A CFPackage fetched from ``url`` (answered by ``retrieved_url`` after redirects)."""
        name = "CFPackages/" + (url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "package")
        return cls(
            label=f"CASE response from {url}",
            dataset_name=name[:256],
            url=url,
            retrieved_url=retrieved_url if retrieved_url != url else None,
            hint=hint,
        )

    def where(self) -> dict[str, str]:
        """The locator member naming the input (``file`` or ``url``)."""
        return {"file": self.file_name} if self.file_name is not None else {"url": self.url or ""}


def check_case_file(path: Path | None) -> Path:
    """A CFPackage file to read; ``manifest_build_error`` when there is none or it is too large."""
    if path is None:
        raise ManifestBuildError(
            "The case source needs a CASE CFPackage JSON file.",
            hint="Run `kgfegmcp packages build --source case FILE.json`, or `kgfegmcp packages fetch --case-url URL`.",
        )
    if not path.is_file():
        raise ManifestBuildError(f"CASE input {path.name} is not a readable file.")
    if path.stat().st_size > MAX_INPUT_BYTES:
        raise ManifestBuildError(f"CASE input {path.name} exceeds {MAX_INPUT_BYTES // (1024 * 1024)} MiB.")
    return path


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

    def resolve(self, reference: NodeLink | None) -> tuple[str, str | None]:
        """``("item", id)``, ``("document", root)`` or ``("outside", None)``."""
        if reference is None:
            return "outside", None
        for key in (_text(reference.identifier), _text(reference.uri)):
            if key is None:
                continue
            if key in self.document_ids or canonical_uuid(key) in self.document_ids:
                return "document", self.root_id
            found = self.by_key.get(key) or self.by_key.get(canonical_uuid(key) or "")
            if found:
                return "item", found
        return "outside", None


def _appending(member: str, value: str) -> Callable[[dict[str, Any]], object]:
    """A change to a provenance record: ``value`` appended to its list ``member``."""
    return lambda record: record.setdefault(member, []).append(value)


def _describe_reference(reference: NodeLink | None) -> str:
    if reference is not None:
        return str(_text(reference.uri) or _text(reference.identifier) or "(no identifier)")
    return "(no node reference)"


def _link_wire(link: LinkUri | None) -> dict[str, Any] | None:
    """A CASE link object as the source gave it (absent members left out)."""
    return None if link is None else link.model_dump(by_alias=True, exclude_none=True)


def _members(record: CaseItem | CaseDocument, names: tuple[str, ...]) -> dict[str, Any]:
    """The named CASE members of a record that hold a value, in their source shape.

    Only those members are serialised: ``extensions`` and unknown members may hold anything.
    """
    fields = {info.alias or name: name for name, info in type(record).model_fields.items()}
    wire = record.model_dump(by_alias=True, exclude_none=True, include={fields[name] for name in names})
    return {name: wire[name] for name in names if wire.get(name) not in (None, "", [])}


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
        path = check_case_file(source_input)
        with path.open("rb") as stream:
            return self.build_stream(stream, CaseInputOrigin.file(path), profiles, progress)

    def build_stream(
        self,
        stream: IO[bytes],
        origin: CaseInputOrigin,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """Build the package of the CFPackage in ``stream``, read from ``origin`` (seekable: read once per pass)."""
        report = progress or (lambda _step: None)
        report("reading the CASE CFPackage")
        reader = CasePackageReader(stream, origin.label, origin.hint)
        report("converting the CASE CFPackage")
        return [_CaseBuild(reader, origin, profiles, self._framework_id, self._snapshot_id).run()]

    def build_bytes(
        self,
        data: bytes,
        origin: CaseInputOrigin,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """:meth:`build_stream` of CFPackage bytes already in memory."""
        return self.build_stream(io.BytesIO(data), origin, profiles, progress)


class _CaseBuild:
    def __init__(
        self,
        reader: CasePackageReader,
        origin: CaseInputOrigin,
        profiles: ProfileRepository,
        framework_id: str | None,
        snapshot_id: str | None,
    ) -> None:
        assert reader.document is not None  # the reader refuses a package without one
        self.reader = reader
        self.document = reader.document
        self.origin = origin
        self.label = origin.label
        self.sha256 = reader.sha256
        self.framework_id = framework_id or default_framework_id(self.document)
        self.snapshot_id = snapshot_id or snapshot_id_of(self.document, self.sha256)
        for value, kind in ((self.framework_id, "framework id"), (self.snapshot_id, "snapshot id")):
            problem = identifier_problem(value, kind)
            if problem:
                raise ManifestBuildError(f"Cannot build the CASE package: {problem}.")
        self.profile = select_profile(profiles, self.framework_id)
        self.findings: list[tuple[str, str, str | None]] = []
        self.source_ids: dict[str, str] = {}  # item id → the source's identifier, where the two differ

    # -- helpers -------------------------------------------------------------------------------

    def _dataset(self) -> dict[str, str]:
        dataset = {"name": "CASE CFPackage", **self.origin.where(), "sha256": self.sha256}
        if self.origin.retrieved_url is not None:
            dataset["retrievedUrl"] = self.origin.retrieved_url
        return dataset

    def _provenance(self, **locator: Any) -> Provenance:
        return {
            "epistemicStatus": "source_asserted",
            "dataset": self._dataset(),
            "locator": {**self.origin.where(), **{k: v for k, v in locator.items() if v is not None}},
        }

    def _gap(self, message: str, severity: str = "warning", location: str | None = None) -> None:
        self.findings.append((severity, message, location))

    def _language(self, value: str | None) -> str:
        return _text(value) or _text(self.document.language) or self.profile.profile.in_language

    def _rights(self) -> RightsPolicy:
        rights = self.profile.profile.default_rights
        license_ref = self.document.license_uri
        update: dict[str, Any] = {}
        if license_ref is not None:
            licence_text = _text(license_ref.title)
            definitions = self.reader.definitions
            for licence in (definitions.licenses if definitions else None) or []:
                if licence.identifier == license_ref.identifier:
                    licence_text = _text(licence.license_text) or _text(licence.title) or licence_text
            if licence_text:
                update["source_license"] = licence_text[:4000]
            if _text(license_ref.uri):
                update["license_uri"] = str(license_ref.uri)[:2000]
        publisher = _text(self.document.publisher) or _text(self.document.creator)
        origin = f"{self.document.title}" + (f" — {publisher}" if publisher else "")
        update["attribution_statement"] = f"{origin}. {rights.attribution_statement}"[:8000]
        return rights.model_copy(update=update)

    # -- steps ---------------------------------------------------------------------------------

    def _items(self, builder: PackageGraphBuilder, resolver: _Resolver, subject: str | None) -> None:
        """One pass over the CFItems: each usable one becomes an item; every other is skipped and reported.

        Statement types and education levels the profile does not declare are counted over the
        whole pass and refused together, after the type check of every record.
        """
        profile = self.profile.profile
        unknown_types: Counter[str] = Counter()
        unknown_grades: Counter[str] = Counter()
        present = built = untyped = 0
        for index, record in self.reader.items():
            present += 1
            if record is None:
                continue  # of a type CASE does not allow: refused below, with the others
            source_identifier = _text(record.identifier)
            if source_identifier is None or _text(record.full_statement) is None:
                self._gap(
                    f"CFItems[{index}] has no identifier or no fullStatement; it was skipped.",
                    location=f"CFItems[{index}]",
                )
                continue
            identifier = canonical_uuid(source_identifier)
            if identifier is None:
                identifier = stable_uuid(self.framework_id, "case-item", source_identifier)
                self._gap(
                    f"CFItems[{index}] identifier {echo(source_identifier)!r} is not a UUID; a deterministic UUID "
                    "was derived from it.",
                    location=identifier,
                )
            elif identifier == source_identifier:
                identifier = source_identifier  # one string for both
            if builder.has_node(identifier) and identifier != builder.root_id:
                self._gap(
                    f"CFItems[{index}] repeats identifier {echo(source_identifier)!r}; the repeat was skipped.",
                    location=f"CFItems[{index}]",
                )
                continue
            item_type = _text(record.item_type)
            if item_type is None and record.item_type_uri is not None:
                item_type = _text(record.item_type_uri.title)
            if item_type is None:
                untyped += 1
                item_type = DEFAULT_ITEM_TYPE
            grades = [level for level in record.education_levels if level.strip()]
            undeclared_type = profile.statement_type(item_type) is None
            undeclared_grades = [grade for grade in grades if profile.grade_label(grade) is None]
            if undeclared_type or undeclared_grades:
                unknown_types.update([item_type] if undeclared_type else [])
                unknown_grades.update(undeclared_grades)
                continue
            builder.add_item(
                identifier,
                identifier=identifier,
                description=str(record.full_statement),
                statement_type=item_type,
                provenance=self._provenance(
                    collection="CFItems",
                    index=index,
                    identifier=source_identifier,
                    uri=_text(record.uri),
                ),
                grades=grades,
                statement_code=_text(record.human_coding_scheme),
                academic_subject=subject,
                in_language=self._language(record.language),
                case_identifier_uri=_text(record.uri),
                notes=_text(record.notes),
                date_modified=_text(record.last_change_date_time),
                details={"case": _members(record, ITEM_DETAIL_FIELDS)},
            )
            built += 1
            resolver.add(identifier, source_identifier, _text(record.uri))
            if source_identifier != identifier:
                self.source_ids[identifier] = source_identifier
        self.reader.refuse_wrong_types()
        if not built and not unknown_types and not unknown_grades:
            raise ManifestBuildError(
                f"{self.label} has no usable CFItems ({present} present; each needs an "
                "identifier and a fullStatement).",
            )
        if untyped:
            self._gap(
                f"{untyped} CFItems have no CFItemType; they carry the generic statement type {DEFAULT_ITEM_TYPE!r}.",
                severity="info",
            )
        self._refuse_vocabulary(unknown_types, unknown_grades)

    def _refuse_vocabulary(self, types: Counter[str], grades: Counter[str]) -> None:
        if not types and not grades:
            return
        profile = self.profile.profile
        problems = []
        if types:
            problems.append(
                "CFItemType values " + ", ".join(f"{echo(t)!r} ({n} items)" for t, n in sorted(types.items())[:20])
            )
        if grades:
            problems.append(
                "educationLevel values " + ", ".join(f"{echo(g)!r} ({n} items)" for g, n in sorted(grades.items())[:20])
            )
        raise ManifestBuildError(
            f"{self.label} uses {' and '.join(problems)} that profile "
            f"{profile.profile_id}/{profile.version} does not declare.",
            hint=f"Add {self.framework_id}/1.0.json (start from case-generic/2.1.json) to your profiles directory "
            "(KGFEGMCP_PROFILES_DIR or --profiles-dir; a copy of the shipped one) declaring them and whether each "
            "type is a standard or a grouping; the case source uses it automatically.",
        )

    def _unknown_fields(self) -> None:
        """Members neither CASE version defines are not read; say so rather than lose them silently."""
        unknown = self.reader.unknown_fields()
        if unknown:
            listed = ", ".join(f"{echo(name)} ({count})" for name, count in list(unknown.items())[:20])
            more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
            self._gap(
                f"Members that neither CASE 1.0 nor CASE 1.1 defines were not read (member: records carrying "
                f"it): {listed}{more}.",
                location="unknown-members",
            )

    def run(self) -> PackageContent:
        document = self.document
        rights = self._rights()
        source_root = _text(document.identifier) or ""
        root_id = canonical_uuid(source_root) or stable_uuid(self.framework_id, "framework")
        subjects = document.subjects
        subject = ", ".join(subjects) or "Not specified"
        framework_provenance = self._provenance(object="CFDocument", identifier=source_root, uri=_text(document.uri))
        details = _members(document, DOCUMENT_DETAIL_FIELDS)
        if details:
            framework_provenance["sourceDetails"] = {"case": details}
        builder = PackageGraphBuilder(
            self.framework_id,
            self.profile,
            FrameworkNode(
                identifier=root_id,
                case_identifier_uuid=root_id,
                name=str(document.title),
                jurisdiction=_text(document.publisher) or _text(document.creator) or "Not specified",
                academic_subject=subject,
                in_language=self._language(None),
                case_identifier_uri=_text(document.uri),
                description=_text(document.description),
                adoption_status=_text(document.adoption_status),
                date_modified=_text(document.last_change_date_time),
                author=_text(document.creator),
                provider=_text(document.publisher),
                license=rights.source_license,
                attribution_statement=rights.attribution_statement,
            ),
            framework_provenance,
        )
        resolver = _Resolver({source_root, root_id}, root_id)
        self._items(builder, resolver, subject if subjects else None)
        self._associations(builder, resolver)
        self.reader.refuse_wrong_types()
        self._root_fallback(builder)
        if self.reader.rubrics:
            self._gap(f"{self.reader.rubrics} CFRubrics have no counterpart in the package; they were not converted.")
        self._unknown_fields()
        for severity, message, location in self.findings:
            builder.add_finding("source_mapping_gap", severity, message, location)
        subject_slug = slugify(subjects[0], 40) if subjects else ""
        return builder.content(
            snapshot_id=self.snapshot_id,
            title=str(document.title)[:512],
            subject_slug=subject_slug if identifier_problem(subject_slug) is None else "case",
            source=self._source(rights),
            rights=rights,
        )

    def _associations(self, builder: PackageGraphBuilder, resolver: _Resolver) -> None:
        unmapped: dict[str, list[Any]] = {}  # association type → [count, the first five ids]
        for index, record in self.reader.associations():
            if record is None:
                continue  # of a type CASE does not allow: refused after the pass, with the others
            kind = _text(record.association_type)
            if kind is None:
                self._gap(f"CFAssociations[{index}] has no associationType; it was skipped.")
                continue
            assoc_id = _text(record.identifier) or f"CFAssociations[{index}]"
            label = ASSOCIATION_LABELS.get(kind)
            origin_kind, origin_id = resolver.resolve(record.origin)
            target_kind, target_id = resolver.resolve(record.destination)
            where = {"collection": "CFAssociations", "index": index, "identifier": assoc_id, "associationType": kind}
            if "outside" in (origin_kind, target_kind) and kind in CROSS_FRAMEWORK_TYPES:
                self._cross_framework(builder, record, index, assoc_id, label, where, (origin_id, target_id))
                continue
            if label is None:
                seen = unmapped.setdefault(kind, [0, []])
                seen[0] += 1
                if len(seen[1]) < 5:
                    seen[1].append(echo(assoc_id))
                continue
            # isChildOf runs child → parent; the package edge runs parent → child.
            source_kind, source_id, end_kind, end_id = (
                (target_kind, target_id, origin_kind, origin_id)
                if label == HAS_CHILD
                else (origin_kind, origin_id, target_kind, target_id)
            )
            if end_kind != "item" or source_id is None or end_id is None:
                self._gap(
                    f"{echo(kind)} association {echo(assoc_id)} joins the CFDocument itself in a way a {label} edge "
                    "cannot represent; it was not converted.",
                    location=assoc_id,
                )
                continue
            if label != HAS_CHILD and source_kind != "item":
                self._gap(
                    f"{echo(kind)} association {echo(assoc_id)} involves the CFDocument, not two items; it was not "
                    "converted.",
                    location=assoc_id,
                )
                continue
            if source_id == end_id:
                self._gap(
                    f"{echo(kind)} association {echo(assoc_id)} joins an item to itself; it was not converted.",
                    location=assoc_id,
                )
                continue
            sequence = record.sequence_number
            provenance = self._provenance(**where, sequenceNumber=sequence)
            rel_id, created = builder.link(label, source_id, end_id, provenance)
            if not created:
                builder.update_provenance(rel_id, _appending("duplicateAssociations", assoc_id))
        for kind, (count, identifiers) in sorted(unmapped.items()):
            sample = ", ".join(identifiers) + (" …" if count > 5 else "")
            self._gap(
                f"{count} CFAssociations of type {echo(kind)!r} have no counterpart in the package "
                f"(only isChildOf, precedes and isRelatedTo are mapped; statement associations reaching outside "
                f"the document are kept as unresolved references); they were not converted: {sample}.",
                location=kind,
            )

    def _cross_framework(
        self,
        builder: PackageGraphBuilder,
        record: CaseAssociation,
        index: int,
        assoc_id: str,
        label: RelationshipLabel | None,
        where: dict[str, Any],
        ends: tuple[str | None, str | None],
    ) -> None:
        """Keep an association to a statement of another framework exactly as the source asserts it.

        It becomes one unresolved entry (status ``unresolvedExternalReference``, ``referenceKind``
        ``crossFrameworkAssociation``) with both CASE node links verbatim, and the package node it
        concerns lists the entry in its provenance. Nothing is followed, merged or linked: the other
        framework is not in this package, and the server never judges two statements equivalent.
        """
        origin_id, target_id = ends
        inside = origin_id if origin_id is not None else target_id
        outside_ref = record.destination if origin_id is not None else record.origin
        direction = (
            "reference → reference"
            if inside is None
            else ("package node → reference" if origin_id is not None else "reference → package node")
        )
        kind = str(record.association_type)
        entry: dict[str, Any] = {
            "status": "unresolvedExternalReference",
            "referenceKind": CROSS_FRAMEWORK_REFERENCE,
            "epistemicStatus": "source_asserted",
            "associationType": kind,
            "reference": _describe_reference(outside_ref),
            "sourceEntityId": inside if inside != builder.root_id else None,
            "sourceText": (outside_ref.title if outside_ref is not None else None) or "",
            "direction": direction,
            "originNode": _link_wire(record.origin),
            "destinationNode": _link_wire(record.destination),
            "reason": f"the source's {kind} association {assoc_id} reaches a node outside this CFDocument, in "
            "another framework; it is kept as stated, not followed and not merged",
            "locator": {**self.origin.where(), **where},
        }
        if label is not None:
            entry["relationshipLabel"] = label
        unresolved_id = builder.add_unresolved(f"association/{index}/{assoc_id}", entry)
        if inside is not None:
            builder.update_provenance(inside, _appending("crossFrameworkReferences", unresolved_id))

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
                    "locator": {**self.origin.where(), "collection": "CFAssociations"},
                    "reason": "no isChildOf association places this item inside the document",
                },
                unresolved_status="unresolvedRootFallback",
            )
            builder.add_unresolved(
                f"root-fallback/{item_id}",
                {
                    "status": "unresolvedRootFallback",
                    "reference": self.source_ids.get(item_id, item_id),
                    "sourceEntityId": item_id,
                    "sourceText": builder.item(item_id).description,
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
        version = _text(document.version) or _text(document.last_change_date_time) or "unversioned"
        uri = _text(document.official_source_url) or _text(document.uri)
        if self.origin.url is not None:
            dataset_uri: str | None = self.origin.url
            role = f"1EdTech CASE CFPackage fetched from its publisher's CASE API (sha256 of the bytes {self.sha256})"
        else:
            dataset_uri = uri
            role = f"1EdTech CASE CFPackage: CFDocument, CFItems and CFAssociations (input sha256 {self.sha256})"
        return SourceInfo(
            name=f"CASE CFPackage: {document.title}"[:256],
            version=version[:64],
            uri=uri[:2000] if uri else None,
            datasets=(
                SourceDataset(
                    name=self.origin.dataset_name[:256],
                    version=version[:64],
                    uri=dataset_uri[:2000] if dataset_uri else None,
                    license=rights.source_license[:1000],
                    role=role,
                ),
            ),
        )
