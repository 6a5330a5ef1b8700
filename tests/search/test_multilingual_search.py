"""search_standards over packages in Japanese, Chinese, Korean, Hindi and Arabic: a word inside a statement finds it.

One validated package per language (its profile declares ``inLanguage``), statements written by the test
suite. The service is called directly and through the real MCP client, as hosts call it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import HAS_CHILD, FrameworkNode, ItemNode
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.services.requests import SearchStandardsRequest
from kgfegmcp.services.standards import SearchStandardsResult
from package_factory import FixtureGraph, FixtureWorld, state_for
from served_apps import SERVED
from tool_calls import call, structured, texts

#: framework id → (language, domain name, {code: statement}).
STATEMENTS: dict[str, tuple[str, str, dict[str, str]]] = {
    "fixture-ja": (
        "ja",
        "数と計算",
        {
            "JA.1": "分数の意味を理解し、図を用いて説明できる。",
            "JA.2": "モデルを使って、かけ算の問題を解く。",
        },
    ),
    "fixture-zh": (
        "zh-Hans",
        "数与运算",
        {"ZH.1": "理解分数的意义并能用图表说明", "ZH.2": "用模型解决简单的乘法问题"},
    ),
    "fixture-ko": (
        "ko",
        "수와 연산",
        {"KO.1": "분수의 의미를 이해하고 모델로 설명한다.", "KO.2": "두 자리 수의 크기를 비교한다."},
    ),
    "fixture-hi": (
        "hi",
        "संख्या और संक्रियाएँ",
        {"HI.1": "भिन्नों का अर्थ समझना और चित्र से समझाना।", "HI.2": "दो अंकों की संख्याओं की तुलना करना।"},
    ),
    "fixture-ar": (
        "ar",
        "الرياضيات",
        {"AR.1": "فهم معنى الكسور وشرحها بالرسم.", "AR.2": "مُقَارَنَةُ الأَعْدَادِ المُكَوَّنَةِ مِنْ رَقْمَيْنِ."},
    ),
}
#: Japanese grade names, so a grade written in Japanese is read from the query like any other.
JAPANESE_GRADES = [
    {"sourceLabel": "1", "facet": "grade-1", "display": "小学1年", "order": 1},
    {"sourceLabel": "2", "facet": "grade-2", "display": "小学2年", "order": 2},
]


def graph(framework_id: str) -> FixtureGraph:
    """Framework → one domain → its standards, every record in the package's language."""
    language, domain_name, statements = STATEMENTS[framework_id]
    root = stable_uuid(framework_id, "framework")
    framework = FrameworkNode(root, root, f"Fixture {language}", "Fixture Land", "Mathematics", language)

    def item(key: str, statement_type: str, text: str, grade: str, code: str | None) -> ItemNode:
        uid = stable_uuid(framework_id, "item", key)
        return ItemNode(uid, uid, text, statement_type, (grade,), True, language, statement_code=code)

    domain = item("domain", "Domain", domain_name, "1", None)
    standards = [item(code, "Standard", text, str(n), code) for n, (code, text) in enumerate(statements.items(), 1)]
    built = FixtureGraph(framework_id, framework, [domain, *standards], [], [], [])
    built.link(HAS_CHILD, root, domain.identifier)
    for standard in standards:
        built.link(HAS_CHILD, domain.identifier, standard.identifier)
    return built


def multilingual_world(base: Path) -> FixtureWorld:
    world = FixtureWorld(base)
    for framework_id, (language, _, _) in STATEMENTS.items():
        grades = {"gradeLabels": JAPANESE_GRADES} if language == "ja" else {}
        world.add_profile(framework_id, inLanguage=language, **grades)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for framework_id in STATEMENTS:
        outcome = lifecycle.validate(world.write(graph(framework_id)))
        assert outcome.result == "passed", [f.code for f in outcome.outcome.findings]
    return world


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> AppState:
    return state_for(multilingual_world(tmp_path_factory.mktemp("multilingual")))


def search(state: AppState, query: str, framework_id: str) -> SearchStandardsResult:
    request = SearchStandardsRequest.model_validate({"query": query, "frameworkIds": [framework_id]})
    return state.standards.search_standards(request)


def codes(result: SearchStandardsResult) -> list[str | None]:
    return [hit.statement_code for hit in result.hits]


