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
from dataclasses import replace
from typing import Any

import pytest
from e2e_support import REPOSITORY_ROOT, HttpServer, http_server
from map_host import ORIGIN, MapHost, map_host
from playwright.sync_api import Browser, Locator, Route
from test_protocol_versions import message, post

from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.mcp.tools import PLACEHOLDERS, TOOL_BY_NAME, TOOLS
from package_factory import DAG, LC, RIGHTS, dag_graph, lc_graph, standard_world, validate_all

pytestmark = pytest.mark.slow

FRAMEWORK = "brazil-bncc-ensino-fundamental"
FOCUS = {"frameworkId": FRAMEWORK, "statementCode": "EF05MA04"}
PATH = {"from": {"frameworkId": FRAMEWORK, "statementCode": "EF02MA01"}, "to": FOCUS}
#: The tools whose rows say the map draws them.
LINKED_TOOLS = tuple(tool.name for tool in TOOLS if tool.draws_map)


@pytest.fixture
def host(browser: Browser, default_http_server: HttpServer) -> Iterator[MapHost]:
    with map_host(browser, default_http_server.url) as page:
        yield page


def _map_request(tool: str, framework: str, code: str, start: str) -> dict[str, Any]:
    """``tool``'s example request on the standard ``code`` (a path's from ``start``): the map's tools name standards."""
    standard = {"frameworkId": framework, "statementCode": code}
    earlier = {"frameworkId": framework, "statementCode": start}
    return TOOL_BY_NAME[tool].example_request(
        replace(PLACEHOLDERS, framework=framework, standard=standard, earlier_standard=earlier)
    )


def _request(tool: str) -> dict[str, Any]:
    return _map_request(tool, FRAMEWORK, FOCUS["statementCode"], PATH["from"]["statementCode"])


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
        assert view.locator(".hier .trail").count() >= 1
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
    first = frontier.first
    # Said in its visible text (which is also its accessible name), beside its role, not instead of it.
    assert "not returned" in first.inner_text()
    role = first.locator(".role").inner_text()
    assert role.strip() and "not returned" not in role
    style = "(e) => { const s = getComputedStyle(e); return [s.outlineStyle, s.borderInlineStartColor]; }"
    outline, role_colour = first.evaluate(style)
    assert outline == "dashed"
    others = host.view.locator(f'.node:not(.frontier).r-{_role(first)}[data-group="map"]')
    if others.count():
        assert others.first.evaluate(style)[1] == role_colour  # the role's colour is kept


def _role(node: Locator) -> str:
    (role,) = [c.removeprefix("r-") for c in (node.get_attribute("class") or "").split() if c.startswith("r-")]
    return role


def test_selecting_a_standard_calls_the_tool_through_the_host_and_redraws(host: MapHost) -> None:
    host.show("traverse_learning_progressions", FOCUS)
    host.wait_rendered(1)
    target = host.view.locator('.node[data-group="map"]', has_text="EF06MA08")
    node_id = target.get_attribute("data-id")
    calls = len(host.tool_calls())  # the host's own call for the answer shown
    target.click()
    # A click selects and shows the standard beside the map; it loads nothing.
    assert target.get_attribute("aria-current") == "true"
    assert "EF06MA08" in host.view.locator("#detail-title").inner_text()
    assert len(host.tool_calls()) == calls
    assert host.view.evaluate("document.documentElement.dataset.rendered") == "1"
    host.view.locator('#detail-actions button[data-tool="get_standard_progressions"]').click()
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
    calls = len(host.tool_calls())
    host.page.keyboard.press("Enter")  # selects, loads nothing
    assert view.evaluate("document.activeElement.getAttribute('aria-current')") == "true"
    assert len(host.tool_calls()) == calls
    view.locator('#detail-actions button[data-tool="get_standard_progressions"]').click()
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


#: Each drawn standard's code, its box and whether it is the focus (a paths answer's destination), and the map
#: area's visible box (its client area: what its scroll position shows, without its scroll bars).
_MAP_BOXES = """() => {
  const pane = document.querySelector('.map-pane');
  const p = pane.getBoundingClientRect();
  const left = p.left + pane.clientLeft, top = p.top + pane.clientTop;
  const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width });
  return {
    pane: { left, right: left + pane.clientWidth, top, bottom: top + pane.clientHeight,
            scrolls: pane.scrollWidth > pane.clientWidth },
    panel: box(document.getElementById('detail').getBoundingClientRect()),
    cards: [...document.querySelectorAll('.node[data-group="map"]')].map((card) => ({
      code: card.querySelector('.code').textContent, focus: card.classList.contains('r-focus'),
      ...box(card.getBoundingClientRect()) })),
  };
}"""
#: Traversal both ways from EF05MA03: 77 standards over seven grades, too many to fit beside the details.
_WIDE = {**FOCUS, "statementCode": "EF05MA03", "direction": "both"}


