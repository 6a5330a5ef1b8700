"""The shape of an ASN document: its document node, its items and notes, and each item's parents.

ASN states nesting three ways, and a document may use any one of them alone: ``gemq:isChildOf`` on the
child, ``gemq:hasChild`` on the parent, and ``dcterms:isPartOf`` naming the document (top-level statements).
A statement's parents are its ``isChildOf`` links; only a statement with none takes the statements that list
it with ``hasChild``, and only one with neither, the document it ``isPartOf``. (ACARA's MRAC omits 11
Level → Achievement Standard pairs from ``hasChild``, and 17 elaborations do not carry their parent's code:
neither ``hasChild`` nor notation is a reliable parent key.) A cycle of parents is refused.

The document node is the ``asn:StandardDocument``; a document without one (MRAC) is the single statement
with no parent and no ``asn:statementLabel`` (MRAC's ``root``). In that shape, unlabelled statements between
the root and the first labelled ones (MRAC's ``LA``, "Learning Areas") are containers of the catalogue, not
curriculum statements: they are recorded with the document, and their children hang from the framework.

Statements whose label the ASN data lists as supporting material (``noteLabels``, e.g. ACARA's
elaborations) are not items: each belongs to the nearest item above it, as a note. Order is the
document's notation order (natural: ``E2`` before ``E10``), then ``asn:listID``, then IRI.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError, echo
from kgfegmcp.sources.asn.document import ASN, DCTERMS, GEMQ, STANDARD_DOCUMENT, STATEMENT, AsnGraph

IS_CHILD_OF = GEMQ + "isChildOf"
HAS_CHILD = GEMQ + "hasChild"
IS_PART_OF = DCTERMS + "isPartOf"
STATEMENT_LABEL = ASN + "statementLabel"
STATEMENT_NOTATION = ASN + "statementNotation"
LIST_ID = ASN + "listID"
#: The marker of the framework root among an item's parents.
ROOT = ""
_DIGITS = re.compile(r"([0-9]+)")


def natural_key(text: str | None) -> tuple[Any, ...]:
    """``AC9M1N01_E2`` before ``AC9M1N01_E10``: digit runs compared as numbers."""
    if text is None:
        return ()
    parts = (chunk for chunk in _DIGITS.split(text) if chunk)
    return (*((0, int(c), c) if c.isdigit() else (1, c.casefold(), c) for c in parts),)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one item hangs, and which source links say so."""

    #: Parent item IRIs, :data:`ROOT` for the framework; empty when no parent is in the document.
    parents: tuple[str, ...]
    #: The predicate the parents were read from (``gemq:isChildOf``, ``gemq:hasChild``, ``dcterms:isPartOf``),
    #: or ``None`` when the statement names no parent at all.
    field: str | None
    #: Parents the statement names that the document does not describe as statements.
    missing: tuple[str, ...] = ()
    #: Note statements named as parents, replaced by the item their note belongs to.
    via_notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AsnStructure:
    """The document node, the containers, the items in document order, their placements and their notes."""

    document: str | None
    document_is_statement: bool
    containers: tuple[str, ...]
    items: tuple[str, ...]
    placements: Mapping[str, Placement]
    notes: Mapping[str, tuple[str, ...]]
    #: Note statements with no item above them (kept as unresolved evidence).
    homeless_notes: tuple[str, ...]
    #: ``hasChild`` links that name a parent the child's own ``isChildOf`` does not.
    has_child_disagreements: int


def label_of(graph: AsnGraph, iri: str) -> str | None:
    """The statement's ``asn:statementLabel``, if any (the first, in value order)."""
    node = graph.node(iri)
    return None if node is None else node.text(STATEMENT_LABEL)


def order_key(graph: AsnGraph, iri: str) -> tuple[Any, ...]:
    """Document order of sibling statements: notation, then list id, then IRI."""
    node = graph.nodes[iri]
    return (natural_key(node.text(STATEMENT_NOTATION)), natural_key(node.text(LIST_ID)), iri)


def _raw_parents(
    graph: AsnGraph, statements: list[str], document: str | None
) -> tuple[dict[str, tuple[tuple[str, ...], str | None]], int]:
    """Each statement's parents as the source states them, and the count of disagreeing ``hasChild`` links."""
    listed_by: dict[str, list[str]] = {}
    for iri, node in graph.nodes.items():
        for child in node.iris(HAS_CHILD):
            listed_by.setdefault(child, []).append(iri)
    raw: dict[str, tuple[tuple[str, ...], str | None]] = {}
    disagreements = 0
    for iri in statements:
        node = graph.nodes[iri]
        own = node.iris(IS_CHILD_OF)
        if own:
            raw[iri] = (own, "gemq:isChildOf")
            disagreements += sum(1 for parent in listed_by.get(iri, ()) if parent not in own)
        elif iri in listed_by:
            raw[iri] = (tuple(sorted(set(listed_by[iri]))), "gemq:hasChild")
        elif document is not None and document in node.iris(IS_PART_OF):
            raw[iri] = ((document,), "dcterms:isPartOf")
        else:
            raw[iri] = ((), None)
    return raw, disagreements


