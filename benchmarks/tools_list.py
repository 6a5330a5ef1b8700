"""What declaring every tool's outputSchema costs a host: the bytes of `tools/list` and the time from
spawning the STDIO server to its first `tools/list`, for two checkouts side by side.

Run: .venv/bin/python benchmarks/tools_list.py BASELINE_CHECKOUT [--candidate .] [--repeat 7]
         [--root data/graph_packages]

BASELINE_CHECKOUT is another checkout (``git worktree add /tmp/base <commit>``). Both run with this
virtual environment on the same catalog, each with its own warm derived-index cache (filled by one
start first), interleaved run by run so machine noise falls on both alike. A checkout whose profiles
and prompts still live in ``config/`` gets them through the environment. Bytes are the compact JSON of
the listing's result at the newest protocol version the client speaks, and at 2025-03-26, whose
clients are listed no outputSchema. Prints medians and candidate ÷ baseline ratios; results:
benchmarks/results/tools_list.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.types import LATEST_PROTOCOL_VERSION

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY_ROOT / "benchmarks" / "results" / "tools_list.json"
OLD_PROTOCOL = "2025-03-26"


def environment(checkout: Path, root: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    env.update(
        {
            "PYTHONPATH": str(checkout / "src"),
            "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root.resolve()),
            "KGFEGMCP_CACHE_DIR": str(cache),
            "KGFEGMCP_LOG_LEVEL": "WARNING",
        }
    )
    if (checkout / "config" / "profiles").is_dir():  # before the profiles and prompts moved into the package
        env["KGFEGMCP_PROFILES_DIR"] = str(checkout / "config" / "profiles")
        env["KGFEGMCP_PROMPTS_DIR"] = str(checkout / "config" / "prompts")
    return env


async def first_listing(env: dict[str, str]) -> tuple[float, int]:
    """Seconds from spawn to the first `tools/list` answered, and that listing's bytes."""
    started = time.perf_counter()
    transport = StdioTransport(command=sys.executable, args=["-m", "kgfegmcp.stdio_transport.server"], env=env)
    async with Client(transport, init_timeout=600) as client:
        listing = await client.list_tools_mcp()
        elapsed = time.perf_counter() - started
    wire = listing.model_dump(mode="json", by_alias=True, exclude_none=True)
    return elapsed, len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False).encode())


def old_protocol_bytes(env: dict[str, str]) -> int:
    """The listing's bytes for a 2025-03-26 client, over STDIO with the raw JSON-RPC exchange."""
    client = {"name": "tools-list-benchmark", "version": "1"}
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": OLD_PROTOCOL,
                "capabilities": {},
                "clientInfo": client,
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "kgfegmcp.stdio_transport.server"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    for message in messages:
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()
    listing: dict[str, Any] = {}
    for line in process.stdout:
        reply = json.loads(line)
        if reply.get("id") == 2:
            listing = reply["result"]
            break
    process.kill()
    process.wait()
    return len(json.dumps(listing, separators=(",", ":"), ensure_ascii=False).encode())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("--candidate", type=Path, default=REPOSITORY_ROOT)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    arguments = parser.parse_args()
    checkouts = {"baseline": arguments.baseline.resolve(), "candidate": arguments.candidate.resolve()}
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-tools-list-") as scratch:
        envs = {
            name: environment(checkout, arguments.root, Path(scratch) / name) for name, checkout in checkouts.items()
        }
        sizes: dict[str, dict[str, int]] = {}
        for name, env in envs.items():  # fills each cache, so every timed start is warm
            _, latest = asyncio.run(first_listing(env))
            sizes[name] = {LATEST_PROTOCOL_VERSION: latest, OLD_PROTOCOL: old_protocol_bytes(env)}
        seconds: dict[str, list[float]] = {name: [] for name in envs}
        for _ in range(arguments.repeat):
            for name, env in envs.items():
                seconds[name].append(asyncio.run(first_listing(env))[0])
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    report = {
        "checkouts": {name: str(path) for name, path in checkouts.items()},
        "root": str(arguments.root),
        "repeat": arguments.repeat,
        "tools_list_bytes": sizes,
        "spawn_to_first_tools_list_seconds": {name: sorted(values) for name, values in seconds.items()},
        "median_seconds": medians,
        "ratios": {
            "bytes_latest": sizes["candidate"][LATEST_PROTOCOL_VERSION] / sizes["baseline"][LATEST_PROTOCOL_VERSION],
            "bytes_2025_03_26": sizes["candidate"][OLD_PROTOCOL] / sizes["baseline"][OLD_PROTOCOL],
            "first_listing_seconds": medians["candidate"] / medians["baseline"],
        },
    }
    RESULTS.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("tools_list_bytes", "median_seconds", "ratios")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
