"""An ASN document file (RDF/XML or JSON-LD) read into plain, sorted nodes; rdflib is not kept.

Both serialisations are parsed by rdflib into a ``Dataset`` and every graph is merged: JSON-LD may put all
of a document in one named graph (ACARA's MRAC does, with no ``@context``), where a plain ``Graph`` parse
would silently read nothing. The format is read from the content (``<`` RDF/XML, ``{``/``[`` JSON-LD); any
other content (Turtle, N-Triples, a PDF …) is refused. Relative IRIs resolve against the file's name, never
its path, so the same file read from anywhere gives the same nodes.

The result holds every triple whose subject is an IRI, as :class:`AsnNode` records of sorted values (no
order of the parser leaks into a package); a blank node is folded into the value that names it. Nothing
is interpreted here: which node is the document and how statements nest is :mod:`.hierarchy`'s work.
Literals keep their lexical form (rdflib's literal normalisation is off while parsing): a date is kept as
``2023-07-14T01:06:17.904Z``, a text exactly as written.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError

ASN = "http://purl.org/ASN/schema/core/"
GEMQ = "http://purl.org/gem/qualifiers/"
DCTERMS = "http://purl.org/dc/terms/"
SKOS = "http://www.w3.org/2004/02/skos/core#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
#: Prefixes of the names source details give predicates (any other predicate keeps its full IRI).
PREFIXES = (
    ("asn", ASN),
    ("gemq", GEMQ),
    ("dcterms", DCTERMS),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("skos", SKOS),
    ("rdf", RDF),
    ("rdfs", RDFS),
)
RDF_TYPE = RDF + "type"
STATEMENT = ASN + "Statement"
STANDARD_DOCUMENT = ASN + "StandardDocument"
#: Predicates whose text labels a referenced resource (an education level, a general capability …).
LABEL_PREDICATES = (SKOS + "prefLabel", RDFS + "label", DCTERMS + "title")
#: The largest ASN file read. rdflib holds a parsed document at about 15 times its bytes (docs/reliability.md),
#: so this keeps a build under 1 GiB; ACARA's and the US states' documents are a few MB each.
MAX_INPUT_BYTES = 48 * 1024 * 1024
#: rdflib's parser names of the two serialisations.
FORMATS = {"xml": "RDF/XML", "json-ld": "JSON-LD"}


@dataclass(frozen=True, slots=True)
class Iri:
    """A resource named by IRI."""

    value: str


@dataclass(frozen=True, slots=True)
class Text:
    """A literal, with its language tag or datatype as the source gives them."""

    value: str
    language: str | None = None
    datatype: str | None = None


@dataclass(frozen=True, slots=True)
class Blank:
    """A blank node, as its own (sorted) properties; a blank node inside it is shown empty."""

    properties: tuple[tuple[str, tuple[Value, ...]], ...]


Value = Iri | Text | Blank


def value_key(value: Value) -> tuple[Any, ...]:
    """A total order over values: IRIs, then literals, then blank nodes."""
    if isinstance(value, Iri):
        return (0, value.value)
    if isinstance(value, Text):
        return (1, value.value, value.language or "", value.datatype or "")
    return (2, tuple((p, tuple(value_key(v) for v in vs)) for p, vs in value.properties))


def curie(predicate: str) -> str:
    """``dcterms:title`` for a predicate of a known namespace, the full IRI otherwise."""
    for prefix, namespace in PREFIXES:
        if predicate.startswith(namespace) and len(predicate) > len(namespace):
            return f"{prefix}:{predicate[len(namespace) :]}"
    return predicate


@dataclass(frozen=True, slots=True)
class AsnNode:
    """One subject of the document with every value of every predicate, sorted."""

    iri: str
    properties: Mapping[str, tuple[Value, ...]]

    def values(self, predicate: str) -> tuple[Value, ...]:
        """Every value of ``predicate`` (a full IRI)."""
        return self.properties.get(predicate, ())

    def iris(self, predicate: str) -> tuple[str, ...]:
        """The IRI values of ``predicate``."""
        return tuple(v.value for v in self.values(predicate) if isinstance(v, Iri))

    def texts(self, predicate: str) -> tuple[Text, ...]:
        """The literal values of ``predicate``."""
        return tuple(v for v in self.values(predicate) if isinstance(v, Text))

    def text(self, predicate: str) -> str | None:
        """The first non-blank literal of ``predicate`` (in value order), exactly as written."""
        return next((t.value for t in self.texts(predicate) if t.value.strip()), None)

    def has_type(self, type_iri: str) -> bool:
        """Whether ``rdf:type`` names ``type_iri``."""
        return type_iri in self.iris(RDF_TYPE)


@dataclass(frozen=True, slots=True)
class AsnFile:
    """Which file was read and how: what provenance and the package's source cite."""

    name: str
    sha256: str
    size: int
    format: str
    triples: int
    graphs: tuple[str, ...]

    @property
    def format_name(self) -> str:
        """``RDF/XML`` or ``JSON-LD``."""
        return FORMATS[self.format]