@pytest.mark.parametrize(
    ("tool", "request_", "width", "fits"),
    [
        ("find_learning_progression_paths", PATH, 1100, True),
        ("traverse_learning_progressions", _WIDE, 1100, False),
        ("traverse_learning_progressions", {**FOCUS, "statementCode": "EF04MA01", "maxNodes": 100}, 1100, False),
        ("traverse_learning_progressions", {**FOCUS, "direction": "in", "maxNodes": 100}, 1024, False),
        ("get_standard_progressions", {**FOCUS, "statementCode": "EF67LP07", "limit": 100}, 1100, True),
        ("get_standard_progressions", {**FOCUS, "statementCode": "EF05MA03"}, 320, True),
    ],
    ids=["paths-1100", "traversal-1100", "largest-1100", "built-on-1024", "most-links-1100", "progressions-320"],
)
def test_the_map_fits_its_area_or_shows_the_focus(
    browser: Browser, default_http_server: HttpServer, tool: str, request_: dict[str, Any], width: int, fits: bool
) -> None:
    """Grade columns share the map area's width: where they all fit at a readable width (paths across grades 2-5
    at 1100 px, two grades at 320 px), every standard is in view across, start and destination alike; where they
    cannot (five or seven grades beside the details), the map area scrolls and is scrolled so that the focus
    standard (a path's destination) is in full view, across and down (EF67LP07 is the 13th of 21 in its column): the
    teacher never hunts for it."""
    with map_host(browser, default_http_server.url, width=width, height=900) as host:
        host.show(tool, request_)
        host.wait_rendered(1)
        boxes = host.view.evaluate(_MAP_BOXES)
        pane, cards = boxes["pane"], boxes["cards"]

        def inside(card: dict[str, Any], vertically: bool) -> bool:
            across = card["left"] >= pane["left"] - 0.5 and card["right"] <= pane["right"] + 0.5
            down = card["top"] >= pane["top"] - 0.5 and card["bottom"] <= pane["bottom"] + 0.5
            return across and (down or not vertically)

        (focus,) = [card for card in cards if card["focus"]]
        assert inside(focus, vertically=True), f"{focus} {pane}"
        if fits:
            assert not pane["scrolls"]
            assert [card["code"] for card in cards if not inside(card, vertically=False)] == []
        else:
            assert pane["scrolls"]
        # Readable however many standards: cards keep a readable width, the details stay beside a wide map.
        assert min(card["width"] for card in cards) >= (140 if width > 720 else 112)
        if width > 720:
            assert boxes["panel"]["left"] >= pane["right"]
        overflow = host.view.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0


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
        host.view.locator('#detail-actions button[data-tool="get_standard_progressions"]').click()
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
    return _map_request(tool, framework, "NBT.A.1", "NBT.1")


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
        _siblings_settled(host)
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
            view.locator("#detail-actions button").first.click()
            host.wait_rendered(2)
            _siblings_settled(host)
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


# -- lines, paths, labels, hierarchy ------------------------------------------------------------------------


def _answer(host: MapHost, tool: str, request: dict[str, Any]) -> dict[str, Any]:
    """``tool``'s structuredContent for ``request``, as the host's client receives it."""
    result = host.page.evaluate("([tool, args]) => window.kgfegmcpHost.call(tool, args)", [tool, {"request": request}])
    structured: dict[str, Any] = result["structuredContent"]
    return structured


def _links(tool: str, answer: dict[str, Any]) -> set[tuple[str, str, str]]:
    """Every link of an answer between standards it returns, as (from, to, type)."""
    if tool == "traverse_learning_progressions":
        ids = {node["nodeId"] for node in answer["nodes"]}
        found = set()
        for node in answer["nodes"]:
            for f in node.get("followed", []):
                if f["to"] in ids:
                    way = f.get("direction", answer["direction"])
                    ends = (f["to"], node["nodeId"]) if way == "in" else (node["nodeId"], f["to"])
                    found.add((*ends, f["linkType"]))
        return found
    return {(link["sourceNodeId"], link["targetNodeId"], link["linkType"]) for link in answer["links"]}


def _drawn(host: MapHost) -> set[tuple[str, str, str]]:
    script = (
        "[...document.querySelectorAll('svg.edges path.edge')]"
        ".map((p) => [p.dataset.from, p.dataset.to, [...p.classList].find((c) => c.startsWith('t-')).slice(2)])"
    )
    drawn = host.view.evaluate(script)
    assert len(drawn) == len({tuple(x) for x in drawn}), "each link drawn once"
    return {(a, b, c) for a, b, c in drawn}


