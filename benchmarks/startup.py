"""Process start → ready on the default catalog, next to the floor: reading and hashing the same bytes.

Run: .venv/bin/python benchmarks/startup.py [--root data/graph_packages] [--repeat 5]

"Ready" is the first answered MCP ``tools/list`` over HTTP on 127.0.0.1, for ``kgfegmcp serve`` started
three ways: warm (the derived-index cache holds every package), cold (an empty cache, which this start
fills) and uncached (``KGFEGMCP_CACHE_DIR=`` empty). The floor is a fresh Python process that reads and
SHA-256-hashes every file of every package (what no start-up can avoid: the gate re-checks the bytes
of every passed package). Beside it runs the framework's own floor: an empty FastMCP server (no tools,
no catalog) started the same way to its first ``tools/list``, since the design mandates FastMCP. A
breakdown separates what the serve path imports (to the end of the imports, exit excluded), what
importing FastMCP's server alone costs, and building the AppState warm and uncached.
With ``--scale-items N`` (default 100000; 0 skips it) it also generates, validates and seals one
package of N standards, then times ``build_app_state`` on it alone, warm, cold and uncached, next to
that package's own read-and-hash floor: the DESIGN §10 "started warm from a derived-index cache" case.
"First answer" goes one step further, to the first real call (``search_standards``) answered, over HTTP
and over STDIO (spawn, initialize, ``tools/list``, the call: what a host does), next to an empty FastMCP
server started the same way to its first answer (its ``tools/list``). A phase breakdown times, in one
fresh serving process, the imports, ``build_serving_state``, registration and the warm-up.
Results: benchmarks/results/startup.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from kgfegmcp.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.prompts.repository import copy_generic_configs
from kgfegmcp.sources.default_catalog import build_default_catalog

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import generated_package

FLOOR = """
import hashlib, os, sys
for folder, _, files in sorted(os.walk(sys.argv[1])):
    for name in sorted(files):
        with open(os.path.join(folder, name), 'rb') as handle:
            hashlib.sha256(handle.read()).hexdigest()
"""
IMPORTS = "import kgfegmcp.cli, kgfegmcp.app, kgfegmcp.http_server"
FRAMEWORK_IMPORTS = "import fastmcp.server.server"
EMPTY_FASTMCP = """
import sys
from fastmcp import FastMCP
server = FastMCP("empty")
if sys.argv[1] == "stdio":
    server.run(transport="stdio", show_banner=False, log_level="warning")
else:
    server.run(
        transport="http", host="127.0.0.1", port=int(sys.argv[1]), path="/mcp", stateless_http=True,
        show_banner=False, log_level="warning",
    )
"""
#: The first real question a host asks once connected (ours); the empty server can only list its tools.
FIRST_CALL = ("search_standards", {"request": {"query": "frações equivalentes", "limit": 5}})
#: Where a serving process spends its start, phase by phase, in one fresh process (warm cache).
PHASES = """
import json, sys, time
marks = [("start", time.perf_counter())]
import kgfegmcp.cli, kgfegmcp.app, kgfegmcp.http_server
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_serving_state
from kgfegmcp.config import load_settings
from kgfegmcp.mcp.warm_up import warm_up
marks.append(("imports", time.perf_counter()))
state = build_serving_state(load_settings(json.loads(sys.argv[1])))
marks.append(("buildAppState", time.perf_counter()))
server = create_app(state)
marks.append(("registration", time.perf_counter()))
warm_up(server)
marks.append(("warmUp", time.perf_counter()))
print(json.dumps({name: round(t - marks[i][1], 4) for i, (name, t) in enumerate(marks[1:])}))
"""
BUILD = """
import json, sys, time
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.config import load_settings
overrides = json.loads(sys.argv[1])
started = time.perf_counter()
build_app_state(load_settings(overrides))
print(time.perf_counter() - started)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def wait_ready(url: str, deadline: float, first_call: bool = False) -> None:
    """Poll until ``tools/list`` is answered (and, with ``first_call``, the first real call too)."""
    while time.perf_counter() < deadline:
        try:
            async with Client(url, timeout=2) as client:
                await client.list_tools()
                if first_call:
                    tool, arguments = FIRST_CALL
                    await client.call_tool(tool, arguments)
                return
        except Exception:
            await asyncio.sleep(0.01)
    raise TimeoutError("server did not become ready")


