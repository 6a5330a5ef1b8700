"""A flood of silent HTTP connections against ``kgfegmcp serve --transport http``, while a real client calls.

Run: .venv/bin/python benchmarks/idle_connections.py [--baseline-src PATH] [--root data/graph_packages]
         [--connections 20020] [--workers 4] [--hold-seconds 15] [--server-nofile 20000] [--call-timeout 60]

The server runs on a free 127.0.0.1 port with ``RLIMIT_NOFILE`` set to ``--server-nofile`` (at most
the hard limit) and default settings: no ``KGFEGMCP_*`` variable reaches it but ``KGFEGMCP_CACHE_DIR``
(a scratch directory). Once it answers, ``--workers`` processes open ``--connections`` connections,
send nothing, and hold them ``--hold-seconds`` once all are open; each then counts those the server
closed (a non-blocking ``recv`` sees EOF or a reset). Meanwhile a new ``fastmcp.Client`` calls
``search_standards`` about once a second, each call bounded by ``--call-timeout``, and the server's
descriptors (``/proc/PID/fd``) are sampled every 0.5 s. Reported: the server's descriptors 2 s after
all connections are open and at the peak, each call's latency or outcome, connections closed, and what
the server wrote (stdout and stderr) from the flood's start, in bytes and lines (and how many of
them are lines about the client's own requests: uvicorn's access lines before, one ``kgfegmcp.request``
line per MCP request since). A server that never closes a silent connection times a call out only if
the flood is held longer than ``--call-timeout``.
With ``--baseline-src`` (the ``src`` folder of another checkout, for example after ``git worktree add
/tmp/base <commit>``) the scenario runs first for that code, then for this checkout's ``src``.
Linux only. Results: benchmarks/results/idle_connections.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastmcp import Client

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY_ROOT / "benchmarks" / "results" / "idle_connections.json"
ARGUMENTS = {"request": {"query": "fracoes", "limit": 3}}
CONNECT_TIMEOUT = 5.0
ACCESS = 'HTTP/1.1" '  # in each line of uvicorn's access log (DEBUG since the per-request line)
REQUEST_LINE = " kgfegmcp.request: "  # in each per-request line
OPEN_SECONDS = 120.0  # a worker stops opening connections after this long
SETTLE_SECONDS = 2.0  # the server's descriptors are counted this long after all connections are open
_all_opened: Any = None  # a Barrier shared by the workers (set by the pool's initializer)


def raise_nofile(wanted: int | None = None) -> None:
    """Set this process's soft descriptor limit to ``wanted`` (default: the hard limit), never above the hard one."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard if wanted is None else min(wanted, hard), hard))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        while sock.recv(65536):  # whatever the server answered (a 503) comes before the close
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def share_barrier(barrier: Any) -> None:
    global _all_opened
    _all_opened = barrier


def hold_silent(port: int, server_pid: int, count: int, hold_seconds: float) -> dict[str, float]:
    """One worker: open ``count`` connections (stop at the first that fails), send nothing; once every worker
    has opened its own, hold them ``hold_seconds`` (the first one through counts the server's descriptors
    after :data:`SETTLE_SECONDS`), then count those the server closed."""
    raise_nofile()
    sockets: list[socket.socket] = []
    started = time.monotonic()
    try:
        while len(sockets) < count and time.monotonic() - started < OPEN_SECONDS:
            sock = socket.socket()
            sock.settimeout(CONNECT_TIMEOUT)
            try:
                sock.connect(("127.0.0.1", port))
            except OSError:
                sock.close()
                break
            sockets.append(sock)
        opening, descriptors, settle = time.monotonic() - started, -1, min(SETTLE_SECONDS, hold_seconds)
        first = False
        with contextlib.suppress(threading.BrokenBarrierError):
            first = _all_opened.wait(OPEN_SECONDS + CONNECT_TIMEOUT) == 0
        time.sleep(settle)
        if first:
            descriptors = len(os.listdir(f"/proc/{server_pid}/fd"))
        time.sleep(hold_seconds - settle)
        closed = sum(map(closed_by_server, sockets))
        return {"opened": len(sockets), "closed": closed, "openSeconds": opening, "descriptors": descriptors}
    finally:
        for sock in sockets:
            sock.close()


