"""The four BNCC packages against the bncc data files they were built from."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from package_view import PackageView, open_package
from raw_sources import bncc_json

from kgfegmcp.profiles.repository import ProfileRepository

EI = "brazil-bncc-educacao-infantil"
EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CO = "brazil-bncc-computacao"
BNCC = (EI, EF, EM, CO)


@pytest.fixture(scope="module")
def packages(default_catalog_root: Path) -> dict[str, PackageView]:
    return {framework: open_package(default_catalog_root, framework) for framework in BNCC}


def _source_records() -> dict[str, list[dict]]:
    computing = bncc_json("computacao.json")
    return {
        EI: bncc_json("educacao-infantil.json")["objetivos"],
        EF: bncc_json("ensino-fundamental.json")["habilidades"],
        EM: bncc_json("ensino-medio.json")["habilidades"],
        CO: computing["objetivos_ei"] + computing["habilidades_ef"] + computing["habilidades_em"],
    }


def _standards(view: PackageView, profiles: ProfileRepository) -> list:
    ref = view.manifest["profile"]
    profile = profiles.load(ref["profileId"], ref["version"]).profile
    return [i for i in view.items if profile.statement_type(i.statement_type).role == "standard"]


@pytest.mark.parametrize("framework", BNCC)
def test_standard_counts_equal_the_source(
    packages: dict[str, PackageView], framework: str, profiles_root: Path
) -> None:
    records = _source_records()[framework]
    standards = _standards(packages[framework], ProfileRepository(profiles_root))
    assert len(standards) == len(records)
    assert packages[framework].manifest["counts"]["standards"]["standards"] == len(records)
    assert {s.statement_code for s in standards} == {r["codigo"] for r in records}


def test_source_counts_are_the_documented_ones(packages: dict[str, PackageView]) -> None:
    records = _source_records()
    assert {k: len(v) for k, v in records.items()} == {EI: 93, EF: 1304, EM: 183, CO: 141}


@pytest.mark.parametrize("framework", BNCC)
def test_every_text_equals_the_source_byte_for_byte(packages: dict[str, PackageView], framework: str) -> None:
    by_code = packages[framework].item_by_code()
    for record in _source_records()[framework]:
        item = by_code[record["codigo"]]
        assert item.description.encode("utf-8") == record["texto"].encode("utf-8"), record["codigo"]


@pytest.mark.parametrize("framework", BNCC)
def test_every_entity_has_provenance_and_every_item_a_locator(packages: dict[str, PackageView], framework: str) -> None:
    view = packages[framework]
    data_version = bncc_json("VERSAO.json")["data_version"]
    entities = [
        view.framework.identifier,
        *(i.identifier for i in view.items),
        *(r.identifier for r in view.relationships),
    ]
    assert set(entities) <= set(view.provenance)
    for item in view.items:
        record = view.provenance[item.identifier]
        assert record["epistemicStatus"] == "source_asserted"
        assert record["locator"]["datasetFile"].startswith("bncc/dados/")
        assert record["dataset"]["dataVersion"] == data_version
    sources = {r["codigo"]: r for r in _source_records()[framework]}
    for code, item in view.item_by_code().items():
        locator = view.provenance[item.identifier]["locator"]
        fonte = sources[code]["fonte"]
        assert locator["recordKey"] == code
        assert locator["officialFile"] == fonte["arquivo"]
        assert locator["officialLocator"] == fonte["localizador"]
        assert locator.get("pdfLocator") == fonte.get("localizador_pdf")


def test_ensino_fundamental_keeps_every_object_of_knowledge_parent(packages: dict[str, PackageView]) -> None:
    view = packages[EF]
    source = bncc_json("ensino-fundamental.json")
    contexts = {c["id"]: c for c in source["contextos_organizacao"]}
    by_code = view.item_by_code()
    nodes = view.nodes
    multi = 0
    for record in source["habilidades"]:
        item = by_code[record["codigo"]]
        parents = [nodes[p] for p in view.parents(item.identifier)]
        fields = len(record["organizacao"].get("campos_atuacao", [None]))
        assert len(parents) == len(record["objetos_conhecimento"]) * fields
        assert all(p.statement_type == "Objeto de conhecimento" for p in parents)
        assert sorted(p.description for p in parents) == sorted(
            contexts[o]["nome"] for o in record["objetos_conhecimento"] for _ in range(fields)
        )
        multi += len(parents) > 1
    assert multi == sum(1 for r in source["habilidades"] if len(r["objetos_conhecimento"]) > 1) == 259


def test_ensino_fundamental_hierarchy_follows_the_organisation(packages: dict[str, PackageView]) -> None:
    view = packages[EF]
    nodes = view.nodes
    expected_paths = {
        "unidade_tematica": ["Componente curricular", "Unidade temática", "Objeto de conhecimento"],
        "campo_pratica": [
            "Componente curricular",
            "Campo de atuação",
            "Prática de linguagem",
            "Objeto de conhecimento",
        ],
        "eixo": ["Componente curricular", "Eixo", "Unidade temática", "Objeto de conhecimento"],
    }
    by_code = view.item_by_code()
    for record in bncc_json("ensino-fundamental.json")["habilidades"]:
        node = by_code[record["codigo"]]
        path = []
        current = view.parents(node.identifier)[0]
        while current != view.framework.identifier:
            path.insert(0, nodes[current].statement_type)
            current = view.parents(current)[0]
        assert path == expected_paths[record["organizacao"]["tipo"]], record["codigo"]


def test_grade_levels_come_from_the_source_years(packages: dict[str, PackageView]) -> None:
    by_code = packages[EF].item_by_code()
    spanning = 0
    for record in bncc_json("ensino-fundamental.json")["habilidades"]:
        grades = by_code[record["codigo"]].grade_level
        assert grades == tuple(f"{year}º ano" for year in record["anos"])
        spanning += len(grades) > 1
    assert spanning == 330
    ei = packages[EI].item_by_code()
    names = {g["id"]: g["nome"] for g in bncc_json("estrutura.json")["recortes_temporais"] if g["etapa"] == "EI"}
    for record in bncc_json("educacao-infantil.json")["objetivos"]:
        assert ei[record["codigo"]].grade_level == (names[record["grupo_etario"]],)
    assert {i.grade_level for i in packages[EM].item_by_code().values()} == {("Ensino Médio",)}


def test_educacao_infantil_alignment_chains(packages: dict[str, PackageView]) -> None:
    view = packages[EI]
    by_code = view.item_by_code()
    code_of = {i.identifier: c for c, i in by_code.items()}
    alignments = bncc_json("educacao-infantil.json")["alinhamentos"]
    expected = {(a, b): al for al in alignments for a, b in pairwise(al["objetivos"])}
    edges = view.edges("buildsTowards")
    assert len(alignments) == 32
    assert {(code_of[e.source_identifier], code_of[e.target_identifier]) for e in edges} == set(expected)
    assert len(edges) == len(expected) == 61
    for edge in edges:
        pair = (code_of[edge.source_identifier], code_of[edge.target_identifier])
        assert pair[0][:4] < pair[1][:4]  # EI01 → EI02 → EI03
        record = view.provenance[edge.identifier]
        assert record["alignmentNote"] == expected[pair]["nota"]
        assert record["alignmentId"] == expected[pair]["id"]
    assert view.manifest["capabilities"]["learningProgressions"] is True


def test_ensino_medio_competence_parents(packages: dict[str, PackageView]) -> None:
    view = packages[EM]
    nodes = view.nodes
    competences = {c["id"]: c for c in bncc_json("estrutura.json")["competencias_especificas"]}
    by_code = view.item_by_code()
    for record in bncc_json("ensino-medio.json")["habilidades"]:
        parents = [nodes[p] for p in view.parents(by_code[record["codigo"]].identifier)]
        assert sorted(p.description for p in parents) == sorted(
            competences[c]["texto"] for c in record["competencias_especificas"]
        )
        for parent in parents:
            (area,) = view.parents(parent.identifier)
            assert nodes[area].statement_type == "Área do conhecimento"


def test_computacao_axes_objects_and_competences(packages: dict[str, PackageView]) -> None:
    view = packages[CO]
    nodes = view.nodes
    data = bncc_json("computacao.json")
    objects = {o["id"]: o for o in data["objetos_conhecimento"]}
    axes = {a["id"]: a["nome"] for a in data["eixos"]}
    by_code = view.item_by_code()

    def ancestors(item_id: str) -> list[str]:
        chain = []
        current = view.parents(item_id)[0]
        while current != view.framework.identifier:
            chain.insert(0, nodes[current].description)
            current = view.parents(current)[0]
        return chain

    for record in data["habilidades_ef"]:
        (object_id,) = record["objetos_conhecimento"]
        names = [objects[object_id]["nome"]]
        if objects[object_id]["pai"]:
            names.insert(0, objects[objects[object_id]["pai"]]["nome"])
        assert ancestors(by_code[record["codigo"]].identifier) == ["Ensino Fundamental", axes[record["eixo"]], *names]
    for record in data["objetivos_ei"]:
        assert ancestors(by_code[record["codigo"]].identifier) == ["Educação Infantil", axes[record["eixo"]]]
    competences = {c["id"]: c["texto"] for c in data["competencias"]}
    for record in data["habilidades_em"]:
        assert ancestors(by_code[record["codigo"]].identifier) == ["Ensino Médio", competences[record["competencia"]]]


@pytest.mark.parametrize("framework", BNCC)
def test_manifest_source_rights_and_snapshot(
    packages: dict[str, PackageView], framework: str, profiles_root: Path
) -> None:
    view = packages[framework]
    versao = bncc_json("VERSAO.json")
    manifest = view.manifest
    assert manifest["snapshotId"] == "dados-2026-07-1"
    assert manifest["source"]["version"] == versao["data_version"]
    published = {c["file"]: c["value"] for c in manifest["source"]["upstreamChecksums"]}
    assert {k: published[k] for k in versao["checksums_sha256"]} == versao["checksums_sha256"]
    profile = ProfileRepository(profiles_root).load(framework, "2.1").profile
    assert manifest["rights"] == profile.default_rights.to_wire()
    assert manifest["rights"]["reviewStatus"] == "provisional_operator_approved"
    assert manifest["rights"]["allowBulkResource"] is False
    datasets = [d["name"] for d in manifest["source"]["datasets"]]
    assert datasets == (["bncc", "bncc-mcp"] if framework == EF else ["bncc"])
    assert manifest["capabilities"]["exactCodeSearch"] and manifest["capabilities"]["prefixCodeSearch"]
    if framework == EF:
        assert "Instituto Reúna" in manifest["rights"]["attributionStatement"]
        assert "bncc.dev" in manifest["rights"]["attributionStatement"]


def test_edge_provenance_names_only_habilidades_below_the_edge(packages: dict[str, PackageView]) -> None:
    view = packages[EF]
    children: dict[str, list[str]] = {}
    for rel in view.edges("hasChild"):
        children.setdefault(rel.source_identifier, []).append(rel.target_identifier)
    nodes = view.nodes

    def codes_below(node_id: str) -> set[str]:
        code = nodes[node_id].statement_code
        found = {code} if code else set()
        for child in children.get(node_id, []):
            found |= codes_below(child)
        return found

    for rel in view.edges("hasChild"):
        keys = view.provenance[rel.identifier]["locator"]["recordKeys"]
        assert keys and set(keys) <= codes_below(rel.target_identifier), rel.identifier