@pytest.mark.parametrize(
    ("tool", "request_"),
    [
        ("traverse_learning_progressions", {**FOCUS, "statementCode": "EF05MA03", "direction": "both"}),
        ("traverse_learning_progressions", {**FOCUS, "maxNodes": 100, "maxDepth": 12}),
        ("get_standard_progressions", FOCUS),
        ("find_learning_progression_paths", PATH),
    ],
    ids=["traversal-both", "traversal-largest", "progressions", "paths"],
)
def test_every_link_is_drawn_between_its_standards(host: MapHost, tool: str, request_: dict[str, Any]) -> None:
    answer = _answer(host, tool, request_)
    host.show(tool, request_)
    host.wait_rendered(1)
    links = _links(tool, answer)
    assert links and _drawn(host) == links
    # Direction and type without colour: an arrowhead on each buildsTowards line, a dash pattern on relatesTo.
    style = (
        "[...document.querySelectorAll('svg.edges path.edge')].map((p) => "
        "[p.classList.contains('t-relatesTo'), p.getAttribute('marker-end'), getComputedStyle(p).strokeDasharray])"
    )
    for related, marker, dashes in host.view.evaluate(style):
        assert (marker is None) == related
        assert (dashes != "none") == related
    legend = host.view.locator(".legend").inner_text()
    assert "builds towards" in legend and "relates to" in legend


def test_a_traversal_both_ways_tells_what_the_focus_builds_on_from_what_builds_on_it(host: MapHost) -> None:
    host.show("traverse_learning_progressions", {**FOCUS, "statementCode": "EF05MA03", "direction": "both"})
    host.wait_rendered(1)

    def node(code: str) -> Locator:
        return host.view.locator('.node[data-group="map"]', has_text=code).first

    assert _role(node("EF05MA03")) == "focus"
    assert _role(node("EF04MA09")) == "before"  # EF04MA09 builds towards EF05MA03
    assert _role(node("EF05MA04")) == "after"  # EF05MA03 builds towards EF05MA04
    assert "builds on the focus" in node("EF05MA04").inner_text()
    assert "comes before the focus" in node("EF04MA09").inner_text()


def test_paths_are_drawn_as_chains_from_start_to_destination(host: MapHost) -> None:
    answer = _answer(host, "find_learning_progression_paths", PATH)
    host.show("find_learning_progression_paths", PATH)
    host.wait_rendered(1)
    view = host.view
    assert view.locator("#answer-title").inner_text() == "Paths EF02MA01 → EF05MA04"
    choices = view.locator(".path-choice")
    assert choices.count() == len(answer["paths"]) >= 2
    for index, path in enumerate(answer["paths"]):
        codes = [step["statementCode"] for step in path["steps"]]
        assert choices.nth(index).locator(".chain").inner_text().replace("\n", " ") == " → ".join(codes)
    start = view.locator('.node[data-group="map"]', has_text="EF02MA01")
    assert _role(start) == "start" and "start" in start.inner_text()
    # Choosing a path marks its standards and links on the map, in order.
    choices.nth(1).click()
    assert choices.nth(1).get_attribute("aria-pressed") == "true"
    second = answer["paths"][1]
    on_path = view.evaluate("[...document.querySelectorAll('.node.on-path')].map((n) => n.dataset.id)")
    assert set(on_path) == {step["nodeId"] for step in second["steps"]}
    hot = view.evaluate("[...document.querySelectorAll('path.edge.hot')].map((p) => p.dataset.id)")
    assert set(second["relationshipIds"]) <= set(hot)


def test_with_no_path_the_start_is_the_start(host: MapHost) -> None:
    request = {"from": {**FOCUS, "statementCode": "EF09MA01"}, "to": {**FOCUS, "statementCode": "EF01MA01"}}
    host.show("find_learning_progression_paths", request)
    host.wait_rendered(1)
    start = host.view.locator('.node[data-group="map"]', has_text="EF09MA01")
    assert _role(start) == "start"
    assert "builds on" not in start.inner_text()
    assert "No path" in host.view.locator(".paths").inner_text()


def test_nodes_show_their_statement_and_the_panel_the_full_text_on_hover(host: MapHost) -> None:
    host.show("get_standard_progressions", FOCUS)
    host.wait_rendered(1)
    node = host.view.locator('.node[data-group="map"]', has_text="EF05MA03")
    snippet = node.locator(".snip").inner_text()
    assert snippet.startswith("Identificar e representar frações") and snippet.endswith("…")
    node.hover()
    assert "EF05MA03" in host.view.locator("#detail-title").inner_text()
    full = host.view.locator("#detail-body .statement").inner_text()
    assert full.startswith(snippet.removesuffix("…")) and len(full) > len(snippet)
    # Moving away restores what the panel showed (so the pointer crossing standards on its way to the panel's
    # buttons never changes what they load); a click keeps the standard there.
    host.view.locator("h1").hover()
    assert "EF05MA03" not in host.view.locator("#detail-title").inner_text()
    node.click()
    host.view.locator('.node[data-group="map"]', has_text="EF05MA05").hover()
    host.view.locator("#detail-actions").hover()
    assert "EF05MA03" in host.view.locator("#detail-title").inner_text()
    # The panel sits beside the map, not below it.
    beside = "document.getElementById('detail').getBoundingClientRect().left > document.querySelector('.map-pane').getBoundingClientRect().right"
    assert host.view.evaluate(beside)


