"""Small ASN documents written by the tests, in both serialisations, with the real files' quirks.

A document is a dict of nodes (IRI → list of (predicate, value)); :func:`write_jsonld` writes it as MRAC
does (expanded JSON-LD, no ``@context``, everything in one named graph) and :func:`write_rdfxml` as flat
``rdf:Description`` elements with a default namespace on each property element (MRAC's RDF/XML).

- :func:`mrac_mathematics`: MRAC's shape (a root Statement, not a StandardDocument, whose title is a change
  note; the "Learning Areas" container; rights only on those two; Achievement Standards linked to their Level
  only by ``isChildOf``; an elaboration whose code does not extend its content description's; LaTeX and line
  breaks in titles; ``E10`` after ``E2``). Its framework id binds the shipped mathematics profile.
- :func:`mrac_english`: another learning area (with Sub-Strands), for which no profile exists.
- :func:`us_standard_document`: a US-style ASN document (an ``asn:StandardDocument``, texts in
  ``dcterms:description``, ASNEducationLevel IRIs, a hierarchy given only by ``hasChild``, a statement with no
  label, one whose parent is not in the document).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import load_importer

ASN = "http://purl.org/ASN/schema/core/"
GEMQ = "http://purl.org/gem/qualifiers/"
DC = "http://purl.org/dc/terms/"
SKOS = "http://www.w3.org/2004/02/skos/core#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
ESA_YEAR = "https://www.esa.edu.au/nominalYearLevel"
MRAC = "http://vocabulary.curriculum.edu.au/MRAC/2023/07/"
LEVEL = "http://vocabulary.curriculum.edu.au/schoolLevel/"
ASN_LEVEL = "http://purl.org/ASN/scheme/ASNEducationLevel/"

Value = tuple[str, ...]  # ("iri", x) | ("lit", text, language) | ("typed", text, datatype)
Nodes = dict[str, list[tuple[str, Value]]]


def iri(value: str) -> Value:
    return ("iri", value)


def lit(text: str, language: str = "en-au") -> Value:
    return ("lit", text, language)


def typed(text: str, datatype: str = XSD_DATETIME) -> Value:
    return ("typed", text, datatype)


def _statement(
    nodes: Nodes,
    key: str,
    notation: str,
    title: str,
    *,
    label: str | None = None,
    parent: str | None = None,
    level: int | None = None,
    children: Sequence[str] = (),
    modified: str = "2021-10-06T15:49:28Z",
    extra: Sequence[tuple[str, Value]] = (),
    base: str = MRAC,
) -> str:
    subject = base + key
    props: list[tuple[str, Value]] = [
        (RDF + "type", iri(ASN + "Statement")),
        (RDF + "type", iri(SKOS + "Concept")),
        (ASN + "authorityStatus", iri("http://purl.org/ASN/scheme/ASNAuthorityStatus/Original")),
        (ASN + "statementNotation", lit(notation)),
        (DC + "title", lit(title)),
        (DC + "modified", typed(modified)),
    ]
    if label is not None:
        props.append((ASN + "statementLabel", lit(label)))
    if parent is not None:
        props.append((GEMQ + "isChildOf", iri(base + parent)))
    if level is not None:
        name = "Foundation Year" if level == 0 else f"Year {level}"
        props += [(DC + "educationLevel", iri(f"{LEVEL}{level}")), (ESA_YEAR, lit(name))]
        props.append((DC + "isPartOf", iri(MRAC + "LA/TBD")))
    props += [(GEMQ + "hasChild", iri(base + child)) for child in children]
    props += list(extra)
    nodes[subject] = props
    return subject


def _stubs(nodes: Nodes, levels: list[int]) -> None:
    for level in levels:
        nodes[f"{LEVEL}{level}"] = [(SKOS + "prefLabel", lit("Foundation Year" if level == 0 else f"Year {level}"))]
    nodes[MRAC + "GC/N/numeracy-1"] = [(SKOS + "prefLabel", lit("NNuE1"))]
    nodes["http://vocabulary.curriculum.edu.au/framework/M"] = [(SKOS + "prefLabel", lit("Mathematics"))]
    nodes["http://vocabulary.curriculum.edu.au/framework/E"] = [(SKOS + "prefLabel", lit("English"))]


RIGHTS = [
    (DC + "rights", lit("©Copyright Australian Curriculum, Assessment and Reporting Authority")),
    (DC + "rightsHolder", lit("Australian Curriculum, Assessment and Reporting Authority")),
]

#: Texts the tests compare exactly (LaTeX, a line break, a title the root uses as a change note).
CHANGE_NOTE = "Updated AC9M3N02 and removed the word 'about'"
LATEX_CD = "recognise and explain the connection between addition and subtraction, using \\(a + b = c\\)"
AS_FOUNDATION = "By the end of Foundation Year, students make connections between number names.\nThey count."
ELAB_NEWLINE = "demonstrating how Euler\u2019s formula \n\\(F + V = E + 2\\) applies"


def mrac_mathematics() -> Nodes:
    """MRAC's Mathematics in miniature: Foundation and Year 3."""
    nodes: Nodes = {}
    _statement(
        nodes, "root-1", "root", CHANGE_NOTE, children=["LA/la-1"], modified="2023-07-14T01:06:17.904Z", extra=RIGHTS
    )
    _statement(
        nodes,
        "LA/la-1",
        "LA",
        "Learning Areas",
        parent="root-1",
        children=["LA/MAT/mat"],
        modified="2021-09-03T15:57:48Z",
        extra=RIGHTS,
    )
    _statement(
        nodes,
        "LA/MAT/mat",
        "MAT",
        "Mathematics",
        label="Learning Area",
        parent="LA/la-1",
        children=["LA/MAT/matmat"],
        extra=[(DC + "subject", iri("http://vocabulary.curriculum.edu.au/framework/M")), (ASN + "listID", lit("5"))],
    )
    _statement(
        nodes,
        "LA/MAT/matmat",
        "MATMAT",
        "Mathematics",
        label="Subject",
        parent="LA/MAT/mat",
        children=["LA/MAT/lvf", "LA/MAT/lv3"],
    )
    for key, notation, title, level, strands, standard in (
        ("lvf", "MATMATFY", "Foundation Year", 0, ["stfn"], "asf"),
        ("lv3", "MATMATY3", "Year 3", 3, ["st3n", "st3s"], "as3"),
    ):
        _statement(
            nodes,
            f"LA/MAT/{key}",
            notation,
            title,
            label="Level",
            parent="LA/MAT/matmat",
            level=level,
            children=[f"LA/MAT/{s}" for s in strands],  # the Achievement Standard is not listed (MRAC)
            extra=[
                (DC + "description", lit(f"<p>In {title}, learning in Mathematics builds on …</p>")),
                (ASN + "hasLevel", iri(f"{MRAC}LA/MAT/{standard}")),
            ],
        )
    _statement(
        nodes,
        "LA/MAT/stfn",
        "MATMATFY_1NUM",
        "Number",
        label="Strand",
        parent="LA/MAT/lvf",
        level=0,
        children=["LA/MAT/cdf1"],
        extra=[(ASN + "listID", lit("1"))],
    )
    _statement(
        nodes,
        "LA/MAT/st3n",
        "MATMATY3_1NUM",
        "Number",
        label="Strand",
        parent="LA/MAT/lv3",
        level=3,
        children=["LA/MAT/cd31", "LA/MAT/cd32"],
        extra=[(ASN + "listID", lit("1"))],
    )
    _statement(
        nodes,
        "LA/MAT/st3s",
        "MATMATY3_4SPA",
        "Space",
        label="Strand",
        parent="LA/MAT/lv3",
        level=3,
        children=["LA/MAT/cd3s"],
        extra=[(ASN + "listID", lit("4"))],
    )
    skill = [(ASN + "skillEmbodied", iri(MRAC + "GC/N/numeracy-1"))]
    _statement(
        nodes,
        "LA/MAT/cdf1",
        "AC9MFN01",
        "name, represent and order numbers to at least 20",
        label="Content Description",
        parent="LA/MAT/stfn",
        level=0,
        children=["LA/MAT/ef1"],
        extra=[*skill, (ASN + "hasLevel", iri(MRAC + "LA/MAT/ascf1"))],
    )
    _statement(
        nodes,
        "LA/MAT/cd31",
        "AC9M3N01",
        "recognise, represent and order natural numbers",
        label="Content Description",
        parent="LA/MAT/st3n",
        level=3,
        children=["LA/MAT/e31a", "LA/MAT/e31b", "LA/MAT/e31c"],
        extra=[(ASN + "hasLevel", iri(MRAC + "LA/MAT/asc31")), (ASN + "hasLevel", iri(MRAC + "LA/MAT/asc32"))],
    )
    _statement(
        nodes,
        "LA/MAT/cd32",
        "AC9M3N02",
        LATEX_CD,
        label="Content Description",
        parent="LA/MAT/st3n",
        level=3,
        children=["LA/MAT/e32a"],
        modified="2023-07-14T01:06:17.904Z",
    )
    _statement(
        nodes,
        "LA/MAT/cd3s",
        "AC9M3SP01",
        "make, compare and classify objects",
        label="Content Description",
        parent="LA/MAT/st3s",
        level=3,
        children=["LA/MAT/e3sa"],
    )
    _statement(
        nodes,
        "LA/MAT/ef1",
        "AC9MFN01_E1",
        "using counting songs",
        label="Elaboration",
        parent="LA/MAT/cdf1",
        level=0,
        extra=skill,
    )
    _statement(
        nodes,
        "LA/MAT/e31a",
        "AC9M3N01_E1",
        "reading and writing numbers to \\(10\\,000\\)",
        label="Elaboration",
        parent="LA/MAT/cd31",
        level=3,
    )
    _statement(
        nodes,
        "LA/MAT/e31b",
        "AC9M3N01_E10",
        "the tenth elaboration",
        label="Elaboration",
        parent="LA/MAT/cd31",
        level=3,
        extra=[(ASN + "listID", lit("10"))],
    )
    _statement(
        nodes,
        "LA/MAT/e31c",
        "AC9M3N01_E2",
        "the second elaboration",
        label="Elaboration",
        parent="LA/MAT/cd31",
        level=3,
    )
    # renumbered in the release: its code names AC9M3N03, its parent is AC9M3N02
    _statement(
        nodes,
        "LA/MAT/e32a",
        "AC9M3N03_E1",
        "using part-part-whole diagrams",
        label="Elaboration",
        parent="LA/MAT/cd32",
        level=3,
    )
    _statement(nodes, "LA/MAT/e3sa", "AC9M3SP01_E1", ELAB_NEWLINE, label="Elaboration", parent="LA/MAT/cd3s", level=3)
    _statement(
        nodes,
        "LA/MAT/asf",
        "ASMATFY",
        AS_FOUNDATION,
        label="Achievement Standard",
        parent="LA/MAT/lvf",
        level=0,
        children=["LA/MAT/ascf1"],
        modified="2021-10-05T17:05:26Z",
    )
    _statement(
        nodes,
        "LA/MAT/as3",
        "ASMATY3",
        "By the end of Year 3, students order natural numbers.",
        label="Achievement Standard",
        parent="LA/MAT/lv3",
        level=3,
        children=["LA/MAT/asc31", "LA/MAT/asc32"],
    )
    for key, notation, title, parent, level in (
        ("ascf1", "ASMATF01", "Students make connections between number names.", "asf", 0),
        ("asc31", "ASMAT301", "Students order natural numbers.", "as3", 3),
        ("asc32", "ASMAT302", "Students partition numbers.", "as3", 3),
    ):
        _statement(
            nodes,
            f"LA/MAT/{key}",
            notation,
            title,
            label="Achievement Standard Component",
            parent=f"LA/MAT/{parent}",
            level=level,
            extra=[(SKOS + "prefLabel", lit(title))],
        )
    _stubs(nodes, [0, 3])
    return nodes


