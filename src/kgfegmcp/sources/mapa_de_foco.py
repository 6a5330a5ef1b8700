"""The Mapa de Foco layer (Instituto Reúna, shipped in ``bncc-mcp``) for BNCC Ensino Fundamental.

Reads ``bncc_mcp/data/bncc_habilidades.csv`` only (never the package's server). For each
prioritised habilidade (``em_foco == "sim"``) it adds one learning component per listed
objective (``supports``, confidence 1.0), ``buildsTowards`` links from the prior-knowledge
list (prior → habilidade) and ``relatesTo`` links from the related-skills list. Codes that point
outside the package, or match no BNCC code at all, become unresolved evidence with their source
text; nothing is dropped silently and no edge crosses packages. The CSV's own copy of the
habilidade text is never used: where it differs from the verified source, a build finding
records the difference.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.lc_artifacts import ComponentProduction, ComponentSourceVersion
from kgfegmcp.packages.manifest import SourceDataset, UpstreamChecksum
from kgfegmcp.packages.records import BUILDS_TOWARDS, RELATES_TO, SUPPORTS, RelationshipLabel
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, slugify
from kgfegmcp.sources.installed import InstalledFile, read_installed
from kgfegmcp.sources.registry_sources import MAPA_DE_FOCO

DISTRIBUTION = MAPA_DE_FOCO.distribution
IMPORT_NAME = MAPA_DE_FOCO.import_name
INSTALL_HINT = MAPA_DE_FOCO.install_hint
CSV_PATH = "bncc_mcp/data/bncc_habilidades.csv"
PACKAGE_URI = "https://pypi.org/project/bncc-mcp/"
DATASET_NAME = "Mapa de Foco da BNCC"
CURATOR = "Instituto Reúna"
CURATOR_URI = "https://institutoreuna.org.br"
LICENSE = (
    "Mapa de Foco da BNCC © 2020 Instituto Reúna, included in bncc-mcp with authorization; "
    "reuse requires attribution and is restricted to non-commercial purposes."
)
ATTRIBUTION = (
    "Camada de priorização: Mapas de Foco da BNCC © 2020 Instituto Reúna (institutoreuna.org.br), "
    "usados com autorização."
)
SUPPORT_CONFIDENCE: Final = 1.0

CODE_COLUMN = "código"
STAGE_COLUMN = "etapa"
TEXT_COLUMN = "habilidade"
FOCUS_COLUMN = "em_foco"
CLASSIFICATION_COLUMN = "mf_classificacao"
PRIOR_COLUMN = "mf_conhecimento_previo"
OBJECTIVES_COLUMN = "mf_objetivos"
COMPETENCES_COLUMN = "mf_competencias"
RELATED_COLUMN = "mf_habilidades_relacionadas"
COMMENTS_COLUMN = "mf_comentarios"
REQUIRED_COLUMNS: Final = (
    CODE_COLUMN,
    STAGE_COLUMN,
    TEXT_COLUMN,
    FOCUS_COLUMN,
    CLASSIFICATION_COLUMN,
    PRIOR_COLUMN,
    OBJECTIVES_COLUMN,
    COMPETENCES_COLUMN,
    RELATED_COLUMN,
    COMMENTS_COLUMN,
)
FOCUS_VALUE = "sim"
STAGE_VALUE = "Ensino Fundamental"

#: Anything shaped like a BNCC code, typos included (``EFMA01MA04``, ``EM08MA18``), so that no
#: reference is lost; whether it names a real habilidade is decided against the verified source.
CODE_TOKEN: Final = re.compile(r"\bE[A-Z]{1,3}[0-9]{2}[A-Z]{2,3}[0-9]{2,3}\b")
#: Block labels of the related-skills lists (focal / complementary / other).
LIST_LABEL: Final = re.compile(r"\b(AF|AC|EF)\s*:")
_BULLET: Final = re.compile(r"\s*•\s*")
_DASH_ITEM: Final = re.compile(r"(?:^|\s)-\s+")
_SPACE: Final = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class HabilidadeTarget:
    """A habilidade of the package the layer attaches to."""

    item_id: str
    text: str
    academic_subject: str | None


@dataclass(frozen=True, slots=True)
class MapaRow:
    """One CSV record with where it sits in the file."""

    data_row: int
    line: int
    values: dict[str, str]

    @property
    def code(self) -> str:
        """The row's BNCC code."""
        return self.values[CODE_COLUMN].strip()

    @property
    def prioritised(self) -> bool:
        """Whether the Mapa de Foco prioritises this habilidade."""
        return self.values[FOCUS_COLUMN].strip().lower() == FOCUS_VALUE

    def locator(self, column: str, **extra: Any) -> dict[str, Any]:
        """Where one cell of this row is in the shipped CSV."""
        return {"datasetFile": CSV_PATH, "dataRow": self.data_row, "line": self.line, "column": column, **extra}