def test_groupings_are_labelled_by_their_text_and_open_their_hierarchy(host: MapHost) -> None:
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    view = host.view
    groupings = view.locator(".hier .node.grouping")
    assert groupings.count() >= 2
    labels = [groupings.nth(i).locator(".code").inner_text() for i in range(groupings.count())]
    for label in labels:
        assert label not in ("Objeto de conhecimento", "Unidade temática", "Componente curricular")
    parent = groupings.last
    parent_id = parent.get_attribute("data-id")
    parent.click()
    actions = view.locator("#detail-actions button")
    assert [actions.nth(i).get_attribute("data-tool") for i in range(actions.count())] == ["get_standard_context"]
    calls = len(host.tool_calls())
    actions.first.click()
    host.wait_rendered(2)
    call = host.tool_calls()[calls]  # the teacher's call (the view asks for siblings after drawing it)
    assert call["name"] == "get_standard_context" and call["arguments"]["request"]["nodeId"] == parent_id
    # Its children: the focus standard and its siblings.
    children = view.locator(".hier .children .node")
    assert children.count() >= 2
    assert "EF05MA04" in view.locator(".hier .children").inner_text()


def _siblings_settled(host: MapHost) -> str | None:
    """The state of the view's siblings list once it is no longer loading (None: the view shows none)."""
    script = "() => { const p = document.querySelector('.siblings-of'); return p ? p.dataset.state : null; }"
    for _ in range(300):  # 15 s
        state: str | None = host.view.evaluate(script)
        if state != "loading":
            return state
        host.page.wait_for_timeout(50)
    raise AssertionError("the siblings are still loading after 15 s")


def _siblings(host: MapHost) -> list[tuple[str, bool]]:
    """The siblings listed, in order: (code, whether it is the standard itself)."""
    script = """() => [...document.querySelectorAll('.siblings > li')].map((li) =>
      [li.querySelector('.code').textContent, li.getAttribute('aria-current') === 'true'])"""
    return [(code, current) for code, current in host.view.evaluate(script)]


@pytest.mark.parametrize(
    ("framework", "code", "siblings"),
    [
        ("brazil-bncc-ensino-fundamental", "EF05MA04", [("EF05MA04", True), ("EF05MA05", False)]),
        ("us-ccss-ela-literacy-grades-2-4", "RL.3.1", [("RL.3.1", True), ("RL.3.2", False), ("RL.3.3", False)]),
        ("us-ccss-ela-literacy-grades-2-4", "RL.3.2", [("RL.3.1", False), ("RL.3.2", True), ("RL.3.3", False)]),
    ],
    ids=["bncc-ef", "ccss-first", "ccss-middle"],
)
def test_the_hierarchy_lists_the_standard_s_siblings_from_its_parent(
    host: MapHost, framework: str, code: str, siblings: list[tuple[str, bool]]
) -> None:
    request = {"frameworkId": framework, "statementCode": code}
    parent = _answer(host, "get_standard_context", request)["parents"][0]
    host.show("get_standard_context", request)
    host.wait_rendered(1)
    assert _siblings_settled(host) == "shown"
    # One follow-up, through the host: the parent's context, children only.
    (follow_up,) = [c for c in host.tool_calls() if c["arguments"]["request"].get("nodeId") == parent["nodeId"]]
    assert follow_up["name"] == "get_standard_context"
    assert follow_up["arguments"]["request"]["childDepth"] == 1
    # The parent's children in the order it answers them, the standard itself marked, labelled by the parent.
    assert _siblings(host) == siblings
    answered = _answer(host, "get_standard_context", {"frameworkId": framework, "nodeId": parent["nodeId"]})
    assert [child["statementCode"] for child in answered["children"]] == [code for code, _ in siblings]
    assert parent["description"][:20] in host.view.locator(".siblings-of h3").inner_text()
    assert host.view.locator(".siblings > li.current").count() == 1
    assert host.view.locator(".siblings > li.current button").count() == 0
    assert host.refused == []


def test_a_sibling_is_read_in_the_panel_and_opens_its_own_hierarchy(host: MapHost) -> None:
    request = {"frameworkId": FRAMEWORK, "statementCode": "EF05MA04"}
    host.show("get_standard_context", request)
    host.wait_rendered(1)
    _siblings_settled(host)
    view = host.view
    sibling = view.locator(".siblings .node", has_text="EF05MA05")
    sibling_id = sibling.get_attribute("data-id")
    assert "beside it" in sibling.inner_text()
    calls = len(host.tool_calls())
    sibling.click()  # selects: its full statement beside the map, nothing loaded
    assert "EF05MA05" in view.locator("#detail-title").inner_text()
    statement = _answer(host, "get_standard_context", {**request, "statementCode": "EF05MA05"})["standard"][
        "description"
    ]
    assert view.locator("#detail-body .statement").inner_text() == statement
    assert view.locator("#detail-body .statement").get_attribute("lang") == "pt-BR"
    assert len(host.tool_calls()) == calls + 1  # only the test's own call above
    calls = len(host.tool_calls())
    view.locator('#detail-actions button[data-tool="get_standard_context"]').click()
    host.wait_rendered(2)
    call = host.tool_calls()[calls]
    assert call["name"] == "get_standard_context" and call["arguments"]["request"]["nodeId"] == sibling_id
    assert "EF05MA05" in view.locator("#answer-title").inner_text()
    assert _siblings_settled(host) == "shown"
    assert _siblings(host) == [("EF05MA04", False), ("EF05MA05", True)]
    # The same parent was asked once: its answer is kept, not asked again.
    assert len(host.tool_calls()) == calls + 1
    # The keyboard reaches the siblings with the rest of the hierarchy.
    view.locator(".siblings .node").focus()
    host.page.keyboard.press("ArrowUp")
    assert view.evaluate("document.activeElement.dataset.group") == "hier"
    assert view.evaluate("document.activeElement.closest('.siblings')") is None


