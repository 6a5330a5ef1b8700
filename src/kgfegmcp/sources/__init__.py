"""Build-time source importers: real curriculum data in, pending graph packages out.

Importers are looked up by name and imported lazily, so the server never imports them. Each one is a
:class:`~kgfegmcp.sources.importer.SourceImporter` (read the source, map it onto packages).
"""

from __future__ import annotations

import importlib
from typing import Any

from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.sources.importer import SourceImporter

#: Source name → ``module:class`` of its importer: the one list of the sources ``packages build`` knows.
SOURCE_IMPORTERS: dict[str, str] = {
    "bncc": "kgfegmcp.sources.bncc:BnccSource",
    "ccss": "kgfegmcp.sources.ccss:CcssSource",
    "case": "kgfegmcp.sources.case:CaseSource",
    "nacca-pdf": "kgfegmcp.sources.curriculum_pdf.importer:NaccaPdfSource",
    "asn": "kgfegmcp.sources.asn:AsnSource",
    "mext-code-table": "kgfegmcp.sources.code_table:MextCodeTableSource",
}


def load_importer(name: str, review_status: str | None = None) -> SourceImporter[Any]:
    """Instantiate the importer registered under ``name``; a ``review_status`` (which the command line records in
    the operator's rights file) is refused for a source that takes its rights from its profile."""
    target = SOURCE_IMPORTERS.get(name)
    if target is None:
        raise ConfigurationError(
            f"Unknown source {name!r}.", hint=f"Use one of: {', '.join(sorted(SOURCE_IMPORTERS))}."
        )
    module_name, _, class_name = target.partition(":")
    kind = getattr(importlib.import_module(module_name), class_name)
    if review_status is not None and not kind.takes_review_status:
        raise ConfigurationError(
            f"The {name} source takes its rights from its profile; --review-status is for sources that state none.",
            hint="Build it without --review-status; `kgfegmcp packages review` records an operator's decision.",
        )
    importer: SourceImporter[Any] = kind()
    return importer