@dataclass(frozen=True, slots=True)
class CodeMention:
    """A code-shaped token in a list cell, with the block label and the line it sits on."""

    code: str
    label: str | None
    line: str


@dataclass(frozen=True, slots=True)
class MapaDeFocoData:
    """The parsed, checksum-verified CSV."""

    file: InstalledFile
    rows: tuple[MapaRow, ...]

    @classmethod
    def load(cls) -> MapaDeFocoData:
        """Read the CSV shipped in ``bncc-mcp`` (verified against its wheel RECORD)."""
        installed = read_installed(IMPORT_NAME, DISTRIBUTION, CSV_PATH, INSTALL_HINT)
        try:
            text = installed.data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ManifestBuildError(f"{CSV_PATH} of {DISTRIBUTION} is not UTF-8: {exc}") from None
        return cls(installed, tuple(parse_rows(text)))

    def source_dataset(self) -> SourceDataset:
        """How the manifest names this dataset."""
        return SourceDataset(
            name=DISTRIBUTION,
            version=self.file.version,
            uri=f"{PACKAGE_URI}{self.file.version}/",
            license=LICENSE,
            role=f"{DATASET_NAME} (curated by {CURATOR}): learning components and progression links",
        )

    def upstream_checksums(self) -> tuple[UpstreamChecksum, ...]:
        """The CSV's checksum as the wheel RECORD publishes it."""
        if self.file.record_sha256 is None:
            return ()
        return (UpstreamChecksum(file=CSV_PATH, algorithm="sha256", value=self.file.record_sha256),)

    def component_production(self) -> ComponentProduction:
        """The components are the objectives Instituto Reúna curated, split from the CSV, never generated."""
        return ComponentProduction(
            production="curated",
            human_reviewed=True,
            curator=CURATOR,
            curator_uri=CURATOR_URI,
            source=ComponentSourceVersion(
                name=DISTRIBUTION, version=self.file.version, dataset=DATASET_NAME, path=CSV_PATH
            ),
            method=(
                f"One component per objective of the {OBJECTIVES_COLUMN} column of each prioritised habilidade "
                f"row, split at its bullets or dash items with line wraps collapsed; the text is the curator's, "
                "no model generated or rewrote it."
            ),
        )

    def dataset_ref(self) -> dict[str, str]:
        """Which dataset a provenance record refers to."""
        return {"name": DISTRIBUTION, "version": self.file.version, "dataset": DATASET_NAME}