def stdio_first_answer(command: list[str], env: dict[str, str], first_call: bool) -> float:
    """Spawn → initialize → ``tools/list`` (→ the first real call) answered over STDIO, as a host does it."""

    async def session() -> float:
        started = time.perf_counter()
        transport = StdioTransport(command=command[0], args=command[1:], env=env)
        async with Client(transport, timeout=60) as client:
            await client.list_tools()
            if first_call:
                tool, arguments = FIRST_CALL
                await client.call_tool(tool, arguments)
            return time.perf_counter() - started

    return asyncio.run(session())


def server_env(root: Path, cache_dir: str) -> dict[str, str]:
    return {
        **os.environ,
        "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root),
        "KGFEGMCP_CACHE_DIR": cache_dir,
        "KGFEGMCP_LOG_LEVEL": "WARNING",
    }


def time_to_first_answer_stdio(root: Path, cache_dir: str) -> float:
    executable = str(Path(sys.executable).parent / "kgfegmcp")
    return stdio_first_answer([executable, "serve", "--transport", "stdio"], server_env(root, cache_dir), True)


def empty_fastmcp_ready_stdio() -> float:
    return stdio_first_answer([sys.executable, "-c", EMPTY_FASTMCP, "stdio"], dict(os.environ), False)


def phases(root: Path, cache_dir: str) -> dict[str, float]:
    """Seconds per start-up phase of a serving process, in a fresh process (see ``PHASES``)."""
    overrides = json.dumps({"graph_packages_dir": str(root), "cache_dir": cache_dir, "log_level": "WARNING"})
    done = subprocess.run([sys.executable, "-c", PHASES, overrides], check=True, capture_output=True, text=True)
    measured: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def time_to_ready(root: Path, cache_dir: str, first_call: bool = False) -> float:
    executable = str(Path(sys.executable).parent / "kgfegmcp")
    return ready_seconds(
        lambda port: [executable, "serve", "--transport", "http", "--port", str(port)],
        server_env(root, cache_dir),
        first_call,
    )


def empty_fastmcp_ready() -> float:
    """The framework's own floor: an empty FastMCP server, stateless HTTP, to its first ``tools/list``."""
    return ready_seconds(lambda port: [sys.executable, "-c", EMPTY_FASTMCP, str(port)], dict(os.environ))


def ready_seconds(command: Callable[[int], list[str]], env: dict[str, str], first_call: bool = False) -> float:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(command(port), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        asyncio.run(wait_ready(f"http://127.0.0.1:{port}/mcp", started + 60, first_call))
        return time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=10)


def build_seconds(root: Path, cache_dir: str, **settings: str) -> float:
    overrides = {"graph_packages_dir": str(root), "cache_dir": cache_dir or None, **settings}
    command = [sys.executable, "-c", BUILD, json.dumps(overrides)]
    return float(subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip())


def time_to_imported(code: str) -> float:
    """Process start → the imports done (exit not included: a big heap takes a while to tear down)."""
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport time\nprint(time.time())"], check=True, capture_output=True, text=True
    )
    return float(done.stdout.strip()) - started


def tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def time_process(code: str, *arguments: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *arguments], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def scale_report(items: int, repeat: int) -> dict[str, Any]:
    """``build_app_state`` on one generated, sealed package of ``items`` standards: warm, cold, uncached."""
    with tempfile.TemporaryDirectory() as scratch:
        world, location = generated_package(Path(scratch), items)
        lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
        if not lifecycle.validate(location).accepted:
            raise SystemExit("the generated package did not validate")
        root = str(world.packages)
        generic_prompts = copy_generic_configs(SHIPPED_PROMPTS_DIR, Path(scratch) / "prompts")
        settings = {"profiles_dir": str(world.profiles_root), "prompts_dir": str(generic_prompts)}
        warm = str(Path(scratch) / "warm-cache")
        build_seconds(world.packages, warm, **settings)
        samples: dict[str, list[float]] = {"floor": [], "warm": [], "cold": [], "uncached": []}
        for round_number in range(repeat):
            samples["floor"].append(time_process(FLOOR, root))
            samples["warm"].append(build_seconds(world.packages, warm, **settings))
            cold = str(Path(scratch) / f"cold-cache-{round_number}")
            samples["cold"].append(build_seconds(world.packages, cold, **settings))
            samples["uncached"].append(build_seconds(world.packages, "", **settings))
        size = tree_bytes(world.packages)
    medians = {name: round(statistics.median(values), 3) for name, values in samples.items()}
    return {
        "items": items,
        "packageBytes": size,
        **{f"{name}Seconds": value for name, value in medians.items()},
        "warmOverFloor": round(medians["warm"] / medians["floor"], 1),
        "uncachedOverWarm": round(medians["uncached"] / medians["warm"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale-items", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/startup.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root
        if not root.is_dir() or not any(root.iterdir()):
            root = Path(scratch) / "graph_packages"
            build_default_catalog(root, ProfileRepository(SHIPPED_PROFILES_DIR))
        warm = str(Path(scratch) / "warm-cache")
        time_to_ready(root, warm)  # fills the warm cache
        samples: dict[str, list[float]] = {
            name: []
            for name in (
                "floor",
                "readyWarm",
                "readyCold",
                "readyUncached",
                "imports",
                "frameworkImports",
                "emptyFastmcpReady",
                "buildAppStateWarm",
                "buildAppStateUncached",
                "firstAnswerWarmHttp",
                "firstAnswerWarmStdio",
                "emptyFastmcpReadyStdio",
            )
        }
        phase_samples: dict[str, list[float]] = {}
        for round_number in range(args.repeat):  # interleaved so machine noise hits every side alike
            samples["floor"].append(time_process(FLOOR, str(root)))
            samples["readyWarm"].append(time_to_ready(root, warm))
            samples["readyCold"].append(time_to_ready(root, str(Path(scratch) / f"cold-cache-{round_number}")))
            samples["readyUncached"].append(time_to_ready(root, ""))
            samples["imports"].append(time_to_imported(IMPORTS))
            samples["frameworkImports"].append(time_to_imported(FRAMEWORK_IMPORTS))
            samples["emptyFastmcpReady"].append(empty_fastmcp_ready())
            samples["buildAppStateWarm"].append(build_seconds(root, warm))
            samples["buildAppStateUncached"].append(build_seconds(root, ""))
            samples["firstAnswerWarmHttp"].append(time_to_ready(root, warm, first_call=True))
            samples["firstAnswerWarmStdio"].append(time_to_first_answer_stdio(root, warm))
            samples["emptyFastmcpReadyStdio"].append(empty_fastmcp_ready_stdio())
            for phase, seconds in phases(root, warm).items():
                phase_samples.setdefault(phase, []).append(seconds)
        size = tree_bytes(root)
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "catalogBytes": size,
        "repeat": args.repeat,
        **{f"{name}Seconds": round(statistics.median(values), 3) for name, values in samples.items()},
    }
    floor = report["floorSeconds"]
    for start in ("Warm", "Cold", "Uncached"):
        report[f"ready{start}OverFloor"] = round(report[f"ready{start}Seconds"] / floor, 1)
    report["readyWarmBeyondEmptyFastmcpOverFloor"] = round(
        (report["readyWarmSeconds"] - report["emptyFastmcpReadySeconds"]) / floor, 1
    )
    report["frameworkImportsOverFloor"] = round(report["frameworkImportsSeconds"] / floor, 1)
    report["emptyFastmcpReadyOverFloor"] = round(report["emptyFastmcpReadySeconds"] / floor, 1)
    report["readyWarmOverEmptyFastmcpReady"] = round(report["readyWarmSeconds"] / report["emptyFastmcpReadySeconds"], 2)
    report["buildAppStateWarmOverFloor"] = round(report["buildAppStateWarmSeconds"] / floor, 1)
    # The goal: the first real answer within 1.5 times an empty FastMCP server's first answer, same transport.
    report["firstAnswerWarmHttpOverEmptyFastmcpReady"] = round(
        report["firstAnswerWarmHttpSeconds"] / report["emptyFastmcpReadySeconds"], 2
    )
    report["firstAnswerWarmStdioOverEmptyFastmcpReadyStdio"] = round(
        report["firstAnswerWarmStdioSeconds"] / report["emptyFastmcpReadyStdioSeconds"], 2
    )
    report["phasesWarmSeconds"] = {name: round(statistics.median(values), 3) for name, values in phase_samples.items()}
    if args.scale_items:
        report["scale"] = scale_report(args.scale_items, args.repeat)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
