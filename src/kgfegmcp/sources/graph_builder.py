"""Assembles one package's records from source rows, for every importer.

Importers describe items, edges, components and provenance by stable source keys; the builder
mints the deterministic UUIDv5 ids, refuses what the bound profile cannot represent (so a
bad source fails at build time with a clear message rather than at validation), removes
duplicate edges, and hands the writer a finished :class:`PackageContent`. It knows nothing
about any particular curriculum.

It is also the one gate every source's text passes before it is written: :meth:`PackageGraphBuilder.content`
replaces each control or bidirectional formatting character (``kgfegmcp.core.text_safety``) in every text of
the package, and says so in one ``unsafe_text`` finding per member, with a count.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import identifier_problem, stable_uuid
from kgfegmcp.core.limits import IDENTIFIER_MAX_LENGTH, IDENTIFIER_MIN_LENGTH
from kgfegmcp.core.models import canonical_json
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.core.text_safety import REPLACEMENT, UNSAFE_TEXT, UnsafeTextTally, code_point
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.lc_artifacts import ComponentProduction
from kgfegmcp.packages.manifest import SourceInfo
from kgfegmcp.packages.record_spool import RecordSpool, SpooledList, SpooledRecords
from kgfegmcp.packages.records import (
    COMPONENT,
    FRAMEWORK,
    HAS_CHILD,
    ITEM,
    PROPERTIES_BY_LABEL,
    SUPPORTS,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeLabel,
    NodeRecord,
    RelationshipLabel,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import LoadedProfile

Provenance = dict[str, Any]
_V = TypeVar("_V")
_N = TypeVar("_N", bound=NodeRecord)
_M = TypeVar("_M", bound=BaseModel)

#: ``unsafe_text`` findings a build writes at most, one per member; the members beyond are counted in one more.
MAX_UNSAFE_MEMBERS: Final = 20
#: Node properties never rewritten: the identity, and the terms the bound profile declares (a statement type,
#: a grade label), which the profile, derived from the same source, names as the source spells them. Rewriting
#: one would part it from its declaration; an unsafe one is reported here and refused by the validator.
_BOUND_ATTRIBUTES: Final = frozenset(
    {"case_identifier_uuid", "statement_type", "normalized_statement_type", "grade_level"}
)
#: Per node label, its text properties: ``(attribute, member name, holds an array of strings, bound)``.
_TEXT_PROPERTIES: Final = {
    label: tuple(
        (attribute, f"{label}.{wire}", kind == "array", attribute in _BOUND_ATTRIBUTES)
        for attribute, wire, kind, _required in properties
        if kind in ("str", "array")
    )
    for label, properties in PROPERTIES_BY_LABEL.items()
}
#: Where a spooled record's canonical JSON may hold an unsafe character: raw (DEL, C1, bidirectional) or as
#: an escape (``\u0000`` to ``\u001f``, ``\b``, ``\f``). A superset: a match is only read, then judged.
_MAYBE_UNSAFE_JSON: Final = re.compile(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\\u00[01]|\\[bf]")


def slugify(text: str, max_length: int = IDENTIFIER_MAX_LENGTH) -> str:
    """Lowercase ASCII words joined by single hyphens (accents folded), cut at a word boundary."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0] if "-" in slug[:max_length] else slug[:max_length]
    return slug.strip("-")


def identifier_from(text: str, kind: str) -> str:
    """A repository identifier derived from source text; ``manifest_build_error`` when impossible."""
    slug = slugify(text)
    problem = identifier_problem(slug, kind)
    if problem is not None:
        raise ManifestBuildError(
            f"Cannot derive a {kind} from {text!r}: {problem}.",
            hint=f"Identifiers are {IDENTIFIER_MIN_LENGTH}-{IDENTIFIER_MAX_LENGTH} lowercase a-z/0-9 words.",
        )
    return slug


def grade_by_facet(profile: LoadedProfile, facet: str) -> str:
    """The profile's source label for a normalised facet (profiles own the local grade labels)."""
    for label in profile.profile.grade_labels:
        if label.facet == facet:
            return label.source_label
    raise ManifestBuildError(
        f"Profile {profile.profile.profile_id}/{profile.profile.version} declares no grade label with facet {facet!r}.",
        hint="Add the grade label to the profile, then rebuild.",
    )


