"""Clients that pipeline requests and never read the answers, against ``kgfegmcp serve --transport http``,
while a well-behaved client tries to be served.

Run: .venv/bin/python benchmarks/slow_readers.py [--baseline-src PATH] [--root data/graph_packages]
         [--scenario NAME ...] [--tries 10] [--seconds 50]

Each scenario serves the catalog on a free 127.0.0.1 port with default settings (no ``KGFEGMCP_*`` variable
reaches the server but ``KGFEGMCP_CACHE_DIR``, a scratch directory, and the scenario's connection cap when it
names one). Once the server answers, ``connections`` attackers each open a connection with a 4 KiB receive
buffer, send ``pipelined`` requests at once and read nothing; an attacker whose connection the server closes
opens another and starts again, so the attack lasts the whole run. One second later a well-behaved client
makes ``--tries`` calls of ``search_standards``, evenly over ``--seconds``, each on a new connection (a raw
JSON-RPC POST that reads its answer): served is an HTTP 200 carrying a result. Reported per scenario: tries
served, the answers' latencies, how often the server closed an attacker, and the server's WARNING lines.
With ``--baseline-src`` (the ``src`` folder of another checkout, e.g. from ``git archive HEAD src``) every
scenario runs first for that code, then for this checkout's. Linux only. Results:
benchmarks/results/slow_readers.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY_ROOT / "benchmarks" / "results" / "slow_readers.json"
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
SEARCH = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_standards", "arguments": {"request": {"query": "fracoes", "limit": 3}}},
    }
).encode()
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}
CALL_TIMEOUT = 30.0


@dataclass(frozen=True)
class Scenario:
    """An attack: how many non-reading connections, how many requests each pipelines, and the server's cap."""

    name: str
    connections: int
    pipelined: int
    max_connections: int | None  # None: the server's default


SCENARIOS = {
    scenario.name: scenario
    for scenario in (
        # As the review described it: eight connections, each pipelining cheap requests (more answers than the
        # socket buffers hold, so the server's writes stall), against a cap of eight.
        Scenario("8-readers-cap-8", 8, 60_000, 8),
        # The same eight against the default cap (512).
        Scenario("8-readers-default-cap", 8, 60_000, None),
        # As many as the default cap holds, each with enough requests to keep it busy for the whole run.
        Scenario("512-readers-default-cap", 512, 800, None),
    )
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def raise_nofile() -> None:
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def closed(sock: socket.socket) -> bool:
    """Whether the server closed or reset ``sock`` (the kernel's TCP state; nothing is read)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != 1  # 1: established


def attacker(port: int, pipelined: int, stop: threading.Event, counts: dict[str, int], lock: threading.Lock) -> None:
    """Keep one non-reading connection open, with ``pipelined`` requests sent on it; reopen it when closed."""
    burst = HEALTHZ * pipelined
    while not stop.is_set():
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(5)
        try:
            sock.connect(("127.0.0.1", port))
            with lock:
                counts["opened"] += 1
            sock.settimeout(None)
            sent = threading.Thread(target=_send_quietly, args=(sock, burst), daemon=True)
            sent.start()
            while not stop.wait(0.2):
                if closed(sock):
                    with lock:
                        counts["closedByServer"] += 1
                    break
        except OSError:
            stop.wait(0.2)
        finally:
            sock.close()


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):
        sock.sendall(data)


def call(url: str) -> tuple[str, float]:
    """One well-behaved call on a new connection: its outcome and latency."""
    started = time.monotonic()
    request = urllib.request.Request(url, data=SEARCH, headers=HEADERS, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=CALL_TIMEOUT) as answer:  # loopback only
            body = answer.read()
        outcome = "served" if answer.status == 200 and b'"result"' in body else f"HTTP {answer.status}"
    except urllib.error.HTTPError as error:
        outcome = f"HTTP {error.code}"
    except Exception as error:
        outcome = type(error).__name__
    return outcome, time.monotonic() - started


def wait_ready(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and server.poll() is None:
        with contextlib.suppress(OSError), urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as ok:
            if ok.status == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"server did not become ready (exit code {server.poll()})")


def run_scenario(source: Path, scenario: Scenario, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    port = free_port()
    log_path, url = scratch / f"server-{port}.log", f"http://127.0.0.1:{port}/mcp"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}  # defaults only
    env["PYTHONPATH"], env["KGFEGMCP_CACHE_DIR"] = str(source), str(args.cache)
    if scenario.max_connections is not None:
        env["KGFEGMCP_HTTP_MAX_CONNECTIONS"] = str(scenario.max_connections)
    command = [str(Path(sys.executable).parent / "kgfegmcp"), "serve", "--transport", "http"]
    command += ["--port", str(port), "--root", str(args.root)]
    stop, lock = threading.Event(), threading.Lock()
    counts = {"opened": 0, "closedByServer": 0}
    with open(log_path, "wb") as sink:
        server = subprocess.Popen(command, env=env, stdout=sink, stderr=sink, preexec_fn=raise_nofile)
    threads = [
        threading.Thread(target=attacker, args=(port, scenario.pipelined, stop, counts, lock), daemon=True)
        for _ in range(scenario.connections)
    ]
    outcomes: list[tuple[str, float]] = []
    try:
        wait_ready(port, server)
        log_start = log_path.stat().st_size
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the attack is under way
        started = time.monotonic()
        for index in range(args.tries):
            time.sleep(max(0.0, started + index * args.seconds / args.tries - time.monotonic()))
            outcomes.append(call(url))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        server.kill()
        server.wait(30)
    log = log_path.read_bytes()[log_start:].decode(errors="replace")
    served = [seconds for outcome, seconds in outcomes if outcome == "served"]
    return {
        "source": str(source),
        "scenario": scenario.name,
        "connections": scenario.connections,
        "pipelined": scenario.pipelined,
        "maxConnections": scenario.max_connections or "default (512)",
        "tries": len(outcomes),
        "served": len(served),
        "outcomes": [outcome for outcome, _ in outcomes],
        "servedSeconds": {"median": round(statistics.median(served), 3), "max": round(max(served), 3)}
        if served
        else None,
        "attackerConnectionsOpened": counts["opened"],
        "attackerConnectionsClosedByServer": counts["closedByServer"],
        "serverWarnings": sorted({line.split(": ", 1)[-1][:160] for line in log.splitlines() if " WARNING " in line}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), default=None)
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=50.0)
    args = parser.parse_args()
    sources = [*([args.baseline_src] if args.baseline_src else []), REPOSITORY_ROOT / "src"]
    results = []
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-slow-readers-") as scratch:
        args.cache = Path(scratch) / "cache"  # warm after the first start: every run starts alike
        for name in args.scenario or list(SCENARIOS):
            for source in sources:
                result = run_scenario(source.resolve(), SCENARIOS[name], args, Path(scratch))
                print(json.dumps(result), flush=True)
                results.append(result)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
