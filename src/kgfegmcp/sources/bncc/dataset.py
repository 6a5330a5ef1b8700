"""The verified data files of one installed ``bncc`` release, and how entities cite them.

Reading and checksum checks live apart from the package builders so every builder sees the same
verified bytes and every provenance record names the same dataset release.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo, UpstreamChecksum
from kgfegmcp.sources.graph_builder import Provenance, identifier_from
from kgfegmcp.sources.installed import InstalledFile, read_installed
from kgfegmcp.sources.registry_sources import BNCC

DISTRIBUTION = BNCC.distribution
INSTALL_HINT = BNCC.install_hint
DATA_DIR = "bncc/dados"
DATA_FILES = (
    "estrutura.json",
    "educacao-infantil.json",
    "ensino-fundamental.json",
    "ensino-medio.json",
    "computacao.json",
)
SOURCE_URI = "https://github.com/bncc-dev/bncc-dados"
PACKAGE_URI = "https://pypi.org/project/bncc/"


@dataclass(frozen=True, slots=True)
class BnccDataset:
    """The verified data files of one installed ``bncc`` release."""

    package_version: str
    data_version: str
    commit: str | None
    checksums: dict[str, str]
    files: dict[str, InstalledFile]
    documents: dict[str, Any]

    @classmethod
    def load(cls) -> BnccDataset:
        """Read ``VERSAO.json`` and the curriculum files, verifying each published checksum."""
        versao_file = read_installed(DISTRIBUTION, DISTRIBUTION, f"{DATA_DIR}/VERSAO.json", INSTALL_HINT)
        versao = _parse_json(versao_file)
        try:
            data_version = str(versao["data_version"])
            checksums = {str(k): str(v) for k, v in dict(versao["checksums_sha256"]).items()}
        except (KeyError, TypeError, ValueError):
            raise ManifestBuildError(
                f"bncc {versao_file.version}: VERSAO.json lacks data_version or checksums_sha256."
            ) from None
        files: dict[str, InstalledFile] = {"VERSAO.json": versao_file}
        documents: dict[str, Any] = {"VERSAO.json": versao}
        for name in DATA_FILES:
            if name not in checksums:
                raise ManifestBuildError(f"bncc {versao_file.version}: VERSAO.json publishes no checksum for {name}.")
            installed = read_installed(DISTRIBUTION, DISTRIBUTION, f"{DATA_DIR}/{name}", INSTALL_HINT, checksums[name])
            files[name] = installed
            documents[name] = _parse_json(installed)
        commit = versao.get("commit")
        return cls(versao_file.version, data_version, str(commit) if commit else None, checksums, files, documents)

    @property
    def snapshot_id(self) -> str:
        """``dados-2026.07.1`` → ``dados-2026-07-1``: one snapshot per dataset release."""
        return identifier_from(self.data_version, "snapshot id")

    def doc(self, name: str) -> Any:
        """A parsed data file."""
        return self.documents[name]

    def dataset_ref(self) -> dict[str, str]:
        """Which dataset release a provenance record refers to."""
        ref = {"name": DISTRIBUTION, "version": self.package_version, "dataVersion": self.data_version}
        if self.commit:
            ref["commit"] = self.commit
        return ref

    def provenance(
        self,
        file: str,
        collection: str,
        key: str | Iterable[str],
        fonte: Mapping[str, Any] | None = None,
        *,
        field: str | None = None,
        **extra: Any,
    ) -> Provenance:
        """A source-asserted provenance record with the dataset locator and the official locator.

        ``field`` names the source field that asserts an edge; ``extra`` adds top-level evidence.
        """
        locator: dict[str, Any] = {"datasetFile": f"{DATA_DIR}/{file}", "collection": collection}
        if isinstance(key, str):
            locator["recordKey"] = key
        else:
            locator["recordKeys"] = list(key)
        if field is not None:
            locator["field"] = field
        for source_field, name in (
            ("documento", "officialDocument"),
            ("arquivo", "officialFile"),
            ("localizador", "officialLocator"),
            ("localizador_pdf", "pdfLocator"),
            ("proveniencia", "officialProvenance"),
        ):
            if fonte and fonte.get(source_field):
                locator[name] = fonte[source_field]
        record: Provenance = {"epistemicStatus": "source_asserted", "dataset": self.dataset_ref(), "locator": locator}
        record.update(extra)
        return record

    def source_info(
        self, datasets: Iterable[SourceDataset] = (), checksums: Iterable[UpstreamChecksum] = ()
    ) -> SourceInfo:
        """The manifest's ``source``: bncc-dados release, VERSAO.json checksums, datasets used."""
        role = f"verified BNCC text and structure (data {self.data_version}"
        role += f", commit {self.commit[:12]})" if self.commit else ")"
        return SourceInfo(
            name="bncc-dados (via the bncc package)",
            version=self.data_version,
            uri=SOURCE_URI,
            upstream_checksums=(
                *(
                    UpstreamChecksum(file=name, algorithm="sha256", value=value)
                    for name, value in sorted(self.checksums.items())
                ),
                *checksums,
            ),
            datasets=(
                SourceDataset(
                    name=DISTRIBUTION,
                    version=self.package_version,
                    uri=f"{PACKAGE_URI}{self.package_version}/",
                    license="data CC BY 4.0 (bncc-dados); code MIT",
                    role=role,
                ),
                *datasets,
            ),
        )


def _parse_json(installed: InstalledFile) -> Any:
    try:
        return json.loads(installed.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ManifestBuildError(f"{installed.relative_path} of {installed.distribution} is not JSON: {exc}") from None