@dataclass(slots=True)
class PackageGraphBuilder:
    """Mutable accumulator of one package; ``content()`` freezes it.

    Its memory stays a small multiple of the graph itself: items are kept as the final
    :class:`ItemNode` records, relationships by their id, repeated values (statement types,
    languages, grade lists, dates) as one object each, and the per-entity documents (provenance,
    source details, unresolved entries) in a :class:`RecordSpool` on disk rather than in memory.
    """

    framework_id: str
    profile: LoadedProfile
    framework: FrameworkNode
    framework_provenance: Provenance
    _items: dict[str, ItemNode] = field(default_factory=dict)
    _item_ids: dict[str, str] = field(default_factory=dict)
    _labels: dict[str, NodeLabel] = field(default_factory=dict)
    _components: list[ComponentNode] = field(default_factory=list)
    _edges: dict[str, RelationshipRecord] = field(default_factory=dict)  # by id: a UUID of label, source, target
    _provenance: RecordSpool = field(default_factory=RecordSpool)
    _details: RecordSpool = field(default_factory=RecordSpool)
    _unresolved: RecordSpool = field(default_factory=RecordSpool)
    _open_provenance: dict[str, Provenance] = field(default_factory=dict)  # handed out by provenance()
    _open_details: dict[str, dict[str, Any]] = field(default_factory=dict)  # handed out by details()
    _shared: dict[Any, Any] = field(default_factory=dict)
    _grade_rank: dict[str, int] = field(default_factory=dict)
    _findings: list[Finding] = field(default_factory=list)
    _text: UnsafeTextTally = field(default_factory=UnsafeTextTally)  # what the text gate replaced, per member
    _bound_text: UnsafeTextTally = field(default_factory=UnsafeTextTally)  # unsafe terms it may not rewrite
    _text_findings: list[Finding] = field(default_factory=list)
    component_production: ComponentProduction | None = None

    def __post_init__(self) -> None:
        self._labels[self.framework.identifier] = FRAMEWORK
        self._provenance.add(self.framework.identifier, self.framework_provenance)

    @property
    def root_id(self) -> str:
        """Identifier of the framework root."""
        return self.framework.identifier

    def _share(self, value: _V) -> _V:
        """One object for every equal repeated value (a statement type, a language, a grade list …)."""
        return value if value is None else self._shared.setdefault(value, value)

    # -- items ---------------------------------------------------------------------------------

    def has_item(self, key: str) -> bool:
        """Whether an item with this stable key exists."""
        return key in self._item_ids

    def item_id(self, key: str) -> str:
        """Identifier of the item with this stable key."""
        return self._item_ids[key]

    def has_node(self, identifier: str) -> bool:
        """Whether a node (the framework, an item or a component) has this identifier."""
        return identifier in self._labels

    def item(self, item_id: str) -> ItemNode:
        """The item record with this identifier."""
        return self._items[item_id]

    def add_item(
        self,
        key: str,
        *,
        description: str,
        statement_type: str,
        provenance: Provenance,
        grades: Iterable[str] = (),
        statement_code: str | None = None,
        academic_subject: str | None = None,
        in_language: str | None = None,
        case_identifier_uri: str | None = None,
        notes: str | None = None,
        is_current: bool = True,
        date_modified: str | None = None,
        details: Mapping[str, Any] | None = None,
        identifier: str | None = None,
    ) -> str:
        """Add one item; its id is ``stable_uuid(framework, "item", key)`` unless the source has one."""
        if key in self._item_ids:
            raise ManifestBuildError(f"Source key {key!r} names two items in {self.framework_id}.")
        profile = self.profile.profile
        rule = profile.statement_type(statement_type)
        if rule is None:
            raise ManifestBuildError(
                f"Statement type {statement_type!r} is not declared by profile {profile.profile_id}/{profile.version}.",
                hint="Declare the type in the profile, then rebuild.",
            )
        if not description:
            raise ManifestBuildError(f"Item {key!r} of {self.framework_id} has no description.")
        uid = identifier or stable_uuid(self.framework_id, "item", key)
        if uid in self._labels:
            raise ManifestBuildError(f"Identifier {uid} of item {key!r} repeats in {self.framework_id}.")
        self._item_ids[key] = uid
        self._labels[uid] = ITEM
        self._items[uid] = ItemNode(
            identifier=uid,
            case_identifier_uuid=uid,
            description=description,
            statement_type=self._share(statement_type),
            grade_level=self._with_grades((), grades),
            is_current=is_current,
            in_language=self._share(in_language or profile.in_language),
            case_identifier_uri=case_identifier_uri,
            statement_code=statement_code,
            normalized_statement_type=rule.normalized,
            academic_subject=self._share(academic_subject),
            notes=notes,
            date_modified=self._share(date_modified),
        )
        self._provenance.add(uid, provenance)
        if details:
            self._details.add(uid, details)
        return uid

    def add_grades(self, item_id: str, grades: Iterable[str]) -> None:
        """Add grade labels to an item; every label must be declared by the profile."""
        node = self._items[item_id]
        found = self._with_grades(node.grade_level, grades)
        if found != node.grade_level:
            self._items[item_id] = replace(node, grade_level=found)

    def _with_grades(self, present: tuple[str, ...], grades: Iterable[str]) -> tuple[str, ...]:
        """``present`` and ``grades``, each label declared by the profile, in the profile's order (one shared tuple)."""
        profile = self.profile.profile
        found = list(present)
        for grade in grades:
            if profile.grade_label(grade) is None:
                raise ManifestBuildError(
                    f"Grade label {grade!r} is not declared by profile {profile.profile_id}/{profile.version}.",
                    hint="Declare the grade label in the profile, then rebuild.",
                )
            if grade not in found:
                found.append(grade)
        if len(found) == len(present):
            return present
        if not self._grade_rank:
            self._grade_rank.update((g.source_label, g.order) for g in profile.grade_labels)
        rank = self._grade_rank
        return self._share(tuple(sorted(found, key=lambda g: (rank[g], g))))

    def derive_grouping_grades(self) -> None:
        """Give grouping items without grades the union of their descendants' grades.

        The derived field is named in the item's provenance, so it is never mistaken for a
        source-asserted grade.
        """
        children: dict[str, list[str]] = {}
        for record in self._edges.values():
            if record.label == HAS_CHILD:
                children.setdefault(record.source_identifier, []).append(record.target_identifier)
        profile = self.profile.profile
        memo: dict[str, set[str]] = {}

        def collect(node_id: str, trail: frozenset[str]) -> set[str]:
            if node_id in memo:
                return memo[node_id]
            found: set[str] = set(self._items[node_id].grade_level)
            for child in children.get(node_id, ()):
                if child not in trail:
                    found |= collect(child, trail | {child})
            memo[node_id] = found
            return found

        for node in list(self._items.values()):
            rule = profile.statement_type(node.statement_type)
            if node.grade_level or rule is None or rule.role != "grouping":
                continue
            derived = collect(node.identifier, frozenset({node.identifier}))
            if derived:
                self.add_grades(node.identifier, derived)
                self.update_provenance(
                    node.identifier,
                    lambda record: record.setdefault("derivedFields", {}).update(
                        gradeLevel="union of the grade levels of the items below it"
                    ),
                )

    # -- components and relationships ----------------------------------------------------------

    def add_component(
        self,
        key: str,
        *,
        description: str,
        provenance: Provenance,
        in_language: str | None = None,
        academic_subject: str | None = None,
        tags: Sequence[str] = (),
        author: str | None = None,
        provider: str | None = None,
        license: str | None = None,
        attribution_statement: str | None = None,
    ) -> str:
        """Add one learning component; it must later get at least one ``supports`` edge."""
        uid = stable_uuid(self.framework_id, "component", key)
        if uid in self._labels:
            raise ManifestBuildError(f"Component key {key!r} repeats in {self.framework_id}.")
        self._labels[uid] = COMPONENT
        self._components.append(
            ComponentNode(
                identifier=uid,
                description=description,
                in_language=in_language or self.profile.profile.in_language,
                academic_subject=academic_subject,
                tags=tuple(dict.fromkeys(tags)),
                author=author,
                provider=provider,
                license=license,
                attribution_statement=attribution_statement,
            )
        )
        self._provenance.add(uid, provenance)
        return uid

    def _edge_id(self, label: RelationshipLabel, source_id: str, target_id: str) -> str:
        return stable_uuid(self.framework_id, "rel", label, source_id, target_id)

    def has_edge(self, label: RelationshipLabel, source_id: str, target_id: str) -> bool:
        """Whether this (label, source, target) edge already exists."""
        return self._edge_id(label, source_id, target_id) in self._edges

    def link(
        self,
        label: RelationshipLabel,
        source_id: str,
        target_id: str,
        provenance: Provenance,
        *,
        support_confidence: float | None = None,
        unresolved_status: str | None = None,
    ) -> tuple[str, bool]:
        """Add an edge, or find the existing identical one; returns ``(id, created)``.

        The provenance is copied, so one dict may be passed for several entities; callers extend the
        provenance of an existing edge through :meth:`update_provenance`.
        """
        identifier = self._edge_id(label, source_id, target_id)
        if identifier in self._edges:
            return identifier, False
        if source_id == target_id:
            raise ManifestBuildError(f"A {label} edge from {source_id} to itself cannot be represented.")
        source_label, target_label = self._labels[source_id], self._labels[target_id]
        if label == SUPPORTS and support_confidence is None:
            raise ManifestBuildError("A supports edge needs a supportConfidence.")
        self._edges[identifier] = RelationshipRecord(
            identifier=identifier,
            label=label,
            source_identifier=source_id,
            target_identifier=target_id,
            source_label=source_label,
            target_label=target_label,
            source_entity_key=entity_key_for(source_label),
            target_entity_key=entity_key_for(target_label),
            support_confidence=support_confidence,
            unresolved_status=unresolved_status,
        )
        self._provenance.add(identifier, provenance)
        return identifier, True

    def provenance(self, entity_id: str) -> Provenance:
        """The provenance record of one entity; changes made to it are kept (written back by :meth:`content`).

        Each record handed out stays in memory until then: to change many, use :meth:`update_provenance`.
        """
        record = self._open_provenance.get(entity_id)
        if record is None:
            record = self._provenance.get(entity_id)
            if record is None:
                raise KeyError(entity_id)
            self._open_provenance[entity_id] = record
        return record

    def update_provenance(self, entity_id: str, change: Callable[[Provenance], object]) -> None:
        """Apply ``change`` to one entity's provenance record and store the result."""
        if entity_id in self._open_provenance:
            change(self._open_provenance[entity_id])
            return
        record = self._provenance.get(entity_id)
        if record is None:
            raise KeyError(entity_id)
        change(record)
        self._provenance.replace(entity_id, record)

    def details(self, item_id: str) -> dict[str, Any]:
        """The mutable source-shaped details of one item (written to the detailed items artifact)."""
        if item_id not in self._items:
            raise KeyError(item_id)
        record = self._open_details.get(item_id)
        if record is None:
            record = self._details.get(item_id) or {}
            self._open_details[item_id] = record
        return record

    def item_ids(self) -> list[str]:
        """Every item id, in insertion order."""
        return list(self._items)

    def items_without_parent(self) -> list[str]:
        """Items no hasChild edge reaches yet, in insertion order."""
        reached = {r.target_identifier for r in self._edges.values() if r.label == HAS_CHILD}
        return [item_id for item_id in self._items if item_id not in reached]

    # -- evidence ------------------------------------------------------------------------------

    def add_unresolved(self, key: str, entry: Mapping[str, Any]) -> str:
        """Record unresolved evidence (never a silent drop); ``status`` must be supported."""
        uid = stable_uuid(self.framework_id, "unresolved", key)
        if not self._unresolved.add(uid, {"unresolvedId": uid, **entry}):
            raise ManifestBuildError(f"Unresolved key {key!r} repeats in {self.framework_id}.")
        return uid

    def add_finding(self, code: FindingCode, severity: str, message: str, location: str | None = None) -> None:
        """A build finding, written into the package's validation report (the writer refuses other codes).

        ``SOURCE_MAPPING_GAP``: a source element could not be represented and was left out;
        ``SOURCE_TEXT_DIFFERENCE``: a secondary source disagrees with the verified one;
        ``SOURCE_VARIANT_ACCEPTED``: a source member in a known variant form was read as what it stands for;
        ``PROFILE_DERIVED``: the package's profile was derived from its source.
        """
        safe_location = None if location is None else self._text.safe("validationReport.location", None, location)
        self._findings.append(
            Finding.model_validate(
                {
                    "code": code.value,
                    "severity": severity,
                    "message": self._text.safe("validationReport.message", None, message)[:2000],
                    "location": safe_location,
                    "stage": "build",
                }
            )
        )

    @property
    def findings(self) -> list[Finding]:
        """Build findings so far (with what the text gate of the last :meth:`content` replaced)."""
        return [*self._findings, *self._text_findings]

    # -- the text gate -------------------------------------------------------------------------

    def _safe_node(self, node: _N) -> _N:
        """``node`` with every text property made safe (:func:`~kgfegmcp.core.text_safety.safe_text`), counted."""
        properties = _TEXT_PROPERTIES[node.label]
        texts = [getattr(node, attribute) for attribute, _member, _array, _bound in properties]
        flat = "\n".join(v if isinstance(v, str) else "\n".join(v) for v in texts if v is not None)
        if UNSAFE_TEXT.search(flat) is None:
            return node
        changes: dict[str, Any] = {}
        for (attribute, member, array, bound), value in zip(properties, texts, strict=True):
            if value is None:
                continue
            if bound:
                for term in value if array else (value,):
                    self._bound_text.note(member, node.identifier, term)
                continue
            safe = (
                tuple(self._text.safe(member, node.identifier, v) for v in value)
                if array
                else self._text.safe(member, node.identifier, value)
            )
            if safe != value:
                changes[attribute] = safe
        return replace(node, **changes)

    def _safe_model(self, member: str, model: _M) -> _M:
        """A source-given model (rights, source, component production) with every string made safe, counted."""
        wire = model.model_dump(mode="json", by_alias=True)
        safe = self._text.safe_json(member, None, wire)
        return model if safe == wire else type(model).model_validate_json(canonical_json(safe))

    def _safe_spool(self, member: str, spool: RecordSpool) -> None:
        """Every spooled record with its strings made safe: only the few whose JSON may hold one are read."""
        changed = []
        for key, body in spool.by_key():
            if _MAYBE_UNSAFE_JSON.search(body) is None:
                continue
            record = json.loads(body)
            safe = self._text.safe_json(member, key, record)
            if safe != record:
                changed.append((key, safe))
        for key, record in changed:
            spool.replace(key, record)

    def _gate_text(self, title: str, source: SourceInfo, rights: RightsPolicy) -> tuple[str, SourceInfo, RightsPolicy]:
        """Make every text of the package safe, in place, and write its ``unsafe_text`` findings.

        Every source's package passes here on its way to the writer, so no source can hand a terminal or a
        host a control or bidirectional formatting character. Idempotent: a second call finds nothing new.
        """
        self.framework = self._safe_node(self.framework)
        for item_id, item in self._items.items():
            safe = self._safe_node(item)
            if safe is not item:
                self._items[item_id] = safe
        self._components = [self._safe_node(component) for component in self._components]
        if self.component_production is not None:
            self.component_production = self._safe_model("lcGenerationSummary", self.component_production)
        self._safe_spool("entityProvenance", self._provenance)
        self._safe_spool("standardsFrameworkItems.sourceDetails", self._details)
        self._safe_spool("unresolvedItems", self._unresolved)
        title = self._text.safe("manifest.title", None, title)
        source = self._safe_model("manifest.source", source)
        rights = self._safe_model("manifest.rights", rights)
        self._text_findings = _unsafe_findings(self._text) + _unsafe_findings(self._bound_text, replaced=False)
        return title, source, rights

    # -- output --------------------------------------------------------------------------------

    def content(
        self,
        *,
        snapshot_id: str,
        title: str,
        subject_slug: str,
        source: SourceInfo,
        rights: RightsPolicy,
    ) -> PackageContent:
        """The finished package content, in deterministic order."""
        for entity_id, record in self._open_provenance.items():
            self._provenance.replace(entity_id, record)
        self._open_provenance.clear()
        for item_id, details in self._open_details.items():
            if not self._details.add(item_id, details):
                self._details.replace(item_id, details)
        self._open_details.clear()
        title, source, rights = self._gate_text(title, source, rights)
        return PackageContent(
            framework_id=self.framework_id,
            snapshot_id=snapshot_id,
            title=title,
            subject_slug=subject_slug,
            profile=self.profile,
            rights=rights,
            source=source,
            framework=self.framework,
            items=list(self._items.values()),
            components=list(self._components),
            relationships=list(self._edges.values()),
            provenance=SpooledRecords(self._provenance),
            unresolved=SpooledList(self._unresolved),
            item_details=SpooledRecords(self._details),
            build_findings=self.findings,
            component_production=self.component_production if self._components else None,
        )


