"""Achievement Standards Network (ASN) documents as graph packages (``--source asn FILE``).

ASN is the RDF schema of US state standards (asn.jesandco.org) and of ACARA's Machine Readable Australian
Curriculum (MRAC), published as RDF/XML or JSON-LD. The importer reads either (named graphs included), one
document per file, one package per document. Nothing is guessed: what cannot be represented becomes
unresolved evidence or a ``source_mapping_gap`` build finding; publisher specifics are data
(``shipped/asn/``), never a branch on a framework in code.

Modules, by importer step (:mod:`kgfegmcp.sources.importer`). *Read*: :mod:`.document`, the file parsed
into plain nodes. *Map*: :mod:`.vocabulary`, the shipped ASN vocabulary and publisher table;
:mod:`.hierarchy`, the document node, items, notes and parents; :mod:`.text`, which literal is a
statement's text; :mod:`.identity`, the framework and snapshot ids and the profile; :mod:`.derived_profile`,
the profile derived from the document when none is named after it; :mod:`.mapping`, the package.
:mod:`.importer` is the ``--source asn`` importer that runs both.
"""

from __future__ import annotations

from kgfegmcp.sources.asn.importer import AsnSource

__all__ = ["AsnSource"]
