"""The profile of an ASN package derived from its own document, when no profile is named after it.

The same two steps as CASE (:mod:`kgfegmcp.sources.case.derived_profile`), with ASN's vocabulary:

1. :func:`vocabulary_profile`, before the items are placed: every statement type the document uses with
   its role (the publisher's entry, else the ASN vocabulary, else the document's structure: a type whose
   statements mostly have child items is a grouping, any other a standard), every education level with
   its grade label (a known level IRI keeps its facet, display and aliases; any other is the document's own
   label), the language of the statement texts, and the rights;
2. :func:`final_profile`, from the built package: the code conventions and the hierarchy's shape as built,
   and the version, a hash of the content (same document, same bytes; a changed vocabulary, a new version).

Rights: the publisher's stated terms when the publisher is known, else the document's ``dcterms:license``
and ``dcterms:rights`` (or "Not declared in the ASN document; the publisher's terms apply."), attributed to
its ``dcterms:rightsHolder`` or ``dcterms:publisher``; the review status is the vocabulary's
(``provisional_operator_approved``, as the generic CASE profile's). The file is stored in the profiles root
by the mapping, which reports what was derived as a ``profile_derived`` finding.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kgfegmcp.core.models import canonical_bytes, pretty_json_bytes
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.core.text_safety import safe_text
from kgfegmcp.packages.records import ItemNode, RelationshipRecord
from kgfegmcp.profiles.model import InterpretationProfile
from kgfegmcp.sources.asn.document import DCTERMS, AsnGraph
from kgfegmcp.sources.asn.hierarchy import AsnStructure
from kgfegmcp.sources.asn.vocabulary import AsnVocabulary, EducationLevel, Publisher
from kgfegmcp.sources.case.derived_profile import derived_profile_id
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

_STRUCTURAL_DISCLOSURE = "roles-from-structure"
LICENSE = DCTERMS + "license"
RIGHTS = DCTERMS + "rights"
HOLDER_PREDICATES = (DCTERMS + "rightsHolder", DCTERMS + "publisher", DCTERMS + "creator")


@dataclass(frozen=True, slots=True)
class TypeUse:
    """How the document uses one statement type: its statements, and how many of them have child items."""

    statements: int
    with_children: int


@dataclass(frozen=True, slots=True)
class VocabularyProfile:
    """Step 1: the profile items are placed with, and its wire form for step 2."""

    wire: dict[str, Any]
    profile: InterpretationProfile
    derivation: tuple[tuple[str, str], ...]


def _roles(
    types: Mapping[str, TypeUse], vocabulary: AsnVocabulary, publisher: Publisher | None
) -> tuple[dict[str, str], list[tuple[str, str]], list[str]]:
    listed = {rule.source_type: ("the ASN vocabulary", rule.role) for rule in vocabulary.statement_types}
    if publisher is not None:
        listed.update({rule.source_type: (publisher.publisher_id, rule.role) for rule in publisher.statement_types})
    roles: dict[str, str] = {}
    derivation: list[tuple[str, str]] = []
    structural: list[str] = []
    for name in sorted(types):
        use = types[name]
        if name in listed:
            where, roles[name] = listed[name]
            basis = f"listed by {where}"
        else:
            roles[name] = "grouping" if use.with_children * 2 > use.statements else "standard"
            basis = f"structure: {use.with_children} of {use.statements} statements have child items"
            structural.append(name)
        derivation.append((f"statement type {name!r}", f"{roles[name]} ({use.statements} statements; {basis})"))
    return roles, derivation, structural


def _grade_labels(levels: Mapping[str, EducationLevel | None]) -> tuple[list[dict[str, Any]], str]:
    """Known levels with their table's facet, display, order and aliases; the document's own after them."""
    known = sorted(((label, entry) for label, entry in levels.items() if entry is not None), key=lambda p: p[1].order)
    labels = [
        {
            "sourceLabel": label,
            "facet": entry.facet,
            "display": entry.display,
            "order": entry.order,
            **({"aliases": list(entry.aliases)} if entry.aliases else {}),
        }
        for label, entry in known
    ]
    facets = UniqueSlugs(entry.facet for _label, entry in known)
    order = max((entry.order for _label, entry in known), default=-1)
    own = sorted(label for label, entry in levels.items() if entry is None)
    for label in own:
        facet = facets.claim(slugify(label, 56) or f"level-{hashlib.sha256(label.encode('utf-8')).hexdigest()[:8]}")
        order += 1
        labels.append({"sourceLabel": label, "facet": facet, "display": label, "order": order})
    basis = f"{len(known)} known education levels (facets and aliases from the shipped ASN data)"
    basis += f", {len(own)} of the document's own: {', '.join(repr(label) for label in own[:12])}" if own else ""
    return labels, basis if levels else "none (no statement has an education level)"


def vocabulary_profile(
    framework_id: str,
    title: str,
    language: str | None,
    types: Mapping[str, TypeUse],
    levels: Mapping[str, EducationLevel | None],
    rights: RightsPolicy,
    vocabulary: AsnVocabulary,
    publisher: Publisher | None,
) -> VocabularyProfile:
    """Step 1: every statement type and education level of the document declared, with its role."""
    parts = vocabulary.derived_profile
    roles, derivation, structural = _roles(types, vocabulary, publisher)
    normalized = _normalized(roles)
    grade_labels, grade_basis = _grade_labels(levels)
    derivation.append(("grade labels", grade_basis))
    derivation.append(("language", language or f"{parts.in_language} (the statements state none)"))
    derivation.append(("rights", f"{rights.source_license[:200]} (review status {rights.review_status})"))
    disclosures = [d.to_wire() for d in parts.disclosures]
    if structural:
        listed = ", ".join(f"{name} ({roles[name]})" for name in structural)
        text = f"Roles read from the document's structure, not from a vocabulary: {listed}."
        disclosures.append({"disclosureId": _STRUCTURAL_DISCLOSURE, "text": text[:2000]})
    wire: dict[str, Any] = {
        "profileId": derived_profile_id(framework_id),
        "version": "0.0",
        "title": f"Derived from the ASN document {safe_text(title)}"[:256],
        "inLanguage": language or parts.in_language,
        "gradeLabels": grade_labels,
        "statementTypes": [
            {"sourceType": name, "normalized": normalized[name], "role": roles[name]} for name in sorted(roles)
        ],
        "hierarchy": {"rule": "multiParentDag", "maxDepth": 64, "maxParents": 64},
        "codePolicy": OPEN_CODE_POLICY,
        "searchFacets": list(parts.search_facets),
        "progressionLabels": [],
        "disclosures": disclosures,
        "defaultRights": rights.to_wire(),
    }
    refuse_oversized_profile(wire, framework_id)
    return VocabularyProfile(wire, validated(wire), tuple(derivation))


def _normalized(names: Iterable[str]) -> dict[str, str]:
    """Each type's slug, unique among the document's types (a hash where the name has no ASCII letter or digit)."""
    unique = UniqueSlugs()
    return {
        name: unique.claim(slugify(name, 56) or f"type-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}")
        for name in sorted(names)
    }


def document_rights(
    graph: AsnGraph, structure: AsnStructure, publisher: Publisher | None, base: RightsPolicy
) -> RightsPolicy:
    """The rights of a derived profile: the publisher's stated terms, else what the document states."""
    if publisher is not None and publisher.rights is not None:
        stated = publisher.rights
        return base.model_copy(
            update={
                "source_license": stated.source_license,
                "license_uri": stated.license_uri,
                "attribution_statement": stated.attribution_statement,
            }
        )
    nodes = [iri for iri in (structure.document, *structure.containers) if iri is not None]
    licences = [label for iri in nodes for label in graph.labels(iri, (LICENSE,))]
    licence_iris = [value for iri in nodes for value in graph.nodes[iri].iris(LICENSE)]
    statements = [label for iri in nodes for label in graph.labels(iri, (RIGHTS,))]
    holders = [label for iri in nodes for label in graph.labels(iri, HOLDER_PREDICATES)]
    stated_text = "; ".join(dict.fromkeys([*licences, *statements]))
    update: dict[str, Any] = {}
    if stated_text:
        update["source_license"] = stated_text[:4000]
    if licence_iris:
        update["license_uri"] = sorted(licence_iris)[0][:2000]
    if holders:
        update["attribution_statement"] = f"{'; '.join(dict.fromkeys(holders))}. {base.attribution_statement}"[:8000]
    return base.model_copy(update=update)


def final_profile(
    step: VocabularyProfile, root_id: str, items: Iterable[ItemNode], relationships: Iterable[RelationshipRecord]
) -> DerivedProfileFile:
    """Step 2: the code policy and hierarchy of the built package; the versioned file bytes."""
    items = list(items)
    children, parents = has_child_edges(relationships)
    roles = {rule.source_type: rule.role for rule in step.profile.statement_types}
    policy, code_basis = code_policy(items, roles, "asn:statementNotation")
    hierarchy = hierarchy_shape(children, parents, root_id)
    wire = {**step.wire, "codePolicy": policy, "hierarchy": hierarchy}
    wire["version"] = f"1.0.{int(hashlib.sha256(canonical_bytes(wire)).hexdigest()[:8], 16)}"
    refuse_oversized_profile(wire, str(wire["profileId"]), final=True)
    validated(wire)
    derivation = (
        *step.derivation,
        ("code policy", code_basis),
        (
            "hierarchy",
            f"{hierarchy['rule']}, depth {hierarchy['maxDepth']}, at most {hierarchy['maxParents']} "
            "parent(s) per item, as built",
        ),
    )
    return DerivedProfileFile(pretty_json_bytes(wire), derivation)
