"""Process start → ready on the default catalog, next to the floor: reading and hashing the same bytes.

Run: .venv/bin/python benchmarks/startup.py [--root data/graph_packages] [--repeat 5] [--first-answer-only]
         [--baseline-src DIR] [--bundle dist/kgfegmcp-0.1.0.mcpb ... [--bundle-repeat 3]]

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
that package's own read-and-hash floor: the "started warm from a derived-index cache" case.
"First answer" goes one step further, to the first real call (``search_standards``) answered, over HTTP
and over STDIO (spawn, initialize, ``tools/list``, the call: what a host does), next to an empty FastMCP
server started the same way to its first answer (its ``tools/list``). A phase breakdown times, in one
fresh serving process, the imports, ``build_serving_state``, registration and the warm-up.
Over HTTP the server is first waited for with a bare TCP connect every 5 ms, then asked once: an MCP
client retrying every 10 ms would take a share of the two cores from the server it waits for. Each
start to its answer also records the CPU time its processes had used by then (Linux ``/proc``): on a
shared machine that varies far less than the wall-clock time.

``--first-answer-only`` times only the first answers (and the phases), for more repeats in the same
time. ``--baseline-src DIR`` also starts another checkout's code (its ``src`` folder, on
``PYTHONPATH`` with this environment) to its first answers, interleaved: before and after in one run.
``--bundle FILE.mcpb`` (repeatable: several bundles interleaved, e.g. before and after) starts the
desktop bundle as a host does (``uv run --directory <unpacked bundle> ...``, the manifest's command
with its variables substituted), unpacked afresh each round with a new user home: the first start
(uv creates the bundle's environment, the derived-index cache is empty) and the second (both exist),
to the first answer over STDIO, next to the empty server. uv reads this machine's uv cache, so no
package is downloaded twice; a first start of each bundle warms it.
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
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import mcp.types as mt
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, InvalidPackagePolicy
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
IMPORTS = "import kgfegmcp.cli, kgfegmcp.app, kgfegmcp.http_transport.server"
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


async def ask_first_call(client: Client[Any]) -> None:
    """Send ``FIRST_CALL`` and wait for its answer.

    Sent below the client's ``call_tool``, which would then check the result against the tool's
    ``outputSchema``: importing and compiling jsonschema in this process (about 50 ms a round), work of
    the client after the answer has arrived, not of the server's start.
    """
    tool, arguments = FIRST_CALL
    request = mt.CallToolRequest(params=mt.CallToolRequestParams(name=tool, arguments=arguments))
    result = await client.session.send_request(request, mt.CallToolResult)
    if result.is_error:
        raise RuntimeError(f"the first call failed: {result.content}")


#: Where a serving process spends its start, phase by phase, in one fresh process (warm cache).
PHASES = """
import json, sys, time
marks = [("start", time.perf_counter())]
import kgfegmcp.cli, kgfegmcp.app, kgfegmcp.http_transport.server
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_serving_state
from kgfegmcp.core.config import load_settings
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
from kgfegmcp.core.config import load_settings
overrides = json.loads(sys.argv[1])
started = time.perf_counter()
build_app_state(load_settings(overrides))
print(time.perf_counter() - started)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, deadline: float) -> None:
    """Wait until something accepts TCP connections on ``port``: a probe that costs next to no CPU."""
    while time.perf_counter() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.005)
    raise TimeoutError("server did not listen")


async def wait_ready(url: str, deadline: float, first_call: bool = False) -> None:
    """Ask until ``tools/list`` is answered (and, with ``first_call``, the first real call too)."""
    while time.perf_counter() < deadline:
        try:
            async with Client(url, timeout=2) as client:
                await client.list_tools()
                if first_call:
                    await ask_first_call(client)
                return
        except Exception:
            await asyncio.sleep(0.01)
    raise TimeoutError("server did not become ready")


