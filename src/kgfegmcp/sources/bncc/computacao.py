"""The Computação package (BNCC Computação, 2022) across all three stages.

Its objects of knowledge nest through ``pai`` links, so the chain above each habilidade is walked
to its top, refusing a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.bncc.assembly import (
    CO_FRAMEWORK,
    COMPUTING_DOCUMENT,
    HABILIDADE,
    OBJECT_OF_KNOWLEDGE,
    OBJECTIVE,
    CurriculumStructure,
    PackageAssembly,
    index_records,
    is_current,
)
from kgfegmcp.sources.bncc.dataset import BnccDataset


def build_computacao(
    dataset: BnccDataset, structure: CurriculumStructure, profiles: ProfileRepository
) -> PackageContent:
    """Stage → axis → object of knowledge (two levels) → habilidade; EM: stage → competence → habilidade."""
    file = "computacao.json"
    package = PackageAssembly(
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
    axes = index_records(document["eixos"])
    objects = index_records(document["objetos_conhecimento"])
    competences = index_records(document["competencias"])
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
            is_current=is_current(record),
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
