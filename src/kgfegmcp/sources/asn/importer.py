"""``--source asn FILE``: one ASN document (RDF/XML or JSON-LD) → one graph package.

*Read* parses the file with rdflib into plain nodes (:mod:`.document`) and lets go of rdflib's graph;
*map* is :class:`~kgfegmcp.sources.asn.mapping.AsnMapping`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.asn.document import AsnGraph, read_asn_file
from kgfegmcp.sources.asn.mapping import AsnMapping
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter


class AsnSource(SourceImporter[AsnGraph]):
    """``--source asn FILE``: one ASN document → one package; ids and profile from the publisher table or the
    document."""

    name = "asn"
    memory_hint = "Build each standard document from its own file, as the publisher releases them."

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[AsnGraph]:
        """Parse the ASN file given to ``packages build --source asn``."""
        if source_input is None:
            raise ManifestBuildError(
                "The asn source needs an ASN document file (RDF/XML or JSON-LD).",
                hint="Run `kgfegmcp packages build --source asn FILE.rdf` (or FILE.jsonld).",
            )
        report(f"reading the ASN document {source_input.name}")
        yield read_asn_file(source_input)

    def map(self, source: AsnGraph, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """The one package of the document."""
        report("converting the ASN document")
        return [AsnMapping(source, profiles).run()]
