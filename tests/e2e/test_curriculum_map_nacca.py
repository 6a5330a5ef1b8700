"""The curriculum map draws a package built from NaCCA's PDF (English Basic 1-3), in headless Chromium.

Built from ../shared/data (never committed; skipped without it) with the operator's approval recorded in an
operator rights file (as `packages build --review-status` records it), served over HTTP like any package, and drawn by the view from ``get_standard_context``: the indicator by its code and
grade, its full statement, and the package's attribution to NaCCA.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from e2e_support import HttpServer, http_server
from map_host import map_host
from playwright.sync_api import Browser

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.config import SHIPPED_DIR, InvalidPackagePolicy
from kgfegmcp.core.operator_rights import decision_now, package_key, record_decision
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageBatch, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.importer import NaccaPdfSource

PDF = REPOSITORY_ROOT.parent / "shared" / "data" / "ghana-nacca-2019" / "ENGLISH-LOWER-PRIMARY-B1-B3.pdf"
FRAMEWORK = "ghana-nacca-primary-english-language-basic-1-3"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PDF.is_file(), reason="NaCCA's PDF is not here (never committed; ../shared/data)"),
]


@pytest.fixture(scope="module")
def nacca_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("nacca-map")
    profiles = ProfileRepository(SHIPPED_DIR / "profiles")
    (content,) = NaccaPdfSource().build(PDF, profiles)
    with PackageBatch(root) as batch:
        location = batch.write(content)
    lifecycle = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL)
    assert lifecycle.validate(location).result == "passed"
    rights = root.parent / f"{root.name}-operator-rights.json"
    approval = decision_now("test operator", review_status="provisional_operator_approved")
    record_decision(rights, package_key(location.graph_package_id), approval)
    with http_server(root, {"KGFEGMCP_OPERATOR_RIGHTS_FILE": str(rights)}) as server:
        yield server


def test_the_map_draws_an_indicator_read_from_the_pdf(browser: Browser, nacca_server: HttpServer) -> None:
    with map_host(browser, nacca_server.url) as host:
        host.show("get_standard_context", {"frameworkId": FRAMEWORK, "statementCode": "B1.1.1.1.1"})
        host.wait_rendered(1)
        view = host.view
        focus = view.locator('.node.r-focus[data-group="map"]')
        assert focus.count() == 1
        assert "B1.1.1.1.1" in focus.inner_text() and "Basic 1" in focus.inner_text()
        focus.focus()
        detail = view.locator("#detail-body").inner_text()
        assert "Listen to and sing familiar songs with appropriate expressions" in detail
        sources = view.locator("#sources").inner_text()
        assert "NaCCA" in sources and "Not specified in source PDF" in sources
