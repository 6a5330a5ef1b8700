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
import contextlib
import gc
import hashlib
import itertools
import json
import os
import platform
import random
import resource
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

from kgfegmcp.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY_ROOT / "tests" / "e2e"))

from balancer import nginx_conf  # noqa: E402  (the nginx.conf the multi-host test runs too)

RESULTS = REPOSITORY_ROOT / "benchmarks" / "results" / "http_load.json"
NOOP_SERVER = REPOSITORY_ROOT / "benchmarks" / "noop_server.py"
TEACHER_QUERIES = REPOSITORY_ROOT / "benchmarks" / "queries" / "teacher_queries.json"
NGINX = "/usr/sbin/nginx"
BALANCER_PORT = 80  # the site file's ``listen 80``
PUBLIC_HOST = "curriculum.bench.example"  # the Host clients send and nginx forwards
PROTOCOL_VERSION = "2025-06-18"
OPERATIONS = (
    "search_standards",
    "get_standard",
    "get_standard_context",
    "traverse_learning_progressions",
    "resources/read",
)
NOOP = "noop"
PER_OPERATION = 400  # distinct requests per operation (at most), drawn with --seed
CALL_TIMEOUT = 30.0
START_TIMEOUT = 120.0
SAMPLE_SECONDS = 5.0  # RSS curve resolution during a run


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (as the other benchmarks compute it)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


# -- the workload -------------------------------------------------------------------------------


def rpc(method: str, params: dict[str, Any]) -> bytes:
    """One JSON-RPC request body (id 1: every stateless exchange stands alone)."""
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def tool_call(name: str, request: dict[str, Any]) -> bytes:
    """A ``tools/call`` body; every tool takes one argument, ``request``."""
    return rpc("tools/call", {"name": name, "arguments": {"request": request}})


def build_workload(root: Path, seed: int, scratch: Path) -> dict[str, list[bytes]]:
    """Request bodies per operation over real ids, each first answered in process by the services.

    A request the services refuse (a standard whose rights withhold its resource, say) is dropped here, so
    any failure under load is the server's, not the workload's.
    """
    from kgfegmcp.bootstrap import build_app_state
    from kgfegmcp.config import load_settings
    from kgfegmcp.graph.progressions import LABEL_ORDER
    from kgfegmcp.resources.uris import standard_uri
    from kgfegmcp.services.requests import (
        GetStandardContextRequest,
        GetStandardRequest,
        SearchStandardsRequest,
        TraverseLearningProgressionsRequest,
    )

    settings = load_settings(
        {
            "graph_packages_dir": root,
            "profiles_dir": SHIPPED_PROFILES_DIR,
            "prompts_dir": SHIPPED_PROMPTS_DIR,
            "cache_dir": scratch / "workload-cache",
        }
    )
    state = build_app_state(settings)
    rng = random.Random(seed)
    candidates: dict[str, list[tuple[Callable[[], object], bytes]]] = {name: [] for name in OPERATIONS}
    for query in json.loads(TEACHER_QUERIES.read_text(encoding="utf-8")):
        request = {"query": query["query"], "frameworkIds": [query["frameworkId"]], "limit": 10}
        model = SearchStandardsRequest.model_validate(request)
        candidates["search_standards"].append(
            (partial(state.standards.search_standards, model), tool_call("search_standards", request))
        )
    directions = itertools.cycle(("out", "in", "both"))
    for package in state.catalog.packages:
        store = package.store
        codes = Counter(item.statement_code for item in package.items if item.statement_code)
        for item in package.items:
            framework = package.framework_id
            if item.statement_code and codes[item.statement_code] == 1:
                request = {"frameworkId": framework, "statementCode": item.statement_code}
                model_s = GetStandardRequest.model_validate(request)
                candidates["get_standard"].append(
                    (partial(state.standards.get_standard, model_s), tool_call("get_standard", request))
                )
            by_node = {"frameworkId": framework, "nodeId": item.identifier}
            model_c = GetStandardContextRequest.model_validate(by_node)
            candidates["get_standard_context"].append(
                (partial(state.standards.get_standard_context, model_c), tool_call("get_standard_context", by_node))
            )
            linked = any(store.outgoing(item.identifier, k) or store.incoming(item.identifier, k) for k in LABEL_ORDER)
            if linked:
                traversal = {**by_node, "direction": next(directions)}
                model_t = TraverseLearningProgressionsRequest.model_validate(traversal)
                candidates["traverse_learning_progressions"].append(
                    (
                        partial(state.progressions.traverse_learning_progressions, model_t),
                        tool_call("traverse_learning_progressions", traversal),
                    )
                )
            uri = standard_uri(framework, package.snapshot_id, item.identifier)
            candidates["resources/read"].append(
                (partial(state.resources.read_uri, uri), rpc("resources/read", {"uri": uri}))
            )
    workload: dict[str, list[bytes]] = {}
    for name, pairs in candidates.items():
        chosen = rng.sample(pairs, min(PER_OPERATION, len(pairs)))
        kept = []
        for answer, body in chosen:
            try:
                answer()
            except Exception:  # a refusal: not a request the load should send
                continue
            kept.append(body)
        if not kept:
            raise SystemExit(f"no {name} request is answered in process: is the default catalog built?")
        workload[name] = kept
    return workload


