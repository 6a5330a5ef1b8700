"""Any 1EdTech CASE 1.0/1.1 ``CFPackage`` JSON as one graph package (``--source case``).

The CFPackage comes from a file (``packages build --source case FILE``) or from its publisher's
CASE API (``packages fetch --case-url``); the package's provenance names the file, or the URL, and
the SHA-256 of the bytes read. Nothing is guessed: what the mapping cannot represent becomes
unresolved evidence or a ``source_mapping_gap`` build finding.

Modules, by importer step (:mod:`kgfegmcp.sources.importer`). *Read*: :mod:`.document`, the
pydantic models of the CASE 1.0 and 1.1 bindings (the accepted variants); :mod:`.reader`, the
streaming reader that fills them a record at a time; :mod:`.dataset`, the CFPackage being read
with the origin of its bytes, as provenance cites it. *Map*: :mod:`.identity`, the default
framework and snapshot ids and the profile; :mod:`.mapping`, the CFDocument and CFItems;
:mod:`.associations`, the CFAssociations and cross-framework references. :mod:`.importer` is the
``--source case`` importer that runs both; :mod:`.client` fetches a CFPackage from a CASE API,
and :mod:`.provider` finds which one from a provider's address (a listing, a document, a host).
"""

from __future__ import annotations

from kgfegmcp.sources.case.dataset import CaseInputOrigin
from kgfegmcp.sources.case.importer import CaseSource

__all__ = ["CaseInputOrigin", "CaseSource"]
