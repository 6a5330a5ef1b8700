"""Assembles one package's records from source rows, for every adapter.

Adapters describe items, edges, components and provenance by stable source keys; the builder
mints the deterministic UUIDv5 ids, refuses what the bound profile cannot represent (so a
bad source fails at build time with a clear message rather than at validation), removes
duplicate edges, and hands the writer a finished :class:`PackageContent`. It knows nothing
about any particular curriculum.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgfegmcp.errors import ManifestBuildError
from kgfegmcp.identifiers import IDENTIFIER_MAX_LENGTH, IDENTIFIER_MIN_LENGTH, identifier_problem, stable_uuid
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.lc_artifacts import ComponentProduction
from kgfegmcp.packages.manifest import SourceInfo
from kgfegmcp.packages.records import (
    COMPONENT,
    FRAMEWORK,
    HAS_CHILD,
    ITEM,
    SUPPORTS,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeLabel,
    RelationshipLabel,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.model import GradeLabel
from kgfegmcp.profiles.repository import LoadedProfile
from kgfegmcp.rights import RightsPolicy

Provenance = dict[str, Any]


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
class _ItemDraft:
    identifier: str
    description: str
    statement_type: str
    grades: list[str]
    in_language: str
    statement_code: str | None
    academic_subject: str | None
    case_identifier_uri: str | None
    notes: str | None
    is_current: bool
    date_modified: str | None


@dataclass(slots=True)
class PackageGraphBuilder:
    """Mutable accumulator of one package; ``content()`` freezes it."""

    framework_id: str
    profile: LoadedProfile
    framework: FrameworkNode
    framework_provenance: Provenance
    _items: dict[str, _ItemDraft] = field(default_factory=dict)
    _item_ids: dict[str, str] = field(default_factory=dict)
    _labels: dict[str, NodeLabel] = field(default_factory=dict)
    _components: list[ComponentNode] = field(default_factory=list)
    _edges: dict[tuple[str, str, str], RelationshipRecord] = field(default_factory=dict)
    _provenance: dict[str, Provenance] = field(default_factory=dict)
    _details: dict[str, dict[str, Any]] = field(default_factory=dict)
    _unresolved: dict[str, dict[str, Any]] = field(default_factory=dict)
    _findings: list[Finding] = field(default_factory=list)
    component_production: ComponentProduction | None = None

    def __post_init__(self) -> None:
        self._labels[self.framework.identifier] = FRAMEWORK
        self._provenance[self.framework.identifier] = copy.deepcopy(self.framework_provenance)

    @property
    def root_id(self) -> str:
        """Identifier of the framework root."""
        return self.framework.identifier

    # -- items ---------------------------------------------------------------------------------

    def has_item(self, key: str) -> bool:
        """Whether an item with this stable key exists."""
        return key in self._item_ids

    def item_id(self, key: str) -> str:
        """Identifier of the item with this stable key."""
        return self._item_ids[key]

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
        if profile.statement_type(statement_type) is None:
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
        self._items[uid] = _ItemDraft(
            identifier=uid,
            description=description,
            statement_type=statement_type,
            grades=[],
            in_language=in_language or profile.in_language,
            statement_code=statement_code,
            academic_subject=academic_subject,
            case_identifier_uri=case_identifier_uri,
            notes=notes,
            is_current=is_current,
            date_modified=date_modified,
        )
        self.add_grades(uid, grades)
        self._provenance[uid] = copy.deepcopy(provenance)
        if details:
            self._details[uid] = dict(details)
        return uid

    def add_grades(self, item_id: str, grades: Iterable[str]) -> None:
        """Add grade labels to an item; every label must be declared by the profile."""
        draft = self._items[item_id]
        profile = self.profile.profile
        for grade in grades:
            if profile.grade_label(grade) is None:
                raise ManifestBuildError(
                    f"Grade label {grade!r} is not declared by profile {profile.profile_id}/{profile.version}.",
                    hint="Declare the grade label in the profile, then rebuild.",
                )
            if grade not in draft.grades:
                draft.grades.append(grade)

    def derive_grouping_grades(self) -> None:
        """Give grouping items without grades the union of their descendants' grades.

        The derived field is named in the item's provenance, so it is never mistaken for a
        source-asserted grade.
        """
        children: dict[str, list[str]] = {}
        for label, source, target in self._edges:
            if label == HAS_CHILD:
                children.setdefault(source, []).append(target)
        profile = self.profile.profile
        memo: dict[str, set[str]] = {}

        def collect(node_id: str, trail: frozenset[str]) -> set[str]:
            if node_id in memo:
                return memo[node_id]
            found: set[str] = set(self._items[node_id].grades)
            for child in children.get(node_id, ()):
                if child not in trail:
                    found |= collect(child, trail | {child})
            memo[node_id] = found
            return found

        for draft in self._items.values():
            rule = profile.statement_type(draft.statement_type)
            if draft.grades or rule is None or rule.role != "grouping":
                continue
            derived = collect(draft.identifier, frozenset({draft.identifier}))
            if derived:
                self.add_grades(draft.identifier, derived)
                self._provenance[draft.identifier].setdefault("derivedFields", {})["gradeLevel"] = (
                    "union of the grade levels of the items below it"
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
        self._provenance[uid] = copy.deepcopy(provenance)
        return uid

    def has_edge(self, label: RelationshipLabel, source_id: str, target_id: str) -> bool:
        """Whether this (label, source, target) edge already exists."""
        return (label, source_id, target_id) in self._edges

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
        provenance of an existing edge through :meth:`provenance`.
        """
        key = (label, source_id, target_id)
        existing = self._edges.get(key)
        if existing is not None:
            return existing.identifier, False
        if source_id == target_id:
            raise ManifestBuildError(f"A {label} edge from {source_id} to itself cannot be represented.")
        source_label, target_label = self._labels[source_id], self._labels[target_id]
        if label == SUPPORTS and support_confidence is None:
            raise ManifestBuildError("A supports edge needs a supportConfidence.")
        record = RelationshipRecord(
            identifier=stable_uuid(self.framework_id, "rel", label, source_id, target_id),
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
        self._edges[key] = record
        self._provenance[record.identifier] = copy.deepcopy(provenance)
        return record.identifier, True

    def provenance(self, entity_id: str) -> Provenance:
        """The mutable provenance record of one entity."""
        return self._provenance[entity_id]

    def details(self, item_id: str) -> dict[str, Any]:
        """The mutable source-shaped details of one item (written to the detailed items artifact)."""
        if item_id not in self._items:
            raise KeyError(item_id)
        return self._details.setdefault(item_id, {})

    def item_ids(self) -> list[str]:
        """Every item id, in insertion order."""
        return list(self._items)

    def items_without_parent(self) -> list[str]:
        """Items no hasChild edge reaches yet, in insertion order."""
        reached = {target for (label, _source, target) in self._edges if label == HAS_CHILD}
        return [item_id for item_id in self._items if item_id not in reached]

    # -- evidence ------------------------------------------------------------------------------

    def add_unresolved(self, key: str, entry: Mapping[str, Any]) -> str:
        """Record unresolved evidence (never a silent drop); ``status`` must be supported."""
        uid = stable_uuid(self.framework_id, "unresolved", key)
        if uid in self._unresolved:
            raise ManifestBuildError(f"Unresolved key {key!r} repeats in {self.framework_id}.")
        self._unresolved[uid] = {"unresolvedId": uid, **entry}
        return uid

    def add_finding(self, code: str, severity: str, message: str, location: str | None = None) -> None:
        """A build finding, written into the package's validation report."""
        self._findings.append(
            Finding.model_validate(
                {"code": code, "severity": severity, "message": message[:2000], "location": location, "stage": "build"}
            )
        )

    @property
    def findings(self) -> list[Finding]:
        """Build findings so far."""
        return list(self._findings)

    # -- output --------------------------------------------------------------------------------

    def _grade_order(self) -> dict[str, GradeLabel]:
        return {g.source_label: g for g in self.profile.profile.grade_labels}

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
        order = self._grade_order()
        items = [
            ItemNode(
                identifier=d.identifier,
                case_identifier_uuid=d.identifier,
                description=d.description,
                statement_type=d.statement_type,
                grade_level=tuple(sorted(d.grades, key=lambda g: (order[g].order, g))),
                is_current=d.is_current,
                in_language=d.in_language,
                case_identifier_uri=d.case_identifier_uri,
                statement_code=d.statement_code,
                normalized_statement_type=rule.normalized
                if (rule := self.profile.profile.statement_type(d.statement_type))
                else None,
                academic_subject=d.academic_subject,
                notes=d.notes,
                date_modified=d.date_modified,
            )
            for d in self._items.values()
        ]
        return PackageContent(
            framework_id=self.framework_id,
            snapshot_id=snapshot_id,
            title=title,
            subject_slug=subject_slug,
            profile=self.profile,
            rights=rights,
            source=source,
            framework=self.framework,
            items=items,
            components=list(self._components),
            relationships=list(self._edges.values()),
            provenance=dict(self._provenance),
            unresolved=list(self._unresolved.values()),
            item_details=dict(self._details),
            build_findings=list(self._findings),
            component_production=self.component_production if self._components else None,
        )
