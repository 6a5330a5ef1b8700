"""What the curriculum map (the MCP Apps view) costs: its render time in headless Chromium beside the tool call
whose answer it draws, and the growth of ``tools/list`` and ``resources/list`` for a client that is listed the
view (one that declares the MCP Apps extension, and over stateless HTTP one whose capabilities the server
cannot know). Measured, not asserted.

Run: .venv/bin/python benchmarks/curriculum_map.py [--root data/graph_packages] [--repeat 7]
         [--screenshots docs/images] [--out benchmarks/results/curriculum_map.json]

Starts the real server over HTTP on 127.0.0.1 and the test host page of the browser tests
(``tests/e2e/map_host.py``: Debian's Chromium, the official host SDK; ``scripts/install_dev.sh`` installs both).
Render time is the view's own ``kgfegmcp-map-render`` measure (reading the answer into a graph, drawing its
standards and laying out and drawing its links); beside it, in the same run and page, what a host pays for
the answer anyway: the ``tools/call`` round trip that brings it (the host's client over HTTP, timed in the
page), and the same answers drawn by the view as last committed (``git show HEAD:...``, shown through the
host's ``viewOverride``), so the ratio new/previous is measured on one machine in one run. Render time is
taken for each tool's largest real answer in the catalog (a traversal at the tools' bounds, ``maxNodes`` 100
and ``maxEdges`` 100, about 80 standards; the standard with the most links; ten paths across grades 2-5) and
for a 100-standard traversal made up in the answer's exact shape (a chain of standards over nine grades).
``--screenshots`` also saves four real views (a traversal with its links, paths between two standards, a
standard's hierarchy with the other standards of its parent in the dark theme, progressions at 320 px in
Portuguese). Results: benchmarks/results/curriculum_map.json (``--out``: elsewhere, for a run not to commit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from fastmcp import Client, FastMCP
from mcp.client import advertise
from playwright.sync_api import Browser, FloatRect, sync_playwright

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPOSITORY_ROOT / "tests" / "e2e"), str(REPOSITORY_ROOT / "tests")]

from e2e_support import http_server  # noqa: E402
from map_host import MapHost, launch, map_host  # noqa: E402

from kgfegmcp.core.models import canonical_bytes  # noqa: E402
from kgfegmcp.mcp.probes import Readiness  # noqa: E402
from kgfegmcp.mcp.register import register  # noqa: E402
from kgfegmcp.mcp.tools import PLACEHOLDERS, TOOLS, example_calls  # noqa: E402

RESULTS = REPOSITORY_ROOT / "benchmarks" / "results" / "curriculum_map.json"
FRAMEWORK = "brazil-bncc-ensino-fundamental"
LARGEST = {"frameworkId": FRAMEWORK, "statementCode": "EF04MA01", "maxNodes": 100, "maxDepth": 12}
#: Each tool's largest real answer in the default catalog (the traversal above; EF67LP07 has the most links).
LARGEST_ANSWERS: dict[str, tuple[str, dict[str, Any]]] = {
    "traversal": ("traverse_learning_progressions", LARGEST),
    "progressions": (
        "get_standard_progressions",
        {"frameworkId": FRAMEWORK, "statementCode": "EF67LP07", "limit": 100},
    ),
    "paths": (
        "find_learning_progression_paths",
        {
            "from": {"frameworkId": FRAMEWORK, "statementCode": "EF02MA01"},
            "to": {"frameworkId": FRAMEWORK, "statementCode": "EF05MA04"},
            "maxPaths": 10,
            "maxDepth": 10,
        },
    ),
    "context": ("get_standard_context", {"frameworkId": FRAMEWORK, "statementCode": "EF05MA03"}),
    "components": ("get_learning_components_for_standard", {"frameworkId": FRAMEWORK, "statementCode": "EF05MA03"}),
}
#: Each other tool the map draws (a new one): its example request, on EF05MA03 (EF04MA09 builds towards it; the
#: map's tools name standards only).
LARGEST_ANSWERS |= {
    tool: (tool, request)
    for tool, request in example_calls(
        replace(
            PLACEHOLDERS,
            framework=FRAMEWORK,
            standard={"frameworkId": FRAMEWORK, "statementCode": "EF05MA03"},
            earlier_standard={"frameworkId": FRAMEWORK, "statementCode": "EF04MA09"},
        ),
        besides={tool for tool, _ in LARGEST_ANSWERS.values()},
        tools=[row for row in TOOLS if row.draws_map],
    )
}
MAP_FILE = "src/kgfegmcp/shipped/apps/curriculum-map.html"
UI_EXTENSION = "io.modelcontextprotocol/ui"
#: A captured view smaller than this is blank (a white frame compresses to a few KB; a drawn one to 80 KB+).
BLANK_PNG_BYTES = 20_000


async def _listings(declares: bool) -> tuple[int, int]:
    server = FastMCP(name="kgfegmcp", dereference_schemas=False)
    register(server, Readiness())
    extensions = [advertise(UI_EXTENSION, {"mimeTypes": ["text/html;profile=mcp-app"]})] if declares else None
    async with Client(server, extensions=extensions) as client:
        tools = await client.list_tools_mcp()
        resources = await client.list_resources_mcp()
    dump = {"by_alias": True, "exclude_none": True, "mode": "json"}
    return len(canonical_bytes(tools.model_dump(**dump))), len(canonical_bytes(resources.model_dump(**dump)))


def listing_growth() -> dict[str, Any]:
    """``tools/list`` and ``resources/list`` bytes (compact JSON) without and with the view listed.

    A client is listed the view when it declares the extension or, over stateless HTTP before 2026-07-28, when
    its capabilities are unknown; a client whose capabilities lack it gets the ``plain`` bytes.
    """
    plain, declaring = asyncio.run(_listings(False)), asyncio.run(_listings(True))
    return {
        "toolsListBytes": {"plain": plain[0], "declaring": declaring[0], "growth": declaring[0] - plain[0]},
        "resourcesListBytes": {"plain": plain[1], "declaring": declaring[1], "growth": declaring[1] - plain[1]},
    }


def synthetic_traversal(template: dict[str, Any], count: int = 100) -> dict[str, Any]:
    """A traversal answer of ``count`` standards in ``template``'s exact shape: a chain over grades 1-9."""
    nodes = []
    for index in range(count):
        grade = 1 + index * 9 // count
        node: dict[str, Any] = {
            "nodeId": f"00000000-0000-5000-8000-{index:012d}",
            "statementCode": f"EF0{grade}XX{index:02d}",
            "statementType": "Habilidade",
            "gradeLevels": [f"{grade}º ano"],
            "description": f"Enunciado inventado número {index} para medir o desenho de cem habilidades.",
            "depth": index,
        }
        if index + 1 < count:
            node["followed"] = [
                {
                    "relationshipId": f"r{index}",
                    "linkType": "buildsTowards",
                    "to": f"00000000-0000-5000-8000-{index + 1:012d}",
                }
            ]
        nodes.append(node)
    structured = {**template, "nodes": nodes, "frontier": {}}
    return {"content": [{"type": "text", "text": "synthetic"}], "structuredContent": structured}