def test_a_standard_alone_under_its_parent_says_so(host: MapHost) -> None:
    # EF05MA03 is the one habilidade of its objeto de conhecimento.
    host.show("get_standard_context", {"frameworkId": FRAMEWORK, "statementCode": "EF05MA03"})
    host.wait_rendered(1)
    assert _siblings_settled(host) == "shown"
    assert _siblings(host) == [("EF05MA03", True)]
    assert "the only item" in host.view.locator(".siblings-of").inner_text()


def test_siblings_degrade_when_the_call_fails(host: MapHost) -> None:
    def refuse_follow_up(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        asked = body.get("params", {}).get("arguments", {}).get("request", {}) if isinstance(body, dict) else {}
        if body.get("method") == "tools/call" and asked.get("ancestorDepth") == 0:
            route.abort()
        else:
            route.fallback()

    host.page.route("**/mcp", refuse_follow_up)
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    assert _siblings_settled(host) == "failed"
    view = host.view
    assert "could not be loaded" in view.locator(".siblings-of").inner_text()
    assert view.locator(".siblings-of").get_attribute("aria-busy") is None
    # The rest of the hierarchy and the map stay drawn and usable.
    assert view.locator(".hier .trail").count() >= 1
    assert view.locator('.node.r-focus[data-group="map"]').count() == 1
    assert "error" not in (view.locator("#status").get_attribute("class") or "")


def test_siblings_are_not_asked_of_a_host_without_tool_calls(host: MapHost) -> None:
    host.page.goto(f"{ORIGIN}/?tools=none")
    host.page.wait_for_function("document.documentElement.dataset.ready === 'true'", timeout=60_000)
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    assert _siblings_settled(host) == "unavailable"
    assert "no tool calls" in host.view.locator(".siblings-of").inner_text()
    assert [c for c in host.tool_calls() if c["arguments"]["request"].get("ancestorDepth") == 0] == []


def _load_buttons(host: MapHost) -> list[str]:
    """The tools the details panel offers to load a new answer with."""
    return host.view.evaluate("[...document.querySelectorAll('#detail-actions button')].map((b) => b.dataset.tool)")


def test_a_host_without_tool_calls_is_offered_no_load_button(host: MapHost) -> None:
    host.page.goto(f"{ORIGIN}/?tools=none")
    host.page.wait_for_function("document.documentElement.dataset.ready === 'true'", timeout=60_000)
    host.show("traverse_learning_progressions", FOCUS)
    host.wait_rendered(1)
    view = host.view
    calls = len(host.tool_calls())  # the host's own call for the answer shown
    # The focus standard is in the details, without a button that could only fail, and the reason is said.
    assert "EF05MA04" in view.locator("#detail-title").inner_text()
    assert _load_buttons(host) == []
    assert "no tool calls" in view.locator("#detail-actions").inner_text()
    assert "load more" not in view.locator(".legend").inner_text()
    # Clicking, focusing and selecting standards goes on working, and asks nothing of the server.
    view.locator('.node[data-group="map"]', has_text="EF06MA08").click()
    assert "EF06MA08" in view.locator("#detail-title").inner_text()
    assert _load_buttons(host) == []
    view.locator('.node[data-group="map"][tabindex="0"]').focus()
    for key in ("ArrowDown", "ArrowRight", "Enter", "Space"):
        host.page.keyboard.press(key)
    assert view.evaluate("document.activeElement.getAttribute('aria-current')") == "true"
    assert _load_buttons(host) == []
    # In Portuguese too.
    view.locator("#lang").click()
    assert "não oferece chamadas de ferramentas" in view.locator("#detail-actions").inner_text()
    assert _load_buttons(host) == []
    assert len(host.tool_calls()) == calls
    # A hierarchy: its groupings and the focus offer no load either, and its siblings are not asked for.
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    view = host.view
    calls = len(host.tool_calls())
    assert _siblings_settled(host) == "unavailable"
    assert _load_buttons(host) == []
    view.locator(".hier .node.grouping").last.click()
    assert _load_buttons(host) == []
    assert "no tool calls" in view.locator("#detail-actions").inner_text()
    view.locator('.node.r-focus[data-group="map"]').click()
    assert _load_buttons(host) == []
    host.page.wait_for_timeout(300)
    assert len(host.tool_calls()) == calls
    assert "tools/call" not in set(host.page.evaluate("window.kgfegmcpHost.viewMethods"))
    assert "error" not in (view.locator("#status").get_attribute("class") or "")
    assert host.refused == []


@pytest.mark.parametrize(
    ("framework", "code", "columns"),
    [
        (
            "brazil-bncc-educacao-infantil",
            "EI02CG01",
            ["Bebês (zero a 1 ano e 6 meses)", "Crianças bem pequenas (1 ano e 7 meses a 3 anos e 11 meses)"],
        ),
        ("us-ccss-ela-literacy-grades-2-4", "RI.3.3", ["Grade 3"]),
    ],
    ids=["ei", "ccss"],
)
def test_grade_columns_follow_the_profile(host: MapHost, framework: str, code: str, columns: list[str]) -> None:
    tool = "traverse_learning_progressions" if framework.endswith("infantil") else "get_standard_context"
    host.show(
        tool,
        {"frameworkId": framework, "statementCode": code, **({"direction": "both"} if tool.startswith("tr") else {})},
    )
    host.wait_rendered(1)
    headings = host.view.evaluate("[...document.querySelectorAll('.grade h3')].map((h) => h.textContent)")
    assert headings[: len(columns)] == columns


def test_controls_follow_what_the_package_holds(host: MapHost) -> None:
    host.show("get_standard_context", {"frameworkId": "brazil-bncc-ensino-medio", "statementCode": "EM13CHS102"})
    host.wait_rendered(1)
    tools = host.view.evaluate("[...document.querySelectorAll('#detail-actions button')].map((b) => b.dataset.tool)")
    assert tools == ["get_standard_context"]
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    tools = host.view.evaluate("[...document.querySelectorAll('#detail-actions button')].map((b) => b.dataset.tool)")
    assert set(tools) == set(LINKED_TOOLS) - {"find_learning_progression_paths"}


# -- hardened text ------------------------------------------------------------------------------------------

RLO = "\u202e"
HOSTILE = '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=1</script>'


def _hostile(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with a right-to-left override in the focus's code, hostile markup in every text, and an
    8,000-character unbroken statement."""
    nodes = [dict(node) for node in answer["nodes"]]
    nodes[0]["statementCode"] = f"{RLO}EF05MA04{HOSTILE}"
    nodes[0]["description"] = "x" * 8000
    for node in nodes[1:]:
        node["statementCode"] = f"{node['statementCode']}{HOSTILE}"
        node["description"] = f"{HOSTILE} {node['description']}"
        node["gradeLevels"] = [f"{RLO}{grade}" for grade in node["gradeLevels"]]
        node["statementType"] = HOSTILE
    package = {
        **answer["package"],
        "attribution": HOSTILE + answer["package"]["attribution"],
        "license": RLO + HOSTILE,
        "graphPackageId": HOSTILE + answer["package"]["graphPackageId"],
        "disclosureIds": [HOSTILE],
        "labels": {"standards": HOSTILE, "links": HOSTILE},
        "grades": [{"label": g["label"], "display": RLO + HOSTILE + g["display"]} for g in answer["package"]["grades"]],
    }
    warnings = {**answer["warnings"], "items": [{**w, "message": HOSTILE} for w in answer["warnings"]["items"]]}
    structured = {**answer, "nodes": nodes, "package": package, "interpretation": HOSTILE, "warnings": warnings}
    return {"content": [{"type": "text", "text": "hostile"}], "structuredContent": structured}


@pytest.mark.parametrize("width", [320, 1024])
def test_hostile_text_neither_runs_nor_reorders_nor_overflows(
    browser: Browser, default_http_server: HttpServer, width: int
) -> None:
    with map_host(browser, default_http_server.url, width=width) as host:
        answer = _answer(host, "traverse_learning_progressions", FOCUS)
        host.show("traverse_learning_progressions", FOCUS, _hostile(answer))
        host.wait_rendered(1)
        view = host.view
        assert view.evaluate("document.body.dataset.pwned") is None
        assert view.locator("img").count() == 0 and view.locator("script").count() == 1
        # The view's own words after the override still read left to right: in "Code: ‮EF05MA04… · Grades:"
        # the "G" of "Grades" stays left of its "s".
        script = """() => {
          const line = document.querySelector('#detail-body .summary');
          const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const at = n.data.indexOf('Grades');
            if (at < 0) continue;
            const box = (i) => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1); return r.getBoundingClientRect(); };
            return [box(at).left, box(at + 5).left];
          }
          return null;
        }"""
        first, last = view.evaluate(script)
        assert first < last
        assert view.locator("#answer-title").inner_text().startswith("Traversal from ")
        overflow = view.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
        assert host.refused == []


def test_an_override_in_a_path_s_start_leaves_its_title_in_order(host: MapHost) -> None:
    """A right-to-left override in the start's code reverses that code alone: the title still reads "Paths",
    start, "→", destination, left to right (each code its own isolate, not one isolate around the title)."""
    answer = _answer(host, "find_learning_progression_paths", PATH)
    start = answer["fromNodeId"]
    standards = [
        {**record, "statementCode": f"{RLO}{record['statementCode']}"} if record["nodeId"] == start else record
        for record in answer["standards"]
    ]
    hostile = {
        "content": [{"type": "text", "text": "hostile"}],
        "structuredContent": {**answer, "standards": standards},
    }
    host.show("find_learning_progression_paths", PATH, hostile)
    host.wait_rendered(1)
    script = """() => {
      const title = document.getElementById('answer-title');
      const walker = document.createTreeWalker(title, NodeFilter.SHOW_TEXT);
      const left = (word) => {
        for (let n = walker.currentNode = title, t = walker.nextNode(); t; t = walker.nextNode()) {
          const at = t.data.indexOf(word);
          if (at < 0) continue;
          const r = document.createRange(); r.setStart(t, at); r.setEnd(t, at + 1);
          return r.getBoundingClientRect().left;
        }
        return null;
      };
      return [left('Paths'), left('→'), left('EF05MA04')];
    }"""
    paths, arrow, destination = host.view.evaluate(script)
    assert paths < arrow < destination
    assert host.view.locator("#answer-title").inner_text().startswith("Paths ")


def test_the_view_s_own_policy_holds_under_a_permissive_host(host: MapHost) -> None:
    """Defence in depth: the test host's policy allows any inline script (as a host may); the view's own
    Content-Security-Policy (its one script and style by hash, no connection) still refuses a script or a
    connection the view did not ship."""
    host.show("get_standard_context", FOCUS)
    host.wait_rendered(1)
    script = """() => new Promise((done) => {
      const refused = [];
      document.addEventListener('securitypolicyviolation', (e) => refused.push(e.effectiveDirective));
      const injected = document.createElement('script');
      injected.textContent = 'document.body.dataset.injected = "ran"';
      document.body.append(injected);
      fetch('/mcp').catch(() => {});
      setTimeout(() => done([document.body.dataset.injected || null, refused]), 300);
    })"""
    ran, refused = host.view.evaluate(script)
    assert ran is None
    assert "script-src-elem" in refused and "connect-src" in refused
    policies = host.view.evaluate(
        "[...document.querySelectorAll('meta[http-equiv=\"Content-Security-Policy\"]')].map((m) => m.content)"
    )
    assert len(policies) == 2 and "'unsafe-inline'" in policies[0] and "'unsafe-inline'" not in policies[1]


# -- accessibility ------------------------------------------------------------------------------------------

AXE = REPOSITORY_ROOT / ".tools" / "axe-core" / "node_modules" / "axe-core" / "axe.min.js"


def _axe(host: MapHost) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations in the view (run in its frame)."""
    assert AXE.is_file(), f"{AXE} is missing: run scripts/install_dev.sh"
    loaded = host.view.evaluate(f"() => {{ {AXE.read_text(encoding='utf-8')}\n; return typeof axe.run; }}")
    assert loaded == "function"
    results = host.view.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in results
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(
    ("tool", "request_"),
    [
        ("traverse_learning_progressions", FOCUS),
        ("find_learning_progression_paths", PATH),
        ("get_standard_context", FOCUS),
        ("get_learning_components_for_standard", FOCUS),
        ("get_standard_progressions", FOCUS),
    ],
    ids=["traversal", "paths", "context", "components", "progressions"],
)
def test_axe_finds_no_serious_violation(host: MapHost, theme: str, tool: str, request_: dict[str, Any]) -> None:
    host.show(tool, request_, theme=theme)
    host.wait_rendered(1)
    _siblings_settled(host)
    host.view.locator('.node[data-group="map"]').first.click()
    assert _axe(host) == []


