"""BNCC from the ``bncc`` registry package (bncc-dados, CC BY 4.0) as four graph packages.

The adapter reads the package's JSON data files directly (``bncc/dados/*.json``), checks each
against the checksums ``VERSAO.json`` publishes, and never calls the package's API. Item text is
the source text byte for byte; every entity's provenance keeps the official locator (file,
sheet/row, PDF page) and the dataset version. The Ensino Fundamental package also carries the
Mapa de Foco layer (:mod:`kgfegmcp.sources.mapa_de_foco`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from kgfegmcp.errors import ManifestBuildError
from kgfegmcp.identifiers import stable_uuid
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo, UpstreamChecksum
from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository
from kgfegmcp.sources.base import ProgressCallback, refuse_input
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, grade_by_facet, identifier_from
from kgfegmcp.sources.installed import InstalledFile, read_installed
from kgfegmcp.sources.mapa_de_foco import HabilidadeTarget, MapaDeFocoData, apply_mapa_de_foco

DISTRIBUTION = "bncc"
INSTALL_HINT = "pip install bncc==0.5.1"
DATA_DIR = "bncc/dados"
DATA_FILES = (
    "estrutura.json",
    "educacao-infantil.json",
    "ensino-fundamental.json",
    "ensino-medio.json",
    "computacao.json",
)
PROFILE_VERSION = "2.1"
SOURCE_URI = "https://github.com/bncc-dev/bncc-dados"
PACKAGE_URI = "https://pypi.org/project/bncc/"
LANGUAGE = "pt-BR"
JURISDICTION = "Brasil"
AUTHOR = "Ministério da Educação (MEC)"
PROVIDER = "bncc.dev (bncc-dados)"
CURRENT_STATUS = "vigente"

EI_FRAMEWORK = "brazil-bncc-educacao-infantil"
EF_FRAMEWORK = "brazil-bncc-ensino-fundamental"
EM_FRAMEWORK = "brazil-bncc-ensino-medio"
CO_FRAMEWORK = "brazil-bncc-computacao"

OBJECTIVE = "Objetivo de aprendizagem e desenvolvimento"
HABILIDADE = "Habilidade"
OBJECT_OF_KNOWLEDGE = "Objeto de conhecimento"
BASE_DOCUMENT = "bncc-2018"
COMPUTING_DOCUMENT = "computacao-2022"

#: EF organisation kinds: ``organizacao.tipo`` → the context levels above the objects of knowledge.
_EF_CONTEXT_TYPES = {
    "ut": "Unidade temática",
    "catu": "Campo de atuação",
    "prat": "Prática de linguagem",
    "eixo": "Eixo",
}


def _index(records: Iterable[Mapping[str, Any]], key: str = "id") -> dict[str, Mapping[str, Any]]:
    return {str(record[key]): record for record in records}


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


class _Structure:
    """Named lookups into ``estrutura.json``."""

    def __init__(self, estrutura: Mapping[str, Any]) -> None:
        self.documents = _index(estrutura["documento_curricular"])
        self.stages = _index(estrutura["etapas"])
        self.areas = _index(estrutura["areas_conhecimento"])
        self.components = _index(estrutura["componentes_curriculares"])
        self.periods = _index(estrutura["recortes_temporais"])
        self.fields = _index(estrutura["campos_experiencias"])
        self.competences = _index(estrutura["competencias_especificas"])


class _Package:
    """Shared set-up of one BNCC package: profile, framework root, builder."""

    def __init__(
        self,
        dataset: BnccDataset,
        structure: _Structure,
        profiles: ProfileRepository,
        framework_id: str,
        *,
        document: str,
        stage: str | None,
        academic_subject: str,
    ) -> None:
        self.dataset = dataset
        self.profile: LoadedProfile = profiles.load(framework_id, PROFILE_VERSION)
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
        self.builder.derive_grouping_grades()
        return self.builder.content(
            snapshot_id=self.dataset.snapshot_id,
            title=self.title,
            subject_slug=subject_slug,
            source=source,
            rights=self.profile.profile.default_rights,
        )


def _is_current(record: Mapping[str, Any]) -> bool:
    vigencia = record.get("vigencia") or {}
    return bool(vigencia.get("status", CURRENT_STATUS) == CURRENT_STATUS)


def _source_fields(record: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {name: record[name] for name in names if name in record}


def build_educacao_infantil(dataset: BnccDataset, structure: _Structure, profiles: ProfileRepository) -> PackageContent:
    """Fields of experience → field and age group → objectives; reviewed alignments → buildsTowards."""
    file = "educacao-infantil.json"
    package = _Package(
        dataset,
        structure,
        profiles,
        EI_FRAMEWORK,
        document=BASE_DOCUMENT,
        stage="EI",
        academic_subject="Multidisciplinar",
    )
    builder = package.builder
    document = dataset.doc(file)
    objectives: dict[str, str] = {}
    grade_order: dict[str, int] = {}
    order = {g.source_label: g.order for g in package.profile.profile.grade_labels}
    for record in document["objetivos"]:
        code = str(record["codigo"])
        field_record = structure.fields[record["campo_experiencias"]]
        group = structure.periods[record["grupo_etario"]]
        grade = package.grade(str(group["id"]))
        field_id = package.group(
            f"campo/{field_record['id']}",
            builder.root_id,
            description=str(field_record["nome"]),
            statement_type="Campo de experiências",
            provenance=dataset.provenance("estrutura.json", "campos_experiencias", str(field_record["id"])),
            edge_provenance=dataset.provenance(file, "objetivos", [code], field="campo_experiencias"),
            academic_subject=str(field_record["nome"]),
        )
        group_id = package.group(
            f"campo/{field_record['id']}/grupo/{group['id']}",
            field_id,
            description=f"{field_record['nome']} — {group['nome']} ({group['faixa']})",
            statement_type="Grupo etário",
            provenance=dataset.provenance(
                "estrutura.json",
                "campos_experiencias+recortes_temporais",
                [str(field_record["id"]), str(group["id"])],
                composedDescription="field of experience name — age group name (age range)",
            ),
            edge_provenance=dataset.provenance(file, "objetivos", [code], field="campo_experiencias+grupo_etario"),
            academic_subject=str(field_record["nome"]),
            grades=[grade],
        )
        item_id = builder.add_item(
            f"objetivo/{code}",
            description=str(record["texto"]),
            statement_type=OBJECTIVE,
            provenance=dataset.provenance(file, "objetivos", code, record.get("fonte")),
            grades=[grade],
            statement_code=code,
            academic_subject=str(field_record["nome"]),
            is_current=_is_current(record),
            details={"bncc": _source_fields(record, "campo_experiencias", "grupo_etario", "alinhamento", "vigencia")},
        )
        package.child(group_id, item_id, dataset.provenance(file, "objetivos", [code], field="grupo_etario"))
        objectives[code] = item_id
        grade_order[code] = order[grade]
    for alignment in document["alinhamentos"]:
        codes = [str(c) for c in alignment["objetivos"]]
        for missing in (c for c in codes if c not in objectives):
            builder.add_unresolved(
                f"alinhamento/{alignment['id']}/{missing}",
                {
                    "status": "unresolvedMissingTarget",
                    "reference": missing,
                    "sourceEntityId": None,
                    "sourceText": str(alignment.get("nota", "")),
                    "reason": f"alignment {alignment['id']} names an objective that is not in {file}",
                },
            )
        present = [c for c in codes if c in objectives]
        present.sort(key=lambda c: grade_order[c])
        for earlier, later in pairwise(present):
            builder.link(
                BUILDS_TOWARDS,
                objectives[earlier],
                objectives[later],
                dataset.provenance(
                    file,
                    "alinhamentos",
                    str(alignment["id"]),
                    field="objetivos",
                    alignmentId=str(alignment["id"]),
                    alignmentNote=str(alignment.get("nota", "")),
                    alignedObjectives=codes,
                    pair=[earlier, later],
                ),
            )
    return package.content("educacao-infantil", dataset.source_info())


def build_ensino_fundamental(
    dataset: BnccDataset,
    structure: _Structure,
    profiles: ProfileRepository,
    mapa: MapaDeFocoData,
    outside: Mapping[str, str],
) -> PackageContent:
    """Component → thematic unit / field + practice / axis + unit → object of knowledge → habilidade.

    A habilidade is placed under every object of knowledge (and field) the source lists, so the
    hierarchy is a multi-parent DAG; grouping nodes get ids from their stable source keys.
    """
    file = "ensino-fundamental.json"
    package = _Package(
        dataset,
        structure,
        profiles,
        EF_FRAMEWORK,
        document=BASE_DOCUMENT,
        stage="EF",
        academic_subject="Multidisciplinar",
    )
    builder = package.builder
    document = dataset.doc(file)
    contexts = _index(document["contextos_organizacao"])
    targets: dict[str, HabilidadeTarget] = {}

    def context(context_id: str, expected: str, code: str) -> Mapping[str, Any]:
        record = contexts.get(context_id)
        if record is None or record.get("tipo") != expected:
            raise ManifestBuildError(
                f"bncc {dataset.package_version}: habilidade {code} names {context_id!r}, "
                f"which is not a {expected!r} organisation context."
            )
        return record

    for record in document["habilidades"]:
        code = str(record["codigo"])
        component = structure.components[record["componente"]]
        subject = str(component["nome"])
        asserted = dataset.provenance(file, "habilidades", [code], field="organizacao")
        component_id = package.group(
            f"componente/{component['id']}",
            builder.root_id,
            description=subject,
            statement_type="Componente curricular",
            provenance=dataset.provenance("estrutura.json", "componentes_curriculares", str(component["id"])),
            edge_provenance=dataset.provenance(file, "habilidades", [code], field="componente"),
            academic_subject=subject,
        )
        organisation = record["organizacao"]
        kind = organisation.get("tipo")
        if kind == "unidade_tematica":
            chains = [[("ut", str(organisation["unidade_tematica"]))]]
        elif kind == "campo_pratica":
            chains = [
                [("catu", str(c)), ("prat", str(organisation["pratica_linguagem"]))]
                for c in organisation["campos_atuacao"]
            ]
        elif kind == "eixo":
            chains = [[("eixo", str(organisation["eixo"])), ("ut", str(organisation["unidade_tematica"]))]]
        else:
            raise ManifestBuildError(f"bncc {dataset.package_version}: habilidade {code} has organizacao {kind!r}.")
        objects = [str(o) for o in record["objetos_conhecimento"]]
        if not chains or not objects:
            raise ManifestBuildError(f"bncc {dataset.package_version}: habilidade {code} has no organisation context.")
        parents: list[str] = []
        for chain in chains:
            parent_id, key = component_id, f"componente/{component['id']}"
            for context_kind, context_id in chain:
                ctx = context(context_id, context_kind, code)
                key = f"{key}/{context_kind}/{context_id}"
                parent_id = package.group(
                    key,
                    parent_id,
                    description=str(ctx["nome"]),
                    statement_type=_EF_CONTEXT_TYPES[context_kind],
                    provenance=dataset.provenance(file, "contextos_organizacao", context_id, ctx.get("fonte")),
                    edge_provenance=asserted,
                    academic_subject=subject,
                )
            for object_id in objects:
                ctx = context(object_id, "oc", code)
                parents.append(
                    package.group(
                        f"{key}/oc/{object_id}",
                        parent_id,
                        description=str(ctx["nome"]),
                        statement_type=OBJECT_OF_KNOWLEDGE,
                        provenance=dataset.provenance(file, "contextos_organizacao", object_id, ctx.get("fonte")),
                        edge_provenance=dataset.provenance(
                            file, "habilidades", [code], field="organizacao+objetos_conhecimento"
                        ),
                        academic_subject=subject,
                    )
                )
        item_id = builder.add_item(
            f"habilidade/{code}",
            description=str(record["texto"]),
            statement_type=HABILIDADE,
            provenance=dataset.provenance(file, "habilidades", code, record.get("fonte")),
            grades=[package.grade(f"ef-ano-{int(year):02d}") for year in record["anos"]],
            statement_code=code,
            academic_subject=subject,
            is_current=_is_current(record),
            details={
                "bncc": _source_fields(record, "componente", "anos", "organizacao", "objetos_conhecimento", "vigencia")
            },
        )
        for parent_id in parents:
            package.child(
                parent_id, item_id, dataset.provenance(file, "habilidades", [code], field="objetos_conhecimento")
            )
        targets[code] = HabilidadeTarget(item_id=item_id, text=str(record["texto"]), academic_subject=subject)
    apply_mapa_de_foco(builder, mapa, targets, outside, verified_source=f"bncc {dataset.data_version}")
    return package.content(
        "ensino-fundamental",
        dataset.source_info(datasets=(mapa.source_dataset(),), checksums=mapa.upstream_checksums()),
    )


def build_ensino_medio(dataset: BnccDataset, structure: _Structure, profiles: ProfileRepository) -> PackageContent:
    """Area → specific competence → habilidade (LP habilidades may sit under several competences)."""
    file = "ensino-medio.json"
    package = _Package(
        dataset,
        structure,
        profiles,
        EM_FRAMEWORK,
        document=BASE_DOCUMENT,
        stage="EM",
        academic_subject="Multidisciplinar",
    )
    builder = package.builder
    document = dataset.doc(file)
    contexts = _index(document.get("contextos_organizacao", []))
    for record in document["habilidades"]:
        code = str(record["codigo"])
        if record.get("seriacao") is not None:
            raise ManifestBuildError(
                f"bncc {dataset.package_version}: {code} has a grade series; profile "
                f"{EM_FRAMEWORK}/{PROFILE_VERSION} declares Ensino Médio without series.",
                hint="Add grade labels for the series to the profile and map them here.",
            )
        grade = package.grade("em-sem-seriacao")
        area = structure.areas[record["area"]]
        component = structure.components.get(str(record.get("componente")))
        subject = str(component["nome"]) if component else str(area["nome"])
        parents = []
        for competence_id in record["competencias_especificas"]:
            competence = structure.competences[competence_id]
            competence_area = structure.areas[competence["area"]]
            area_id = package.group(
                f"area/{competence_area['id']}",
                builder.root_id,
                description=str(competence_area["nome"]),
                statement_type="Área do conhecimento",
                provenance=dataset.provenance("estrutura.json", "areas_conhecimento", str(competence_area["id"])),
                edge_provenance=dataset.provenance(
                    "estrutura.json", "competencias_especificas", [str(competence_id)], field="area"
                ),
                academic_subject=str(competence_area["nome"]),
            )
            parents.append(
                package.group(
                    f"area/{competence_area['id']}/competencia/{competence_id}",
                    area_id,
                    description=str(competence["texto"]),
                    statement_type="Competência específica",
                    provenance=dataset.provenance(
                        "estrutura.json",
                        "competencias_especificas",
                        str(competence_id),
                        competence.get("fonte"),
                        number=competence.get("numero"),
                    ),
                    edge_provenance=dataset.provenance(
                        "estrutura.json", "competencias_especificas", [str(competence_id)], field="area"
                    ),
                    academic_subject=str(competence_area["nome"]),
                )
            )
        fields = [
            {"id": str(c), "nome": str(contexts[c]["nome"])} if c in contexts else {"id": str(c)}
            for c in record.get("campos_atuacao_social") or []
        ]
        details = {"bncc": _source_fields(record, "area", "componente", "competencias_especificas", "vigencia")}
        if fields:
            details["bncc"]["camposAtuacaoSocial"] = fields
        item_id = builder.add_item(
            f"habilidade/{code}",
            description=str(record["texto"]),
            statement_type=HABILIDADE,
            provenance=dataset.provenance(file, "habilidades", code, record.get("fonte")),
            grades=[grade],
            statement_code=code,
            academic_subject=subject,
            is_current=_is_current(record),
            details=details,
        )
        for parent_id in parents:
            package.child(
                parent_id, item_id, dataset.provenance(file, "habilidades", [code], field="competencias_especificas")
            )
    return package.content("ensino-medio", dataset.source_info())


def build_computacao(dataset: BnccDataset, structure: _Structure, profiles: ProfileRepository) -> PackageContent:
    """Stage → axis → object of knowledge (two levels) → habilidade; EM: stage → competence → habilidade."""
    file = "computacao.json"
    package = _Package(
        dataset,
        structure,
        profiles,
        CO_FRAMEWORK,
        document=COMPUTING_DOCUMENT,
        stage=None,
        academic_subject="Computação",
    )
    builder = package.builder
    document = dataset.doc(file)
    axes = _index(document["eixos"])
    objects = _index(document["objetos_conhecimento"])
    competences = _index(document["competencias"])
    subject = "Computação"

    def stage(stage_id: str, code: str, collection: str) -> str:
        return package.group(
            f"etapa/{stage_id}",
            builder.root_id,
            description=str(structure.stages[stage_id]["nome"]),
            statement_type="Etapa",
            provenance=dataset.provenance("estrutura.json", "etapas", stage_id),
            edge_provenance=dataset.provenance(file, collection, [code], field="etapa"),
            academic_subject=subject,
        )

    def axis(stage_id: str, axis_id: str, code: str, collection: str) -> tuple[str, str]:
        key = f"etapa/{stage_id}/eixo/{axis_id}"
        uid = package.group(
            key,
            stage(stage_id, code, collection),
            description=str(axes[axis_id]["nome"]),
            statement_type="Eixo",
            provenance=dataset.provenance(file, "eixos", axis_id),
            edge_provenance=dataset.provenance(file, collection, [code], field="eixo"),
            academic_subject=subject,
        )
        return key, uid

    def add(collection: str, record: Mapping[str, Any], statement_type: str, grades: list[str], parent: str) -> None:
        code = str(record["codigo"])
        item_id = builder.add_item(
            f"{collection}/{code}",
            description=str(record["texto"]),
            statement_type=statement_type,
            provenance=dataset.provenance(file, collection, code, record.get("fonte")),
            grades=grades,
            statement_code=code,
            academic_subject=subject,
            is_current=_is_current(record),
            details={"bncc": {k: v for k, v in record.items() if k not in ("codigo", "texto", "documento", "fonte")}},
        )
        package.child(parent, item_id, dataset.provenance(file, collection, [code], field="hierarquia"))

    for record in document["objetivos_ei"]:
        code = str(record["codigo"])
        _, axis_id = axis("EI", str(record["eixo"]), code, "objetivos_ei")
        add("objetivos_ei", record, OBJECTIVE, [package.grade(str(record["grupo_etario"]))], axis_id)

    for record in document["habilidades_ef"]:
        code = str(record["codigo"])
        key, axis_id = axis("EF", str(record["eixo"]), code, "habilidades_ef")
        grades = [package.grade(f"ef-ano-{int(year):02d}") for year in record["anos"]]
        for object_id in record["objetos_conhecimento"]:
            chain = [str(object_id)]
            while (parent := objects[chain[0]].get("pai")) is not None:
                if parent in chain:
                    raise ManifestBuildError(f"bncc {dataset.package_version}: objetos_conhecimento cycle at {parent}.")
                chain.insert(0, str(parent))
            parent_id, path = axis_id, key
            for link_id in chain:
                path = f"{path}/oc/{link_id}"
                parent_id = package.group(
                    path,
                    parent_id,
                    description=str(objects[link_id]["nome"]),
                    statement_type=OBJECT_OF_KNOWLEDGE,
                    provenance=dataset.provenance(file, "objetos_conhecimento", link_id),
                    edge_provenance=dataset.provenance(
                        file, "habilidades_ef", [code], field="objetos_conhecimento+pai"
                    ),
                    academic_subject=subject,
                )
            add("habilidades_ef", record, HABILIDADE, grades, parent_id)

    for record in document["habilidades_em"]:
        code = str(record["codigo"])
        competence = competences[record["competencia"]]
        competence_id = package.group(
            f"etapa/EM/competencia/{competence['id']}",
            stage("EM", code, "habilidades_em"),
            description=str(competence["texto"]),
            statement_type="Competência específica",
            provenance=dataset.provenance(
                file, "competencias", str(competence["id"]), competence.get("fonte"), number=competence.get("numero")
            ),
            edge_provenance=dataset.provenance(file, "habilidades_em", [code], field="competencia"),
            academic_subject=subject,
        )
        add("habilidades_em", record, HABILIDADE, [package.grade("em-sem-seriacao")], competence_id)
    return package.content("computacao", dataset.source_info())


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


class BnccSource:
    """``--source bncc``: the installed ``bncc`` data (plus ``bncc-mcp``'s Mapa de Foco) → 4 packages."""

    name = "bncc"

    def build(
        self,
        source_input: Path | None,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """Read the installed data files and return EI, EF, EM and Computação package contents."""
        report = refuse_input("bncc", source_input, "the installed bncc and bncc-mcp packages", progress)
        report("reading bncc data files")
        dataset = BnccDataset.load()
        report("reading the Mapa de Foco layer (bncc-mcp)")
        mapa = MapaDeFocoData.load()
        try:
            structure = _Structure(dataset.doc("estrutura.json"))
            report(f"building {EI_FRAMEWORK}")
            contents = [build_educacao_infantil(dataset, structure, profiles)]
            report(f"building {EF_FRAMEWORK}")
            contents.append(build_ensino_fundamental(dataset, structure, profiles, mapa, _outside_codes(dataset)))
            report(f"building {EM_FRAMEWORK}")
            contents.append(build_ensino_medio(dataset, structure, profiles))
            report(f"building {CO_FRAMEWORK}")
            contents.append(build_computacao(dataset, structure, profiles))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ManifestBuildError(
                f"bncc {dataset.package_version} data ({dataset.data_version}) has an unexpected shape "
                f"({type(exc).__name__}: {exc}).",
                hint="Install the pinned version (bncc==0.5.1) or update the adapter for the new data shape.",
            ) from None
        return contents
