"""NaCCA's published PDFs (../shared/data/ghana-nacca-2019/, never committed) built, validated and served.

The statements are checked against a second reader: PDFium's own text of each page (pypdfium2, which
pdfplumber ships with), in the document's content order, which reads each table cell whole. A statement
whose words were taken from the wrong column, the wrong page or in the wrong order is not found there.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pypdfium2
import pytest
from curriculum_pdf_support import operator_rights_beside, record_reviews
from fastmcp import Client

from checkout import REPOSITORY_ROOT
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import SHIPPED_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageBatch, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.document import CurriculumPdf
from kgfegmcp.sources.curriculum_pdf.importer import NaccaPdfSource
from kgfegmcp.sources.curriculum_pdf.layout import load_layout
from kgfegmcp.sources.curriculum_pdf.mapping import CurriculumPdfMapping
from tool_calls import call, structured, texts

DATA = REPOSITORY_ROOT.parent / "shared" / "data" / "ghana-nacca-2019"
PDFS = sorted(DATA.glob("*.pdf")) if DATA.is_dir() else []
ENGLISH = "ENGLISH-LOWER-PRIMARY-B1-B3.pdf"
ENGLISH_ID = "ghana-nacca-primary-english-language-basic-1-3"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PDFS, reason=f"NaCCA's PDFs are not here ({DATA} is absent); they are never committed"),
]


@pytest.fixture(scope="module")
def read_pdfs() -> dict[str, CurriculumPdf]:
    """Each PDF read once through the shipped layout."""
    layout = load_layout("nacca-2019")
    return {path.name: CurriculumPdf.read(path, layout) for path in PDFS}


@pytest.fixture(scope="module")
def page_texts() -> dict[str, list[str]]:
    """PDFium's text of every page, whitespace removed (the second reader)."""
    found = {}
    for path in PDFS:
        document = pypdfium2.PdfDocument(str(path))
        try:
            found[path.name] = [_squeezed(page.get_textpage().get_text_range()) for page in document]
        finally:
            document.close()
    return found


def _squeezed(text: str) -> str:
    """Text without whitespace or bullet glyphs: how two readers' line breaks and spacing are set aside.

    PDFium writes a hyphen that ends a line as U+FFFE (or U+0002); it is the printed hyphen.
    """
    return re.sub(r"[\s\uf0b7•]+", "", text).replace("\ufffe", "-").replace("\x02", "-")


def test_english_counts_are_the_documents_own(read_pdfs: dict[str, CurriculumPdf]) -> None:
    pdf = read_pdfs[ENGLISH]
    assert pdf.framework_id == ENGLISH_ID
    assert pdf.snapshot_id == f"2019-{pdf.sha256[:12]}"
    standards, indicators = pdf.document.content_standards(), pdf.document.indicators()
    assert len({s.code for s in standards}) == len(standards) == 102
    assert len(indicators) == 217
    assert Counter(i.grade for i in indicators) == {"Basic 1": 72, "Basic 2": 67, "Basic 3": 78}


def test_every_code_is_on_its_first_page(read_pdfs: dict[str, CurriculumPdf], page_texts: dict[str, list[str]]) -> None:
    for name, pdf in read_pdfs.items():
        for statement in pdf.document.statements:
            page = page_texts[name][statement.pages[0] - 1]
            assert _squeezed(statement.printed_code) in page, (name, statement.code, statement.pages)


def test_forty_statements_are_their_pages_text(
    read_pdfs: dict[str, CurriculumPdf], page_texts: dict[str, list[str]]
) -> None:
    population = [(name, s) for name, pdf in sorted(read_pdfs.items()) for s in pdf.document.statements]
    sample = random.Random(40).sample(population, 40)
    for name, statement in sample:
        pages = "".join(page_texts[name][p - 1] for p in statement.pages)
        assert statement.text, (name, statement.key)
        assert _squeezed(statement.text) in pages, (name, statement.key, statement.pages, statement.text)
        # Exemplars may hold equations, which PDFium reads in another order: each of their words is on the pages.
        for exemplar in statement.exemplars:
            for word in exemplar.removeprefix("• ").split():
                assert _squeezed(word) in pages, (name, statement.key, word, exemplar)


def test_no_page_furniture_inside_statements(read_pdfs: dict[str, CurriculumPdf]) -> None:
    for name, pdf in read_pdfs.items():
        for statement in pdf.document.statements:
            for text in (statement.text, *statement.exemplars):
                assert "NaCCA, Ministry" not in text, (name, statement.key, text)
                assert "©" not in text, (name, statement.key, text)