def _unsafe_findings(tally: UnsafeTextTally, *, replaced: bool = True) -> list[Finding]:
    """One ``unsafe_text`` warning per member whose text the gate changed (or, not ``replaced``, could not change
    since the profile declares it), at most :data:`MAX_UNSAFE_MEMBERS`."""
    members = tally.members()
    how = (
        (
            f"each was replaced by {code_point(REPLACEMENT)} (a control read as whitespace by a space), so that no "
            "terminal or host is driven by it"
        )
        if replaced
        else (
            "kept as the profile declares the term (a statement type or grade label is never rewritten), so "
            "validation refuses the package: correct the term in the source, then build again"
        )
    )
    findings = [
        Finding(
            code=FindingCode.UNSAFE_TEXT.value,
            severity="warning",
            message=f"{member.summary()} (control or bidirectional formatting characters): {how}",
            location=member.member,
            stage="build",
        )
        for member in members[:MAX_UNSAFE_MEMBERS]
    ]
    beyond = members[MAX_UNSAFE_MEMBERS:]
    if beyond:
        values = sum(member.values for member in beyond)
        findings.append(
            Finding(
                code=FindingCode.UNSAFE_TEXT.value,
                severity="warning",
                message=f"{len(beyond)} more members held such characters too ({values} values): {how}",
                stage="build",
            )
        )
    return findings
