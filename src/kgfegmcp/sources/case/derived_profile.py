"""The profile of a CASE package derived from its own CFPackage, when the operator has none for it.

CFItemType is an open vocabulary and education levels vary, so no shipped profile can declare every
framework's terms. When the profiles root holds no profile named after the framework, the build derives
one from the package in two steps:

1. :func:`vocabulary_profile`, before the items are mapped: the statement types and education levels
   the CFItems use (:class:`PackageVocabulary`, read in a pass of their own) and the language, so the
   package builder can place every item;
2. :func:`derive_profile`, from the finished package content: each statement type's role, the
   hierarchy's shape and the code conventions, as the package actually has them.

Everything that is vocabulary comes from the base profile (``case-generic``, a data file): a statement
type it lists keeps its role there, a CEDS education level keeps its facet, display and aliases, and the
search facets, progression labels and association disclosure are its own. The rights are its own too, with
the licence, licence URI and attribution the CFDocument states (given by the mapping): the package's rights
are then bound to the profile by its SHA-256, as every package's are. What the base does
not list is read from the package's structure, never from words: a type whose items mostly have child
items is a grouping, any other a standard; an education level it does not list is the package's own
label. The result is deterministic (same package, same bytes): sorted, and versioned by a hash of its
content, so a rebuild reuses the file and a changed vocabulary gets a new version.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError, echo
from kgfegmcp.core.limits import IDENTIFIER_MAX_LENGTH
from kgfegmcp.core.models import canonical_bytes, pretty_json_bytes
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.core.text_safety import safe_text
from kgfegmcp.packages.records import ItemNode, RelationshipRecord
from kgfegmcp.profiles.model import InterpretationProfile
from kgfegmcp.sources.case.document import CaseDocument, nonblank
from kgfegmcp.sources.derived_rules import (
    OPEN_CODE_POLICY,
    DerivedProfileFile,
    UniqueSlugs,
    code_policy,
    has_child_edges,
    hierarchy_shape,
    refuse_oversized_profile,
    validated,
)
from kgfegmcp.sources.graph_builder import slugify

DERIVED_SUFFIX = "-derived"
#: The disclosure of the base profile that describes binding it; a derived profile replaces it.
_BASE_DISCLOSURE = "generic-case-profile"
_DERIVED_DISCLOSURE = (
    "derived-case-profile",
    "This package's profile was derived from its own CASE CFPackage when it was built. Statement types are "
    "the publisher's CFItemType values (an item without one has the type 'Item'); a type the generic CASE "
    "vocabulary lists keeps its role there, any other is a grouping when most of its items have child items "
    "in the package and a standard otherwise. Grade labels are the package's education levels. The code "
    "policy and hierarchy limits describe this package as built.",
)
_STRUCTURAL_DISCLOSURE = "roles-from-structure"
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
_MAX_TYPE_CHARS = 128
_MAX_LEVEL_CHARS = 64
_MAX_LABELS = 1000
_LISTED = 12  # values named in one review line


@dataclass(slots=True)
class PackageVocabulary:
    """The statement types, education levels and item languages the CFItems use, with their counts."""

    item_types: Counter[str] = field(default_factory=Counter)
    levels: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)

    def add(self, item_type: str, levels: Iterable[str], language: str | None) -> None:
        """One usable CFItem."""
        self.item_types[item_type] += 1
        self.levels.update(levels)
        if language is not None:
            self.languages[language] += 1


@dataclass(frozen=True, slots=True)
class VocabularyProfile:
    """The profile the builder places items with: every type and level the package may use, every role
    still open (``standard``) until :func:`derive_profile` reads them from the built package."""

    profile_id: str
    wire: dict[str, Any]
    profile: InterpretationProfile
    normalized: Mapping[str, str]
    facets: Mapping[str, str]
    language_basis: str


def derived_profile_id(framework_id: str) -> str:
    """``<framework-id>-derived``, the framework part shortened at a hyphen when the whole would be too long."""
    room = IDENTIFIER_MAX_LENGTH - len(DERIVED_SUFFIX)
    head = framework_id if len(framework_id) <= room else framework_id[:room].rsplit("-", 1)[0]
    return head.strip("-") + DERIVED_SUFFIX


def _hash_slug(prefix: str, value: str) -> str:
    return f"{prefix}-{hashlib.sha256(value.encode('utf-8')).hexdigest()[:8]}"


def _latin(value: str) -> bool:
    """Whether every letter and digit of ``value`` is ASCII once accents are taken off, so that its slug keeps them."""
    folded = unicodedata.normalize("NFKD", value)
    return all(char.isascii() for char in folded if char.isalnum() and not unicodedata.combining(char))


def _unique_slugs(values: Iterable[str], known: Mapping[str, str], prefix: str) -> dict[str, str]:
    """A facet-shaped slug per value: the base's for a value it lists, else the value's own (unique)."""
    slugs = UniqueSlugs(known.values())
    found: dict[str, str] = {}
    for value in sorted(values):
        if value in known:
            found[value] = known[value]
            continue
        found[value] = slugs.claim((slugify(value, 56) if _latin(value) else "") or _hash_slug(prefix, value))
    return found


def _language(document: CaseDocument, vocabulary: PackageVocabulary, base: InterpretationProfile) -> tuple[str, str]:
    """The profile's language and where it came from: the CFDocument's, else the items' most common one."""
    candidates = [(nonblank(document.language), "the CFDocument's language")]
    if vocabulary.languages:
        top = sorted(vocabulary.languages.items(), key=lambda pair: (-pair[1], pair[0]))[0]
        candidates.append((top[0], f"the language of {top[1]} of the CFItems"))
    for value, basis in candidates:
        if value is None:
            continue
        primary, _, rest = value.strip().partition("-")
        tag = primary.lower() + (f"-{rest}" if rest else "")
        if _LANGUAGE.fullmatch(tag):
            return tag, basis
    stated = ", ".join(repr(echo(value)) for value, _basis in candidates if value is not None)
    reason = f"the package states no usable language ({stated})" if stated else "the package states no language"
    return base.in_language, f"{reason}; the default of {base.profile_id}/{base.version}"