# -- the client ---------------------------------------------------------------------------------


class CallFailed(Exception):
    """A call that did not succeed; ``kind`` is how it is counted."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.detail = detail[:300]


class Connection:
    """One kept-alive HTTP/1.1 connection to the balancer, reopened when the peer closes it."""

    def __init__(self, port: int, head: bytes) -> None:
        self.port = port
        self.head = head  # request line and fixed headers, up to ``Content-Length: ``
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        """Drop the socket (the next exchange opens a new one)."""
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def exchange(self, body: bytes) -> tuple[int, bytes]:
        """POST ``body``; the status and the whole response body (chunked or sized)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.reader, self.writer
        assert reader is not None
        writer.write(self.head + str(len(body)).encode() + b"\r\n\r\n" + body)
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        headers = {}
        for line in head[:-4].split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip().lower()
        if headers.get(b"transfer-encoding") == b"chunked":
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    break
                parts.append((await reader.readexactly(size + 2))[:-2])
            payload = b"".join(parts)
        elif b"content-length" in headers:
            payload = await reader.readexactly(int(headers[b"content-length"]))
        else:
            payload = await reader.read()
            headers[b"connection"] = b"close"
        if headers.get(b"connection") == b"close":
            await self.close()
        return status, payload


def judge(operation: str, status: int, payload: bytes) -> None:
    """Raise :class:`CallFailed` unless the answer is a successful MCP result of ``operation``."""
    if status != 200:
        raise CallFailed(f"http_{status}", payload.decode(errors="replace"))
    data = [line[5:].strip() for line in payload.splitlines() if line.startswith(b"data:")]
    try:
        message = json.loads(data[0] if data else payload)
    except (ValueError, IndexError):
        raise CallFailed("bad_response", payload.decode(errors="replace")) from None
    if "error" in message:
        raise CallFailed(f"jsonrpc_{message['error'].get('code')}", json.dumps(message["error"]))
    result = message.get("result")
    if not isinstance(result, dict):
        raise CallFailed("bad_response", payload.decode(errors="replace"))
    if operation == "resources/read":
        if not result.get("contents"):
            raise CallFailed("empty_resource")
    elif result.get("isError"):
        raise CallFailed("tool_error", json.dumps(result.get("content"))[:300])


@dataclass
class RunStats:
    """What one measured (or warm-up) run saw."""

    label: str
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    failures: Counter[str] = field(default_factory=Counter)
    failure_examples: dict[str, str] = field(default_factory=dict)
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    nginx_cpu: float = 0.0
    rss_curve: list[tuple[float, int]] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        """Answered and failed calls."""
        return sum(len(v) for v in self.latencies.values()) + sum(self.failures.values())

    def report(self) -> dict[str, Any]:
        """The JSON form: counts, rates, percentiles per operation and overall, CPU shares, memory."""
        every = [x for values in self.latencies.values() for x in values]
        per_op = {
            name: {
                "calls": len(values),
                "p50Ms": round(percentile(values, 0.5) * 1000, 2),
                "p99Ms": round(percentile(values, 0.99) * 1000, 2),
            }
            for name, values in sorted(self.latencies.items())
            if values
        }
        return {
            "label": self.label,
            "seconds": round(self.seconds, 2),
            "calls": self.calls,
            "succeeded": len(every),
            "failures": dict(sorted(self.failures.items())),
            "failureExamples": self.failure_examples,
            "callsPerSecond": round(len(every) / self.seconds, 1) if self.seconds else 0.0,
            "p50Ms": round(percentile(every, 0.5) * 1000, 2) if every else None,
            "p99Ms": round(percentile(every, 0.99) * 1000, 2) if every else None,
            "operations": per_op,
            # CPU per answered call is steadier than calls/s on a shared machine: time the server waited
            # for a core shows in calls/s, not here.
            "serverCpuMsPerCall": round(1000 * self.server_cpu / len(every), 3) if every else None,
            "cpuShare": {
                "server": round(self.server_cpu / self.seconds, 3) if self.seconds else None,
                "nginx": round(self.nginx_cpu / self.seconds, 3) if self.seconds else None,
                "client": round(self.client_cpu / self.seconds, 3) if self.seconds else None,
            },
            "memory": self.memory,
            "rssCurveMB": [(round(t, 1), round(kb / 1024, 1)) for t, kb in self.rss_curve],
        }


