"""BNCC from the ``bncc`` registry package (bncc-dados, CC BY 4.0) as four graph packages.

The adapter reads the package's JSON data files directly (``bncc/dados/*.json``), checks each
against the checksums ``VERSAO.json`` publishes, and never calls the package's API. Item text is
the source text byte for byte; every entity's provenance keeps the official locator (file,
sheet/row, PDF page) and the dataset version. The Ensino Fundamental package also carries the
Mapa de Foco layer (:mod:`kgfegmcp.sources.mapa_de_foco`).

Modules: :mod:`.dataset` reads and verifies the data files; :mod:`.assembly` holds what every
package shares (identity, the framework root, grouping and ``hasChild`` edges); one module per
package builds its hierarchy; :mod:`.adapter` is the ``--source bncc`` entry that runs them.
"""

from __future__ import annotations

from kgfegmcp.sources.bncc.adapter import BnccSource
from kgfegmcp.sources.bncc.dataset import BnccDataset

__all__ = ["BnccDataset", "BnccSource"]
