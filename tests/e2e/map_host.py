"""The curriculum map in a real browser: Debian's headless Chromium, driven by Playwright, on a test host page.

The host page (``map_host/``) is built on the official MCP Apps host SDK (``AppBridge`` from
``@modelcontextprotocol/ext-apps``) and the official TypeScript MCP client, both from the npm packages
``scripts/install_dev.sh`` installs into ``.tools/ext-apps``. Playwright serves the page and those packages at
one made-up origin and forwards the page's ``/mcp`` requests, unchanged but for the browser's own origin
headers, to the real server over HTTP on 127.0.0.1, recording each JSON-RPC request it passes. Nothing else is
reachable: any other request the page (or the view) makes fails and is recorded as such.

The page and the packages are fulfilled by that same route handler, not by a server of their own: a page open waits
on Chromium loading the ~110 modules (Chromium alone, from a plain local server, takes as long), and measured, a
real server behind the interception costs Chromium more per module than a fulfilled response costs Python. What
did cost every open is where Chromium keeps its shared memory: see ``launch``.
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from e2e_support import REPOSITORY_ROOT
from playwright.sync_api import Browser, Frame, Page, Playwright, Route

#: Where install_dev.sh puts the host SDK and its dependencies (resolved: a worktree may link `.tools` elsewhere).
NODE_MODULES = (REPOSITORY_ROOT / ".tools" / "ext-apps" / "node_modules").resolve()
HOST_PAGE = Path(__file__).resolve().parent / "map_host"
ORIGIN = "http://host.test"
#: Headers the browser adds for its page's origin, which the server (rightly) refuses from a foreign host.
_ORIGIN_HEADERS = frozenset({"host", "origin", "referer"})


def chromium_path() -> str:
    """Debian's Chromium, which install_dev.sh installs; Playwright's own browser builds are never fetched."""
    found = shutil.which("chromium")
    if found is None:
        raise AssertionError("chromium is missing: run scripts/install_dev.sh (it installs Debian's chromium)")
    if not (NODE_MODULES / "@modelcontextprotocol" / "ext-apps").is_dir():
        raise AssertionError(f"{NODE_MODULES} lacks @modelcontextprotocol/ext-apps: run scripts/install_dev.sh")
    return found


#: Free space in /dev/shm from which Chromium may keep its shared memory there, as it does by default.
_ROOMY_SHM = 512 * 1024 * 1024


def _shared_memory_args() -> list[str]:
    """Playwright's ``--disable-dev-shm-usage`` when /dev/shm has room, to be dropped.

    Playwright passes it for containers whose /dev/shm is tiny; Chromium then makes each shared-memory buffer (one
    per response, among others) a file created and deleted in the temporary directory, which costs a page open
    about a tenth of its time where that is a disk rather than memory.
    """
    try:
        shm = os.statvfs("/dev/shm")
    except OSError:
        return []
    return ["--disable-dev-shm-usage"] if shm.f_bavail * shm.f_frsize >= _ROOMY_SHM else []


def launch(playwright: Playwright) -> Browser:
    """Headless Chromium from Debian's package."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, ignore_default_args=_shared_memory_args()
    )