class Plan:
    """Which request each client sends next: operations in turn, each operation's requests in turn."""

    def __init__(self, workload: dict[str, list[bytes]]) -> None:
        self.names = list(workload)
        self.bodies = workload
        self.positions = {name: itertools.count() for name in workload}

    def sequence(self, client: int) -> Iterator[tuple[str, bytes]]:
        """Client ``client``'s endless sequence, starting at its own operation."""
        for turn in itertools.count(client):
            name = self.names[turn % len(self.names)]
            bodies = self.bodies[name]
            yield name, bodies[next(self.positions[name]) % len(bodies)]


# -- processes ----------------------------------------------------------------------------------


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_in_use(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def proc_status(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (kB) and the number of threads of a process."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                values[key] = int(rest.split()[0])
    return values


def descriptors(pid: int) -> int:
    """Open file descriptors of a process."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    """Direct children of a process (nginx's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


def memory_of(pids: list[int]) -> dict[str, Any]:
    """RSS, peak RSS, threads and descriptors of each server process (MB), and their sums."""
    each = []
    for pid in pids:
        status = proc_status(pid)
        each.append(
            {
                "rssMB": round(status["VmRSS"] / 1024, 1),
                "peakRssMB": round(status["VmHWM"] / 1024, 1),
                "threads": status["Threads"],
                "fds": descriptors(pid),
            }
        )
    return {
        "rssMB": round(sum(e["rssMB"] for e in each), 1),
        "peakRssMB": round(sum(e["peakRssMB"] for e in each), 1),
        "fds": sum(e["fds"] for e in each),
        "replicas": each,
    }


@dataclass
class Served:
    """The running replicas and balancer of one phase."""

    servers: list[subprocess.Popen[bytes]]
    nginx: subprocess.Popen[bytes]
    logs: list[Path]

    @property
    def pids(self) -> list[int]:
        """The replicas' process ids."""
        return [server.pid for server in self.servers]

    def stop(self) -> None:
        """Stop the balancer, then every replica (each by its own process id)."""
        for process in (self.nginx, *self.servers):
            if process.poll() is None:
                process.terminate()
        for process in (self.nginx, *self.servers):
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(30)


def post(port: int, headers: dict[str, str], body: bytes, timeout: float = 5.0) -> int:
    """One POST to ``http://127.0.0.1:port/mcp``; its status (0 when nothing answered)."""
    call = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(call, timeout=timeout) as response:  # loopback only
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except OSError:
        return 0


def start_phase(kind: str, args: argparse.Namespace, scratch: Path, token: str, headers: dict[str, str]) -> Served:
    """Start the replicas of ``kind`` (``noop`` or ``ours``) pinned to the server cores, and nginx in front."""
    ports = [free_port() for _ in range(args.replicas)]
    servers, logs = [], []
    for port in ports:
        log = scratch / f"{kind}-{port}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
        env.update(dict(item.split("=", 1) for item in args.server_env))
        if kind == NOOP:
            command = [sys.executable, str(NOOP_SERVER), "--port", str(port), "--allowed-host", PUBLIC_HOST]
        else:
            if args.server_src is not None:
                env["PYTHONPATH"] = str(args.server_src)
            env.update(
                {
                    "KGFEGMCP_GRAPH_PACKAGES_DIR": str(args.root),
                    "KGFEGMCP_PROFILES_DIR": str(SHIPPED_PROFILES_DIR),
                    "KGFEGMCP_PROMPTS_DIR": str(SHIPPED_PROMPTS_DIR),
                    "KGFEGMCP_CACHE_DIR": str(scratch / "server-cache"),
                    "KGFEGMCP_AUTH_TOKEN_SHA256": json.dumps([hashlib.sha256(token.encode()).hexdigest()]),
                    "KGFEGMCP_HTTP_ALLOWED_HOSTS": json.dumps([PUBLIC_HOST]),
                }
            )
            command = [str(Path(sys.executable).parent / "kgfegmcp"), "serve", "--transport", "http"]
            command += ["--host", "127.0.0.1", "--port", str(port)]
        with open(log, "wb") as sink:
            servers.append(
                subprocess.Popen(
                    ["taskset", "-c", args.server_cpus, *command],
                    cwd=REPOSITORY_ROOT,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=sink,
                )
            )
        logs.append(log)
    probe = rpc("tools/list", {})
    deadline = time.monotonic() + START_TIMEOUT
    for server, port, log in zip(servers, ports, logs, strict=True):
        while post(port, headers, probe) != 200:
            if server.poll() is not None or time.monotonic() > deadline:
                for other in servers:
                    other.kill()
                raise SystemExit(f"{kind} server did not start; its log:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
    conf = scratch / "nginx.conf"
    conf.write_text(nginx_conf(scratch, [f"127.0.0.1:{port}" for port in ports], ["keepalive 32"]), encoding="utf-8")
    nginx = subprocess.Popen(
        ["taskset", "-c", str(args.client_cpu), NGINX, "-p", str(scratch), "-c", str(conf), "-e", "stderr"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(scratch / "nginx-stderr.log", "ab"),  # noqa: SIM115 (the child holds it)
    )
    served = Served(servers, nginx, logs)
    deadline = time.monotonic() + 20
    while post(BALANCER_PORT, headers, probe) != 200:
        if nginx.poll() is not None or time.monotonic() > deadline:
            served.stop()
            raise SystemExit(f"nginx did not proxy: {(scratch / 'nginx-stderr.log').read_text(errors='replace')}")
        time.sleep(0.1)
    return served


# -- running load -------------------------------------------------------------------------------


async def drive(
    served: Served, plan: Plan, head: bytes, args: argparse.Namespace, stats: RunStats, seconds: float
) -> None:
    """``args.clients`` clients for ``seconds``; results into ``stats`` (CPU and RSS curve included)."""
    nginx_pids = children_of(served.nginx.pid) or [served.nginx.pid]
    started = time.perf_counter()
    deadline = started + seconds
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    server0 = sum(cpu_seconds(pid) for pid in served.pids)
    nginx0 = sum(cpu_seconds(pid) for pid in nginx_pids)

    async def client(index: int) -> None:
        connection = Connection(BALANCER_PORT, head)
        try:
            for operation, body in plan.sequence(index):
                if time.perf_counter() >= deadline:
                    return
                began = time.perf_counter()
                try:
                    async with asyncio.timeout(CALL_TIMEOUT):
                        status, payload = await connection.exchange(body)
                    judge(operation, status, payload)
                except CallFailed as failed:
                    stats.failures[failed.kind] += 1
                    stats.failure_examples.setdefault(failed.kind, f"{operation}: {failed.detail}")
                    continue
                except TimeoutError:
                    stats.failures["timeout"] += 1
                    await connection.close()
                    continue
                except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
                    kind = f"connection_{type(exc).__name__}"
                    stats.failures[kind] += 1
                    stats.failure_examples.setdefault(kind, f"{operation}: {exc}"[:300])
                    await connection.close()
                    continue
                stats.latencies.setdefault(operation, []).append(time.perf_counter() - began)
        finally:
            await connection.close()

    async def sample() -> None:
        while True:
            stats.rss_curve.append((time.perf_counter() - started, sum(proc_status(p)["VmRSS"] for p in served.pids)))
            await asyncio.sleep(SAMPLE_SECONDS)

    sampler = asyncio.create_task(sample())
    await asyncio.gather(*(client(i) for i in range(args.clients)))
    sampler.cancel()
    stats.seconds = time.perf_counter() - started
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    stats.client_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    stats.server_cpu = sum(cpu_seconds(pid) for pid in served.pids) - server0
    stats.nginx_cpu = sum(cpu_seconds(pid) for pid in nginx_pids) - nginx0


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


def print_run(kind: str, stats: RunStats) -> None:
    """One line per run, as it finishes."""
    report = stats.report()
    failures = ", ".join(f"{k} {v}" for k, v in report["failures"].items()) or "0"
    share = report["cpuShare"]
    print(
        f"{kind:5} {report['label']:8} {report['callsPerSecond']:8.1f} calls/s  p50 {report['p50Ms']:7.2f} ms  "
        f"p99 {report['p99Ms']:7.2f} ms  cpu/call {report['serverCpuMsPerCall']} ms  failures {failures}  "
        f"RSS {stats.memory['rssMB']:6.1f} MB  "
        f"fds {stats.memory['fds']}  cpu server/nginx/client {share['server']}/{share['nginx']}/{share['client']}",
        flush=True,
    )


# -- the report ---------------------------------------------------------------------------------


def summarise(phases: dict[str, Any]) -> dict[str, Any]:
    """Calls/s ours vs noop, the ratio, latencies over every measured run, memory and descriptors."""
    ours = phases["ours"]
    rates = [run["callsPerSecond"] for run in ours["runs"]]
    summary: dict[str, Any] = {
        "oursCallsPerSecondMedian": statistics.median(rates),
        "oursCallsPerSecondRuns": rates,
        "failures": dict(sum((Counter(run["failures"]) for run in ours["runs"]), Counter())),
        "rssMB": {
            "start": ours["atStart"]["rssMB"],
            "afterWarmUp": ours["warmUp"]["memory"]["rssMB"],
            "afterEachRun": [run["memory"]["rssMB"] for run in ours["runs"]],
            "end": ours["atEnd"]["rssMB"],
            "peak": ours["atEnd"]["peakRssMB"],
        },
        "fds": {"start": ours["atStart"]["fds"], "end": ours["atEnd"]["fds"]},
    }
    after_warm = summary["rssMB"]["afterWarmUp"]
    summary["rssGrowthAfterWarmUpPercent"] = round(100 * (summary["rssMB"]["end"] - after_warm) / after_warm, 1)
    summary["oursServerCpuMsPerCallMedian"] = round(
        statistics.median(run["serverCpuMsPerCall"] for run in ours["runs"]), 3
    )
    noop_runs = [phases[name]["runs"][0] for name in ("noopBefore", "noopAfter") if name in phases]
    if noop_runs:
        summary["noopCallsPerSecond"] = [run["callsPerSecond"] for run in noop_runs]
        summary["ratio"] = round(
            summary["oursCallsPerSecondMedian"] / statistics.mean(summary["noopCallsPerSecond"]), 3
        )
        summary["noopServerCpuMsPerCall"] = [run["serverCpuMsPerCall"] for run in noop_runs]
        # The same ratio from server CPU time per call (noop / ours): what calls/s gives on a quiet machine.
        summary["cpuRatio"] = round(
            statistics.mean(summary["noopServerCpuMsPerCall"]) / summary["oursServerCpuMsPerCallMedian"], 3
        )
    return summary


def latency_rows(merged: dict[str, dict[str, list[float]]]) -> list[tuple[str, int, float, float]]:
    """p50/p99 per operation, and overall, over every measured run of each phase."""
    rows = []
    for name, per_operation in merged.items():
        prefix = "" if name == "ours" else f"{name}: "
        for operation in sorted(per_operation):
            values = per_operation[operation]
            rows.append((prefix + operation, len(values), percentile(values, 0.5), percentile(values, 0.99)))
        every = [x for values in per_operation.values() for x in values]
        if name == "ours" and len(per_operation) > 1:
            rows.append(("all operations", len(every), percentile(every, 0.5), percentile(every, 0.99)))
    return rows


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
    print()
    print(f"{'operation (every measured run)':44} {'calls':>9} {'p50 ms':>9} {'p99 ms':>9}")
    for label, calls, p50, p99 in latency_rows(merged):
        print(f"{label:44} {calls:>9,} {p50 * 1000:>9.2f} {p99 * 1000:>9.2f}")
    summary["operations"] = {
        label: {"calls": calls, "p50Ms": round(p50 * 1000, 2), "p99Ms": round(p99 * 1000, 2)}
        for label, calls, p50, p99 in latency_rows(merged)
    }
    print()
    print(f"ours: {summary['oursCallsPerSecondMedian']:.1f} calls/s (median of {args.runs} runs)", end="")
    if "ratio" in summary:
        print(
            f"; noop: {' / '.join(f'{x:.1f}' for x in summary['noopCallsPerSecond'])} calls/s; ratio {summary['ratio']}"
            f" (server CPU per call: ours {summary['oursServerCpuMsPerCallMedian']} ms, noop "
            f"{' / '.join(map(str, summary['noopServerCpuMsPerCall']))} ms; ratio {summary['cpuRatio']})"
        )
    else:
        print()
    rss = summary["rssMB"]
    print(
        f"RSS MB: start {rss['start']}, after warm-up {rss['afterWarmUp']}, after each run "
        f"{', '.join(map(str, rss['afterEachRun']))}, end {rss['end']} (peak {rss['peak']}); growth after warm-up "
        f"{summary['rssGrowthAfterWarmUpPercent']}%; fds {summary['fds']['start']} → {summary['fds']['end']}; "
        f"failures {summary['failures'] or 0}"
    )
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