def mrac_english() -> Nodes:
    """Another MRAC learning area, English, with a Sub-Strand level (no profile is named after it)."""
    nodes: Nodes = {}
    _statement(nodes, "root-2", "root", "Updated AC9E1LA01", children=["LA/la-2"], extra=RIGHTS)
    _statement(nodes, "LA/la-2", "LA", "Learning Areas", parent="root-2", extra=RIGHTS)
    _statement(
        nodes,
        "LA/ENG/eng",
        "ENG",
        "English",
        label="Learning Area",
        parent="LA/la-2",
        extra=[(DC + "subject", iri("http://vocabulary.curriculum.edu.au/framework/E"))],
    )
    _statement(nodes, "LA/ENG/engeng", "ENGENG", "English", label="Subject", parent="LA/ENG/eng")
    for level in (0, 1):
        tag = "F" if level == 0 else str(level)
        year = "FY" if level == 0 else f"Y{level}"
        _statement(
            nodes,
            f"LA/ENG/lv{tag}",
            f"ENGENG{year}",
            "Foundation Year" if level == 0 else f"Year {level}",
            label="Level",
            parent="LA/ENG/engeng",
            level=level,
        )
        _statement(
            nodes,
            f"LA/ENG/st{tag}",
            f"ENGENG{year}_1LAN",
            "Language",
            label="Strand",
            parent=f"LA/ENG/lv{tag}",
            level=level,
        )
        _statement(
            nodes,
            f"LA/ENG/ss{tag}",
            f"ENGENG{year}_1LAN_1",
            "Language for interacting with others",
            label="Sub-Strand",
            parent=f"LA/ENG/st{tag}",
            level=level,
        )
        _statement(
            nodes,
            f"LA/ENG/cd{tag}",
            f"AC9E{tag}LA01",
            f"explore how language is used in year {tag}",
            label="Content Description",
            parent=f"LA/ENG/ss{tag}",
            level=level,
        )
        _statement(
            nodes,
            f"LA/ENG/el{tag}",
            f"AC9E{tag}LA01_E1",
            f"taking turns in year {tag}",
            label="Elaboration",
            parent=f"LA/ENG/cd{tag}",
            level=level,
        )
        _statement(
            nodes,
            f"LA/ENG/as{tag}",
            f"ASENG{year}",
            f"By the end of year {tag}, students listen.",
            label="Achievement Standard",
            parent=f"LA/ENG/lv{tag}",
            level=level,
        )
        _statement(
            nodes,
            f"LA/ENG/asc{tag}",
            f"ASENG{tag}01",
            f"Students listen in year {tag}.",
            label="Achievement Standard Component",
            parent=f"LA/ENG/as{tag}",
            level=level,
        )
    _stubs(nodes, [0, 1])
    return nodes


