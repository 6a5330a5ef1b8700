"""The processes under load: the replicas of one phase (ours or the no-op server), pinned to the server cores,
and nginx in front of them from a generated ``nginx.conf`` that includes the site file verbatim."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from http_load_workload import rpc
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY_ROOT / "tests" / "e2e"))

from balancer import nginx_conf  # noqa: E402  (the nginx.conf the multi-host test runs too)

NOOP_SERVER = REPOSITORY_ROOT / "benchmarks" / "noop_server.py"
NGINX = "/usr/sbin/nginx"
BALANCER_PORT = 80  # the site file's ``listen 80``
PUBLIC_HOST = "curriculum.bench.example"  # the Host clients send and nginx forwards
NOOP = "noop"
START_TIMEOUT = 120.0


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
