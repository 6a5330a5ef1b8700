"""What an ASN package is called, which publisher it is from, and which profile it binds.

One package per ASN document. A publisher of the shipped table (:mod:`.vocabulary`) is recognised by the
IRI of the document node (else of the first statement); its templates give the framework id, snapshot id
and title from the pattern's named groups and the document's subject (ACARA's MRAC:
``australia-acara-v9-mathematics@mrac-2023-07``). For any other publisher, the framework id is the slug of
the jurisdiction (unless the title names it) and the title of the document (the ``asn:StandardDocument``'s
title, else the top statements' texts), and the snapshot id the slug of the document's version and latest
``dcterms:modified`` date (``yyyymmdd``), else ``sha-<12 hex of the file's SHA-256>``, as
:mod:`kgfegmcp.sources.case.identity` does for CASE. The profile is the operator's (or shipped) one named
after the framework id; without one the mapping derives a profile from the document (:mod:`.derived_profile`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kgfegmcp.core.errors import ManifestBuildError, echo
from kgfegmcp.core.identifiers import identifier_problem
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.sources.asn.document import ASN, DCTERMS, AsnGraph
from kgfegmcp.sources.asn.hierarchy import ROOT, AsnStructure
from kgfegmcp.sources.asn.text import statement_text
from kgfegmcp.sources.asn.vocabulary import AsnVocabulary, Publisher, TextPredicate, match_publisher
from kgfegmcp.sources.case.identity import parse_datetime, select_profile
from kgfegmcp.sources.graph_builder import slugify

FRAMEWORK_ID_LENGTH = 64
SUBJECT_SLUG_LENGTH = 40
MODIFIED = DCTERMS + "modified"
SUBJECT = DCTERMS + "subject"
JURISDICTION = ASN + "jurisdiction"
VERSION_PREDICATES = (DCTERMS + "hasVersion", "http://www.w3.org/2002/07/owl#versionInfo")


@dataclass(frozen=True, slots=True)
class AsnIdentity:
    """The package's ids and names, its publisher (if known) and the profile named after it (if any)."""

    framework_id: str
    snapshot_id: str
    title: str
    subject: str | None
    jurisdiction: str | None
    publisher: Publisher | None
    version: str
    #: Which text predicate comes first (the publisher's order, else the vocabulary's).
    text_predicates: tuple[TextPredicate, ...]
    profile: LoadedProfile | None


def top_items(structure: AsnStructure) -> list[str]:
    """The items that hang from the framework root (or name no parent at all), in document order."""
    placements = structure.placements
    return [
        iri
        for iri in structure.items
        if ROOT in placements[iri].parents or not (placements[iri].parents or placements[iri].missing)
    ]


def subject_of(graph: AsnGraph, structure: AsnStructure, predicates: tuple[TextPredicate, ...]) -> str | None:
    """The document's ``dcterms:subject`` labels, else its top statements' subjects, else their texts."""
    found = graph.labels(structure.document, (SUBJECT,))
    tops = top_items(structure)
    if not found:
        found = list(dict.fromkeys(label for iri in tops for label in graph.labels(iri, (SUBJECT,))))
    if not found:
        found = [text for iri in tops if (text := statement_text(graph.nodes[iri], predicates)[0]) is not None]
    return "; ".join(found) if found else None


def _latest_modified(graph: AsnGraph) -> str | None:
    dates = [parse_datetime(t.value) for node in graph.nodes.values() for t in node.texts(MODIFIED)]
    known = [d for d in dates if d is not None]
    return max(known).strftime("%Y%m%d") if known else None


def _checked(value: str, kind: str, hint: str) -> str:
    problem = identifier_problem(value, kind)
    if problem is not None:
        raise ManifestBuildError(f"Cannot name the ASN package: {problem} ({echo(value, 120)!r}).", hint=hint)
    return value


def package_identity(
    graph: AsnGraph,
    structure: AsnStructure,
    profiles: ProfileRepository,
    vocabulary: AsnVocabulary,
) -> AsnIdentity:
    """The ids, names and profile of the package of ``graph``."""
    document = structure.document
    anchor = document or (structure.items[0] if structure.items else None)
    matched = match_publisher(anchor)
    predicates = (matched[0].text_predicates if matched else None) or vocabulary.text_predicates
    subject = subject_of(graph, structure, predicates)
    if matched is not None:
        publisher, fields = matched
        slug = slugify(subject or "", SUBJECT_SLUG_LENGTH)
        values = {**fields, "subject": slug, "subjectTitle": subject or ""}
        hint = f"The shipped ASN publisher entry {publisher.publisher_id} names the package from the document."
        if not slug:
            raise ManifestBuildError(
                f"{graph.source.name} is from {publisher.name}, but states no subject to name its package by.",
                hint=hint,
            )
        framework_id = _checked(publisher.framework_id.format(**values), "framework id", hint)
        snapshot_id = _checked(publisher.snapshot_id.format(**values), "snapshot id", hint)
        title, version = publisher.title.format(**values), publisher.version.format(**values)
        jurisdiction: str | None = publisher.jurisdiction
    else:
        publisher = None
        jurisdiction = "; ".join(graph.labels(document, (JURISDICTION,))) or None
        document_title = statement_text(graph.nodes[document], ("title", "description"))[0] if document else None
        if structure.document_is_statement:
            document_title = None  # a root statement's text is not a title (MRAC's is a change note)
        tops = top_items(structure)
        title = document_title or "; ".join(
            text for iri in tops if (text := statement_text(graph.nodes[iri], predicates)[0]) is not None
        )
        place, named = slugify(jurisdiction or "", 30), slugify(title, FRAMEWORK_ID_LENGTH)
        slug = named if not place or place in named else slugify(f"{place} {title}", FRAMEWORK_ID_LENGTH)
        framework_id = slug if identifier_problem(slug) is None else f"asn-{graph.source.sha256[:12]}"
        stated_version = next(iter(graph.labels(document, VERSION_PREDICATES)), None)
        parts = [slugify(stated_version or "", 30), _latest_modified(graph) or ""]
        snapshot = "-".join(part for part in parts if part) or f"sha-{graph.source.sha256[:12]}"
        hint = "The snapshot id is read from the document's version and dcterms:modified dates."
        snapshot_id = _checked(slugify(snapshot), "snapshot id", hint)
        version = stated_version or _latest_modified(graph) or f"sha256 {graph.source.sha256[:12]}"
        title = title or framework_id
    return AsnIdentity(
        framework_id=framework_id,
        snapshot_id=snapshot_id,
        title=title[:512],
        subject=subject,
        jurisdiction=jurisdiction,
        publisher=publisher,
        version=version[:64],
        text_predicates=predicates,
        profile=select_profile(profiles, framework_id),
    )
