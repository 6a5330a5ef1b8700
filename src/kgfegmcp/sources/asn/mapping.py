"""One ASN document onto one graph package: the framework, the items with their notes, the hierarchy.

Each statement (:mod:`.hierarchy`) becomes an item: its text (:mod:`.text`, exactly as written) is the
description, ``asn:statementLabel`` the statement type (a statement without one has the vocabulary's
generic type), ``asn:statementNotation`` the code (except for the labels the publisher marks uncoded: their
notation is an internal key, kept in source details), ``dcterms:educationLevel`` the grades (the label the
document gives the level IRI), ``dcterms:modified`` the modification date and the statement IRI its URI.
Every other predicate of the statement is kept in its source details (``asn:skillEmbodied``,
``dcterms:relation``, ``asn:hasLevel`` …), with the label the document gives each IRI it names.

Notes: statements of a note label (ACARA's elaborations, which ACARA calls neither comprehensive nor
mandatory) are not standards. Each is a line of its item's ``notes``, ``<notation>: <text>`` in document
order (a text holding a line break keeps it, so count entries by their notation, not by lines), and is
listed whole (IRI, notation, text, properties) in the item's source details and its provenance locator.

The document node (and, in MRAC's shape, the container statements under its root) is the framework: its
properties are in the framework's provenance. An item whose parents are not in the document hangs from the
root as ``unresolvedRootFallback`` evidence; a grouping without an education level gets the union of its
items' grades (marked derived). What cannot be represented is a ``source_mapping_gap`` finding.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from kgfegmcp.core.errors import echo
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import identifier_problem, stable_uuid
from kgfegmcp.core.models import canonical_bytes, sha256_hex
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo, UpstreamChecksum
from kgfegmcp.packages.records import HAS_CHILD, ROOT_FALLBACK, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.sources.asn.derived_profile import (
    TypeUse,
    VocabularyProfile,
    document_rights,
    final_profile,
    vocabulary_profile,
)
from kgfegmcp.sources.asn.document import (
    ASN,
    DCTERMS,
    RDF_TYPE,
    STANDARD_DOCUMENT,
    AsnGraph,
    AsnNode,
    Blank,
    Iri,
    Text,
    Value,
    curie,
)
from kgfegmcp.sources.asn.hierarchy import (
    HAS_CHILD as GEMQ_HAS_CHILD,
)
from kgfegmcp.sources.asn.hierarchy import (
    IS_CHILD_OF,
    ROOT,
    STATEMENT_LABEL,
    STATEMENT_NOTATION,
    AsnStructure,
    read_structure,
)
from kgfegmcp.sources.asn.identity import AsnIdentity, package_identity
from kgfegmcp.sources.asn.text import language_tag, statement_literal
from kgfegmcp.sources.asn.vocabulary import AsnVocabulary, EducationLevel, load_vocabulary
from kgfegmcp.sources.case.identity import parse_datetime
from kgfegmcp.sources.derived_rules import refuse_undeclared
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, slugify

_GAP = FindingCode.SOURCE_MAPPING_GAP
_SAMPLES = 5
EDUCATION_LEVEL_PREDICATES = (DCTERMS + "educationLevel", ASN + "educationLevel")
MODIFIED = DCTERMS + "modified"
#: Predicates the hierarchy already holds (not repeated in source details).
_MAPPED = frozenset({RDF_TYPE, IS_CHILD_OF, GEMQ_HAS_CHILD})


@dataclass(frozen=True, slots=True)
class Statement:
    """What one statement contributes to its item (or, for a note, to its item's notes)."""

    iri: str
    text: str | None
    text_predicate: str | None
    language: str | None
    statement_type: str
    label: str | None
    notation: str | None
    code: str | None
    levels: tuple[tuple[str, EducationLevel | None], ...]
    modified: str | None
    extra_texts: int


class AsnMapping:
    """One ASN document onto one package; the profile is the one named after the framework, else derived."""

    def __init__(self, graph: AsnGraph, profiles: ProfileRepository) -> None:
        self.graph = graph
        self.profiles = profiles
        self.vocabulary: AsnVocabulary = load_vocabulary()
        self.structure: AsnStructure = read_structure(graph, self.vocabulary.note_labels)
        self.identity: AsnIdentity = package_identity(graph, self.structure, profiles, self.vocabulary)
        publisher = self.identity.publisher
        self.uncoded = frozenset(publisher.uncoded_labels if publisher else ())
        levels = [*(publisher.education_levels if publisher else ()), *self.vocabulary.education_levels]
        self.known_levels: dict[str, EducationLevel] = {}
        for level in levels:
            self.known_levels.setdefault(level.iri, level)
        self.statements = {
            iri: self._statement(iri)
            for iri in (*self.structure.items, *(n for notes in self.structure.notes.values() for n in notes))
        }
        self.statements.update({iri: self._statement(iri) for iri in self.structure.homeless_notes})

    # -- reading statements ---------------------------------------------------------------------

    def _level(self, value: Value) -> tuple[str, EducationLevel | None] | None:
        """An education level's grade label (as the document labels it) and its entry in the shipped data."""
        if isinstance(value, Iri):
            known = self.known_levels.get(value.value)
            label = self.graph.label(value.value) or (known.source_label if known else None)
            return (label or self.graph.value_label(value) or value.value), known
        label = self.graph.value_label(value)
        return None if label is None else (label, None)

    def _statement(self, iri: str) -> Statement:
        node = self.graph.nodes[iri]
        literal, predicate = statement_literal(node, self.identity.text_predicates)
        label = node.text(STATEMENT_LABEL)
        notation = node.text(STATEMENT_NOTATION)
        levels = [self._level(v) for p in EDUCATION_LEVEL_PREDICATES for v in node.values(p)]
        dated = [(parse_datetime(t.value), t.value) for t in node.texts(MODIFIED)]
        known_dates = sorted((d, text) for d, text in dated if d is not None)
        return Statement(
            iri=iri,
            text=None if literal is None else literal.value,
            text_predicate=predicate,
            language=None if literal is None else language_tag(literal.language),
            statement_type=label or self.vocabulary.default_statement_type,
            label=label,
            notation=notation,
            code=notation if notation is not None and label not in self.uncoded else None,
            levels=tuple(dict.fromkeys(level for level in levels if level is not None)),
            modified=known_dates[-1][1] if known_dates else None,
            extra_texts=len(node.texts(predicate)) - 1 if predicate else 0,
        )

    def _rendered(self, value: Value) -> Any:
        """A value as source details show it: a literal's text, an IRI with the document's label for it."""
        if isinstance(value, Text):
            return value.value
        if isinstance(value, Iri):
            label = self.graph.label(value.value)
            return {"iri": value.value, "label": label} if label is not None else {"iri": value.value}
        assert isinstance(value, Blank)
        return {"blankNode": {curie(p): [self._rendered(v) for v in vs] for p, vs in value.properties}}

    def _properties(self, node: AsnNode, skip: frozenset[str] = frozenset()) -> dict[str, list[Any]]:
        """Every predicate of ``node`` but ``skip``, by its prefixed name, values rendered."""
        return {
            curie(predicate): [self._rendered(value) for value in values]
            for predicate, values in node.properties.items()
            if predicate not in skip
        }

    def _skipped(self, statement: Statement) -> frozenset[str]:
        """What the item's own fields hold, left out of its source details: the structure links, and the text,
        notation and label predicates when they have one value (a second value would be lost otherwise)."""
        node = self.graph.nodes[statement.iri]
        single = {p for p in (STATEMENT_NOTATION, STATEMENT_LABEL) if len(node.values(p)) <= 1}
        if statement.text_predicate is not None and not statement.extra_texts:
            single.add(statement.text_predicate)
        return _MAPPED | single

    def _details(self, statement: Statement) -> dict[str, Any]:
        node = self.graph.nodes[statement.iri]
        details: dict[str, Any] = {
            "statementIri": statement.iri,
            "statementNotation": statement.notation,
            "statementLabel": statement.label,
            "textPredicate": curie(statement.text_predicate) if statement.text_predicate else None,
            "parentsFrom": self.structure.placements[statement.iri].field
            if statement.iri in self.structure.placements
            else None,
            "properties": self._properties(node, self._skipped(statement)),
        }
        notes = self.structure.notes.get(statement.iri, ())
        if notes:
            details["notes"] = [self._note_details(self.statements[note]) for note in notes]
        return {key: value for key, value in details.items() if value is not None}

    def _note_details(self, note: Statement) -> dict[str, Any]:
        node = self.graph.nodes[note.iri]
        record = {
            "statementIri": note.iri,
            "statementNotation": note.notation,
            "statementLabel": note.label,
            "text": note.text,
            "properties": self._properties(node, self._skipped(note)),
        }
        return {key: value for key, value in record.items() if value is not None}

    def _notes(self, item: str) -> str | None:
        lines = []
        for note in self.structure.notes.get(item, ()):
            statement = self.statements[note]
            if statement.text is None:
                continue  # reported with the textless statements
            lines.append(f"{statement.notation}: {statement.text}" if statement.notation else statement.text)
        return "\n".join(lines) or None

    # -- provenance ----------------------------------------------------------------------------

    def dataset_ref(self) -> dict[str, str]:
        """Which dataset release a provenance record refers to."""
        return {"name": self._dataset_name(), "version": self.identity.version}

    def _dataset_name(self) -> str:
        publisher = self.identity.publisher
        return publisher.dataset_name if publisher else f"ASN document {self.graph.source.name}"[:256]

    @staticmethod
    def _reference(statement: Statement) -> dict[str, str]:
        """A statement's IRI, notation and label (those it has)."""
        found = {
            "statementIri": statement.iri,
            "statementNotation": statement.notation,
            "statementLabel": statement.label,
        }
        return {key: value for key, value in found.items() if value is not None}

    def locator(self, statement: Statement | None = None, **extra: Any) -> dict[str, Any]:
        """Where a statement is: the file, and the statement's IRI, notation and label."""
        found: dict[str, Any] = {"datasetFile": self.graph.source.name}
        if statement is not None:
            found.update(self._reference(statement))
        return {**found, **extra}

    def provenance(self, statement: Statement, **extra: Any) -> Provenance:
        """A source-asserted provenance record of one statement (``extra`` adds to its locator)."""
        return {
            "epistemicStatus": "source_asserted",
            "dataset": self.dataset_ref(),
            "locator": self.locator(statement, **extra),
        }

    def _framework_provenance(self) -> Provenance:
        structure, graph = self.structure, self.graph
        kind = None
        if structure.document is not None:
            kind = "asn:StandardDocument" if not structure.document_is_statement else "asn:Statement"
        locator = self.locator(
            format=graph.source.format_name, sha256=graph.source.sha256, triples=graph.source.triples
        )
        if graph.source.graphs:
            locator["namedGraphs"] = list(graph.source.graphs)
        if structure.document is not None:
            locator.update(documentIri=structure.document, documentKind=kind)
        if structure.containers:
            locator["containerIris"] = list(structure.containers)
        details: dict[str, Any] = {}
        if structure.document is not None:
            node = graph.nodes[structure.document]
            details["document"] = {"iri": node.iri, "properties": self._properties(node, frozenset({GEMQ_HAS_CHILD}))}
        if structure.containers:
            details["containers"] = [
                {"iri": iri, "properties": self._properties(graph.nodes[iri], frozenset({GEMQ_HAS_CHILD}))}
                for iri in structure.containers
            ]
        record: Provenance = {"epistemicStatus": "source_asserted", "dataset": self.dataset_ref(), "locator": locator}
        if details:
            record["sourceDetails"] = {"asn": details}
        return record

    # -- profile -------------------------------------------------------------------------------

    def _type_uses(self) -> dict[str, TypeUse]:
        with_children: Counter[str] = Counter()
        for placement in self.structure.placements.values():
            with_children.update(p for p in placement.parents if p != ROOT)
        counts: Counter[str] = Counter()
        parents: Counter[str] = Counter()
        for iri in self.structure.items:
            kind = self.statements[iri].statement_type
            counts[kind] += 1
            parents[kind] += with_children[iri] > 0
        return {kind: TypeUse(counts[kind], parents[kind]) for kind in sorted(counts)}

    def _used_levels(self) -> dict[str, EducationLevel | None]:
        found: dict[str, EducationLevel | None] = {}
        for iri in self.structure.items:
            for label, entry in self.statements[iri].levels:
                if found.get(label) is None:
                    found[label] = entry
        return dict(sorted(found.items()))

    def _language(self) -> str | None:
        languages = Counter(self.statements[iri].language for iri in self.structure.items)
        languages.pop(None, None)
        ranked = sorted(languages.items(), key=lambda pair: (-pair[1], pair[0] or ""))
        return ranked[0][0] if ranked else None

    def _vocabulary_profile(self) -> VocabularyProfile:
        base = self.vocabulary.derived_profile.rights
        rights = document_rights(self.graph, self.structure, self.identity.publisher, base)
        return vocabulary_profile(
            self.identity.framework_id,
            self.identity.title,
            self._language(),
            self._type_uses(),
            self._used_levels(),
            rights,
            self.vocabulary,
            self.identity.publisher,
        )

    def _refuse_undeclared(self, profile: LoadedProfile) -> None:
        """Types and levels the bound profile does not declare, all named in one error."""
        rules = profile.profile
        types: Counter[str] = Counter()
        grades: Counter[str] = Counter()
        for iri in self.structure.items:
            statement = self.statements[iri]
            if rules.statement_type(statement.statement_type) is None:
                types[statement.statement_type] += 1
            grades.update(label for label, _entry in statement.levels if rules.grade_label(label) is None)
        refuse_undeclared(
            self.graph.source.name,
            profile,
            types,
            grades,
            ("asn:statementLabel", "dcterms:educationLevel"),
            "the document",
        )

    # -- the package ---------------------------------------------------------------------------

    def run(self) -> PackageContent:
        """The package; when no profile is named after the framework, with the profile derived from it."""
        identity, structure, graph = self.identity, self.structure, self.graph
        vocabulary_step: VocabularyProfile | None = None
        if identity.profile is not None:
            profile = identity.profile
            self._refuse_undeclared(profile)
            rights = profile.profile.default_rights
        else:
            vocabulary_step = self._vocabulary_profile()
            profile = LoadedProfile(vocabulary_step.profile, sha256_hex(canonical_bytes(vocabulary_step.wire)))
            rights = vocabulary_step.profile.default_rights
        publisher = identity.publisher
        # A publisher's table names each release a snapshot of one framework (its IRIs change with the release);
        # any other document is known by its own IRI, so another document never passes for it.
        document_key = structure.document if publisher is None and structure.document else identity.framework_id
        root_id = stable_uuid(document_key, "framework")
        document = graph.nodes[structure.document] if structure.document else None
        builder = PackageGraphBuilder(
            identity.framework_id,
            profile,
            FrameworkNode(
                identifier=root_id,
                case_identifier_uuid=root_id,
                name=identity.title,
                jurisdiction=identity.jurisdiction or "Not specified",
                academic_subject=identity.subject or "Not specified",
                in_language=profile.profile.in_language,
                case_identifier_uri=structure.document,
                description=document.text(DCTERMS + "description")
                if document is not None and not structure.document_is_statement
                else None,
                adoption_status=self._document_label(ASN + "publicationStatus"),
                date_modified=self._document_modified(),
                author=publisher.author if publisher else self._document_label(DCTERMS + "creator"),
                provider=publisher.provider if publisher else self._document_label(DCTERMS + "publisher"),
                license=rights.source_license,
                attribution_statement=rights.attribution_statement,
            ),
            self._framework_provenance(),
        )
        textless = self._items(builder)
        self._hierarchy(builder, textless)
        builder.derive_grouping_grades()
        self._findings(builder, textless)
        subject_slug = slugify(identity.subject or "", 40)
        content = builder.content(
            snapshot_id=identity.snapshot_id,
            title=identity.title,
            subject_slug=subject_slug if identifier_problem(subject_slug) is None else "asn",
            source=self._source(rights),
            rights=rights,
        )
        if vocabulary_step is None:
            return content
        derived = final_profile(vocabulary_step, root_id, content.items, content.relationships)
        stored = derived.store(self.profiles)
        listed = "; ".join(f"{part}: {how}" for part, how in derived.derivation)
        builder.add_finding(
            FindingCode.PROFILE_DERIVED,
            "info",
            f"Profile {stored.profile.profile_id}/{stored.profile.version} was derived from this ASN document (the "
            f"profiles root has no profile named {identity.framework_id}); review it: {listed}",
            location="profile",
        )
        return replace(content, profile=stored, build_findings=builder.findings)

    def _document_label(self, predicate: str) -> str | None:
        labels = self.graph.labels(self.structure.document, (predicate,))
        return "; ".join(labels) if labels else None

    def _document_modified(self) -> str | None:
        node = self.graph.nodes.get(self.structure.document or "")
        if node is None:
            return None
        dated = sorted((d, t.value) for t in node.texts(MODIFIED) if (d := parse_datetime(t.value)) is not None)
        return dated[-1][1] if dated else None

    def _items(self, builder: PackageGraphBuilder) -> set[str]:
        """Every statement with a text an item, in document order; the IRIs of those without one."""
        textless: set[str] = set()
        for iri in self.structure.items:
            statement = self.statements[iri]
            if statement.text is None:
                textless.add(iri)
                continue
            notes = self.structure.notes.get(iri, ())
            extra = {"noteStatements": [self._reference(self.statements[n]) for n in notes]} if notes else {}
            builder.add_item(
                iri,
                description=statement.text,
                statement_type=statement.statement_type,
                provenance=self.provenance(statement, **extra),
                grades=[label for label, _entry in statement.levels],
                statement_code=statement.code,
                academic_subject=self.identity.subject,
                in_language=statement.language,
                case_identifier_uri=iri,
                notes=self._notes(iri),
                date_modified=statement.modified,
                details={"asn": self._details(statement)},
            )
        return textless

    def _hierarchy(self, builder: PackageGraphBuilder, textless: set[str]) -> None:
        """One hasChild edge per (parent, item) the document states; the root for what it does not place."""
        fallbacks = 0
        for iri in self.structure.items:
            if iri in textless:
                continue
            statement = self.statements[iri]
            child = builder.item_id(iri)
            placement = self.structure.placements[iri]
            missing = [*placement.missing, *(p for p in placement.parents if p in textless)]
            linked = False
            for parent in placement.parents:
                if parent in textless:
                    continue
                edge = self.provenance(statement, field=placement.field)
                if placement.via_notes:
                    edge["locator"]["viaNoteStatements"] = list(placement.via_notes)
                parent_id = builder.root_id if parent == ROOT else builder.item_id(parent)
                builder.link(HAS_CHILD, parent_id, child, edge)
                linked = True
            if not linked:
                builder.link(
                    HAS_CHILD,
                    builder.root_id,
                    child,
                    {
                        "epistemicStatus": "deterministic_derived",
                        "dataset": self.dataset_ref(),
                        "locator": self.locator(statement, field=placement.field),
                        "reason": "the document places this statement under no statement it describes",
                    },
                    unresolved_status=ROOT_FALLBACK,
                )
                fallbacks += 1
            for parent in missing:
                status = "unresolvedMissingTarget" if linked else ROOT_FALLBACK
                builder.add_unresolved(
                    f"parent/{iri}/{parent}",
                    {
                        "status": status,
                        "reference": parent,
                        "sourceEntityId": child,
                        "sourceText": statement.text,
                        "reason": f"{placement.field} names a parent the document does not describe as a statement "
                        "with a text" + ("" if linked else "; the statement hangs from the framework root"),
                        "locator": self.locator(statement, field=placement.field),
                    },
                )
            if not linked and not missing:
                builder.add_unresolved(
                    f"parent/{iri}",
                    {
                        "status": ROOT_FALLBACK,
                        "reference": iri,
                        "sourceEntityId": child,
                        "sourceText": statement.text,
                        "reason": "the statement names no parent (no gemq:isChildOf, gemq:hasChild or "
                        "dcterms:isPartOf of the document); it hangs from the framework root",
                        "locator": self.locator(statement),
                    },
                )
        if fallbacks:
            builder.add_finding(
                _GAP,
                "warning",
                f"{fallbacks} statements have no parent inside the document; they hang from the framework root with "
                "unresolvedStatus unresolvedRootFallback.",
                location="hierarchy",
            )

    def _findings(self, builder: PackageGraphBuilder, textless: set[str]) -> None:
        """What the document says that the package holds only in part, one finding per kind."""
        structure, name = self.structure, self.graph.source.name
        if textless:
            sample = ", ".join(sorted(echo(iri, 120) for iri in textless)[:_SAMPLES])
            builder.add_finding(
                _GAP,
                "warning",
                f"{len(textless)} statements of {name} have no dcterms:description or dcterms:title; they are not "
                f"items (their children hang from the framework root): {sample}.",
                location="statements",
            )
        untexted_notes = [n for notes in structure.notes.values() for n in notes if self.statements[n].text is None]
        if untexted_notes:
            builder.add_finding(
                _GAP,
                "warning",
                f"{len(untexted_notes)} note statements have no text; they are listed in their item's source "
                f"details only: {', '.join(echo(n, 120) for n in untexted_notes[:_SAMPLES])}.",
                location="notes",
            )
        for note in structure.homeless_notes:
            statement = self.statements[note]
            builder.add_unresolved(
                f"note/{note}",
                {
                    "status": "unresolvedMissingTarget",
                    "reference": note,
                    "sourceText": statement.text or "",
                    "reason": f"a {statement.label} statement (a note) with no item above it to attach it to",
                    "locator": self.locator(statement),
                    "sourceDetails": self._note_details(statement),
                },
            )
        if structure.homeless_notes:
            builder.add_finding(
                _GAP,
                "warning",
                f"{len(structure.homeless_notes)} note statements have no item above them; they are kept as "
                "unresolved evidence, not as notes.",
                location="notes",
            )
        regrafted = [iri for iri in structure.items if structure.placements[iri].via_notes]
        if regrafted:
            builder.add_finding(
                _GAP,
                "warning",
                f"{len(regrafted)} statements are children of note statements; they hang from the item the note "
                "belongs to (their provenance names the note).",
                location="hierarchy",
            )
        if structure.has_child_disagreements:
            builder.add_finding(
                FindingCode.SOURCE_VARIANT_ACCEPTED,
                "warning",
                f"{structure.has_child_disagreements} gemq:hasChild links name a parent that the child's own "
                "gemq:isChildOf does not; the hierarchy follows gemq:isChildOf.",
                location="gemq:hasChild",
            )
        repeated = sum(1 for s in self.statements.values() if s.extra_texts)
        if repeated:
            builder.add_finding(
                FindingCode.SOURCE_VARIANT_ACCEPTED,
                "warning",
                f"{repeated} statements have more than one text in their text predicate; the first (in value order) "
                "is the description, all are in the item's source details.",
                location="text",
            )
        if self.graph.blank_statements:
            builder.add_finding(
                _GAP,
                "warning",
                f"{self.graph.blank_statements} asn:Statements of {name} are blank nodes (no IRI to identify or cite "
                "them by); they were not converted.",
                location="statements",
            )
        documents = self.graph.typed(STANDARD_DOCUMENT)
        if structure.document is None and not documents:
            builder.add_finding(
                FindingCode.SOURCE_VARIANT_ACCEPTED,
                "warning",
                f"{name} has no asn:StandardDocument and no single root statement; the framework is named from its "
                "top statements.",
                location="document",
            )

    def _source(self, rights: RightsPolicy) -> SourceInfo:
        source, identity = self.graph.source, self.identity
        publisher = identity.publisher
        uri = publisher.uri if publisher else self.structure.document
        return SourceInfo(
            name=f"ASN document: {identity.title}"[:256],
            version=identity.version,
            uri=uri[:2000] if uri else None,
            upstream_checksums=(UpstreamChecksum(file=source.name[:256], algorithm="sha256", value=source.sha256),),
            datasets=(
                SourceDataset(
                    name=self._dataset_name(),
                    version=identity.version,
                    uri=(self.structure.document or uri or None),
                    license=rights.source_license[:1000],
                    role=f"ASN {source.format_name} document {source.name}: statements, hierarchy, codes, education "
                    f"levels and notes (sha256 {source.sha256[:12]})"[:256],
                ),
            ),
        )
