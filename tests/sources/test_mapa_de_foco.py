"""The Mapa de Foco layer of the EF package, against counts computed here from the CSV itself."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from package_view import PackageView, open_package
from raw_sources import bncc_json, mapa_rows

from kgfegmcp.packages.artifact_roles import COMPONENT_ARTIFACTS
from kgfegmcp.packages.lc_artifacts import GenerationSummary, normalized_text
from kgfegmcp.sources.mapa_de_foco import describe_difference, extract_codes, split_objectives

EF = "brazil-bncc-ensino-fundamental"
EI = "brazil-bncc-educacao-infantil"
# Written independently of the importer: a code-shaped token, typos included.
TOKEN = re.compile(r"\bE[A-Z]+\d\d[A-Z]+\d+\b")


@pytest.fixture(scope="module")
def view(default_catalog_root: Path) -> PackageView:
    return open_package(default_catalog_root, EF)


def _focus_rows() -> list[dict[str, str]]:
    return [r for r in mapa_rows() if r["em_foco"].strip().lower() == "sim"]


def _objectives(cell: str) -> list[str]:
    if "•" in cell:
        return [p for p in (part.strip() for part in cell.split("•")) if p]
    return [p for p in (part.strip() for part in re.split(r"(?:^|\s)- ", cell)) if p]


def _expected_links() -> tuple[set[tuple[str, str]], set[tuple[str, str]], set[tuple[str, str, str]]]:
    ef_codes = {h["codigo"] for h in bncc_json("ensino-fundamental.json")["habilidades"]}
    builds, relates, unresolved = set(), set(), set()
    for row in _focus_rows():
        code = row["código"]
        for column, bucket, forward in (
            ("mf_conhecimento_previo", builds, False),
            ("mf_habilidades_relacionadas", relates, True),
        ):
            for other in TOKEN.findall(row[column]):
                if other == code:
                    continue
                if other in ef_codes:
                    bucket.add((code, other) if forward else (other, code))
                else:
                    unresolved.add((code, column, other))
    return builds, relates, unresolved


def test_one_component_per_listed_objective(view: PackageView) -> None:
    expected = sum(len(_objectives(r["mf_objetivos"])) for r in _focus_rows())
    assert len(view.components) == expected == view.manifest["counts"]["learningComponents"]["components"]
    assert len(_focus_rows()) == 396
    supports = view.edges("supports")
    assert len(supports) == len(view.components)
    assert {s.source_identifier for s in supports} == {c.identifier for c in view.components}
    assert {s.support_confidence for s in supports} == {1.0}
    for component in view.components:
        record = view.component_provenance[component.identifier]
        assert record["curator"] == "Instituto Reúna"
        assert record["locator"]["column"] == "mf_objetivos"
        assert component.provider.startswith("Instituto Reúna")
        assert "Instituto Reúna" in component.license


def test_component_provenance_is_its_own_collection(view: PackageView) -> None:
    components = {c.identifier for c in view.components}
    assert set(view.component_provenance) == components
    assert not components & set(view.provenance)
    assert view.lc_documents.keys() == set(COMPONENT_ARTIFACTS)


def test_generation_summary_says_curated_by_reuna_from_a_named_version(view: PackageView) -> None:
    summary = GenerationSummary.model_validate(view.lc_documents["lcGenerationSummary"], strict=False)
    assert summary.production == "curated" and summary.generator is None
    assert summary.curator == "Instituto Reúna"
    datasets = {d["name"]: d["version"] for d in view.manifest["source"]["datasets"]}
    assert datasets[summary.source.name] == summary.source.version
    assert summary.counts.components == len(view.components)
    assert summary.counts.supports == sum(1 for r in view.relationships if r.label == "supports")


def test_dedup_groups_are_the_normalised_identical_objectives(view: PackageView) -> None:
    by_text: dict[str, set[str]] = {}
    for component in view.components:
        by_text.setdefault(normalized_text(component.description), set()).add(component.identifier)
    expected = {frozenset(ids) for ids in by_text.values() if len(ids) > 1}
    groups = view.lc_documents["lcDedupGroups"]["groups"]
    assert {frozenset(g["componentIdentifiers"]) for g in groups} == expected
    assert expected, "the Mapa de Foco repeats some objectives across habilidades"


def test_components_support_their_own_habilidade(view: PackageView) -> None:
    by_code = view.item_by_code()
    code_of = {i.identifier: c for c, i in by_code.items()}
    supported = Counter(code_of[s.target_identifier] for s in view.edges("supports"))
    assert supported == Counter({r["código"]: len(_objectives(r["mf_objetivos"])) for r in _focus_rows()})


def test_progression_links_and_unresolved_equal_what_the_csv_yields(view: PackageView) -> None:
    builds, relates, unresolved = _expected_links()
    code_of = {i.identifier: c for c, i in view.item_by_code().items()}
    found_builds = {(code_of[e.source_identifier], code_of[e.target_identifier]) for e in view.edges("buildsTowards")}
    found_relates = {(code_of[e.source_identifier], code_of[e.target_identifier]) for e in view.edges("relatesTo")}
    assert found_builds == builds
    assert found_relates == relates
    assert len(view.edges("buildsTowards")) == len(builds)
    assert len(view.edges("relatesTo")) == len(relates)
    found_unresolved = {(code_of[u["sourceEntityId"]], u["locator"]["column"], u["reference"]) for u in view.unresolved}
    assert found_unresolved == unresolved
    assert len(view.unresolved) == len(unresolved) == view.manifest["counts"]["unresolvedItems"]
    for edge in [*view.edges("buildsTowards"), *view.edges("relatesTo")]:
        record = view.provenance[edge.identifier]
        assert record["epistemicStatus"] == "source_extracted"
        assert record["extractedCode"] in record["sourceText"]


def test_outside_references_are_kept_with_their_source_text(view: PackageView) -> None:
    rows = {r["código"]: r for r in _focus_rows()}
    ei_codes = {o["codigo"] for o in bncc_json("educacao-infantil.json")["objetivos"]}
    code_of = {i.identifier: c for c, i in view.item_by_code().items()}
    statuses = Counter()
    for entry in view.unresolved:
        code = code_of[entry["sourceEntityId"]]
        assert entry["sourceText"] == rows[code][entry["locator"]["column"]]
        assert entry["reference"] in entry["sourceText"]
        if entry["reference"] in ei_codes:
            assert entry["status"] == "unresolvedExternalReference"
            assert entry["targetFrameworkId"] == EI
        else:
            assert entry["status"] == "unresolvedMissingTarget"
        statuses[entry["status"]] += 1
    # 21 EI03 references, and the source typos EF13LP03, EFMA01MA04/05 and EM08MA18 (twice).
    assert statuses == Counter({"unresolvedExternalReference": 21, "unresolvedMissingTarget": 5})


def test_text_differences_are_findings_and_bncc_wins(view: PackageView) -> None:
    bncc = {h["codigo"]: h["texto"] for h in bncc_json("ensino-fundamental.json")["habilidades"]}
    differing = {r["código"] for r in mapa_rows() if r["código"] in bncc and r["habilidade"] != bncc[r["código"]]}
    findings = [f for f in view.report["findings"] if f["code"] == "source_text_difference"]
    assert {f["location"] for f in findings} == differing
    assert len(findings) == len(differing) == 25
    assert all(f["severity"] == "warning" and f["stage"] == "build" for f in findings)
    by_code = view.item_by_code()
    for code in differing:
        assert by_code[code].description == bncc[code]
    # The report is public metadata: it describes differences without quoting curriculum text.
    for finding in findings:
        assert bncc[finding["location"]][:40] not in finding["message"]


def test_self_references_are_reported_not_linked(view: PackageView) -> None:
    selfs = {r["código"] for r in _focus_rows() if r["código"] in TOKEN.findall(r["mf_habilidades_relacionadas"])}
    gaps = {f["location"] for f in view.report["findings"] if f["code"] == "source_mapping_gap"}
    assert selfs and selfs <= gaps


def test_prioritised_habilidades_carry_their_mapa_details(view: PackageView) -> None:
    by_code = view.item_by_code()
    for row in _focus_rows():
        details = view.details[by_code[row["código"]].identifier]["sourceDetails"]["mapaDeFoco"]
        assert details["classification"] == row["mf_classificacao"].strip()
        assert details["curator"] == "Instituto Reúna"


def test_parsers_on_source_shapes() -> None:
    assert split_objectives("• Um.\n• Dois\ncom quebra.\n• Três") == ["Um.", "Dois\ncom quebra.", "Três"]
    assert split_objectives("- Identificar fatos. - Reconhecer e defende-la.") == [
        "Identificar fatos.",
        "Reconhecer e defende-la.",
    ]
    assert split_objectives("   ") == []
    mentions = extract_codes("AC:\nEF01GE03: pode ser.\nAF:\nEF01HI02: amplia; EF01GE03")
    assert [(m.code, m.label, m.line) for m in mentions] == [
        ("EF01GE03", "AC", "EF01GE03: pode ser."),
        ("EF01HI02", "AF", "EF01HI02: amplia; EF01GE03"),
    ]
    assert [m.code for m in extract_codes("EFMA01MA04 e EM08MA18, EI03ET01")] == ["EFMA01MA04", "EM08MA18", "EI03ET01"]
    assert "whitespace only" in describe_difference("a b", "a  b")
    assert "ligatures" in describe_difference("exemplificação", "exempliﬁcação")