def parse_rows(text: str) -> list[MapaRow]:
    """CSV records with their 1-based data-row number and first physical line."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise ManifestBuildError(f"{CSV_PATH} lacks the columns {missing}.", hint="Install bncc-mcp==0.1.0.")
    rows: list[MapaRow] = []
    line = reader.line_num + 1
    for index, record in enumerate(reader, start=1):
        rows.append(MapaRow(index, line, {k: (v or "") for k, v in record.items() if k is not None}))
        line = reader.line_num + 1
    return rows


def split_objectives(cell: str) -> list[str]:
    """Objectives of one ``mf_objetivos`` cell: ``•`` bullets, or ``-`` items where no bullet is used."""
    if not cell.strip():
        return []
    separator = _BULLET if "•" in cell else _DASH_ITEM if cell.lstrip().startswith("-") else None
    parts = separator.split(cell) if separator else [cell]
    return [part.strip() for part in parts if part.strip()]


def collapse(text: str) -> str:
    """Hard line wraps inside one objective become single spaces."""
    return _SPACE.sub(" ", text).strip()


def extract_codes(cell: str) -> list[CodeMention]:
    """Code-shaped tokens of a list cell, first mention first, with the block label in force."""
    labels = [(m.start(), m.group(1)) for m in LIST_LABEL.finditer(cell)]
    seen: dict[str, CodeMention] = {}
    for match in CODE_TOKEN.finditer(cell):
        code = match.group(0)
        if code in seen:
            continue
        label = None
        for position, name in labels:
            if position < match.start():
                label = name
        start = cell.rfind("\n", 0, match.start()) + 1
        end = cell.find("\n", match.end())
        seen[code] = CodeMention(code, label, cell[start : end if end >= 0 else len(cell)].strip())
    return list(seen.values())


def describe_difference(verified: str, secondary: str) -> str:
    """How two texts differ, without quoting them (the report is public metadata)."""
    position = next((i for i, (a, b) in enumerate(zip(verified, secondary, strict=False)) if a != b), None)
    if position is None:
        position = min(len(verified), len(secondary))
    if _SPACE.sub("", verified) == _SPACE.sub("", secondary):
        kind = "whitespace only"
    elif unicodedata.normalize("NFKC", secondary) == verified:
        kind = "compatibility characters (e.g. ligatures)"
    elif secondary.startswith(verified):
        kind = "extra trailing text in the secondary copy"
    elif verified.startswith(secondary):
        kind = "secondary copy truncated"
    elif len(secondary) < len(verified):
        kind = "characters or words missing in the secondary copy"
    else:
        kind = "wording differs"
    return (
        f"first difference at character {position + 1}; verified {len(verified)} characters, "
        f"secondary {len(secondary)} characters; kind: {kind}"
    )


def apply_mapa_de_foco(
    builder: PackageGraphBuilder,
    data: MapaDeFocoData,
    habilidades: Mapping[str, HabilidadeTarget],
    outside: Mapping[str, str],
    *,
    verified_source: str,
) -> None:
    """Add the layer's components, links, unresolved evidence and text-difference findings.

    ``habilidades`` are the package's own codes; ``outside`` maps codes of sibling packages to
    their framework id (they become ``unresolvedExternalReference`` evidence).
    """
    layer = _Layer(builder, data, habilidades, outside, verified_source)
    builder.component_production = data.component_production()
    for row in data.rows:
        layer.compare_text(row)
        if row.prioritised:
            layer.add_row(row)


class _Layer:
    def __init__(
        self,
        builder: PackageGraphBuilder,
        data: MapaDeFocoData,
        habilidades: Mapping[str, HabilidadeTarget],
        outside: Mapping[str, str],
        verified_source: str,
    ) -> None:
        self.builder = builder
        self.data = data
        self.habilidades = habilidades
        self.outside = outside
        self.verified_source = verified_source
        self.origin = f"{DISTRIBUTION} {data.file.version} {CSV_PATH}"

    def _provenance(self, status: str, row: MapaRow, column: str, **extra: Any) -> Provenance:
        return {
            "epistemicStatus": status,
            "curator": CURATOR,
            "curatorUri": CURATOR_URI,
            "dataset": self.data.dataset_ref(),
            "locator": row.locator(column, recordKey=row.code),
            **extra,
        }

    def compare_text(self, row: MapaRow) -> None:
        code = row.code
        if row.values[STAGE_COLUMN].strip() != STAGE_VALUE:
            return
        target = self.habilidades.get(code)
        if target is None:
            self.builder.add_finding(
                FindingCode.SOURCE_MAPPING_GAP,
                "warning",
                f"{self.origin} data row {row.data_row}: Ensino Fundamental code {code} is not a habilidade of "
                f"{self.verified_source}; the row is not used.",
                location=code,
            )
            return
        secondary = row.values[TEXT_COLUMN]
        if secondary != target.text:
            self.builder.add_finding(
                FindingCode.SOURCE_TEXT_DIFFERENCE,
                "warning",
                f"{self.origin} data row {row.data_row}: the habilidade text of {code} differs from "
                f"{self.verified_source} ({describe_difference(target.text, secondary)}); the verified text is kept.",
                location=code,
            )

    def add_row(self, row: MapaRow) -> None:
        code = row.code
        target = self.habilidades.get(code)
        if target is None:
            self.builder.add_finding(
                FindingCode.SOURCE_MAPPING_GAP,
                "warning",
                f"{self.origin} data row {row.data_row}: prioritised code {code} is not in this package; "
                "its Mapa de Foco entries are not used.",
                location=code,
            )
            return
        classification = row.values[CLASSIFICATION_COLUMN].strip()
        self._details(row, target, classification)
        self._components(row, target, classification)
        self._links(row, target, PRIOR_COLUMN, BUILDS_TOWARDS)
        self._links(row, target, RELATED_COLUMN, RELATES_TO)

    def _details(self, row: MapaRow, target: HabilidadeTarget, classification: str) -> None:
        details: dict[str, Any] = {
            "curator": CURATOR,
            "license": LICENSE,
            "prioritised": True,
            "locator": row.locator(FOCUS_COLUMN, recordKey=row.code),
        }
        for column, name in (
            (COMPETENCES_COLUMN, "competences"),
            (COMMENTS_COLUMN, "comments"),
        ):
            if row.values[column].strip():
                details[name] = row.values[column]
        if classification:
            details["classification"] = classification
        self.builder.details(target.item_id)["mapaDeFoco"] = details

    def _components(self, row: MapaRow, target: HabilidadeTarget, classification: str) -> None:
        tags = ["mapa-de-foco"]
        if classification and slugify(classification):
            tags.append(f"mf-classificacao-{slugify(classification)}")
        for index, objective in enumerate(split_objectives(row.values[OBJECTIVES_COLUMN]), start=1):
            component_id = self.builder.add_component(
                f"mapa-de-foco/{row.code}/objetivo/{index:02d}",
                description=collapse(objective),
                provenance=self._provenance(
                    "source_asserted", row, OBJECTIVES_COLUMN, objectiveIndex=index, sourceText=objective
                ),
                academic_subject=target.academic_subject,
                tags=tags,
                author=CURATOR,
                provider=f"{CURATOR} (via {DISTRIBUTION} {self.data.file.version})",
                license=LICENSE,
                attribution_statement=ATTRIBUTION,
            )
            self.builder.link(
                SUPPORTS,
                component_id,
                target.item_id,
                self._provenance("source_asserted", row, OBJECTIVES_COLUMN, objectiveIndex=index),
                support_confidence=SUPPORT_CONFIDENCE,
            )

    def _links(self, row: MapaRow, target: HabilidadeTarget, column: str, label: RelationshipLabel) -> None:
        cell = row.values[column]
        for mention in extract_codes(cell):
            evidence = {"extractedCode": mention.code, "sourceText": mention.line}
            if mention.label:
                evidence["listLabel"] = mention.label
            if mention.code == row.code:
                self.builder.add_finding(
                    FindingCode.SOURCE_MAPPING_GAP,
                    "info",
                    f"{self.origin} data row {row.data_row}: {row.code} lists itself in {column}; "
                    "no self-link was created.",
                    location=row.code,
                )
                continue
            other = self.habilidades.get(mention.code)
            if other is not None:
                source, destination = (
                    (other.item_id, target.item_id) if label == BUILDS_TOWARDS else (target.item_id, other.item_id)
                )
                self.builder.link(
                    label, source, destination, self._provenance("source_extracted", row, column, **evidence)
                )
                continue
            framework = self.outside.get(mention.code)
            entry: dict[str, Any] = {
                "status": "unresolvedExternalReference" if framework else "unresolvedMissingTarget",
                "reference": mention.code,
                "sourceEntityId": target.item_id,
                "sourceText": cell,
                "reason": (
                    f"{mention.code} is in {framework}, another package; links never cross packages"
                    if framework
                    else f"{mention.code} matches no BNCC code in {self.verified_source} (possibly a source typo)"
                ),
                "relationshipLabel": label,
                "direction": "reference → habilidade" if label == BUILDS_TOWARDS else "habilidade → reference",
                "curator": CURATOR,
                "locator": row.locator(column, recordKey=row.code),
            }
            if framework:
                entry["targetFrameworkId"] = framework
            if mention.label:
                entry["listLabel"] = mention.label
            self.builder.add_unresolved(f"mapa-de-foco/{row.code}/{column}/{mention.code}", entry)