def _refuse_cycles(graph: AsnGraph, raw: Mapping[str, tuple[tuple[str, ...], str | None]]) -> None:
    """``manifest_build_error`` naming the statements of the first parent cycle found."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for start in raw:
        if state.get(start):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            iri, index = stack.pop()
            parents = [p for p in raw[iri][0] if p in raw]
            if index == 0:
                state[iri] = 1
                path.append(iri)
            if index < len(parents):
                stack.append((iri, index + 1))
                parent = parents[index]
                if state.get(parent) == 1:
                    cycle = [*path[path.index(parent) :], parent]
                    named = " → ".join(_name(graph, step) for step in cycle)
                    raise ManifestBuildError(
                        f"The parent links of {graph.source.name} form a cycle: {named}.",
                        hint="Each statement's gemq:isChildOf (or gemq:hasChild) must lead up to the document; "
                        "correct the document.",
                    )
                if not state.get(parent):
                    stack.append((parent, 0))
            else:
                state[iri] = 2
                path.pop()


def _name(graph: AsnGraph, iri: str) -> str:
    notation = graph.nodes[iri].text(STATEMENT_NOTATION)
    return f"{echo(notation, 40)} ({echo(iri, 120)})" if notation else echo(iri, 120)


def read_structure(graph: AsnGraph, note_labels: Collection[str]) -> AsnStructure:
    """The structure of ``graph``; ``manifest_build_error`` when it holds no statement or has a parent cycle."""
    statements = graph.typed(STATEMENT)
    if not statements:
        raise ManifestBuildError(
            f"{graph.source.name} holds no asn:Statement ({graph.source.triples} triples read"
            + (f"; {graph.blank_statements} are blank nodes without an IRI)." if graph.blank_statements else ")."),
            hint="Give an ASN document: statements typed http://purl.org/ASN/schema/core/Statement.",
        )
    statement_set = set(statements)
    documents = [iri for iri in graph.typed(STANDARD_DOCUMENT) if iri not in statement_set]
    if len(documents) > 1:
        raise ManifestBuildError(
            f"{graph.source.name} holds {len(documents)} asn:StandardDocuments; one package is built per document.",
            hint="Split the file into one file per StandardDocument.",
        )
    document = documents[0] if documents else None
    raw, disagreements = _raw_parents(graph, statements, document)
    _refuse_cycles(graph, raw)
    is_statement = False
    if document is None:
        tops = [iri for iri in statements if not raw[iri][0]]
        if len(tops) == 1 and label_of(graph, tops[0]) is None:
            document, is_statement = tops[0], True
    children: dict[str, list[str]] = {}
    for iri in statements:
        for parent in raw[iri][0]:
            children.setdefault(parent, []).append(iri)
    containers: list[str] = []
    if is_statement and document is not None:
        queue = [document]
        while queue:
            current = queue.pop(0)
            for child in sorted(children.get(current, ()), key=lambda c: order_key(graph, c)):
                if label_of(graph, child) is None and child not in containers:
                    containers.append(child)
                    queue.append(child)
    outside = {document, *containers}
    notes_set = {iri for iri in statements if iri not in outside and label_of(graph, iri) in note_labels}
    items_set = {iri for iri in statements if iri not in outside and iri not in notes_set}
    hosts: dict[str, str | None] = {}

    def host(note: str) -> str | None:
        """The item a note belongs to: the nearest item up its first parents."""
        seen: list[str] = []
        current: str | None = note
        while current is not None and current in notes_set and current not in hosts:
            seen.append(current)
            parents = raw[current][0]
            current = parents[0] if parents else None
        found = hosts.get(current) if current in hosts else (current if current in items_set else None)
        for step in seen:
            hosts[step] = found
        return found

    placements: dict[str, Placement] = {}
    for iri in sorted(items_set):
        parents, field = raw[iri]
        placed: list[str] = []
        missing: list[str] = []
        via: list[str] = []
        for parent in parents:
            if parent in outside:
                placed.append(ROOT)
            elif parent in items_set:
                placed.append(parent)
            elif parent in notes_set:
                via.append(parent)
                owner = host(parent)
                if owner is None:
                    missing.append(parent)
                else:
                    placed.append(owner)
            else:
                missing.append(parent)
        placements[iri] = Placement(tuple(dict.fromkeys(placed)), field, tuple(missing), tuple(via))
    notes: dict[str, list[str]] = {}
    homeless: list[str] = []
    for note in sorted(notes_set, key=lambda n: order_key(graph, n)):
        owner = host(note)
        if owner is None:
            homeless.append(note)
        else:
            notes.setdefault(owner, []).append(note)
    return AsnStructure(
        document=document,
        document_is_statement=is_statement,
        containers=tuple(containers),
        items=_document_order(graph, placements),
        placements=placements,
        notes={owner: tuple(found) for owner, found in sorted(notes.items())},
        homeless_notes=tuple(homeless),
        has_child_disagreements=disagreements,
    )


def _document_order(graph: AsnGraph, placements: Mapping[str, Placement]) -> tuple[str, ...]:
    """Items depth first from the framework root, siblings in :func:`order_key` order."""
    below: dict[str, list[str]] = {}
    for iri, placement in placements.items():
        for parent in placement.parents or (ROOT,):
            below.setdefault(parent, []).append(iri)
    order: list[str] = []
    seen: set[str] = set()
    stack = sorted(below.get(ROOT, ()), key=lambda c: order_key(graph, c), reverse=True)
    while stack:
        iri = stack.pop()
        if iri in seen:
            continue
        seen.add(iri)
        order.append(iri)
        stack.extend(sorted(below.get(iri, ()), key=lambda c: order_key(graph, c), reverse=True))
    order.extend(sorted((iri for iri in placements if iri not in seen), key=lambda c: order_key(graph, c)))
    return tuple(order)