def test_each_arrow_key_is_announced_once(host: MapHost) -> None:
    host.show("traverse_learning_progressions", FOCUS)
    host.wait_rendered(1)
    view = host.view
    view.evaluate(
        """() => { window.liveChanges = [];
        for (const region of document.querySelectorAll('[aria-live]')) {
          new MutationObserver(() => window.liveChanges.push(region.id))
            .observe(region, { childList: true, characterData: true, subtree: true });
        } }"""
    )
    view.locator('.node[data-group="map"][tabindex="0"]').focus()
    for key in ("ArrowDown", "ArrowRight", "ArrowUp", "ArrowLeft"):
        view.evaluate("() => { window.liveChanges = []; }")
        host.page.keyboard.press(key)
        host.page.wait_for_timeout(50)
        assert view.evaluate("window.liveChanges") == ["announce"], key
    assert view.locator("#announce").inner_text().strip()


# -- MCP Apps features through the host ---------------------------------------------------------------------


def test_fullscreen_model_context_and_links_go_through_the_host(host: MapHost) -> None:
    host.show("traverse_learning_progressions", FOCUS)
    host.wait_rendered(1)
    view = host.view
    view.locator("#fullscreen").click()
    assert host.seen("ui/request-display-mode", at_least=1) == [{"mode": "fullscreen"}]
    pressed = host.polled('() => document.querySelector("#fullscreen").getAttribute("aria-pressed")', "true".__eq__)
    assert pressed == "true"
    view.locator("#fullscreen").click()
    assert host.seen("ui/request-display-mode", at_least=2)[-1] == {"mode": "inline"}
    target = view.locator('.node[data-group="map"]', has_text="EF06MA08")
    target.click()
    (context,) = host.seen("ui/update-model-context", at_least=1)
    selected = context["structuredContent"]["selectedStandard"]
    assert selected["statementCode"] == "EF06MA08" and selected["nodeId"] == target.get_attribute("data-id")
    assert selected["frameworkId"] == FRAMEWORK
    assert "EF06MA08" in context["content"][0]["text"]
    view.locator("#sources a.ext").first.click()
    assert host.seen("ui/open-link", at_least=1) == [{"url": "https://github.com/bncc-dev/bncc-dados"}]
    assert host.refused == []