class Start(NamedTuple):
    """One start to its answer: wall-clock seconds, and the CPU seconds the server's processes had used by then."""

    seconds: float
    cpu_seconds: float | None  # None where /proc cannot be read


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far, its reaped children's included (Linux ``/proc``);
    ``None`` where unreadable.

    Less sensitive than wall-clock time to what else the machine runs: it counts only what the server did.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def descendant_pids() -> list[int]:
    """The running processes this one started, and those they started (Linux ``/proc``)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = [], [os.getpid()]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def tree_cpu_seconds() -> float | None:
    """CPU seconds of every process this one started (a server, or uv and the server it runs) so far."""
    measured = [process_cpu_seconds(pid) for pid in descendant_pids()]
    return sum(value for value in measured if value is not None) if measured else None


def stdio_first_answer(
    command: list[str], env: dict[str, str], first_call: bool, cwd: str | None = None, init_timeout: float = 60
) -> Start:
    """Spawn → initialize → ``tools/list`` (→ the first real call) answered over STDIO, as a host does it."""

    async def session() -> Start:
        started = time.perf_counter()
        transport = StdioTransport(
            command=command[0], args=command[1:], env=env, cwd=cwd, keep_alive=False, log_file=Path(os.devnull)
        )
        async with Client(transport, timeout=60, init_timeout=init_timeout) as client:
            await client.list_tools()
            if first_call:
                await ask_first_call(client)
            seconds = time.perf_counter() - started
            return Start(seconds, tree_cpu_seconds())

    return asyncio.run(session())


def server_env(root: Path, cache_dir: str, source: Path | None = None) -> dict[str, str]:
    """The serving process's environment; ``source``: run that checkout's ``src`` instead of this one."""
    return {
        **os.environ,
        "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root),
        "KGFEGMCP_CACHE_DIR": cache_dir,
        "KGFEGMCP_LOG_LEVEL": "WARNING",
        **({"PYTHONPATH": str(source)} if source is not None else {}),
    }


def time_to_first_answer_stdio(root: Path, cache_dir: str, source: Path | None = None) -> Start:
    executable = str(Path(sys.executable).parent / "kgfegmcp")
    command = [executable, "serve", "--transport", "stdio"]
    return stdio_first_answer(command, server_env(root, cache_dir, source), True)


def empty_fastmcp_ready_stdio() -> Start:
    return stdio_first_answer([sys.executable, "-c", EMPTY_FASTMCP, "stdio"], dict(os.environ), False)


def phases(root: Path, cache_dir: str) -> dict[str, float]:
    """Seconds per start-up phase of a serving process, in a fresh process (see ``PHASES``)."""
    overrides = json.dumps({"graph_packages_dir": str(root), "cache_dir": cache_dir, "log_level": "WARNING"})
    done = subprocess.run([sys.executable, "-c", PHASES, overrides], check=True, capture_output=True, text=True)
    measured: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def time_to_ready(root: Path, cache_dir: str, first_call: bool = False, source: Path | None = None) -> Start:
    executable = str(Path(sys.executable).parent / "kgfegmcp")
    return ready_seconds(
        lambda port: [executable, "serve", "--transport", "http", "--port", str(port)],
        server_env(root, cache_dir, source),
        first_call,
    )


def empty_fastmcp_ready() -> Start:
    """The framework's own floor: an empty FastMCP server, stateless HTTP, to its first ``tools/list``."""
    return ready_seconds(lambda port: [sys.executable, "-c", EMPTY_FASTMCP, str(port)], dict(os.environ))


def ready_seconds(command: Callable[[int], list[str]], env: dict[str, str], first_call: bool = False) -> Start:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(command(port), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, started + 60)
        asyncio.run(wait_ready(f"http://127.0.0.1:{port}/mcp", started + 60, first_call))
        return Start(time.perf_counter() - started, process_cpu_seconds(process.pid))
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


#: Variables that would point the bundle's process at this checkout instead of what the bundle holds.
CHECKOUT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")


def uv_executable() -> str:
    """uv, as the dev extra installs it into this environment (a host finds it on its PATH)."""
    local = Path(sys.executable).with_name("uv")
    if not local.exists():
        raise SystemExit("--bundle needs uv: scripts/install_dev.sh installs it")
    return str(local)


def bundle_host(bundle: Path, folder: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    """Unpack ``bundle`` into ``folder``; the command and environment a desktop host starts it with.

    The manifest's ``mcp_config`` with ``${__dirname}`` and each ``${user_config.*}`` (its default)
    substituted; a user whose data and cache directories are new (under ``home``), so the derived-index
    cache starts empty; this machine's uv cache and Python, so nothing is downloaded twice.
    """
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    config = manifest["server"]["mcp_config"]
    values = {"${__dirname}": str(folder)}
    for key, option in manifest.get("user_config", {}).items():
        values[f"${{user_config.{key}}}"] = str(option.get("default", ""))

    def substitute(argument: str) -> str:
        for variable, value in values.items():
            argument = argument.replace(variable, value)
        return argument

    uv = uv_executable()
    cache = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("KGFEGMCP_") and key not in CHECKOUT_VARIABLES
    }
    env.update(
        {
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "UV_CACHE_DIR": cache,
            "UV_PYTHON_DOWNLOADS": "never",
            "PATH": f"{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}",
            **config.get("env", {}),
        }
    )
    return [config["command"], *(substitute(argument) for argument in config["args"])], env


