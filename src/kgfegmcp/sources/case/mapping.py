"""One CASE ``CFPackage`` onto one graph package: the CFDocument, the CFItems, then the associations.

CFDocument → framework; CFItems → items (``humanCodingScheme`` → statementCode, ``fullStatement`` →
description, ``CFItemType`` → statementType, ``educationLevel`` → gradeLevel, ``language``); the
CFAssociations are mapped by :mod:`kgfegmcp.sources.case.associations`; an item no ``isChildOf``
places inside the document hangs from the root as unresolved evidence.

Statement types and grade labels. CFItemType is an open vocabulary, while a package's profile
must declare every statement type (and whether it is a standard or a grouping). When the operator
has a profile named after the framework (:mod:`kgfegmcp.sources.case.identity`), it is bound, and
types or levels it does not declare fail the build with ``manifest_build_error`` listing each value.
Otherwise the package's profile is derived from the package itself
(:mod:`kgfegmcp.sources.case.derived_profile`), stored in the profiles root and bound like any other;
what was derived is one ``profile_derived`` finding. A CFItem with no CFItemType gets the generic type
``Item``. Every accepted variation of the source (:mod:`kgfegmcp.sources.case.variants`, items without
a type or a code) is a ``source_variant_accepted`` warning naming the member.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError, echo
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import identifier_problem, stable_uuid
from kgfegmcp.core.models import canonical_bytes, sha256_hex
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.core.text_safety import safe_text
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo
from kgfegmcp.packages.records import HAS_CHILD, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import DerivedProfile, LoadedProfile, ProfileRepository
from kgfegmcp.sources.case.associations import NodeResolver, map_associations
from kgfegmcp.sources.case.dataset import CaseDataset
from kgfegmcp.sources.case.derived_profile import (
    PackageVocabulary,
    VocabularyProfile,
    derive_profile,
    vocabulary_profile,
)
from kgfegmcp.sources.case.document import CaseDocument, CaseItem, canonical_uuid, nonblank
from kgfegmcp.sources.case.identity import GENERIC_PROFILE, package_identity
from kgfegmcp.sources.derived_rules import refuse_undeclared
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, slugify

DEFAULT_ITEM_TYPE = "Item"
_GAP = FindingCode.SOURCE_MAPPING_GAP
_VARIANT = FindingCode.SOURCE_VARIANT_ACCEPTED
_SAMPLES = 5
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


def _members(record: CaseItem | CaseDocument, names: tuple[str, ...]) -> dict[str, Any]:
    """The named CASE members of a record that hold a value, in their source shape.

    Only those members are serialised: ``extensions`` and unknown members may hold anything.
    """
    fields = {info.alias or name: name for name, info in type(record).model_fields.items()}
    wire = record.model_dump(by_alias=True, exclude_none=True, include={fields[name] for name in names})
    return {name: wire[name] for name in names if wire.get(name) not in (None, "", [])}


def _levels(record: CaseItem) -> list[str]:
    return [level for level in record.education_levels if level.strip()]


class CaseMapping:
    """One CFPackage onto one package: the framework, then the items, the associations and the root fallback.

    Ids are the caller's when given, else the document's defaults
    (:func:`~kgfegmcp.sources.case.identity.package_identity`); the profile is the operator's for the
    framework, else derived from the package.
    """

    #: The profile items are placed with: the operator's, or the derived vocabulary's (chosen by :meth:`run`).
    profile: LoadedProfile

    def __init__(
        self,
        dataset: CaseDataset,
        profiles: ProfileRepository,
        framework_id: str | None = None,
        snapshot_id: str | None = None,
    ) -> None:
        self.dataset = dataset
        self.reader = dataset.reader
        self.document = dataset.document
        self.label = dataset.label
        identity = package_identity(self.document, dataset.sha256, profiles, framework_id, snapshot_id)
        self.framework_id = identity.framework_id
        self.snapshot_id = identity.snapshot_id
        self.profiles = profiles
        self.operator_profile = identity.profile
        self.defined_types = tuple(sorted(set(self.reader.item_types.values())))  # CFDefinitions.CFItemTypes
        self.vocabulary: VocabularyProfile | None = None  # set when the profile is derived
        self.source_ids: dict[str, str] = {}  # item id → the source's identifier, where the two differ

    # -- helpers -------------------------------------------------------------------------------

    def item_type(self, record: CaseItem) -> str | None:
        """The item's CFItemType, else the title of the type its CFItemTypeURI names (link, then definitions)."""
        item_type = nonblank(record.item_type)
        link = record.item_type_uri
        if item_type is None and link is not None:
            item_type = nonblank(link.title) or nonblank(self.reader.item_types.get(link.identifier or ""))
        return item_type

    def _vocabulary_profile(self) -> VocabularyProfile:
        """A pass over the CFItems for the types, levels and languages they use; the profile that declares them."""
        vocabulary = PackageVocabulary()
        present = 0
        for _index, record in self.reader.items():
            present += 1
            if record is None or nonblank(record.identifier) is None or nonblank(record.full_statement) is None:
                continue  # refused below, or skipped (and reported) by the mapping
            vocabulary.add(self.item_type(record) or DEFAULT_ITEM_TYPE, _levels(record), nonblank(record.language))
        self.reader.refuse_wrong_types()
        if not vocabulary.item_types:
            raise self._no_usable_items(present)
        base = self.profiles.load(*GENERIC_PROFILE).profile
        rights = self._document_rights(base.default_rights)
        return vocabulary_profile(base, self.framework_id, self.document, vocabulary, rights)

    def _no_usable_items(self, present: int) -> ManifestBuildError:
        return ManifestBuildError(
            f"{self.label} has no usable CFItems ({present} present; each needs an identifier and a fullStatement).",
        )

    def _language(self, value: str | None) -> str:
        return nonblank(value) or nonblank(self.document.language) or self.profile.profile.in_language

    def _document_rights(self, rights: RightsPolicy) -> RightsPolicy:
        """``rights`` (the base profile's) with the licence, licence URI and attribution the CFDocument states: the
        default rights of a profile derived from the package (its text made safe, as the profile resource serves
        it and every package carries it). An operator's profile states its own."""
        license_ref = self.document.license_uri
        update: dict[str, Any] = {}
        if license_ref is not None:
            licence_text = nonblank(license_ref.title)
            definitions = self.reader.definitions
            for licence in (definitions.licenses if definitions else None) or []:
                if licence.identifier == license_ref.identifier:
                    licence_text = nonblank(licence.license_text) or nonblank(licence.title) or licence_text
            if licence_text:
                update["source_license"] = licence_text[:4000]
            if nonblank(license_ref.uri):
                update["license_uri"] = str(license_ref.uri)[:2000]
        publisher = nonblank(self.document.publisher) or nonblank(self.document.creator)
        origin = f"{self.document.title}" + (f" — {publisher}" if publisher else "")
        update["attribution_statement"] = f"{origin}. {rights.attribution_statement}"[:8000]
        return rights.model_copy(update={name: safe_text(value) for name, value in update.items()})

    # -- steps ---------------------------------------------------------------------------------

    def _items(self, builder: PackageGraphBuilder, resolver: NodeResolver, subject: str | None) -> None:
        """One pass over the CFItems: each usable one becomes an item; every other is skipped and reported.

        Statement types and education levels the profile does not declare are counted over the
        whole pass and refused together, after the type check of every record.
        """
        profile = self.profile.profile
        unknown_types: Counter[str] = Counter()
        unknown_grades: Counter[str] = Counter()
        present = built = untyped = uncoded = 0
        not_uuid: list[str] = []
        for index, record in self.reader.items():
            present += 1
            if record is None:
                continue  # of a type CASE does not allow: refused below, with the others
            source_identifier = nonblank(record.identifier)
            if source_identifier is None or nonblank(record.full_statement) is None:
                builder.add_finding(
                    _GAP,
                    "warning",
                    f"CFItems[{index}] has no identifier or no fullStatement; it was skipped.",
                    location=f"CFItems[{index}]",
                )
                continue
            identifier = canonical_uuid(source_identifier)
            if identifier is None:
                identifier = stable_uuid(self.framework_id, "case-item", source_identifier)
                not_uuid.append(source_identifier)
            elif identifier == source_identifier:
                identifier = source_identifier  # one string for both
            if builder.has_node(identifier) and identifier != builder.root_id:
                builder.add_finding(
                    _GAP,
                    "warning",
                    f"CFItems[{index}] repeats identifier {echo(source_identifier)!r}; the repeat was skipped.",
                    location=f"CFItems[{index}]",
                )
                continue
            item_type = self.item_type(record)
            if item_type is None:
                untyped += 1
                item_type = DEFAULT_ITEM_TYPE
            grades = _levels(record)
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
                provenance=self.dataset.provenance(
                    collection="CFItems",
                    index=index,
                    identifier=source_identifier,
                    uri=nonblank(record.uri),
                ),
                grades=grades,
                statement_code=nonblank(record.human_coding_scheme),
                academic_subject=subject,
                in_language=self._language(record.language),
                case_identifier_uri=nonblank(record.uri),
                notes=nonblank(record.notes),
                date_modified=nonblank(record.last_change_date_time),
                details={"case": _members(record, ITEM_DETAIL_FIELDS)},
            )
            built += 1
            uncoded += nonblank(record.human_coding_scheme) is None
            resolver.add(identifier, source_identifier, nonblank(record.uri))
            if source_identifier != identifier:
                self.source_ids[identifier] = source_identifier
        self.reader.refuse_wrong_types()
        if not built and not unknown_types and not unknown_grades:
            raise self._no_usable_items(present)
        if not_uuid:
            sample = ", ".join(repr(echo(value, 120)) for value in not_uuid[:_SAMPLES])
            builder.add_finding(
                _GAP,
                "warning",
                f"{len(not_uuid)} CFItems have an identifier that is not a UUID ({sample}"
                f"{' …' if len(not_uuid) > _SAMPLES else ''}); a deterministic UUID was derived from each, and "
                "its provenance keeps the source identifier.",
                location="CFItems.identifier",
            )
        if untyped:
            builder.add_finding(
                _VARIANT,
                "warning",
                f"{untyped} CFItems have no CFItemType; they carry the generic statement type {DEFAULT_ITEM_TYPE!r}.",
                location="CFItems.CFItemType",
            )
        if uncoded:
            builder.add_finding(
                _VARIANT,
                "warning",
                f"{uncoded} CFItems have no humanCodingScheme; they carry no statement code (found by text only).",
                location="CFItems.humanCodingScheme",
            )
        refuse_undeclared(
            self.label,
            self.profile,
            unknown_types,
            unknown_grades,
            ("CFItemType", "educationLevel"),
            "the package",
            counted=" items",
        )

    def _unknown_fields(self, builder: PackageGraphBuilder) -> None:
        """Members neither CASE version defines are not read; say so rather than lose them silently."""
        unknown = self.reader.unknown_fields()
        if unknown:
            listed = ", ".join(f"{echo(name)} ({count})" for name, count in list(unknown.items())[:20])
            more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
            builder.add_finding(
                _GAP,
                "warning",
                f"Members that neither CASE 1.0 nor CASE 1.1 defines were not read (member: records carrying "
                f"it): {listed}{more}.",
                location="unknown-members",
            )

    def _variants(self, builder: PackageGraphBuilder) -> None:
        """Each accepted variation of the source, one warning per member and reading."""
        for variant, count in self.reader.variants().items():
            builder.add_finding(
                _VARIANT,
                "warning",
                f"{echo(variant.member)} ({count} record(s)): {variant.reading}.",
                location=variant.member,
            )

    def run(self) -> PackageContent:
        """The package: the framework node, one pass over the items, one over the associations; then, when
        no operator profile is bound, the profile derived from what was built."""
        checkpoint = self.dataset.checkpoint  # a fetch's deadline, between the steps (the reader calls it too)
        if self.operator_profile is None:
            self.vocabulary = self._vocabulary_profile()
            wire = canonical_bytes(self.vocabulary.wire)
            self.profile = LoadedProfile(profile=self.vocabulary.profile, sha256=sha256_hex(wire))
        else:
            self.profile = self.operator_profile
        document = self.document
        rights = self.profile.profile.default_rights  # the package's rights are its profile's, bound by SHA-256
        source_root = nonblank(document.identifier) or ""
        root_id = canonical_uuid(source_root) or stable_uuid(self.framework_id, "framework")
        subjects = document.subjects
        subject = ", ".join(subjects) or "Not specified"
        framework_provenance = self.dataset.provenance(
            object="CFDocument", identifier=source_root, uri=nonblank(document.uri)
        )
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
                jurisdiction=nonblank(document.publisher) or nonblank(document.creator) or "Not specified",
                academic_subject=subject,
                in_language=self._language(None),
                case_identifier_uri=nonblank(document.uri),
                description=nonblank(document.description),
                adoption_status=nonblank(document.adoption_status),
                date_modified=nonblank(document.last_change_date_time),
                author=nonblank(document.creator),
                provider=nonblank(document.publisher),
                license=rights.source_license,
                attribution_statement=rights.attribution_statement,
            ),
            framework_provenance,
        )
        resolver = NodeResolver({source_root, root_id}, root_id)
        self._items(builder, resolver, subject if subjects else None)
        checkpoint()
        map_associations(self.dataset, builder, resolver)
        self.reader.refuse_wrong_types()
        checkpoint()
        self._root_fallback(builder)
        if self.reader.rubrics:
            builder.add_finding(
                _GAP,
                "warning",
                f"{self.reader.rubrics} CFRubrics have no counterpart in the package; they were not converted.",
            )
        if canonical_uuid(source_root) is None:
            builder.add_finding(
                _GAP,
                "warning",
                f"The CFDocument identifier {echo(source_root, 120)!r} is not a UUID; the framework's identifier "
                "was derived from the framework id, and its provenance keeps the source identifier.",
                location="CFDocument.identifier",
            )
        self._variants(builder)
        self._unknown_fields(builder)
        subject_slug = slugify(subjects[0], 40) if subjects else ""
        content = builder.content(
            snapshot_id=self.snapshot_id,
            title=str(document.title)[:512],
            subject_slug=subject_slug if identifier_problem(subject_slug) is None else "case",
            source=self._source(rights),
            rights=rights,
        )
        checkpoint()
        if self.vocabulary is None:
            return content
        profile = self._derived(content, root_id)
        checkpoint()
        listed = "; ".join(f"{part}: {how}" for part, how in profile.derivation)
        builder.add_finding(
            FindingCode.PROFILE_DERIVED,
            "info",
            f"Profile {profile.profile.profile_id}/{profile.profile.version} was derived from this CFPackage (the "
            f"profiles root has no profile named {self.framework_id}); review it: {listed}",
            location="profile",
        )
        return replace(content, profile=profile, build_findings=builder.findings)

    def _derived(self, content: PackageContent, root_id: str) -> DerivedProfile:
        """The final profile of the built package, stored in the profiles root."""
        assert self.vocabulary is not None
        base = self.profiles.load(*GENERIC_PROFILE).profile
        derived = derive_profile(
            base, self.vocabulary, self.document, root_id, content.items, content.relationships, self.defined_types
        )
        return derived.store(self.profiles)

    def _root_fallback(self, builder: PackageGraphBuilder) -> None:
        orphans = builder.items_without_parent()
        for item_id in orphans:
            builder.link(
                HAS_CHILD,
                builder.root_id,
                item_id,
                {
                    "epistemicStatus": "deterministic_derived",
                    "dataset": self.dataset.dataset_ref(),
                    "locator": {**self.dataset.origin.where(), "collection": "CFAssociations"},
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
            builder.add_finding(
                _GAP,
                "warning",
                f"{len(orphans)} CFItems have no isChildOf parent inside the document; they hang from the framework "
                "root with unresolvedStatus unresolvedRootFallback.",
            )

    def _source(self, rights: RightsPolicy) -> SourceInfo:
        document, origin, sha256 = self.document, self.dataset.origin, self.dataset.sha256
        version = nonblank(document.version) or nonblank(document.last_change_date_time) or "unversioned"
        uri = nonblank(document.official_source_url) or nonblank(document.uri)
        if origin.url is not None:
            dataset_uri: str | None = origin.url
            role = f"1EdTech CASE CFPackage fetched from its publisher's CASE API (sha256 of the bytes {sha256})"
        else:
            dataset_uri = uri
            role = f"1EdTech CASE CFPackage: CFDocument, CFItems and CFAssociations (input sha256 {sha256})"
        return SourceInfo(
            name=f"CASE CFPackage: {document.title}"[:256],
            version=version[:64],
            uri=uri[:2000] if uri else None,
            datasets=(
                SourceDataset(
                    name=origin.dataset_name[:256],
                    version=version[:64],
                    uri=dataset_uri[:2000] if dataset_uri else None,
                    license=rights.source_license[:1000],
                    role=role,
                ),
            ),
        )