@dataclass
class MapHost:
    """One host page: its Playwright page and every JSON-RPC request it sent to the server."""

    page: Page
    server_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def show(
        self, tool: str, request: dict[str, Any], result: dict[str, Any] | None = None, **host_context: Any
    ) -> dict[str, Any]:
        """Call ``tool`` and show its answer (or ``result``) in the view it links, as a host does; the host's report."""
        report: dict[str, Any] = self.page.evaluate(
            "([tool, args, context, result]) => window.kgfegmcpHost.show(tool, args, context, result)",
            [tool, {"request": request}, host_context, result],
        )
        return report

    @property
    def view(self) -> Frame:
        """The view's frame (the one iframe of the page)."""
        element = self.page.query_selector("iframe")
        frame = element.content_frame() if element is not None else None
        if frame is None:
            raise AssertionError("the host shows no view")
        return frame

    def polled(self, script: str, settled: Callable[[Any], bool], timeout: float = 10_000) -> Any:
        """``script``'s value in the view once ``settled`` by it, else its last value when ``timeout`` ms passed.

        Polled from here: ``wait_for_function`` polls by evaluating a string inside the frame, which the view's
        CSP (no ``unsafe-eval``) refuses whenever the condition does not hold at the first look.
        """
        deadline = time.monotonic() + timeout / 1000
        value = self.view.evaluate(script)
        while not settled(value) and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)
            value = self.view.evaluate(script)
        return value

    def wait_rendered(self, count: int, timeout: float = 30_000) -> None:
        """Until the view has drawn ``count`` answers."""
        script = "() => Number(document.documentElement.dataset.rendered || 0)"
        drawn = self.polled(script, lambda drawn: drawn >= count, timeout)
        if drawn < count:
            raise AssertionError(f"the view drew {drawn} answers, not {count}, within {timeout / 1000:.0f} s")

    def statement_langs(self, timeout: float = 10_000) -> set[str | None]:
        """The ``lang`` of every statement the view shows, once the view has marked them (or ``timeout`` passed);
        a view learns its package's language after drawing."""
        script = "() => [...document.querySelectorAll('[data-statement]')].map((e) => e.getAttribute('lang'))"
        return set(self.polled(script, lambda langs: set(langs) != {""}, timeout))

    def seen(self, method: str, at_least: int = 0, timeout: float = 10_000) -> list[dict[str, Any]]:
        """The params of each ``method`` request (open link, model context, display mode) the view made of the host,
        once there are ``at_least`` of them (or ``timeout`` passed): a click's request reaches the host a message
        later, so reading at once races it."""
        deadline = time.monotonic() + timeout / 1000
        while True:
            seen: list[dict[str, Any]] = self.page.evaluate("window.kgfegmcpHost.seen")
            params = [entry["params"] for entry in seen if entry["method"] == method]
            if len(params) >= at_least or time.monotonic() >= deadline:
                return params
            self.page.wait_for_timeout(50)

    def tool_calls(self) -> list[dict[str, Any]]:
        """The ``tools/call`` params the page sent, in order."""
        return [r["params"] for r in self.requests if r.get("method") == "tools/call"]


def _serve(route: Route, path: Path) -> None:
    if not path.is_file():
        route.fulfill(status=404, body="not found")
        return
    kind = "text/javascript" if path.suffix in (".js", ".mjs") else mimetypes.guess_type(path.name)[0] or "text/plain"
    route.fulfill(status=200, body=path.read_bytes(), headers={"content-type": kind})


@contextmanager
def map_host(
    browser: Browser,
    server_url: str,
    width: int = 1024,
    height: int = 800,
    era: str = "auto",
    resources: str = "proxied",
    features: str = "all",
) -> Iterator[MapHost]:
    """A fresh host page on ``server_url`` (the server's ``/mcp``), ``width`` by ``height`` CSS pixels.

    ``era="legacy"`` makes its client speak 2025-11-25 (capabilities on ``initialize`` only); ``"auto"`` takes
    the newest era the server offers. ``resources="none"``: the host proxies no resource read for its views.
    ``features="none"``: the host offers no link opening, model context or fullscreen display mode;
    ``"decline"``: it offers them and declines each request (an error).
    """
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    host = MapHost(page, server_url)

    def handle(route: Route) -> None:
        request = route.request
        path = urlparse(request.url).path
        if path == "/mcp":
            body = request.post_data
            if body:
                messages = json.loads(body)
                host.requests.extend(messages if isinstance(messages, list) else [messages])
            headers = {k: v for k, v in request.headers.items() if k.lower() not in _ORIGIN_HEADERS}
            route.fulfill(response=route.fetch(url=server_url, headers=headers))
        elif path.startswith("/node_modules/"):
            target = (NODE_MODULES / path.removeprefix("/node_modules/")).resolve()
            _serve(route, target if target.is_relative_to(NODE_MODULES) else NODE_MODULES / "missing")
        elif path in ("/", "/index.html"):
            _serve(route, HOST_PAGE / "index.html")
        else:
            _serve(route, HOST_PAGE / path.lstrip("/"))

    def refuse(route: Route) -> None:
        host.refused.append(route.request.url)
        route.abort()

    context.route("**/*", refuse)
    context.route(f"{ORIGIN}/**", handle)
    page.on("console", lambda message: print(f"[browser {message.type}] {message.text}"))
    page.on("pageerror", lambda error: print(f"[browser error] {error}"))
    try:
        page.goto(f"{ORIGIN}/?era={era}&resources={resources}&features={features}")
        page.wait_for_function("document.documentElement.dataset.ready === 'true'", timeout=60_000)
        yield host
    finally:
        # The view may still be asking (its siblings call follows each hierarchy it draws): a handler
        # fetching as the context closes would fail into the next test's setup.
        context.unroute_all(behavior="ignoreErrors")
        context.close()
