"""The Educação Infantil package: objectives under fields of experience and age groups.

Reviewed age-group alignments in the source become ``buildsTowards`` chains in age order.
"""

from __future__ import annotations

from itertools import pairwise

from kgfegmcp.packages.records import BUILDS_TOWARDS
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.bncc.assembly import (
    BASE_DOCUMENT,
    EI_FRAMEWORK,
    OBJECTIVE,
    CurriculumStructure,
    PackageAssembly,
    is_current,
    source_fields,
)
from kgfegmcp.sources.bncc.dataset import BnccDataset


def build_educacao_infantil(
    dataset: BnccDataset, structure: CurriculumStructure, profiles: ProfileRepository
) -> PackageContent:
    """Fields of experience → field and age group → objectives; reviewed alignments → buildsTowards."""
    file = "educacao-infantil.json"
    package = PackageAssembly(
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
            is_current=is_current(record),
            details={"bncc": source_fields(record, "campo_experiencias", "grupo_etario", "alinhamento", "vigencia")},
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
