"""The curriculum map in headless Chromium, hosted by the official MCP Apps host SDK, on the real HTTP server.

Each of the five linked tools' answers is drawn; selecting a standard makes the view call a tool through the
host (the request reaches the server) and draw the new answer; the keyboard moves between standards and
selects; the view reaches no network and reads at 320 px and on a large screen, in English and Portuguese.
A host of the 2025-11-25 era (capabilities on ``initialize`` only, which stateless HTTP does not keep) gets
the view too, and a package whose rights withhold statement text shows none of it, in any answer or state.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import HttpServer, http_server
from map_host import MapHost, map_host
from playwright.sync_api import Browser
from test_protocol_versions import message, post

from kgfegmcp.rights import RightsPolicy
from package_factory import DAG, LC, RIGHTS, dag_graph, lc_graph, standard_world, validate_all

pytestmark = pytest.mark.slow

FRAMEWORK = "brazil-bncc-ensino-fundamental"
FOCUS = {"frameworkId": FRAMEWORK, "statementCode": "EF05MA04"}
PATH = {"from": {"frameworkId": FRAMEWORK, "statementCode": "EF02MA01"}, "to": FOCUS}
LINKED_TOOLS = (
    "get_standard_context",
    "get_standard_progressions",
    "traverse_learning_progressions",
    "find_learning_progression_paths",
    "get_learning_components_for_standard",
)


@pytest.fixture
def host(browser: Browser, default_http_server: HttpServer) -> Iterator[MapHost]:
    with map_host(browser, default_http_server.url) as page:
        yield page


def _request(tool: str) -> dict[str, Any]:
    return PATH if tool == "find_learning_progression_paths" else FOCUS


def test_exactly_the_five_graph_tools_link_the_view(host: MapHost) -> None:
    listed = host.page.evaluate("window.kgfegmcpHost.tools")
    linked = {tool["name"] for tool in listed if (tool["meta"] or {}).get("ui")}
    assert linked == set(LINKED_TOOLS)


@pytest.mark.parametrize("tool", LINKED_TOOLS)
def test_each_linked_answer_is_drawn(host: MapHost, tool: str) -> None:
    report = host.show(tool, _request(tool))
    assert report["csp"] == {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}
    assert report["bytes"] <= 150 * 1024
    host.wait_rendered(1)
    view = host.view
    assert view.evaluate("document.documentElement.dataset.tool") == tool
    # The focus standard, by code and grade, with its full statement on focus.
    focus = view.locator('.node.r-focus[data-group="map"]')
    assert focus.count() == 1
    assert "EF05MA04" in focus.inner_text() and "5º ano" in focus.inner_text()
    focus.focus()
    assert "Identificar frações equivalentes." in view.locator("#detail-body").inner_text()
    # Attribution, licence, disclosures and labels on screen.
    sources = view.locator("#sources").inner_text()
    assert "CC BY 4.0" in sources and "bncc.dev" in sources
    assert "source_asserted" in sources and "verified-text-wins" in sources
    # The answers do not state a language: the view reads it from the package resource through the host, and
    # marks every statement (never in the interface's language).
    assert host.statement_langs() == {"pt-BR"}
    assert view.locator("#detail-body .statement").get_attribute("lang") == "pt-BR"
    if tool == "get_standard_context":
        assert view.locator(".hier .path").count() >= 1
        assert "Matemática" in view.locator(".hier").inner_text()
    if tool == "get_learning_components_for_standard":
        assert view.locator(".comp").count() >= 1
        assert "Instituto Reúna" in sources
    if tool == "traverse_learning_progressions":
        assert view.locator('.node[data-group="map"]').count() == 27
    assert host.refused == []


def test_the_frontier_is_shown_as_such(host: MapHost) -> None:
    host.show("traverse_learning_progressions", {**FOCUS, "maxNodes": 5})
    host.wait_rendered(1)
    frontier = host.view.locator(".node.frontier")
    assert frontier.count() >= 1
    assert "not returned" in frontier.first.inner_text()
    assert "not returned" in (frontier.first.get_attribute("aria-label") or "")


def test_selecting_a_standard_calls_the_tool_through_the_host_and_redraws(host: MapHost) -> None:
    host.show("traverse_learning_progressions", FOCUS)
    host.wait_rendered(1)
    target = host.view.locator('.node[data-group="map"]', has_text="EF06MA08")
    node_id = target.get_attribute("data-id")
    target.click()
    host.wait_rendered(2)
    call = host.tool_calls()[-1]
    assert call["name"] == "get_standard_progressions"
    assert call["arguments"]["request"]["nodeId"] == node_id
    assert host.view.evaluate("document.documentElement.dataset.tool") == "get_standard_progressions"
    assert "EF06MA08" in host.view.locator('.node.r-focus[data-group="map"]').inner_text()
    host.view.locator("#back").click()
    host.wait_rendered(3)
    assert host.view.evaluate("document.documentElement.dataset.tool") == "traverse_learning_progressions"


@pytest.mark.parametrize(
    "tool", ["get_standard_context", "get_learning_components_for_standard", "traverse_learning_progressions"]
)
def test_the_detail_panel_asks_for_each_view_of_the_selected_standard(host: MapHost, tool: str) -> None:
    host.show("get_standard_progressions", FOCUS)
    host.wait_rendered(1)
    host.view.locator('.node[data-group="map"]', has_text="EF05MA03").focus()
    host.view.locator(f'#detail-actions button[data-tool="{tool}"]').click()
    host.wait_rendered(2)
    call = host.tool_calls()[-1]
    assert call["name"] == tool
    assert call["arguments"]["request"]["frameworkId"] == FRAMEWORK
    assert host.view.evaluate("document.documentElement.dataset.tool") == tool
    assert "EF05MA03" in host.view.locator("#answer-title").inner_text()


def test_the_keyboard_moves_between_standards_and_selects(host: MapHost) -> None:
    host.show("traverse_learning_progressions", FOCUS)
    host.wait_rendered(1)
    view = host.view
    stops = view.locator('.node[data-group="map"][tabindex="0"]')
    assert stops.count() == 1  # one tab stop for the whole map
    stops.first.focus()
    focused = "document.activeElement.querySelector('.code').textContent"
    assert view.evaluate(focused) == "EF05MA04"
    host.page.keyboard.press("ArrowDown")
    assert view.evaluate(focused) == "EF05MA05"
    host.page.keyboard.press("ArrowRight")
    moved = view.evaluate(focused)
    assert moved.startswith("EF06")
    assert moved in view.locator("#detail-title").inner_text()
    host.page.keyboard.press("End")
    host.page.keyboard.press("Home")
    assert view.evaluate(focused) == "EF05MA04"
    host.page.keyboard.press("ArrowDown")
    host.page.keyboard.press("Enter")
    host.wait_rendered(2)
    assert host.tool_calls()[-1]["name"] == "get_standard_progressions"
    # Focus lands on the new answer's standard, so the keyboard goes on from there.
    assert view.evaluate(focused) == "EF05MA05"


@pytest.mark.parametrize("width", [320, 1600])
def test_readable_narrow_and_wide(browser: Browser, default_http_server: HttpServer, width: int) -> None:
    with map_host(browser, default_http_server.url, width=width) as host:
        host.show("traverse_learning_progressions", FOCUS)
        host.wait_rendered(1)
        overflow = host.view.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
        size = host.view.evaluate("parseFloat(getComputedStyle(document.querySelector('.node .code')).fontSize)")
        assert size >= 14


def test_the_host_s_dark_theme_is_taken(host: MapHost) -> None:
    background = "getComputedStyle(document.body).backgroundColor"
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    light = host.view.evaluate(background)
    host.show("get_standard_context", FOCUS, theme="dark")
    host.wait_rendered(1)
    assert host.view.evaluate("document.documentElement.dataset.theme") == "dark"
    assert host.view.evaluate(background) != light


def test_portuguese_interface_keeps_statements_as_stated(host: MapHost) -> None:
    host.show("get_standard_progressions", FOCUS, locale="pt-BR")
    host.wait_rendered(1)
    view = host.view
    assert view.locator("h1").inner_text() == "Mapa curricular"
    assert view.evaluate("document.documentElement.lang") == "pt"
    view.locator('.node.r-focus[data-group="map"]').focus()
    assert "Identificar frações equivalentes." in view.locator("#detail-body").inner_text()
    view.locator("#lang").click()
    assert view.locator("h1").inner_text() == "Curriculum map"
    view.locator('.node.r-focus[data-group="map"]').focus()
    assert "Identificar frações equivalentes." in view.locator("#detail-body").inner_text()


def test_a_2025_host_over_stateless_http_draws_and_selects(browser: Browser, default_http_server: HttpServer) -> None:
    with map_host(browser, default_http_server.url, era="legacy") as host:
        (initialize,) = [r for r in host.requests if r.get("method") == "initialize"]
        assert initialize["params"]["protocolVersion"] == "2025-11-25"
        host.show("traverse_learning_progressions", FOCUS)
        host.wait_rendered(1)
        host.view.locator('.node[data-group="map"]', has_text="EF06MA08").click()
        host.wait_rendered(2)
        assert host.tool_calls()[-1]["name"] == "get_standard_progressions"
        assert "EF06MA08" in host.view.locator('.node.r-focus[data-group="map"]').inner_text()
        assert host.refused == []


def test_without_resource_reads_statements_stay_of_unknown_language(
    browser: Browser, default_http_server: HttpServer
) -> None:
    with map_host(browser, default_http_server.url, resources="none") as host:
        host.show("get_standard_context", FOCUS)
        host.wait_rendered(1)
        host.view.locator('.node.r-focus[data-group="map"]').focus()
        assert host.statement_langs(timeout=1_000) == {""}  # unknown, never the interface's "en"
        assert not [r for r in host.requests if r.get("method") == "resources/read" and "kgfegmcp://" in str(r)]


def test_a_cancelled_call_is_said_so(host: MapHost) -> None:
    host.page.evaluate(
        "([tool, args]) => window.kgfegmcpHost.cancel(tool, args, 'user')",
        ["get_standard_context", {"request": FOCUS}],
    )
    status = host.view.locator("#status")
    status.filter(has_text="cancelled").wait_for()
    assert host.tool_calls() == []  # the host never called the tool; the view drew nothing


def test_an_answer_of_a_version_without_structured_content_is_drawn_the_same(host: MapHost) -> None:
    # Before 2025-06-18 the structured content travels as the last text block, as canonical JSON.
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": "traverse_learning_progressions", "arguments": {"request": FOCUS}}
    response = post(host.server_url, body, "2025-03-26")
    assert response.status_code == 200, response.text
    old = message(response)["result"]
    assert "structuredContent" not in old
    host.show("traverse_learning_progressions", FOCUS, old)
    host.wait_rendered(1)
    assert host.view.locator('.node[data-group="map"]').count() == 27
    assert "EF05MA04" in host.view.locator('.node.r-focus[data-group="map"]').inner_text()


# -- a package whose rights withhold statement text ---------------------------------------------------------

#: The fixture's learning-component package under a review state that withholds text, beside one that does not.
WITHHELD_RIGHTS = RightsPolicy.model_validate_json(json.dumps(RIGHTS)).model_copy(
    update={"review_status": "restricted"}
)
WITHHELD_GRAPH = lc_graph(LC)
SHOWN_GRAPH = dag_graph(DAG)
#: Characters of a text's start that must not appear either (a clipped snippet is a leak too).
PREFIX_CHARS = 16


def _withheld_request(tool: str, framework: str = LC) -> dict[str, Any]:
    if tool == "find_learning_progression_paths":
        return {
            "from": {"frameworkId": framework, "statementCode": "NBT.1"},
            "to": {"frameworkId": framework, "statementCode": "NBT.A.2"},
        }
    return {"frameworkId": framework, "statementCode": "NBT.A.1"}


@pytest.fixture(scope="module")
def rights_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    world = standard_world(tmp_path_factory.mktemp("rights-map"))
    validate_all(world, [world.write(WITHHELD_GRAPH, rights=WITHHELD_RIGHTS), world.write(SHOWN_GRAPH)])
    with http_server(world.packages, {"KGFEGMCP_PROFILES_DIR": str(world.profiles_root)}) as server:
        yield server


def _leaks(document: str) -> list[str]:
    texts = {node.description for node in (*WITHHELD_GRAPH.items, *WITHHELD_GRAPH.components)}
    return sorted(text for text in texts if text in document or text[:PREFIX_CHARS] in document)


@pytest.mark.parametrize("tool", LINKED_TOOLS)
def test_the_view_shows_no_text_the_rights_withhold(browser: Browser, rights_server: HttpServer, tool: str) -> None:
    with map_host(browser, rights_server.url) as host:
        host.show(tool, _withheld_request(tool))
        host.wait_rendered(1)
        view = host.view
        focus = view.locator('.node.r-focus[data-group="map"]')
        focus.focus()  # the detail panel: where the full statement would be
        assert "withheld" in view.locator("#detail-body").inner_text().lower()
        # The notice is interface text: it takes the document's language, not a statement's.
        assert view.locator("#detail-body .statement").get_attribute("lang") is None
        assert _leaks(view.content()) == []
        # A selection draws a new answer from the same package: still nothing withheld.
        others = view.locator('.node[data-group="map"]:not(.r-focus)')
        if others.count():
            others.first.click()
            host.wait_rendered(2)
            assert _leaks(view.content()) == []


def test_the_same_view_shows_text_the_rights_permit(browser: Browser, rights_server: HttpServer) -> None:
    # The control: the same check finds the statements of a package whose rights permit them.
    with map_host(browser, rights_server.url) as host:
        host.show("get_standard_context", _withheld_request("get_standard_context", DAG))
        host.wait_rendered(1)
        host.view.locator('.node.r-focus[data-group="map"]').focus()
        shown = host.view.content()
    assert "Understand that the three digits" in shown


@pytest.mark.parametrize(
    ("request_", "code", "grade", "statement", "source"),
    [
        (
            {"frameworkId": "japan-mext-course-of-study-elementary", "statementCode": "8250233161200000"},
            "8250233161200000",
            "第３学年",
            "分数が単位分数の幾つ分かで表すことができることを知ること。",
            "文部科学省",
        ),
        (
            {"frameworkId": "australia-acara-v9-mathematics", "statementCode": "AC9M3N02"},
            "AC9M3N02",
            "Year 3",
            "recognise and represent unit fractions",
            "ACARA",
        ),
    ],
    ids=["mext", "acara"],
)
def test_the_map_draws_the_curricula_read_from_official_files(
    host: MapHost, request_: dict[str, str], code: str, grade: str, statement: str, source: str
) -> None:
    """A Course-of-Study provision (Japanese, a 16-character code) and an ACARA content description: the focus
    with its code and grade as the curriculum writes them, its statement in full, and the attribution."""
    host.show("get_standard_context", request_)
    host.wait_rendered(1)
    view = host.view
    focus = view.locator('.node.r-focus[data-group="map"]')
    assert focus.count() == 1
    assert code in focus.inner_text() and grade in focus.inner_text()
    focus.focus()
    assert statement in view.locator("#detail-body").inner_text()
    assert source in view.locator("#sources").inner_text()