@pytest.fixture(scope="module")
def served_root(tmp_path_factory: pytest.TempPathFactory, read_pdfs: dict[str, CurriculumPdf]) -> Path:
    """The four packages built, written and validated, and the operator's approval of each recorded beside the
    root, as `packages build --review-status provisional_operator_approved` does it."""
    root = tmp_path_factory.mktemp("nacca-packages")
    profiles = ProfileRepository(SHIPPED_DIR / "profiles")
    with PackageBatch(root) as batch:
        locations = [batch.write(CurriculumPdfMapping(pdf, profiles).run()) for _name, pdf in sorted(read_pdfs.items())]
    lifecycle = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in locations:
        outcome = lifecycle.validate(location)
        errors = sorted({f.code for f in outcome.outcome.findings if f.severity == "error"})
        assert outcome.result == "passed", (location.graph_package_id, errors)
    ids = [location.graph_package_id for location in locations]
    record_reviews(operator_rights_beside(root), ids, "provisional_operator_approved")
    return root


def test_the_importer_builds_each_pdf_unchanged(served_root: Path) -> None:
    """The same bytes through the registered source (``--source nacca-pdf``) as through the fixture."""
    profiles = ProfileRepository(SHIPPED_DIR / "profiles")
    (content,) = NaccaPdfSource().build(DATA / ENGLISH, profiles)
    assert content.framework_id == ENGLISH_ID
    assert sum(1 for i in content.items if i.statement_type == "Indicator") == 217


async def _client_call(root: Path, tmp: Path, tool: str, request: dict[str, Any]) -> Any:
    rights = operator_rights_beside(root)
    state = build_app_state(
        load_settings({"graph_packages_dir": root, "cache_dir": tmp, "operator_rights_file": rights})
    )
    async with Client(create_app(state)) as client:
        return await call(client, tool, request)


@pytest.fixture(scope="module")
def state(served_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    cache, rights = tmp_path_factory.mktemp("nacca-cache"), operator_rights_beside(served_root)
    return build_app_state(
        load_settings({"graph_packages_dir": served_root, "cache_dir": cache, "operator_rights_file": rights})
    )


async def test_served_by_code_text_context_and_statistics(state: Any) -> None:
    async with Client(create_app(state)) as client:
        exact = structured(
            await call(client, "get_standard", {"frameworkId": ENGLISH_ID, "statementCode": "B1.1.1.1.1"})
        )
        assert exact["standard"]["statementType"] == "Indicator"
        assert exact["standard"]["description"] == "Listen to and sing familiar songs with appropriate expressions"
        assert exact["standard"]["notes"].startswith("• Let learners identify some familiar songs.")
        prefix = structured(
            await call(
                client,
                "search_standards",
                {"frameworkIds": [ENGLISH_ID], "query": "B1.1.1", "searchMode": "code", "codeMatch": "prefix"},
            )
        )
        codes = [r["statementCode"] for r in prefix["hits"]]
        assert "B1.1.1.1" in codes and all(c.startswith("B1.1.1") for c in codes)
        text = structured(
            await call(client, "search_standards", {"frameworkIds": [ENGLISH_ID], "query": "tongue-twisters"})
        )
        assert text["hits"], "no text hit for 'tongue-twisters'"
        node = exact["standard"]["nodeId"]
        context = structured(await call(client, "get_standard_context", {"frameworkId": ENGLISH_ID, "nodeId": node}))
        assert [p["statementType"] for p in context["parents"]] == ["Content Standard"]
        assert [a.get("statementType", a.get("kind")) for a in context["ancestors"]] == [
            "Sub-Strand",
            "Strand",
            "framework",
        ], context["ancestors"]
        assert len(context["rootPaths"][0]["nodeIds"]) == 5
        stats = structured(await call(client, "get_framework_statistics", {"frameworkId": ENGLISH_ID}))
        as_text = str(stats)
        assert "Content Standard" in as_text and "Indicator" in as_text and "Basic 3" in as_text
        # Both host views: the text block alone carries the statement and its package's attribution.
        (first, *_rest) = texts(
            await call(client, "get_standard", {"frameworkId": ENGLISH_ID, "statementCode": "B1.1.1.1.1"})
        )
        assert "Listen to and sing familiar songs" in first
        assert "NaCCA" in first
        # The page, in both views: the structured content alone, and the text alone.
        assert exact["standard"]["sourceLocation"] == {"document": ENGLISH, "pages": [28], "printedPages": ["6"]}
        assert f"Printed in: {ENGLISH}, page 28 (printed page 6)." in first


async def test_provenance_cites_the_pdf_and_its_page(state: Any) -> None:
    async with Client(create_app(state)) as client:
        exact = structured(
            await call(client, "get_standard", {"frameworkId": ENGLISH_ID, "statementCode": "B1.1.1.1.1"})
        )
        uri = exact["standard"]["uri"] + "/provenance"
        (content,) = await client.read_resource(uri)
        document = __import__("json").loads(content.text)
    record = document["provenance"]
    assert record["epistemicStatus"] == "source_extracted"
    assert record["dataset"]["name"] == ENGLISH
    assert len(record["dataset"]["sha256"]) == 64
    assert record["locator"]["pages"] == [28]
    assert record["locator"]["printedPages"] == ["6"]
