"""BNCC from the ``bncc`` registry package (bncc-dados, CC BY 4.0) as four graph packages.

The importer reads the package's JSON data files directly (``bncc/dados/*.json``), checks each
against the checksums ``VERSAO.json`` publishes, and never calls the package's API. Item text is
the source text byte for byte; every entity's provenance keeps the official locator (file,
sheet/row, PDF page) and the dataset version. The Ensino Fundamental package also carries the
Mapa de Foco layer (:mod:`kgfegmcp.sources.mapa_de_foco`).

Modules, by importer step (:mod:`kgfegmcp.sources.importer`): *read* is :mod:`.dataset`, which reads
and verifies the data files (with the Mapa de Foco layer); *map* is :mod:`.assembly`, what every
package shares (identity, the framework root, grouping and ``hasChild`` edges), and one module per
package that builds its hierarchy; :mod:`.importer` is the ``--source bncc`` importer that runs both.
"""

from __future__ import annotations

from kgfegmcp.sources.bncc.dataset import BnccDataset
from kgfegmcp.sources.bncc.importer import BnccSource

__all__ = ["BnccDataset", "BnccSource"]