def previous_view() -> str | None:
    """The view as last committed (``HEAD``), to draw the same answers with; None outside a git checkout."""
    done = subprocess.run(
        ["git", "show", f"HEAD:{MAP_FILE}"], cwd=REPOSITORY_ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def render_times(
    host: MapHost, tool: str, request: dict[str, Any], result: dict[str, Any] | None, repeat: int
) -> list[float]:
    times, _ = render_and_link_times(host, tool, request, result, repeat)
    return times


def render_and_link_times(
    host: MapHost, tool: str, request: dict[str, Any], result: dict[str, Any] | None, repeat: int
) -> tuple[list[float], list[float]]:
    """The view's render times, and the part of each spent laying out and drawing the links (0 where the view
    draws none: the previous view)."""
    times, links = [], []
    for _ in range(repeat):
        host.show(tool, request, result)
        host.wait_rendered(1)
        times.append(host.view.evaluate("performance.getEntriesByName('kgfegmcp-map-render').at(-1).duration"))
        links.append(
            host.view.evaluate("(performance.getEntriesByName('kgfegmcp-map-links').at(-1) || {duration: 0}).duration")
        )
    return times, links


def call_times(host: MapHost, tool: str, request: dict[str, Any], repeat: int) -> list[float]:
    """The host's ``tools/call`` round trips for ``request``, timed in the page (ms)."""
    timed = (
        "async ([tool, args]) => { const start = performance.now(); "
        "await window.kgfegmcpHost.call(tool, args); return performance.now() - start; }"
    )
    return [host.page.evaluate(timed, [tool, {"request": request}]) for _ in range(repeat)]


#: Largest PNG kept for the docs (each is committed).
MAX_PNG_BYTES = 150_000


def shrink(png: Path) -> None:
    """``png`` in 64 colours (a flat interface loses nothing visible), where Pillow is installed."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as image:
        small = image.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    small.save(png, optimize=True)


def screenshots(browser: Browser, server_url: str, out: Path) -> list[str]:
    """Four real views, each on a page of its own (a page left open beside another painted no frame)."""
    out.mkdir(parents=True, exist_ok=True)
    focus = {"frameworkId": FRAMEWORK, "statementCode": "EF05MA03"}
    sibling = {**focus, "statementCode": "EF05MA04"}
    path = {"from": {**focus, "statementCode": "EF02MA01"}, "to": sibling}
    views: tuple[tuple[str, int, str, dict[str, Any], dict[str, Any]], ...] = (
        ("curriculum-map-traversal.png", 1100, "traverse_learning_progressions", {**focus, "direction": "both"}, {}),
        ("curriculum-map-paths.png", 1100, "find_learning_progression_paths", path, {}),
        # EF05MA04, not EF05MA03: its parent holds another standard (EF05MA05), so its siblings are shown.
        ("curriculum-map-context-dark.png", 900, "get_standard_context", sibling, {"theme": "dark"}),
        ("curriculum-map-progressions-320px-pt.png", 320, "get_standard_progressions", focus, {"locale": "pt-BR"}),
    )
    saved = []
    for name, width, tool, request, context in views:
        # A viewport taller than the view: a full-page capture that resizes it can catch the frame unpainted.
        with map_host(browser, server_url, width=width, height=2400) as view:
            view.show(tool, request, None, **context)
            view.wait_rendered(1)
            view.view.locator("#sources h2").wait_for()
            if tool == "get_standard_context":
                # The siblings come by a second call through the host, after the hierarchy is drawn.
                view.view.locator('.siblings-of[data-state="shown"] .siblings .node').first.wait_for(timeout=15_000)
            # The host resizes the frame to the height the view reports; the screenshot waits for that.
            view.page.wait_for_function("document.querySelector('iframe').getBoundingClientRect().height > 420")
            frame = view.page.query_selector("iframe")
            assert frame is not None
            box = frame.bounding_box()
            assert box is not None
            # The map and the panel beside it, not the sources below (small enough to commit).
            sources = view.view.evaluate("document.getElementById('sources').getBoundingClientRect().top")
            clip: FloatRect = {
                "x": box["x"],
                "y": box["y"],
                "width": box["width"],
                "height": min(box["height"], sources, 1100),
            }
            # Headless Chromium sometimes captures the sandboxed frame before it paints (a blank PNG of a few
            # KB): wait for two of its animation frames and capture again until the picture has content.
            for _ in range(10):
                view.view.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
                view.page.wait_for_timeout(300)
                view.page.screenshot(path=str(out / name), clip=clip)
                if (out / name).stat().st_size > BLANK_PNG_BYTES:
                    break
        shrink(out / name)
        size = (out / name).stat().st_size
        if size > MAX_PNG_BYTES:
            print(f"{name}: {size} bytes, over {MAX_PNG_BYTES}", file=sys.stderr)
        where = (out / name).resolve()  # named from the checkout when written into it (docs/images)
        saved.append(str(where.relative_to(REPOSITORY_ROOT) if where.is_relative_to(REPOSITORY_ROOT) else where))
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--screenshots", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the results go (JSON)")
    args = parser.parse_args()
    report: dict[str, Any] = {"listing": listing_growth()}
    with http_server(args.root) as server, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            with map_host(browser, server.url) as host:
                previous = previous_view()
                answers = {
                    name: host.page.evaluate(
                        "([tool, args]) => window.kgfegmcpHost.call(tool, args)", [tool, {"request": request}]
                    )
                    for name, (tool, request) in LARGEST_ANSWERS.items()
                }
                # The real answer's other fields (limits, counters, package...), reused by the synthetic one.
                traversal = answers["traversal"]["structuredContent"]
                template = {k: v for k, v in traversal.items() if k not in ("nodes", "frontier")}
                cases = {name: (tool, request, answers[name]) for name, (tool, request) in LARGEST_ANSWERS.items()}
                cases["synthetic100"] = ("traverse_learning_progressions", LARGEST, synthetic_traversal(template))
                render: dict[str, Any] = {}
                for name, (tool, request, result) in cases.items():
                    runs, link_runs = render_and_link_times(host, tool, request, result, args.repeat)
                    render[name] = {
                        "tool": tool,
                        "standards": host.view.evaluate(
                            "document.querySelectorAll('.node[data-group=\"map\"]').length"
                        ),
                        "links": host.view.evaluate("document.querySelectorAll('svg.edges path.edge').length"),
                        "median": statistics.median(runs),
                        "linksMedian": statistics.median(link_runs),
                        "runs": runs,
                    }
                    if previous is not None:
                        host.page.evaluate("(html) => { window.kgfegmcpHost.viewOverride = html; }", previous)
                        before = render_times(host, tool, request, result, args.repeat)
                        host.page.evaluate("() => { window.kgfegmcpHost.viewOverride = null; }")
                        render[name]["previousView"] = {"median": statistics.median(before), "runs": before}
                        render[name]["ratioToPrevious"] = round(render[name]["median"] / statistics.median(before), 2)
                report["renderMs"] = render
                calls = call_times(host, "traverse_learning_progressions", LARGEST, args.repeat)
                report["toolCallMs"] = {
                    "largestRealTraversal": {
                        "answerBytes": len(json.dumps(traversal, ensure_ascii=False).encode()),
                        "median": statistics.median(calls),
                        "runs": calls,
                    }
                }
                report["renderToCallRatio"] = {
                    name: round(render[name]["median"] / statistics.median(calls), 3)
                    for name in ("traversal", "synthetic100")
                }
            if args.screenshots is not None:
                report["screenshots"] = screenshots(browser, server.url, args.screenshots)
        finally:
            browser.close()
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
