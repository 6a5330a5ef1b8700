"""The Ensino Médio package: habilidades under areas and their specific competences.

The source lists Ensino Médio without grade series; a series in the data is refused rather than
guessed, since the profile declares none.
"""

from __future__ import annotations

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.bncc.assembly import (
    BASE_DOCUMENT,
    EM_FRAMEWORK,
    HABILIDADE,
    PROFILE_VERSIONS,
    CurriculumStructure,
    PackageAssembly,
    index_records,
    is_current,
    source_fields,
)
from kgfegmcp.sources.bncc.dataset import BnccDataset


def build_ensino_medio(
    dataset: BnccDataset, structure: CurriculumStructure, profiles: ProfileRepository
) -> PackageContent:
    """Area → specific competence → habilidade (LP habilidades may sit under several competences)."""
    file = "ensino-medio.json"
    package = PackageAssembly(
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
    contexts = index_records(document.get("contextos_organizacao", []))
    for record in document["habilidades"]:
        code = str(record["codigo"])
        if record.get("seriacao") is not None:
            raise ManifestBuildError(
                f"bncc {dataset.package_version}: {code} has a grade series; profile "
                f"{EM_FRAMEWORK}/{PROFILE_VERSIONS[EM_FRAMEWORK]} declares Ensino Médio without series.",
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
        details = {"bncc": source_fields(record, "area", "componente", "competencias_especificas", "vigencia")}
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
            is_current=is_current(record),
            details=details,
        )
        for parent_id in parents:
            package.child(
                parent_id, item_id, dataset.provenance(file, "habilidades", [code], field="competencias_especificas")
            )
    return package.content("ensino-medio", dataset.source_info())