async def wait_ready(url: str, server: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline and server.poll() is None:
        try:
            async with Client(url, timeout=2) as client:
                await client.list_tools()
                return
        except Exception:
            await asyncio.sleep(0.1)
    raise RuntimeError(f"server did not become ready (exit code {server.poll()})")


async def call_while(url: str, busy: Callable[[], bool], call_timeout: float, t0: float) -> list[dict[str, Any]]:
    """Call ``search_standards`` about once a second, each in a new client, until ``busy()`` is false."""
    calls: list[dict[str, Any]] = []
    while busy():
        started = time.monotonic()
        call: dict[str, Any] = {"at": round(started - t0, 1)}
        try:
            async with asyncio.timeout(call_timeout), Client(url, timeout=call_timeout) as client:
                await client.call_tool("search_standards", ARGUMENTS)
            call["outcome"] = "answered"
        except TimeoutError:
            call["outcome"] = "timeout"
        except Exception as exc:
            call["outcome"] = f"{type(exc).__name__}: {exc} (cause: {exc.__cause__!r})"[:240]
        calls.append({**call, "seconds": round(time.monotonic() - started, 3)})
        await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
    return calls


def sample_descriptors(pid: int, busy: Callable[[], bool], stop: threading.Event, samples: list[int]) -> None:
    while not stop.wait(0.5) and busy():
        try:
            samples.append(len(os.listdir(f"/proc/{pid}/fd")))
        except OSError:
            return


def run_scenario(source: Path, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    """Serve ``source``'s code over HTTP, flood it with silent connections while a client calls, measure."""
    port = free_port()
    log_path, url = scratch / f"server-{port}.log", f"http://127.0.0.1:{port}/mcp"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}  # defaults only
    env["PYTHONPATH"], env["KGFEGMCP_CACHE_DIR"] = str(source), str(scratch / f"cache-{port}")
    command = [str(Path(sys.executable).parent / "kgfegmcp"), "serve", "--transport", "http"]
    command += ["--port", str(port), "--root", str(args.root)]
    shares = [args.connections // args.workers + (i < args.connections % args.workers) for i in range(args.workers)]
    samples: list[int] = []
    stop = threading.Event()
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            command, env=env, stdout=log, stderr=log, preexec_fn=lambda: raise_nofile(args.server_nofile)
        )
    fork = multiprocessing.get_context("fork")
    pool = fork.Pool(args.workers, initializer=share_barrier, initargs=(fork.Barrier(args.workers),))
    try:
        asyncio.run(wait_ready(url, server, time.monotonic() + 180))
        log_start = log_path.stat().st_size  # what start-up logged is not counted
        flood_started = time.monotonic()
        flood = pool.starmap_async(hold_silent, [(port, server.pid, share, args.hold_seconds) for share in shares])
        sampler_args = (server.pid, lambda: not flood.ready(), stop, samples)
        threading.Thread(target=sample_descriptors, args=sampler_args, daemon=True).start()
        calls = asyncio.run(call_while(url, lambda: not flood.ready(), args.call_timeout, flood_started))
        held = flood.get(timeout=OPEN_SECONDS + 60)
        flood_seconds = time.monotonic() - flood_started
    finally:
        stop.set()
        pool.terminate()
        pool.join()
        server.kill()
        server.wait(30)
    data = log_path.read_bytes()[log_start:]
    answered = [call["seconds"] for call in calls if call["outcome"] == "answered"]
    return {
        "source": str(source),
        "serverDescriptorsPeak": max(samples, default=None),
        "serverDescriptorsHeld": max(int(worker["descriptors"]) for worker in held),  # SETTLE_SECONDS after all open
        "calls": len(calls),
        "callsAnswered": len(answered),
        "callsTimedOut": sum(call["outcome"] == "timeout" for call in calls),
        "answeredSeconds": {"min": min(answered), "median": statistics.median(answered), "max": max(answered)}
        if answered
        else None,
        "silentOpened": sum(int(worker["opened"]) for worker in held),
        "silentClosedByServer": sum(int(worker["closed"]) for worker in held),
        "openSeconds": round(max(worker["openSeconds"] for worker in held), 2),
        "serverLogBytes": len(data),
        "serverLogLines": data.count(b"\n"),
        "serverLogAccessLines": data.count(ACCESS.encode()),  # uvicorn's access log of the client's own requests
        "serverLogRequestLines": data.count(REQUEST_LINE.encode()),  # the same, as our per-request lines
        "serverLogHead": [
            line[:240]
            for line in data.decode(errors="replace").splitlines()
            if ACCESS not in line and REQUEST_LINE not in line
        ][:6],
        "floodSeconds": round(flood_seconds, 1),
        "serverDescriptorSamples": samples,
        "callLog": calls,
    }


def describe(run: dict[str, Any]) -> dict[str, str]:
    spread = run["answeredSeconds"]
    return {
        "server descriptors": f"{run['serverDescriptorsHeld']} held, peak {run['serverDescriptorsPeak']}",
        "client calls answered": f"{run['callsAnswered']}/{run['calls']} ({run['callsTimedOut']} timed out, "
        f"{run['calls'] - run['callsAnswered'] - run['callsTimedOut']} failed)",
        "answered in (s)": f"{spread['min']:.2f} to {spread['max']:.2f}" if spread else "-",
        "silent closed/opened": f"{run['silentClosedByServer']}/{run['silentOpened']}",
        "server log": f"{run['serverLogBytes']:,} B, {run['serverLogLines']:,} lines in {run['floodSeconds']} s",
        "  of which access lines": f"{run['serverLogAccessLines']:,}",
        "  of which request lines": f"{run.get('serverLogRequestLines', 0):,}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-src", type=Path, help="the src folder of a baseline checkout, run first")
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--connections", type=int, default=20020)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--hold-seconds", type=float, default=15.0)
    parser.add_argument("--server-nofile", type=int, default=20000)
    parser.add_argument("--call-timeout", type=float, default=60.0)
    args = parser.parse_args()
    args.root = args.root.resolve()
    raise_nofile()
    sources = {"candidate": REPOSITORY_ROOT / "src"}
    if args.baseline_src is not None:
        sources = {"baseline": args.baseline_src.resolve(), **sources}
    with tempfile.TemporaryDirectory() as scratch:
        runs = {name: run_scenario(source, args, Path(scratch)) for name, source in sources.items()}
    rows = {name: describe(run) for name, run in runs.items()}
    print(
        f"{args.connections} silent connections from {args.workers} processes, held {args.hold_seconds} s; "
        f"server RLIMIT_NOFILE {min(args.server_nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1])}"
    )
    print(f"{'':27}" + "".join(f"{name:>42}" for name in rows))
    for label in next(iter(rows.values())):
        print(f"{label:27}" + "".join(f"{row[label]:>42}" for row in rows.values()))
    settings = {key: str(value) if isinstance(value, Path) else value for key, value in vars(args).items()}
    report = {"settings": settings, "cpuCount": os.cpu_count(), "runs": runs}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(REPOSITORY_ROOT)}")


if __name__ == "__main__":
    main()
