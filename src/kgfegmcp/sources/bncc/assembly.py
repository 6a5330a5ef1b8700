"""What every BNCC package shares: identity, the curriculum structure, and the grouping helpers.

The four builders differ only in how they walk their data file; the framework root, the
grouping items, the ``hasChild`` edges and the finished content are assembled the same way here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.manifest import SourceInfo
from kgfegmcp.packages.records import HAS_CHILD, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.sources.bncc.dataset import BnccDataset
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, grade_by_facet

LANGUAGE = "pt-BR"
JURISDICTION = "Brasil"
AUTHOR = "Ministério da Educação (MEC)"
PROVIDER = "bncc.dev (bncc-dados)"
CURRENT_STATUS = "vigente"

EI_FRAMEWORK = "brazil-bncc-educacao-infantil"
EF_FRAMEWORK = "brazil-bncc-ensino-fundamental"
EM_FRAMEWORK = "brazil-bncc-ensino-medio"
CO_FRAMEWORK = "brazil-bncc-computacao"

#: The profile version each package binds. A version is immutable once packages bind it, so a changed
#: profile is a new version (Ensino Fundamental 2.2 declares its progression links source_extracted; Ensino
#: Fundamental 2.3 and Ensino Médio 2.2 read the abbreviations EF and EM in a query).
PROFILE_VERSIONS: dict[str, str] = {EI_FRAMEWORK: "2.1", EF_FRAMEWORK: "2.3", EM_FRAMEWORK: "2.2", CO_FRAMEWORK: "2.1"}

OBJECTIVE = "Objetivo de aprendizagem e desenvolvimento"
HABILIDADE = "Habilidade"
OBJECT_OF_KNOWLEDGE = "Objeto de conhecimento"
BASE_DOCUMENT = "bncc-2018"
COMPUTING_DOCUMENT = "computacao-2022"


def index_records(records: Iterable[Mapping[str, Any]], key: str = "id") -> dict[str, Mapping[str, Any]]:
    """Records keyed by their ``key`` field (as text), for the ids other records cite."""
    return {str(record[key]): record for record in records}


class CurriculumStructure:
    """Named lookups into ``estrutura.json``: the documents, stages, areas and components packages cite."""

    def __init__(self, estrutura: Mapping[str, Any]) -> None:
        self.documents = index_records(estrutura["documento_curricular"])
        self.stages = index_records(estrutura["etapas"])
        self.areas = index_records(estrutura["areas_conhecimento"])
        self.components = index_records(estrutura["componentes_curriculares"])
        self.periods = index_records(estrutura["recortes_temporais"])
        self.fields = index_records(estrutura["campos_experiencias"])
        self.competences = index_records(estrutura["competencias_especificas"])


class PackageAssembly:
    """Shared set-up of one BNCC package: profile, framework root, builder."""

    def __init__(
        self,
        dataset: BnccDataset,
        structure: CurriculumStructure,
        profiles: ProfileRepository,
        framework_id: str,
        *,
        document: str,
        stage: str | None,
        academic_subject: str,
    ) -> None:
        self.dataset = dataset
        self.profile: LoadedProfile = profiles.load(framework_id, PROFILE_VERSIONS[framework_id])
        rights = self.profile.profile.default_rights
        doc = structure.documents[document]
        name = str(doc["nome"])
        if stage is not None:
            name = f"{name} — {structure.stages[stage]['nome']}"
        root = stable_uuid(framework_id, "framework")
        framework = FrameworkNode(
            identifier=root,
            case_identifier_uuid=root,
            name=name,
            jurisdiction=JURISDICTION,
            academic_subject=academic_subject,
            in_language=LANGUAGE,
            author=AUTHOR,
            provider=PROVIDER,
            license=rights.source_license,
            attribution_statement=rights.attribution_statement,
        )
        locator_key = document if stage is None else f"{document}/{stage}"
        self.title = name
        self.builder = PackageGraphBuilder(
            framework_id,
            self.profile,
            framework,
            dataset.provenance("estrutura.json", "documento_curricular", locator_key),
        )

    def grade(self, facet: str) -> str:
        """The profile's grade label for a source facet (age group, year, stage)."""
        return grade_by_facet(self.profile, facet)

    def group(
        self,
        key: str,
        parent_id: str,
        *,
        description: str,
        statement_type: str,
        provenance: Provenance,
        edge_provenance: Provenance,
        academic_subject: str | None = None,
        grades: Iterable[str] = (),
    ) -> str:
        """Ensure a grouping item exists under ``parent_id``; return its id."""
        builder = self.builder
        if not builder.has_item(key):
            builder.add_item(
                key,
                description=description,
                statement_type=statement_type,
                provenance=provenance,
                academic_subject=academic_subject,
                grades=grades,
            )
        uid = builder.item_id(key)
        self.child(parent_id, uid, edge_provenance)
        return uid

    def child(self, parent_id: str, child_id: str, provenance: Provenance) -> None:
        """A hasChild edge; a repeated edge accumulates the record keys that assert it."""
        rel_id, created = self.builder.link(HAS_CHILD, parent_id, child_id, provenance)
        if not created:
            locator = self.builder.provenance(rel_id)["locator"]
            keys = locator.get("recordKeys")
            new_keys = provenance["locator"].get("recordKeys", ())
            if isinstance(keys, list):
                keys.extend(k for k in new_keys if k not in keys)

    def content(self, subject_slug: str, source: SourceInfo) -> PackageContent:
        """The finished package; groupings take their grades from the items under them."""
        self.builder.derive_grouping_grades()
        return self.builder.content(
            snapshot_id=self.dataset.snapshot_id,
            title=self.title,
            subject_slug=subject_slug,
            source=source,
            rights=self.profile.profile.default_rights,
        )


def is_current(record: Mapping[str, Any]) -> bool:
    """Whether a record is in force; one without a ``vigencia`` status counts as current."""
    vigencia = record.get("vigencia") or {}
    return bool(vigencia.get("status", CURRENT_STATUS) == CURRENT_STATUS)


def source_fields(record: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """The named source fields a record has, kept verbatim in an item's details."""
    return {name: record[name] for name in names if name in record}
