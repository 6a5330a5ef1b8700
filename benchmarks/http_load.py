"""Many MCP clients at once through a real nginx balancer: throughput, latency, memory and descriptors over time.

Run: .venv/bin/python benchmarks/http_load.py [--quick] [--clients 32] [--duration 60] [--runs 10] [--warmup 15]
         [--replicas 1] [--server-cpus 0] [--client-cpu 1] [--ops search_standards,...] [--server-src PATH]
         [--server-env NAME=VALUE ...] [--no-noop] [--label TEXT] [--out PATH] [--pid-file PATH]

nginx (``/usr/sbin/nginx``, one worker) runs from a generated ``nginx.conf`` in a scratch directory whose
``http {}`` holds ``upstream kgfegmcp { server 127.0.0.1:PORT; … keepalive 32; }`` and then includes the
site file ``deploy/nginx/kgfegmcp.conf`` verbatim (so it listens on port 80, which must be free). Behind it,
``kgfegmcp serve --transport http`` on 127.0.0.1 (``--replicas`` processes) with the default catalog, its own
scratch derived-index cache, static-token authentication (a random token; the server holds its SHA-256) and
``KGFEGMCP_HTTP_ALLOWED_HOSTS`` naming the Host the clients send, which nginx forwards. Each replica runs
under ``taskset -c --server-cpus``; this process (the load generator) and nginx are pinned to ``--client-cpu``.

``--clients`` concurrent clients, each one kept-alive HTTP/1.1 connection to nginx, send stateless
Streamable HTTP JSON-RPC POSTs (``MCP-Protocol-Version: 2025-06-18``, no ``initialize``: the server is
stateless) for ``--duration`` seconds, and read every answer whole (server-sent events, chunked). The
client is a few dozen lines over asyncio streams rather than an HTTP library, so that it costs the
client core as little as possible; its CPU share is reported next to the server's and nginx's, so a
saturated client would show. Each client takes the operations in turn: ``search_standards`` (the
89 teacher queries), ``get_standard``, ``get_standard_context`` and ``traverse_learning_progressions``
(directions out, in and both in turn, from every standard with a stored link), and ``resources/read`` of
a standard's ``kgfegmcp://…/standard/<nodeId>``, each over real ids of the default catalog, each
request first answered in process by the services so that every one is a request the server answers.
A call counts as failed for any HTTP status but 200, a JSON-RPC error, a tool result with ``isError``,
a resource result without contents, a timeout or a broken connection (counted by kind).

Phases, all in one invocation:

1. **noop**: ``benchmarks/noop_server.py`` (one FastMCP tool returning a short string, same FastMCP,
   same stateless HTTP, same uvicorn) behind the same nginx, on the same core, driven by the same
   clients calling ``noop``: warm-up, then one measured run. The framework's floor.
2. **ours**: one server process for everything: its RSS (``VmRSS``) and open descriptors
   (``/proc/PID/fd``) when ready, after ``--warmup`` seconds of load, and after each of ``--runs``
   measured runs of ``--duration`` seconds, plus the peak (``VmHWM``).
3. **noop** again, so that a machine busier in one half of the hour than the other shows.

Throughput ratio = our median calls/s over the runs ÷ the mean of the two noop runs; beside it the same
ratio from the server's CPU time per answered call (``/proc/PID/stat``), steadier on a shared machine,
where the server may wait for its core. ``--quick`` is a smoke run (8 s runs, 2 of them, 3 s warm-up).
``--server-src`` serves another checkout's ``src`` (with this checkout's load and ids). ``--server-env``
adds variables to every server's environment, ours and the noop's (for example ``MALLOC_ARENA_MAX=2``, or
``KGFEGMCP_HTTP_JSON_RESPONSE=true`` and ``FASTMCP_JSON_RESPONSE=true`` together for plain JSON answers
instead of SSE: ours reads the first, the noop the second). ``--ops`` narrows the mix (one
operation alone shows what it does to memory).
Linux only; run as root or with port 80 bindable. Results: benchmarks/results/http_load.json.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import secrets
import shutil
import subprocess
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from http_load_client import PROTOCOL_VERSION, drive
from http_load_procfs import memory_of
from http_load_report import RunStats, operation_latencies, print_run, print_summary, summarise
from http_load_servers import BALANCER_PORT, NGINX, NOOP, PUBLIC_HOST, REPOSITORY_ROOT, port_in_use, start_phase
from http_load_workload import OPERATIONS, Plan, build_workload, rpc

RESULTS = REPOSITORY_ROOT / "benchmarks" / "results" / "http_load.json"


def run_phase(
    kind: str, args: argparse.Namespace, scratch: Path, workload: dict[str, list[bytes]], token: str, runs: int
) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """Start ``kind``, warm it up, measure ``runs`` runs on that one process, stop it.

    Returns the phase's report and every measured latency per operation (for percentiles over all runs).
    """
    headers = {
        "Host": PUBLIC_HOST,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL_VERSION,
    }
    if kind != NOOP:
        headers["Authorization"] = f"Bearer {token}"
    head = (
        "POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "Content-Length: "
    ).encode()
    # The no-op tool takes no arguments at all.
    plan = Plan({NOOP: [rpc("tools/call", {"name": NOOP, "arguments": {}})]} if kind == NOOP else workload)
    served = start_phase(kind, args, scratch, token, headers)
    phase: dict[str, Any] = {"kind": kind, "pids": served.pids}
    merged: dict[str, list[float]] = {}
    try:
        if args.pid_file is not None:
            args.pid_file.write_text(" ".join(map(str, served.pids)) + "\n", encoding="ascii")
        phase["atStart"] = memory_of(served.pids)
        warm = RunStats("warm-up")
        asyncio.run(drive(served, plan, head, args, warm, args.warmup))
        warm.memory = memory_of(served.pids)
        phase["warmUp"] = warm.report()
        print_run(kind, warm)
        phase["runs"] = []
        for number in range(1, runs + 1):
            stats = RunStats(f"run {number}")
            asyncio.run(drive(served, plan, head, args, stats, args.duration))
            stats.memory = memory_of(served.pids)
            phase["runs"].append(stats.report())
            for operation, values in stats.latencies.items():
                merged.setdefault(operation, []).extend(values)
            print_run(kind, stats)
        phase["atEnd"] = memory_of(served.pids)
        phase["serverLogTail"] = [log.read_text(errors="replace").splitlines()[-3:] for log in served.logs]
    finally:
        served.stop()
        if args.pid_file is not None:
            args.pid_file.unlink(missing_ok=True)
    return phase, merged


def main() -> None:
    """Parse the options, build the workload, run noop → ours → noop, print and write the results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per measured run")
    parser.add_argument("--runs", type=int, default=10, help="measured runs on one server process")
    parser.add_argument("--warmup", type=float, default=15.0, help="seconds of load before the first run")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 runs of 8 s, 3 s warm-up")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--server-cpus", default="0", help="taskset list for every replica")
    parser.add_argument("--client-cpu", type=int, default=1, help="core of this process and nginx")
    parser.add_argument("--ops", default=",".join(OPERATIONS), help="comma-separated subset of the mix")
    parser.add_argument("--server-src", type=Path, help="serve another checkout's src folder")
    parser.add_argument(
        "--server-env", action="append", default=[], help="NAME=VALUE for every server, ours and the noop (repeatable)"
    )
    parser.add_argument("--no-noop", action="store_true", help="skip the two noop phases")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--pid-file", type=Path, help="write the serving replicas' pids here while they run")
    args = parser.parse_args()
    if args.quick:
        args.duration, args.runs, args.warmup = 8.0, 2, 3.0
    args.root = args.root.resolve()
    if args.server_src is not None:
        args.server_src = args.server_src.resolve()
    operations = [name for name in args.ops.split(",") if name]
    unknown = sorted(set(operations) - set(OPERATIONS))
    if unknown:
        parser.error(f"unknown operations {unknown}; choose from {', '.join(OPERATIONS)}")
    if shutil.which("taskset") is None or not Path(NGINX).exists():
        raise SystemExit("needs taskset and nginx (apt-get install util-linux nginx-light)")
    if port_in_use(BALANCER_PORT):
        raise SystemExit(f"something already listens on port {BALANCER_PORT}; the site file's nginx needs it")
    token = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="http_load-") as scratch_name:
        scratch = Path(scratch_name)
        workload = {name: bodies for name, bodies in build_workload(args.root, args.seed, scratch).items()}
        workload = {name: workload[name] for name in operations}
        gc.collect()
        gc.freeze()  # the workload's catalog is garbage now; what is left never needs rescanning
        os.sched_setaffinity(0, {args.client_cpu})
        print(
            f"{args.clients} clients, {args.runs} runs of {args.duration:g} s after {args.warmup:g} s warm-up, "
            f"{args.replicas} replica(s) on cpu {args.server_cpus}, client and nginx on cpu {args.client_cpu}; "
            f"requests per operation: {', '.join(f'{k} {len(v)}' for k, v in workload.items())}",
            flush=True,
        )
        phases: dict[str, Any] = {}
        merged: dict[str, dict[str, list[float]]] = {}
        order = [("ours", "ours", args.runs)]
        if not args.no_noop:
            order = [("noopBefore", NOOP, 1), *order, ("noopAfter", NOOP, 1)]
        for name, kind, runs in order:
            phases[name], merged[name] = run_phase(kind, args, scratch, workload, token, runs)
    summary = summarise(phases)
    summary["operations"] = operation_latencies(merged)
    print_summary(summary, merged, args.runs)
    report = {
        "label": args.label,
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpuCount": os.cpu_count(),
            "fastmcp": version("fastmcp"),
            "mcp": version("mcp"),
            "uvicorn": version("uvicorn"),
            "nginx": subprocess.run([NGINX, "-v"], capture_output=True, text=True, check=False).stderr.strip(),
        },
        "summary": summary,
        "phases": phases,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
