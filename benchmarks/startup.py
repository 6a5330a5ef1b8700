"""Process start → ready on the default catalog, next to the floor: reading and hashing the same bytes.

Run: .venv/bin/python benchmarks/startup.py [--root data/graph_packages] [--repeat 5]

"Ready" is the first answered MCP ``tools/list`` over HTTP on 127.0.0.1. The floor is a fresh Python
process that reads and SHA-256-hashes every file of every package (what no start-up can avoid: the
gate re-checks the bytes of every passed package). A breakdown separates interpreter + imports from
building the AppState (validation gate, graph stores, indexes). Results: benchmarks/results/startup.json.
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
from pathlib import Path
from typing import Any

from fastmcp import Client

from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.default_catalog import build_default_catalog

FLOOR = """
import hashlib, os, sys
for folder, _, files in sorted(os.walk(sys.argv[1])):
    for name in sorted(files):
        with open(os.path.join(folder, name), 'rb') as handle:
            hashlib.sha256(handle.read()).hexdigest()
"""
IMPORTS = "import kgfegmcp.app, kgfegmcp.http_server"
BUILD = """
import sys, time
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.config import load_settings
started = time.perf_counter()
build_app_state(load_settings({"graph_packages_dir": sys.argv[1]}))
print(time.perf_counter() - started)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def wait_ready(url: str, deadline: float) -> None:
    while time.perf_counter() < deadline:
        try:
            async with Client(url, timeout=2) as client:
                await client.list_tools()
                return
        except Exception:
            await asyncio.sleep(0.01)
    raise TimeoutError("server did not become ready")


def time_to_ready(root: Path) -> float:
    port = free_port()
    env = {**os.environ, "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root), "KGFEGMCP_LOG_LEVEL": "WARNING"}
    executable = str(Path(sys.executable).parent / "kgfegmcp")
    started = time.perf_counter()
    process = subprocess.Popen(
        [executable, "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        asyncio.run(wait_ready(f"http://127.0.0.1:{port}/mcp", started + 60))
        return time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=10)


def time_process(code: str, *arguments: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *arguments], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/startup.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root
        if not root.is_dir() or not any(root.iterdir()):
            root = Path(scratch) / "graph_packages"
            build_default_catalog(root, ProfileRepository(Path("config/profiles")))
        samples: dict[str, list[float]] = {"ready": [], "floor": [], "imports": [], "buildAppState": []}
        for _ in range(args.repeat):  # interleaved so machine noise hits every side alike
            samples["floor"].append(time_process(FLOOR, str(root)))
            samples["ready"].append(time_to_ready(root))
            samples["imports"].append(time_process(IMPORTS))
            output = subprocess.run(
                [sys.executable, "-c", BUILD, str(root)], check=True, capture_output=True, text=True
            ).stdout
            samples["buildAppState"].append(float(output.strip()))
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    report: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "catalogBytes": size,
        "repeat": args.repeat,
        **{f"{name}Seconds": round(statistics.median(values), 3) for name, values in samples.items()},
    }
    report["readyOverFloor"] = round(report["readySeconds"] / report["floorSeconds"], 1)
    report["readyMinusImportsOverFloor"] = round(
        (report["readySeconds"] - report["importsSeconds"]) / report["floorSeconds"], 1
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
