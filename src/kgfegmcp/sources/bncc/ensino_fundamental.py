"""The Ensino Fundamental package: habilidades under their components and organisation contexts.

It is the one BNCC package that also carries the Mapa de Foco layer, so it takes the other
packages' codes to tell evidence that points elsewhere from evidence that points nowhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.bncc.assembly import (
    BASE_DOCUMENT,
    EF_FRAMEWORK,
    HABILIDADE,
    OBJECT_OF_KNOWLEDGE,
    CurriculumStructure,
    PackageAssembly,
    index_records,
    is_current,
    source_fields,
)
from kgfegmcp.sources.bncc.dataset import BnccDataset
from kgfegmcp.sources.mapa_de_foco import HabilidadeTarget, MapaDeFocoData, apply_mapa_de_foco

#: EF organisation kinds: ``organizacao.tipo`` → the context levels above the objects of knowledge.
CONTEXT_TYPES = {
    "ut": "Unidade temática",
    "catu": "Campo de atuação",
    "prat": "Prática de linguagem",
    "eixo": "Eixo",
}


def build_ensino_fundamental(
    dataset: BnccDataset,
    structure: CurriculumStructure,
    profiles: ProfileRepository,
    mapa: MapaDeFocoData,
    outside: Mapping[str, str],
) -> PackageContent:
    """Component → thematic unit / field + practice / axis + unit → object of knowledge → habilidade.

    A habilidade is placed under every object of knowledge (and field) the source lists, so the
    hierarchy is a multi-parent DAG; grouping nodes get ids from their stable source keys.
    """
    file = "ensino-fundamental.json"
    package = PackageAssembly(
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
    contexts = index_records(document["contextos_organizacao"])
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
                    statement_type=CONTEXT_TYPES[context_kind],
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
            is_current=is_current(record),
            details={
                "bncc": source_fields(record, "componente", "anos", "organizacao", "objetos_conhecimento", "vigencia")
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
