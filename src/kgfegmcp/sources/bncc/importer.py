"""``--source bncc``: the installed ``bncc`` data and ``bncc-mcp``'s Mapa de Foco → four packages.

Any shape the builders do not expect becomes one build error naming the dataset release, so a
new upstream release fails loudly instead of producing a partial package.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.bncc.assembly import CO_FRAMEWORK, EF_FRAMEWORK, EI_FRAMEWORK, EM_FRAMEWORK, CurriculumStructure
from kgfegmcp.sources.bncc.computacao import build_computacao
from kgfegmcp.sources.bncc.dataset import BnccDataset
from kgfegmcp.sources.bncc.educacao_infantil import build_educacao_infantil
from kgfegmcp.sources.bncc.ensino_fundamental import build_ensino_fundamental
from kgfegmcp.sources.bncc.ensino_medio import build_ensino_medio
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter, refuse_input
from kgfegmcp.sources.mapa_de_foco import MapaDeFocoData


@dataclass(frozen=True, slots=True)
class BnccSources:
    """What the BNCC packages are built from: the verified ``bncc`` release and the Mapa de Foco layer."""

    dataset: BnccDataset
    mapa: MapaDeFocoData


def _outside_codes(dataset: BnccDataset) -> dict[str, str]:
    """Codes of the other three packages → the framework that holds them (for unresolved evidence)."""
    outside: dict[str, str] = {}
    for record in dataset.doc("educacao-infantil.json")["objetivos"]:
        outside[str(record["codigo"])] = EI_FRAMEWORK
    for record in dataset.doc("ensino-medio.json")["habilidades"]:
        outside[str(record["codigo"])] = EM_FRAMEWORK
    computing = dataset.doc("computacao.json")
    for collection in ("objetivos_ei", "habilidades_ef", "habilidades_em"):
        for record in computing[collection]:
            outside[str(record["codigo"])] = CO_FRAMEWORK
    return outside


class BnccSource(SourceImporter[BnccSources]):
    """``--source bncc``: the installed ``bncc`` data (plus ``bncc-mcp``'s Mapa de Foco) → 4 packages."""

    name = "bncc"

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[BnccSources]:
        """Read and verify the installed data files."""
        refuse_input(self.name, source_input, "the installed bncc and bncc-mcp packages")
        report("reading bncc data files")
        dataset = BnccDataset.load()
        report("reading the Mapa de Foco layer (bncc-mcp)")
        yield BnccSources(dataset, MapaDeFocoData.load())

    def map(self, source: BnccSources, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """The EI, EF, EM and Computação package contents, in that order."""
        dataset = source.dataset
        try:
            structure = CurriculumStructure(dataset.doc("estrutura.json"))
            report(f"building {EI_FRAMEWORK}")
            contents = [build_educacao_infantil(dataset, structure, profiles)]
            report(f"building {EF_FRAMEWORK}")
            contents.append(
                build_ensino_fundamental(dataset, structure, profiles, source.mapa, _outside_codes(dataset))
            )
            report(f"building {EM_FRAMEWORK}")
            contents.append(build_ensino_medio(dataset, structure, profiles))
            report(f"building {CO_FRAMEWORK}")
            contents.append(build_computacao(dataset, structure, profiles))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ManifestBuildError(
                f"bncc {dataset.package_version} data ({dataset.data_version}) has an unexpected shape "
                f"({type(exc).__name__}: {exc}).",
                hint="Install the pinned version (bncc==0.5.1) or update the importer for the new data shape.",
            ) from None
        return contents