US = "http://asn.example.org/resources/"
US_DOCUMENT = US + "D1000000"
US_LICENSE = "http://creativecommons.org/licenses/by/3.0/us/"


def _us(
    nodes: Nodes,
    key: str,
    text: str | None,
    *,
    label: str | None,
    notation: str | None,
    levels: list[str],
    children: Sequence[str] = (),
    extra: Sequence[tuple[str, Value]] = (),
) -> None:
    props: list[tuple[str, Value]] = [(RDF + "type", iri(ASN + "Statement"))]
    if text is not None:
        props.append((DC + "description", lit(text, "en-us")))
    if label is not None:
        props.append((ASN + "statementLabel", lit(label, "en-us")))
    if notation is not None:
        props.append((ASN + "statementNotation", lit(notation, "en-us")))
    props += [(DC + "educationLevel", iri(ASN_LEVEL + level)) for level in levels]
    props += [(GEMQ + "hasChild", iri(US + child)) for child in children]
    props += list(extra)
    nodes[US + key] = props


def us_standard_document() -> Nodes:
    """A US-style ASN StandardDocument: descriptions, ASN education levels, hierarchy by hasChild only."""
    nodes: Nodes = {
        US_DOCUMENT: [
            (RDF + "type", iri(ASN + "StandardDocument")),
            (DC + "title", lit("Example State Mathematics Standards", "en-us")),
            (ASN + "jurisdiction", iri("http://purl.org/ASN/scheme/ASNJurisdiction/EX")),
            (DC + "subject", iri("http://purl.org/ASN/scheme/ASNTopic/math")),
            (DC + "educationLevel", iri(ASN_LEVEL + "K")),
            (DC + "educationLevel", iri(ASN_LEVEL + "1")),
            (DC + "license", iri(US_LICENSE)),
            (DC + "rightsHolder", lit("Example State Board of Education", "en-us")),
            (DC + "modified", typed("2019-05-02T00:00:00Z")),
            (GEMQ + "hasChild", iri(US + "S1")),
            (GEMQ + "hasChild", iri(US + "S2")),
        ],
        "http://purl.org/ASN/scheme/ASNTopic/math": [(SKOS + "prefLabel", lit("Mathematics", "en-us"))],
        "http://purl.org/ASN/scheme/ASNJurisdiction/EX": [(SKOS + "prefLabel", lit("Example State", "en-us"))],
        US_LICENSE: [(DC + "title", lit("Creative Commons Attribution 3.0 US", "en-us"))],
    }
    _us(nodes, "S1", "Counting and Cardinality", label="Domain", notation="K.CC", levels=["K"], children=["S11", "S12"])
    _us(nodes, "S11", "Count to 100 by ones and by tens.", label="Standard", notation="K.CC.1", levels=["K"])
    _us(nodes, "S12", "Write numbers from 0 to 20.", label=None, notation="K.CC.3", levels=["K"])
    _us(
        nodes,
        "S2",
        "Operations and Algebraic Thinking",
        label="Domain",
        notation="1.OA",
        levels=["1"],
        children=["S21"],
    )
    _us(nodes, "S21", "Use addition and subtraction within 20.", label="Standard", notation="1.OA.1", levels=["1"])
    _us(
        nodes,
        "S99",
        "Relate counting to addition.",
        label="Standard",
        notation="1.OA.5",
        levels=["1"],
        extra=[(GEMQ + "isChildOf", iri(US + "NOT-IN-THIS-FILE"))],
    )
    return nodes