def test_without_those_features_the_view_degrades_cleanly(browser: Browser, default_http_server: HttpServer) -> None:
    with map_host(browser, default_http_server.url, features="none") as host:
        host.show("traverse_learning_progressions", FOCUS)
        host.wait_rendered(1)
        view = host.view
        assert view.locator("#fullscreen").is_hidden()
        assert view.locator("#sources a").count() == 0
        assert "bncc.dev" in view.locator("#sources").inner_text()
        view.locator('.node[data-group="map"]', has_text="EF06MA08").click()
        host.page.wait_for_timeout(200)
        methods = set(host.page.evaluate("window.kgfegmcpHost.viewMethods"))
        assert "ui/initialize" in methods  # the record works
        assert not {"ui/update-model-context", "ui/open-link", "ui/request-display-mode"} & methods
        assert "error" not in (view.locator("#status").get_attribute("class") or "")


def test_a_host_that_declines_a_request_is_said_to(browser: Browser, default_http_server: HttpServer) -> None:
    """A host may offer fullscreen, model context and links and still decline a request (a link it does not allow):
    the view says the host declined, never that the server refused, and the map goes on working."""
    with map_host(browser, default_http_server.url, features="decline") as host:
        host.show("traverse_learning_progressions", FOCUS)
        host.wait_rendered(1)
        view = host.view
        status = "() => [document.getElementById('status').className, document.getElementById('status').textContent]"
        for control, method in (("#fullscreen", "ui/request-display-mode"), ("#sources a.ext", "ui/open-link")):
            view.evaluate(
                "() => { const s = document.getElementById('status'); s.className = ''; s.textContent = ''; }"
            )
            view.locator(control).first.click()
            assert host.seen(method, at_least=1)
            shown, said = host.polled(status, lambda value: "error" in value[0])
            assert "error" in shown
            assert "host" in said and "server" not in said, said
        assert view.locator("#fullscreen").get_attribute("aria-pressed") == "false"
        # A declined model context is no error to show: the selection stays made, the map usable.
        target = view.locator('.node[data-group="map"]', has_text="EF06MA08")
        target.click()
        assert host.seen("ui/update-model-context", at_least=1)
        assert target.get_attribute("aria-current") == "true"
        assert "EF06MA08" in view.locator("#detail-title").inner_text()