def vocabulary_profile(
    base: InterpretationProfile,
    framework_id: str,
    document: CaseDocument,
    vocabulary: PackageVocabulary,
    rights: RightsPolicy,
) -> VocabularyProfile:
    """Step 1: every statement type and education level of ``vocabulary`` declared, roles left open."""
    long_types = [t for t in vocabulary.item_types if len(t) > _MAX_TYPE_CHARS]
    long_levels = [level for level in vocabulary.levels if len(level) > _MAX_LEVEL_CHARS]
    if long_types or long_levels:
        named = [f"CFItemType {echo(t, 80)!r}" for t in long_types]
        named += [f"educationLevel {echo(v, 80)!r}" for v in long_levels]
        raise ManifestBuildError(
            f"Cannot derive a profile for {framework_id}: {'; '.join(named[:5])} is longer than a profile term "
            f"may be ({_MAX_TYPE_CHARS} characters for a type, {_MAX_LEVEL_CHARS} for a level).",
            hint="Ask the publisher to correct the CFPackage, or add a profile named after the framework.",
        )
    base_types = {rule.source_type: rule.normalized for rule in base.statement_types}
    base_grades = {label.source_label: label.facet for label in base.grade_labels}
    unknown_levels = [level for level in vocabulary.levels if level not in base_grades]
    if len(unknown_levels) > _MAX_LABELS - len(base.grade_labels):
        raise ManifestBuildError(
            f"Cannot derive a profile for {framework_id}: its CFItems use {len(vocabulary.levels)} education "
            "levels, more than a profile may declare.",
            hint="Ask the publisher to correct the CFPackage, or add a profile named after the framework.",
        )
    normalized = _unique_slugs(vocabulary.item_types, base_types, "type")
    facets = _unique_slugs(vocabulary.levels, base_grades, "level")
    language, language_basis = _language(document, vocabulary, base)
    profile_id = derived_profile_id(framework_id)
    roles = dict.fromkeys(vocabulary.item_types, "standard")
    hierarchy = {"rule": "multiParentDag", "maxDepth": 64, "maxParents": 64}  # read from the package in step 2
    wire = _wire(base, profile_id, document, language, normalized, roles, facets, hierarchy, None, rights)
    refuse_oversized_profile(wire, framework_id)
    return VocabularyProfile(profile_id, wire, validated(wire), normalized, facets, language_basis)


def _grade_labels(base: InterpretationProfile, facets: Mapping[str, str]) -> list[dict[str, Any]]:
    """The base's labels for the levels it lists (its order first), then the package's own, sorted."""
    listed = {label.source_label: label for label in base.grade_labels}
    known = sorted((level for level in facets if level in listed), key=lambda level: listed[level].order)
    found = [listed[level].to_wire() for level in known]
    order = max((label.order for label in base.grade_labels), default=-1)
    for level in sorted(level for level in facets if level not in listed):
        order += 1
        found.append({"sourceLabel": level, "facet": facets[level], "display": level, "order": order})
    return found