def bundle_starts(bundle: Path) -> tuple[Start, Start]:
    """A freshly unpacked bundle's first start to its first answer, then its second."""
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        command, env = bundle_host(bundle, Path(scratch) / "kgfegmcp", home)
        first = stdio_first_answer(command, env, True, cwd=str(home), init_timeout=900)
        second = stdio_first_answer(command, env, True, cwd=str(home), init_timeout=900)
    return first, second


def bundle_report(bundles: list[Path], repeat: int) -> list[dict[str, Any]]:
    """Each bundle's first and second start to the first answer, rounds interleaved, beside an empty FastMCP server."""
    for bundle in bundles:
        bundle_starts(bundle)  # fills this machine's uv cache, so the rounds time no download
    empty: list[Start] = []
    starts: dict[Path, dict[str, list[Start]]] = {bundle: {"first": [], "second": []} for bundle in bundles}
    for _ in range(repeat):
        empty.append(empty_fastmcp_ready_stdio())
        for bundle in bundles:
            first, second = bundle_starts(bundle)
            starts[bundle]["first"].append(first)
            starts[bundle]["second"].append(second)
    reports = []
    for bundle in bundles:
        samples = {**starts[bundle], "empty": empty}
        report: dict[str, Any] = {"bundle": str(bundle), "repeat": repeat}
        for unit in ("Seconds", "CpuSeconds"):
            values = {
                name: [start.seconds if unit == "Seconds" else start.cpu_seconds for start in series]
                for name, series in samples.items()
            }
            if any(value is None for series in values.values() for value in series):
                continue
            medians = {name: round(statistics.median(series), 3) for name, series in values.items()}
            cpu = "Cpu" if unit == "CpuSeconds" else ""
            report[f"firstStart{unit}"] = medians["first"]
            report[f"secondStart{unit}"] = medians["second"]
            report[f"emptyFastmcpReadyStdio{unit}"] = medians["empty"]
            report[f"firstStart{cpu}OverEmptyFastmcpReadyStdio"] = round(medians["first"] / medians["empty"], 2)
            report[f"secondStart{cpu}OverEmptyFastmcpReadyStdio"] = round(medians["second"] / medians["empty"], 2)
        report["samples"] = {name: [round(start.seconds, 3) for start in series] for name, series in samples.items()}
        reports.append(report)
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale-items", type=int, default=100_000)
    parser.add_argument("--first-answer-only", action="store_true", help="time only the first answers and phases")
    parser.add_argument("--baseline-src", type=Path, help="another checkout's src folder, timed beside this one")
    parser.add_argument(
        "--bundle", type=Path, action="append", default=[], help="an .mcpb: its first and second start (repeatable)"
    )
    parser.add_argument("--bundle-repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/startup.json"))
    args = parser.parse_args()
    measures = [
        "firstAnswerWarmHttp",
        "emptyFastmcpReady",
        "firstAnswerWarmStdio",
        "emptyFastmcpReadyStdio",
    ]
    if args.baseline_src is not None:
        measures += ["baselineFirstAnswerWarmHttp", "baselineFirstAnswerWarmStdio"]
    if not args.first_answer_only:
        measures += [
            "floor",
            "readyWarm",
            "readyCold",
            "readyUncached",
            "imports",
            "frameworkImports",
            "buildAppStateWarm",
            "buildAppStateUncached",
        ]
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root
        if not root.is_dir() or not any(root.iterdir()):
            root = Path(scratch) / "graph_packages"
            build_default_catalog(root, ProfileRepository(SHIPPED_PROFILES_DIR))
        warm = str(Path(scratch) / "warm-cache")
        time_to_ready(root, warm)  # fills the warm cache
        baseline_warm = str(Path(scratch) / "baseline-warm-cache")
        if args.baseline_src is not None:
            time_to_ready(root, baseline_warm, source=args.baseline_src)  # the baseline's own cache entries
        measure: dict[str, Callable[[int], float | Start]] = {
            "floor": lambda _: time_process(FLOOR, str(root)),
            "readyWarm": lambda _: time_to_ready(root, warm),
            "readyCold": lambda n: time_to_ready(root, str(Path(scratch) / f"cold-cache-{n}")),
            "readyUncached": lambda _: time_to_ready(root, ""),
            "imports": lambda _: time_to_imported(IMPORTS),
            "frameworkImports": lambda _: time_to_imported(FRAMEWORK_IMPORTS),
            "emptyFastmcpReady": lambda _: empty_fastmcp_ready(),
            "buildAppStateWarm": lambda _: build_seconds(root, warm),
            "buildAppStateUncached": lambda _: build_seconds(root, ""),
            "firstAnswerWarmHttp": lambda _: time_to_ready(root, warm, first_call=True),
            "firstAnswerWarmStdio": lambda _: time_to_first_answer_stdio(root, warm),
            "emptyFastmcpReadyStdio": lambda _: empty_fastmcp_ready_stdio(),
            "baselineFirstAnswerWarmHttp": lambda _: time_to_ready(
                root, baseline_warm, first_call=True, source=args.baseline_src
            ),
            "baselineFirstAnswerWarmStdio": lambda _: time_to_first_answer_stdio(
                root, baseline_warm, args.baseline_src
            ),
        }
        samples: dict[str, list[float]] = {name: [] for name in measures}
        cpu_samples: dict[str, list[float]] = {}
        phase_samples: dict[str, list[float]] = {}
        for round_number in range(args.repeat):  # interleaved so machine noise hits every side alike
            for name in measures:
                measured = measure[name](round_number)
                if isinstance(measured, Start):
                    samples[name].append(measured.seconds)
                    if measured.cpu_seconds is not None:
                        cpu_samples.setdefault(name, []).append(measured.cpu_seconds)
                else:
                    samples[name].append(measured)
            for phase, seconds in phases(root, warm).items():
                phase_samples.setdefault(phase, []).append(seconds)
        size = tree_bytes(root)
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "catalogBytes": size,
        "repeat": args.repeat,
        **{f"{name}Seconds": round(statistics.median(values), 3) for name, values in samples.items()},
        # The server process's own CPU time by its answer: less sensitive to the rest of a shared machine.
        **{f"{name}CpuSeconds": round(statistics.median(values), 3) for name, values in cpu_samples.items()},
    }
    # The goal: the first real answer within 1.5 times an empty FastMCP server's first answer, same transport.
    for answer, empty in (
        ("firstAnswerWarmHttp", "EmptyFastmcpReady"),
        ("firstAnswerWarmStdio", "EmptyFastmcpReadyStdio"),
        ("baselineFirstAnswerWarmHttp", "EmptyFastmcpReady"),
        ("baselineFirstAnswerWarmStdio", "EmptyFastmcpReadyStdio"),
    ):
        for unit in ("Seconds", "CpuSeconds"):
            empty_name = f"{empty[0].lower()}{empty[1:]}{unit}"
            if f"{answer}{unit}" in report and empty_name in report:
                ratio = report[f"{answer}{unit}"] / report[empty_name]
                report[f"{answer}{'Cpu' if unit == 'CpuSeconds' else ''}Over{empty}"] = round(ratio, 2)
    report["samples"] = {name: [round(value, 3) for value in values] for name, values in samples.items()}
    if not args.first_answer_only:
        floor = report["floorSeconds"]
        for start in ("Warm", "Cold", "Uncached"):
            report[f"ready{start}OverFloor"] = round(report[f"ready{start}Seconds"] / floor, 1)
        report["readyWarmBeyondEmptyFastmcpOverFloor"] = round(
            (report["readyWarmSeconds"] - report["emptyFastmcpReadySeconds"]) / floor, 1
        )
        report["frameworkImportsOverFloor"] = round(report["frameworkImportsSeconds"] / floor, 1)
        report["emptyFastmcpReadyOverFloor"] = round(report["emptyFastmcpReadySeconds"] / floor, 1)
        report["readyWarmOverEmptyFastmcpReady"] = round(
            report["readyWarmSeconds"] / report["emptyFastmcpReadySeconds"], 2
        )
        report["buildAppStateWarmOverFloor"] = round(report["buildAppStateWarmSeconds"] / floor, 1)
    report["phasesWarmSeconds"] = {name: round(statistics.median(values), 3) for name, values in phase_samples.items()}
    if args.bundle:
        report["bundles"] = bundle_report(args.bundle, args.bundle_repeat)
    if args.scale_items and not args.first_answer_only:
        report["scale"] = scale_report(args.scale_items, args.repeat)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