#: Each shipped BNCC stage, CCSS, ACARA and MEXT: (framework, focus code, a path's start code). EF is drawn
#: by the tests above; EM, ACARA and MEXT hold no progression links (their paths are none).
PACKAGES = {
    "ei": ("brazil-bncc-educacao-infantil", "EI02CG01", "EI01CG01"),
    "em": ("brazil-bncc-ensino-medio", "EM13CHS102", "EM13CHS101"),
    "ccss": ("us-ccss-ela-literacy-grades-2-4", "RI.3.3", "RI.2.6"),
    "acara": ("australia-acara-v9-mathematics", "AC9M6N05", "AC9M4N04"),
    "mext": ("japan-mext-course-of-study-elementary", "8250243608000000", "8250243609000000"),
}


@pytest.mark.parametrize("tool", LINKED_TOOLS)
@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_each_tool_is_drawn_on_each_package(host: MapHost, package: str, tool: str) -> None:
    framework, code, start = PACKAGES[package]
    request = _map_request(tool, framework, code, start)
    answer = _answer(host, tool, request)
    host.show(tool, request)
    host.wait_rendered(1)
    view = host.view
    assert "error" not in (view.locator("#status").get_attribute("class") or "")
    focus = view.locator('.node.r-focus[data-group="map"]')
    assert focus.count() == 1 and code in focus.inner_text()
    if tool in ("get_standard_progressions", "traverse_learning_progressions", "find_learning_progression_paths"):
        assert _drawn(host) == _links(tool, answer)
    # Grade names come from the profile, never a bare label ("03").
    headings = view.evaluate("[...document.querySelectorAll('.grade h3')].map((h) => h.textContent)")
    assert headings and all(len(heading) > 3 for heading in headings)