@dataclass(frozen=True, slots=True)
class AsnGraph:
    """The merged triples of one ASN file as nodes, by subject IRI."""

    source: AsnFile
    nodes: Mapping[str, AsnNode]
    #: ``asn:Statement`` subjects that are blank nodes (no IRI to key or cite them by).
    blank_statements: int

    def typed(self, type_iri: str) -> list[str]:
        """IRIs of the nodes of ``rdf:type`` ``type_iri``, sorted."""
        return sorted(iri for iri, node in self.nodes.items() if node.has_type(type_iri))

    def node(self, iri: str) -> AsnNode | None:
        """The node with this IRI, if the document describes it."""
        return self.nodes.get(iri)

    def label(self, iri: str) -> str | None:
        """The label the document gives a resource (``skos:prefLabel``, ``rdfs:label`` or ``dcterms:title``)."""
        node = self.nodes.get(iri)
        if node is None:
            return None
        for predicate in LABEL_PREDICATES:
            text = node.text(predicate)
            if text is not None:
                return text
        return None

    def value_label(self, value: Value) -> str | None:
        """A literal as written; an IRI as the document labels it, else its last path segment."""
        if isinstance(value, Text):
            return value.value if value.value.strip() else None
        if isinstance(value, Iri):
            tail = value.value.rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
            return self.label(value.value) or tail or None
        return None

    def labels(self, iri: str | None, predicates: Iterable[str]) -> list[str]:
        """The labels of the values of ``predicates`` on node ``iri`` (each once, in value order)."""
        node = self.nodes.get(iri) if iri is not None else None
        if node is None:
            return []
        found = (self.value_label(value) for predicate in predicates for value in node.values(predicate))
        return list(dict.fromkeys(label for label in found if label is not None))