# -- writers -----------------------------------------------------------------------------------


def _jsonld_value(value: Value) -> dict[str, str]:
    if value[0] == "iri":
        return {"@id": value[1]}
    if value[0] == "lit":
        return {"@language": value[2], "@value": value[1]}
    return {"@type": value[2], "@value": value[1]}


def write_jsonld(path: Path, nodes: Nodes, graph: str = MRAC + "LA/MAT/thesaurus") -> Path:
    """Expanded JSON-LD, no @context, one named graph (MRAC's form)."""
    objects = []
    for subject, props in nodes.items():
        entry: dict[str, Any] = {"@id": subject}
        for predicate, value in props:
            if predicate == RDF + "type":
                entry.setdefault("@type", []).append(value[1])
            else:
                entry.setdefault(predicate, []).append(_jsonld_value(value))
        objects.append(entry)
    path.write_text(json.dumps([{"@graph": objects, "@id": graph}], ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def _split(predicate: str) -> tuple[str, str]:
    cut = max(predicate.rfind("/"), predicate.rfind("#")) + 1
    return predicate[:cut], predicate[cut:]


def write_rdfxml(path: Path, nodes: Nodes) -> Path:
    """Flat rdf:Description elements, a default namespace on each property element (MRAC's form)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<rdf:RDF xmlns:rdf="{RDF}">']
    for subject, props in nodes.items():
        lines.append(f"\t<rdf:Description rdf:about={quoteattr(subject)}>")
        for predicate, value in props:
            namespace, local = _split(predicate)
            head = f"<{local} xmlns={quoteattr(namespace)}"
            if value[0] == "iri":
                lines.append(f"\t\t{head} rdf:resource={quoteattr(value[1])}/>")
            elif value[0] == "lit":
                lines.append(f'\t\t{head} xml:lang="{value[2]}">{escape(value[1])}</{local}>')
            else:
                lines.append(f"\t\t{head} rdf:datatype={quoteattr(value[2])}>{escape(value[1])}</{local}>")
        lines.append("\t</rdf:Description>")
    lines.append("</rdf:RDF>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- building ----------------------------------------------------------------------------------


def profiles_copy(profiles_root: Path, target: Path) -> Path:
    """A profiles root of the test's own (a derived profile is stored into it)."""
    shutil.copytree(profiles_root, target)
    return target


def build(path: Path, profiles_root: Path) -> PackageContent:
    (content,) = load_importer("asn").build(path, ProfileRepository(profiles_root))
    return content


def build_and_validate(path: Path, profiles_root: Path, out: Path) -> tuple[PackageContent, Any]:
    """Build, write pending under ``out`` and validate; ``(content, lifecycle result)``."""
    profiles = ProfileRepository(profiles_root)
    (content,) = load_importer("asn").build(path, profiles)
    location = PackageWriter().write_pending(content, out)
    result = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL).validate(location)
    return content, result