@pytest.mark.parametrize(
    ("framework_id", "word", "code"),
    [
        ("fixture-ja", "できる", "JA.1"),
        ("fixture-ja", "分数", "JA.1"),
        ("fixture-ja", "図を用いて", "JA.1"),
        ("fixture-ja", "モデル", "JA.2"),
        ("fixture-ja", "ﾓﾃﾞﾙ", "JA.2"),  # half-width katakana is the same word
        ("fixture-zh", "分数", "ZH.1"),
        ("fixture-zh", "图表", "ZH.1"),
        ("fixture-zh", "模型", "ZH.2"),
        ("fixture-ko", "모델", "KO.1"),
        ("fixture-ko", "분수", "KO.1"),
        ("fixture-ko", "비교", "KO.2"),
        ("fixture-hi", "अर्थ", "HI.1"),
        ("fixture-hi", "भिन्नों", "HI.1"),
        ("fixture-hi", "तुलना", "HI.2"),
        ("fixture-ar", "الكسور", "AR.1"),
        ("fixture-ar", "معنى", "AR.1"),
        ("fixture-ar", "الأعداد", "AR.2"),  # unvowelled, the statement vowelled
    ],
)
def test_a_word_inside_a_statement_finds_it(state: AppState, framework_id: str, word: str, code: str) -> None:
    result = search(state, word, framework_id)
    assert codes(result) == [code] and result.total == 1
    hit = result.hits[0]
    assert hit.match_type is None and hit.coverage in ("phrase", "all_terms")
    (reading,) = result.interpretation
    assert not reading.unknown_terms and not reading.dropped_words


def test_voiced_kana_are_other_letters(state: AppState) -> None:
    """モテル (unvoiced) is not モデル: folding that stripped voicing marks made it find JA.2."""
    result = search(state, "モテル", "fixture-ja")
    assert result.total == 0 and result.hits == []
    (reading,) = result.interpretation
    assert reading.searched_terms == ["モテ", "テル"] and reading.unknown_terms == ["モテ", "テル"]
    unvoiced = search(state, "てきる", "fixture-ja")  # its pair きる is in できる, てき nowhere
    assert unvoiced.matched.all_terms == 0 and unvoiced.interpretation[0].unknown_terms == ["てき"]


def test_a_cjk_word_is_searched_as_its_pairs_and_the_reading_says_so(state: AppState) -> None:
    result = search(state, "できる", "fixture-ja")
    (reading,) = result.interpretation
    assert reading.searched_terms == ["でき", "きる"]
    assert reading.analysis == (
        "folded, CJK as overlapping character pairs; no dictionary for language 'ja': words are matched as written"
    )
    assert result.hits[0].coverage == "phrase"


@pytest.mark.parametrize(("framework_id", "word"), [("fixture-hi", "अर्थ"), ("fixture-ar", "الكسور")])
def test_a_language_without_a_stemmer_is_reported(state: AppState, framework_id: str, word: str) -> None:
    (reading,) = search(state, word, framework_id).interpretation
    language = STATEMENTS[framework_id][0]
    assert reading.analysis == f"folded; no dictionary for language {language!r}: words are matched as written"
    assert reading.searched_terms == [word]


def test_a_grade_written_in_japanese_is_read_from_the_query(state: AppState) -> None:
    result = search(state, "分数 小学1年", "fixture-ja")
    (reading,) = result.interpretation
    assert reading.grades == ["1"] and reading.grades_as == "preference" and reading.searched_terms == ["分数"]
    assert codes(result) == ["JA.1"]


def test_one_query_across_languages_reads_once_per_language(state: AppState) -> None:
    request = SearchStandardsRequest.model_validate({"query": "分数", "limit": 10})
    result = state.standards.search_standards(request)
    assert sorted(code for code in codes(result) if code) == ["JA.1", "ZH.1"]
    analyses = {reading.analysis for reading in result.interpretation}
    assert len(analyses) == len(result.interpretation) == len(STATEMENTS)


async def test_the_mcp_client_finds_words_in_every_script(state: AppState) -> None:
    async with SERVED.client(state) as client:
        for framework_id, word, code in (
            ("fixture-ja", "モデル", "JA.2"),
            ("fixture-ko", "모델", "KO.1"),
            ("fixture-hi", "अर्थ", "HI.1"),
            ("fixture-ar", "الكسور", "AR.1"),
        ):
            result = await call(client, "search_standards", {"query": word, "frameworkIds": [framework_id]})
            body: dict[str, Any] = structured(result)
            assert [hit["statementCode"] for hit in body["hits"]] == [code]
            assert "no dictionary for language" in body["interpretation"][0]["analysis"]
            assert STATEMENTS[framework_id][2][code] in "\n".join(texts(result))
        missing = structured(
            await call(client, "search_standards", {"query": "モテル", "frameworkIds": ["fixture-ja"]})
        )
        assert missing["total"] == 0 and missing["interpretation"][0]["unknownTerms"] == ["モテ", "テル"]