def detect_format(name: str, data: bytes) -> str:
    """``xml`` or ``json-ld`` from the first character of the content; ``manifest_build_error`` otherwise."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head == b"<":
        return "xml"
    if head in (b"{", b"["):
        return "json-ld"
    raise ManifestBuildError(
        f"ASN input {name} is neither RDF/XML nor JSON-LD"
        + (" (it is empty)." if not head else f" (it starts with {data.lstrip()[:20]!r})."),
        hint="Give the ASN document as RDF/XML (.rdf, .xml) or JSON-LD (.jsonld, .json), as ASN and MRAC publish it.",
    )


def read_asn_file(path: Path) -> AsnGraph:
    """Read and parse one ASN file; ``manifest_build_error`` when it cannot be read as RDF."""
    if not path.is_file():
        raise ManifestBuildError(
            f"ASN input {path.name} is not a readable file.",
            hint="Run `kgfegmcp packages build --source asn FILE` with an RDF/XML or JSON-LD ASN document.",
        )
    size = path.stat().st_size
    if size > MAX_INPUT_BYTES:
        raise ManifestBuildError(
            f"ASN input {path.name} exceeds {MAX_INPUT_BYTES // (1024 * 1024)} MiB.",
            hint="Build each standard document from its own file, as the publisher releases them.",
        )
    data = path.read_bytes()
    fmt = detect_format(path.name, data)
    if fmt == "json-ld":
        refuse_remote_contexts(path.name, data)
    return parse_asn_bytes(path.name, data, fmt)


def refuse_remote_contexts(name: str, data: bytes) -> None:
    """Refuse a JSON-LD document whose ``@context`` names a document elsewhere: a build never goes online.

    rdflib would fetch a remote context over the network; an embedded context (an object) is read as is.
    """
    import json

    try:
        document = json.loads(data)
    except ValueError:
        return  # not JSON at all: the parser says so, in the words every unreadable file gets
    pending = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, dict):
            context = value.get("@context")
            remote = [c for c in (context if isinstance(context, list) else [context]) if isinstance(c, str)]
            if remote:
                raise ManifestBuildError(
                    f"ASN input {name} names a remote JSON-LD @context ({remote[0][:120]}); builds do not go online.",
                    hint="Expand the document first (or embed its context), then build it.",
                )
            pending.extend(v for k, v in value.items() if k != "@context")


def parse_asn_bytes(name: str, data: bytes, fmt: str) -> AsnGraph:
    """Parse ``data`` (named ``name``) in rdflib format ``fmt``, merging every graph of the dataset."""
    import rdflib  # imported here: only a build that reads ASN needs it

    dataset = rdflib.Dataset()
    normalize = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False  # keep typed literals as written ("…Z", not "…+00:00")
    try:
        with warnings.catch_warnings():  # rdflib's own use of its deprecated ConjunctiveGraph, not ours
            warnings.simplefilter("ignore", DeprecationWarning)
            dataset.parse(data=data, format=fmt, publicID=f"file:///{name}")
    except Exception as exc:  # rdflib raises parser-specific errors (SAX, JSON, ValueError …)
        raise ManifestBuildError(
            f"ASN input {name} cannot be read as {FORMATS[fmt]}: {type(exc).__name__}: {str(exc)[:300]}",
            hint="Check that the file is a complete RDF/XML or JSON-LD document.",
        ) from None
    finally:
        rdflib.NORMALIZE_LITERALS = normalize
    subjects: dict[Any, dict[str, set[Any]]] = {}
    graphs: set[str] = set()
    triples: set[tuple[Any, Any, Any]] = set()
    for subject, predicate, obj, graph in dataset.quads((None, None, None, None)):
        triples.add((subject, predicate, obj))
        if graph is not None:
            graphs.add(str(getattr(graph, "identifier", graph)))
        subjects.setdefault(subject, {}).setdefault(str(predicate), set()).add(obj)
    del dataset
    blanks = {s: props for s, props in subjects.items() if isinstance(s, rdflib.BNode)}

    def convert(term: Any, depth: int) -> Value:
        if isinstance(term, rdflib.URIRef):
            return Iri(str(term))
        if isinstance(term, rdflib.Literal):
            return Text(str(term), term.language, str(term.datatype) if term.datatype else None)
        properties = blanks.get(term, {}) if depth == 0 else {}
        return Blank(tuple(sorted((p, _sorted(convert(v, depth + 1) for v in vs)) for p, vs in properties.items())))

    nodes: dict[str, AsnNode] = {}
    blank_statements = 0
    for subject, properties in subjects.items():
        if isinstance(subject, rdflib.BNode):
            blank_statements += rdflib.URIRef(STATEMENT) in properties.get(RDF_TYPE, set())
            continue
        converted = {p: _sorted(convert(v, 0) for v in vs) for p, vs in sorted(properties.items())}
        nodes[str(subject)] = AsnNode(str(subject), converted)
    default_graph = "urn:x-rdflib:default"
    source = AsnFile(
        name=name,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        format=fmt,
        triples=len(triples),
        graphs=tuple(sorted(g for g in graphs if g != default_graph)),
    )
    return AsnGraph(source, dict(sorted(nodes.items())), blank_statements)


def _sorted(values: Iterable[Value]) -> tuple[Value, ...]:
    return tuple(sorted(values, key=value_key))