def _wire(
    base: InterpretationProfile,
    profile_id: str,
    document: CaseDocument,
    language: str,
    normalized: Mapping[str, str],
    roles: Mapping[str, str],
    facets: Mapping[str, str],
    hierarchy: dict[str, Any],
    code_policy: dict[str, Any] | None,
    rights: RightsPolicy,
) -> dict[str, Any]:
    """The profile document (its version a placeholder until the content is final)."""
    disclosures = [{"disclosureId": _DERIVED_DISCLOSURE[0], "text": _DERIVED_DISCLOSURE[1]}]
    disclosures += [d.to_wire() for d in base.disclosures if d.disclosure_id != _BASE_DISCLOSURE]
    structural = sorted(t for t in roles if base.statement_type(t) is None)
    if structural:
        listed = ", ".join(f"{t} ({roles[t]})" for t in structural)
        text = f"Roles read from the package's structure, not from a vocabulary: {listed}."
        disclosures.append({"disclosureId": _STRUCTURAL_DISCLOSURE, "text": text[:2000]})
    return {
        "profileId": profile_id,
        "version": "0.0",
        "title": f"Derived from the CASE CFPackage {safe_text(str(document.title))}"[:256],
        "inLanguage": language,
        "gradeLabels": _grade_labels(base, facets),
        "statementTypes": [{"sourceType": t, "normalized": normalized[t], "role": roles[t]} for t in sorted(roles)],
        "hierarchy": hierarchy,
        "codePolicy": code_policy or OPEN_CODE_POLICY,
        "searchFacets": list(base.search_facets),
        "progressionLabels": list(base.progression_labels),
        "disclosures": disclosures,
        "defaultRights": rights.to_wire(),
        "claimLabels": base.claim_labels.to_wire(),
    }


def derive_profile(
    base: InterpretationProfile,
    vocabulary: VocabularyProfile,
    document: CaseDocument,
    root_id: str,
    items: Iterable[ItemNode],
    relationships: Iterable[RelationshipRecord],
    defined_types: Iterable[str] = (),
) -> DerivedProfileFile:
    """Step 2: the final profile of the built package (roles, hierarchy, codes), as file bytes."""
    items = list(items)
    children, parents = has_child_edges(relationships)
    per_type: dict[str, list[ItemNode]] = defaultdict(list)
    for item in items:
        per_type[item.statement_type].append(item)
    derivation: list[tuple[str, str]] = []
    roles: dict[str, str] = {}
    for item_type in sorted(per_type):
        members = per_type[item_type]
        rule = base.statement_type(item_type)
        if rule is not None:
            roles[item_type] = rule.role
            basis = f"listed by {base.profile_id}/{base.version}"
        else:
            parents_of = sum(1 for item in members if children.get(item.identifier))
            roles[item_type] = "grouping" if parents_of * 2 > len(members) else "standard"
            basis = f"structure: {parents_of} of {len(members)} items have child items"
        derivation.append((f"statement type {item_type!r}", f"{roles[item_type]} ({len(members)} items; {basis})"))
    used_levels = sorted({level for item in items for level in item.grade_level})
    facets = {level: vocabulary.facets[level] for level in used_levels}
    listed_levels = [level for level in used_levels if base.grade_label(level) is not None]
    own_levels = [level for level in used_levels if base.grade_label(level) is None]
    if used_levels:
        parts = []
        if listed_levels:
            parts.append(f"{_named(listed_levels)} as {base.profile_id}/{base.version} lists them")
        if own_levels:
            parts.append(f"{_named(own_levels)} as the package's own labels")
        derivation.append(("grade labels", "; ".join(parts)))
    else:
        derivation.append(("grade labels", "none (no CFItem has an educationLevel)"))
    language = vocabulary.profile.in_language
    derivation.append(("language", f"{language} ({vocabulary.language_basis})"))
    policy, code_basis = code_policy(items, roles, "humanCodingScheme")
    derivation.append(("code policy", code_basis))
    hierarchy = hierarchy_shape(children, parents, root_id)
    derivation.append(
        (
            "hierarchy",
            f"{hierarchy['rule']}, depth {hierarchy['maxDepth']}, at most {hierarchy['maxParents']} parent(s) "
            "per item, as built",
        )
    )
    unused = sorted(set(defined_types) - set(per_type))
    if unused:
        derivation.append(("CFDefinitions.CFItemTypes", f"defined but used by no item, not declared: {_named(unused)}"))
    rights = vocabulary.profile.default_rights
    wire = _wire(
        base, vocabulary.profile_id, document, language, vocabulary.normalized, roles, facets, hierarchy, policy, rights
    )
    content_hash = hashlib.sha256(canonical_bytes(wire)).hexdigest()
    wire["version"] = f"1.0.{int(content_hash[:8], 16)}"
    refuse_oversized_profile(wire, vocabulary.profile_id, final=True)
    data = pretty_json_bytes(wire)
    validated(wire)
    return DerivedProfileFile(data, tuple(derivation))


def _named(values: list[str]) -> str:
    shown = ", ".join(repr(echo(value, 80)) for value in values[:_LISTED])
    return shown + (f" and {len(values) - _LISTED} more" if len(values) > _LISTED else "")
