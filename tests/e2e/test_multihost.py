"""Two replicas behind a real nginx, each on a host of its own, and a client on a fourth host.

Four network namespaces joined by veth pairs, the balancer's host in the middle::

    replica1  eth0 10.231.1.2 :8765  ──veth──  10.231.1.1  ┐
    replica2  eth0 10.231.2.2 :8765  ──veth──  10.231.2.1  ├─ lb: nginx on :80 (deploy/nginx/kgfegmcp.conf)
    client    eth0 10.231.3.2        ──veth──  10.231.3.1  ┘   mcp.kgfegmcp.test on the client's host

Nothing routes between the links, so the client reaches the replicas only through nginx, by the
public name its own /etc/hosts gives it. Each replica runs the ``ExecStart=`` of
deploy/systemd/kgfegmcp.service with the unit's environment and deploy/systemd/kgfegmcp.env.example
filled in as an operator would (this host's address, the token's digest, a shared cursor secret).
nginx runs the site file verbatim inside a generated nginx.conf that adds the ``upstream`` and an
access log naming the replica(s) each request went to. The client is FastMCP's own client, run on
its host by ``multihost_driver.py``; every MCP request it sends is labelled (``X-Request-Id``) so
the access log shows which replica served which page.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from balancer import nginx_conf
from e2e_support import REPOSITORY_ROOT
from netns import Host, Network, namespaces_unavailable, remove_stale_namespaces, tail, wait_for
from systemd_unit import ServiceCommand, read_unit, service_command

from default_catalog_ids import DEFAULT_PACKAGES

pytestmark = pytest.mark.slow

UNIT = REPOSITORY_ROOT / "deploy" / "systemd" / "kgfegmcp.service"
ENV_EXAMPLE = REPOSITORY_ROOT / "deploy" / "systemd" / "kgfegmcp.env.example"
DRIVER = Path(__file__).resolve().parent / "multihost_driver.py"
PYTHON = sys.executable
#: A service's environment before the unit adds to it (systemd's default PATH).
SERVICE_BASE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}

PUBLIC_NAME = "mcp.kgfegmcp.test"  # RFC 2606 reserves .test: it never leaves the namespaces
PUBLIC_URL = f"http://{PUBLIC_NAME}/mcp"
SEARCH = {"request": {"query": "frações", "limit": 5}}
FAIL_TIMEOUT = 1  # nginx's fail_timeout (s): how long a failed replica is left out before it is tried again
# The access log names the replica (and each retry) that answered every request.
ACCESS_LOG_FORMAT = (
    'log_format upstreams escape=json \'{"request":"$request","status":$status,"host":"$host",'
    '"upstream":"$upstream_addr","upstreamStatus":"$upstream_status","requestId":"$http_x_request_id"}\';'
)
START_TIMEOUT = 90.0
DRIVER_TIMEOUT = 60.0
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_HEADERS = {"MCP-Protocol-Version": "2025-06-18"}


@dataclass
class Replica:
    """One replica host and the unit's command for it; ``process`` is replaced when it is restarted."""

    name: str
    host: Host
    address: str
    command: ServiceCommand
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def upstream(self) -> str:
        """How nginx's access log names this replica."""
        return f"{self.address}:{port_of(self.command)}"


@dataclass
class Cluster:
    """The running hosts: two replicas, nginx on the balancer, and the client."""

    network: Network
    directory: Path
    balancer: Host
    client: Host
    replicas: list[Replica]
    public_address: str  # the balancer's address on the client's link, what the public name resolves to
    token: str
    nginx: subprocess.Popen[bytes] | None = None

    @property
    def access_log(self) -> Path:
        """nginx's access log: one JSON object per request, naming the replica(s) it went to."""
        return self.directory / "nginx" / "access.log"

    @property
    def error_log(self) -> Path:
        """nginx's error log: each failed try of a replica."""
        return self.directory / "nginx" / "error.log"

    def driver_env(self) -> dict[str, str]:
        """The driver's environment: no proxy settings, the token in the variable the driver reads."""
        env = {**SERVICE_BASE_ENV, "MULTIHOST_TOKEN": self.token}
        if "PYTHONPATH" in os.environ:
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        return env

    def driver(self, host: Host, arguments: list[str], stdin: Any = None) -> Any:
        """Run ``multihost_driver.py`` on ``host`` and return the JSON it prints."""
        completed = self.network.run(
            host,
            [PYTHON, str(DRIVER), *arguments],
            env=self.driver_env(),
            cwd=REPOSITORY_ROOT,
            timeout=DRIVER_TIMEOUT,
            stdin=json.dumps(stdin) if stdin is not None else None,
        )
        assert completed.returncode == 0, f"driver {arguments[0]} on {host.name} failed:\n{completed.stderr[-3000:]}"
        return json.loads(completed.stdout)

    def access(self) -> list[dict[str, Any]]:
        """Every line of nginx's access log so far (one JSON object per request)."""
        if not self.access_log.exists():
            return []
        return [json.loads(line) for line in self.access_log.read_text(encoding="utf-8").splitlines()]

    def start(self, replica: Replica) -> None:
        """Start the unit's command on the replica's host (appending to its log)."""
        replica.process = self.network.spawn(
            replica.host,
            replica.command.argv,
            env=replica.command.environment,
            cwd=replica.command.working_directory,
            stdout=replica.log,
        )

    def wait_ready(self, replicas: list[Replica]) -> dict[str, Any]:
        """Each replica's /readyz document, polled from the balancer's host; fail at once if one exits."""
        urls = [f"http://{replica.upstream}/readyz" for replica in replicas]
        out = self.directory / f"ready-{time.monotonic_ns()}.json"
        err = out.with_suffix(".err")
        driver = self.network.spawn(
            self.balancer,
            [PYTHON, str(DRIVER), "ready", *urls, "--timeout", str(START_TIMEOUT)],
            env=self.driver_env(),
            cwd=REPOSITORY_ROOT,
            stdout=out,
            stderr=err,
        )
        while driver.poll() is None:
            for replica in replicas:
                assert replica.process is not None
                if replica.process.poll() is not None:
                    raise AssertionError(
                        f"{replica.name} exited with {replica.process.returncode}:\n{tail(replica.log)}"
                    )
            time.sleep(0.05)
        assert driver.returncode == 0, tail(err)
        documents: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return documents

    def assert_token_never_logged(self) -> None:
        """The bearer token appears in no log of any host: replicas, nginx, drivers."""
        logs = [replica.log for replica in self.replicas] + sorted(self.directory.rglob("*.log"))
        logs += sorted(self.directory.glob("*.err"))
        for log in logs:
            assert self.token not in log.read_text(encoding="utf-8", errors="replace"), f"token written to {log}"


def port_of(command: ServiceCommand) -> int:
    """The port the unit's ExecStart binds (nginx's upstream must name the same)."""
    return int(command.argv[command.argv.index("--port") + 1])


def nginx_binary() -> str:
    """nginx, which scripts/install_dev.sh installs: its absence is a broken setup, not a reason to skip."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None
    )
    if found is None:
        pytest.fail("nginx is missing: scripts/install_dev.sh installs it (Debian's nginx-light) when run as root")
    return found


def filled_env_file(path: Path, values: dict[str, str], extra: dict[str, str]) -> None:
    """The env example as an operator fills it in: each named line's value replaced, the rest kept as written."""
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    for name, value in values.items():
        text, count = re.subn(rf"(?m)^{name}=.*$", f"{name}={value}".replace("\\", "\\\\"), text)
        assert count == 1, f"{ENV_EXAMPLE.name} must set {name} exactly once (found {count})"
    path.write_text(text + "".join(f"{name}={value}\n" for name, value in extra.items()), encoding="utf-8")
    path.chmod(0o600)


@pytest.fixture(scope="module")
def cluster(default_catalog_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Build the four hosts, start both replicas and nginx, wait until the client reaches the balancer."""
    reason = namespaces_unavailable()
    if reason is not None:
        pytest.skip(reason)
    nginx = nginx_binary()
    remove_stale_namespaces()
    directory = tmp_path_factory.mktemp("multihost")
    token = "kgfegmcp-multihost-" + secrets.token_urlsafe(24)
    cursor_secret = secrets.token_urlsafe(48)
    cache = os.environ.get("KGFEGMCP_CACHE_DIR") or str(directory / "cache")  # the session's warm cache
    unit = read_unit(UNIT)
    with Network() as network:
        balancer = network.add_host("lb")
        replicas = []
        for name in ("replica1", "replica2"):
            host = network.add_host(name)
            address = network.connect(balancer, host).leaf_address
            env_file = directory / name / "kgfegmcp.env"
            env_file.parent.mkdir()
            filled_env_file(
                env_file,
                {
                    "KGFEGMCP_HTTP_HOST": address,
                    "KGFEGMCP_HTTP_ALLOWED_HOSTS": json.dumps([PUBLIC_NAME]),
                    "KGFEGMCP_HTTP_ALLOWED_ORIGINS": json.dumps([f"https://{PUBLIC_NAME}"]),
                    "KGFEGMCP_AUTH_TOKEN_SHA256": json.dumps([hashlib.sha256(token.encode()).hexdigest()]),
                    "KGFEGMCP_CURSOR_SECRET": cursor_secret,
                },
                {"KGFEGMCP_GRAPH_PACKAGES_DIR": str(default_catalog_root)},
            )
            paths = {
                "/opt/kgfegmcp": str(REPOSITORY_ROOT),
                "/var/cache/kgfegmcp": cache,
                "/etc/kgfegmcp/kgfegmcp.env": str(env_file),
            }
            base = dict(SERVICE_BASE_ENV)
            if "PYTHONPATH" in os.environ:  # the tests' own code, as e2e_support passes it on
                base["PYTHONPATH"] = os.environ["PYTHONPATH"]
            command = service_command(unit, base, paths)
            assert Path(command.argv[0]).exists(), f"{command.argv[0]} is missing: run scripts/install_dev.sh"
            replicas.append(Replica(name, host, address, command, directory / name / "replica.log"))
        client = network.add_host("client")
        public_address = network.connect(balancer, client).hub_address
        network.hosts_file(client, {PUBLIC_NAME: public_address})

        nginx_dir = directory / "nginx"
        nginx_dir.mkdir()
        conf = nginx_dir / "nginx.conf"
        conf.write_text(
            nginx_conf(
                nginx_dir,
                [f"{replica.upstream} max_fails=1 fail_timeout={FAIL_TIMEOUT}s" for replica in replicas],
                ["keepalive 8", "keepalive_timeout 60s"],
                access_log=f"{ACCESS_LOG_FORMAT}\n    access_log {nginx_dir}/access.log upstreams",
            ),
            encoding="utf-8",
        )
        nginx_argv = [nginx, "-p", f"{nginx_dir}/", "-c", str(conf), "-e", str(nginx_dir / "error.log")]
        checked = network.run(balancer, [*nginx_argv, "-t"], env=SERVICE_BASE_ENV, cwd=nginx_dir, timeout=30)
        assert checked.returncode == 0, f"nginx -t refused the configuration:\n{checked.stderr}"

        started = Cluster(network, directory, balancer, client, replicas, public_address, token)
        for replica in replicas:
            started.start(replica)
        started.nginx = network.spawn(
            balancer, nginx_argv, env=SERVICE_BASE_ENV, cwd=nginx_dir, stdout=nginx_dir / "nginx.out.log"
        )
        started.wait_ready(replicas)
        assert started.nginx.poll() is None, tail(started.error_log)
        started.driver(client, ["ready", f"http://{PUBLIC_NAME}/healthz", "--timeout", "20"])
        yield started


def search(label: str) -> list[str]:
    """The driver's arguments for paging through SEARCH, each call labelled ``<label>-<n>``."""
    return ["--request", json.dumps(SEARCH), "--label", label]


def served(entries: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
    """The access-log entries of the calls labelled ``<label>-<n>``, in call order (not the connect requests)."""
    pattern = re.compile(rf"^{re.escape(label)}-(\d+)$")
    calls = [(int(match.group(1)), entry) for entry in entries if (match := pattern.match(entry["requestId"]))]
    return [entry for _, entry in sorted(calls, key=lambda call: call[0])]


def call_number(entry: dict[str, Any]) -> int:
    """``n`` of an entry labelled ``<label>-<n>``: the driver makes call n+1 only once call n is answered."""
    return int(entry["requestId"].rsplit("-", 1)[1])


def test_probes_tokens_and_hosts_through_the_balancer(cluster: Cluster) -> None:
    """What a client on another host sees of the balancer: open probes, a guarded endpoint, no way around it."""
    balancer = f"http://{PUBLIC_NAME}"
    by_address = f"http://{cluster.public_address}"
    direct = f"http://{cluster.replicas[0].upstream}"
    answers = cluster.driver(
        cluster.client,
        ["http"],
        stdin=[
            {"method": "GET", "url": f"{balancer}/healthz"},
            {"method": "GET", "url": f"{balancer}/readyz"},
            {"method": "POST", "url": PUBLIC_URL, "headers": MCP_HEADERS, "json": LIST_TOOLS},
            {
                "method": "POST",
                "url": PUBLIC_URL,
                "headers": {**MCP_HEADERS, "Authorization": "Bearer not-the-token"},
                "json": LIST_TOOLS,
            },
            {"method": "POST", "url": PUBLIC_URL, "headers": MCP_HEADERS, "json": LIST_TOOLS, "token": "valid"},
            {
                "method": "POST",
                "url": f"{by_address}/mcp",
                "headers": {**MCP_HEADERS, "Host": "attacker.example"},
                "json": LIST_TOOLS,
                "token": "valid",
            },
            {"method": "GET", "url": f"{by_address}/readyz", "headers": {"Host": "attacker.example"}},
            {
                "method": "POST",
                "url": PUBLIC_URL,
                "headers": {**MCP_HEADERS, "Origin": "http://attacker.example"},
                "json": LIST_TOOLS,
                "token": "valid",
            },
            {
                "method": "POST",
                "url": PUBLIC_URL,
                "headers": {**MCP_HEADERS, "Origin": f"https://{PUBLIC_NAME}"},
                "json": LIST_TOOLS,
                "token": "valid",
            },
            {
                "method": "POST",
                "url": PUBLIC_URL,
                "headers": {**MCP_HEADERS, "Origin": f"http://{PUBLIC_NAME}"},
                "json": LIST_TOOLS,
                "token": "valid",
            },
            {"method": "GET", "url": f"{direct}/healthz"},
        ],
    )
    (
        healthz,
        readyz,
        anonymous,
        wrong,
        authorized,
        foreign_host,
        foreign_probe,
        foreign_origin,
        tls_origin,
        same_origin,
        unreachable,
    ) = answers
    # Probes pass through nginx without a token.
    assert healthz["status"] == 200 and json.loads(healthz["body"]) == {"status": "alive"}, healthz
    assert healthz["headers"]["server"].startswith("nginx"), healthz  # the balancer answered, not a replica
    ready = json.loads(readyz["body"])
    assert readyz["status"] == 200 and ready["status"] == "ready" and ready["packages"] == len(DEFAULT_PACKAGES), readyz
    # The MCP endpoint: 401 with a Bearer challenge and no data, unless the token is valid.
    for refused in (anonymous, wrong):
        assert refused["status"] == 401, refused
        assert refused["headers"]["www-authenticate"].startswith("Bearer"), refused
        assert "search_standards" not in refused["body"]
    assert authorized["status"] == 200 and "search_standards" in authorized["body"], authorized
    # The DNS-rebinding guard is on for these non-loopback binds because KGFEGMCP_HTTP_ALLOWED_HOSTS is set.
    assert foreign_host["status"] == 421 and "search_standards" not in foreign_host["body"], foreign_host
    assert foreign_probe["status"] == 421, foreign_probe
    assert foreign_origin["status"] == 403, foreign_origin
    assert tls_origin["status"] == 200 and same_origin["status"] == 200, (tls_origin, same_origin)
    # The replicas are not reachable from the client's host except through the balancer.
    assert "error" in unreachable and "unreachable" in unreachable["error"].lower(), unreachable
    entries = cluster.access()
    assert {entry["upstreamStatus"] for entry in entries if entry["host"] == "attacker.example"} == {"421"}
    cluster.assert_token_never_logged()


def test_pages_alternate_between_replicas_and_cursors_continue(cluster: Cluster) -> None:
    """Round robin sends each page to the other replica, and each continues the other's cursor exactly."""
    through = cluster.driver(cluster.client, ["page", PUBLIC_URL, *search("page")])
    alone = cluster.driver(cluster.balancer, ["page", f"http://{cluster.replicas[0].upstream}/mcp", *search("alone")])
    pages = through["pages"]
    assert len(pages) >= 4, "the search must have several pages to alternate"
    # Byte-identical pages, cursors included, whether one replica served them all or they alternated.
    assert pages == alone["pages"] and through["nextRequests"] == alone["nextRequests"]
    ids = [hit["nodeId"] for page in pages for hit in page["hits"]]
    assert len(ids) == len(set(ids)) == pages[0]["total"]
    # Each page came from the other replica than the page before it.
    calls = served(cluster.access(), "page")
    assert len(calls) == len(pages)
    upstreams = [call["upstream"] for call in calls]
    assert all(call["status"] == 200 and call["upstreamStatus"] == "200" for call in calls), calls
    assert set(upstreams) == {replica.upstream for replica in cluster.replicas}, upstreams
    assert all(a != b for a, b in itertools.pairwise(upstreams)), upstreams
    assert all(call["host"] == PUBLIC_NAME for call in calls)
    cluster.assert_token_never_logged()


def test_a_killed_replica_costs_no_request_and_rejoins_when_ready(cluster: Cluster) -> None:
    """SIGKILL one replica under load: nginx's retry hides it from the client, and the restarted one is used again."""
    killed, survivor = cluster.replicas
    stop = cluster.directory / "stop-loop"
    out = cluster.directory / "loop.json"
    loop = cluster.network.spawn(
        cluster.client,
        [PYTHON, str(DRIVER), "loop", PUBLIC_URL, *search("loop"), "--stop", str(stop), "--timeout", "300"],
        env=cluster.driver_env(),
        cwd=REPOSITORY_ROOT,
        stdout=out,
        stderr=cluster.directory / "loop.err",
    )

    def loop_calls() -> list[dict[str, Any]]:
        assert loop.poll() is None, tail(cluster.directory / "loop.err")
        return served(cluster.access(), "loop")

    wait_for(
        lambda: (
            len(calls := loop_calls()) >= 10 and {c["upstream"] for c in calls} == {killed.upstream, survivor.upstream}
        ),
        30,
        "both replicas to serve the loop",
    )
    assert killed.process is not None
    before_kill = len(loop_calls())
    os.killpg(killed.process.pid, signal.SIGKILL)  # mid-run, with kept-alive connections open to it
    killed.process.wait(timeout=10)
    # Call last + 1 may have been answered by the replica just before it died; the driver makes call
    # last + 2 only once that answer is in, and nginx (one worker) logs the calls in order.
    last = call_number(loop_calls()[-1])
    wait_for(lambda: call_number(loop_calls()[-1]) >= last + 2, 30, "a call made after the kill")
    at_kill = sum(1 for call in loop_calls() if call_number(call) <= last + 1)

    def retried_since_kill() -> list[dict[str, Any]]:
        return [call for call in loop_calls()[before_kill:] if "," in call["upstream"]]  # tried two replicas

    # Down for longer than fail_timeout, so nginx tries it again (and is refused again) at least once.
    wait_for(
        lambda: len(retried_since_kill()) >= 2 and len(loop_calls()) > at_kill + 20,
        30,
        "calls while one replica is down, nginx trying it again after fail_timeout",
    )
    log_size = killed.log.stat().st_size
    at_restart = len(loop_calls())
    cluster.start(killed)
    readiness = cluster.wait_ready([killed])
    at_ready = len(loop_calls())
    wait_for(
        lambda: any(call["upstream"] == killed.upstream for call in loop_calls()[at_ready:]),
        30,
        "the restarted replica to serve again",
    )
    wait_for(lambda: len(loop_calls()) > at_ready + 10, 30, "more calls after the rejoin")
    stop.touch()
    loop.wait(timeout=DRIVER_TIMEOUT)
    assert loop.returncode == 0, tail(cluster.directory / "loop.err")
    result = json.loads(out.read_text(encoding="utf-8"))
    calls = served(cluster.access(), "loop")

    # No call failed, and nginx logged every one of them exactly once, answered 200.
    assert result["failures"] == [], result["failures"]
    assert len(calls) == result["calls"] and all(call["status"] == 200 for call in calls)
    # Every complete pass through the pages, across the kill and the rejoin, is the same sequence.
    assert result["completePasses"] >= 3 and len(result["distinctPasses"]) == 1, result
    assert len(set(result["distinctPasses"][0])) == len(result["distinctPasses"][0])
    # While it was down, the other replica answered everything; each time nginx tried the dead one
    # (first, then again after every fail_timeout) it moved the same request on to the other one.
    down = calls[at_kill:at_restart]
    assert all(call["upstream"].endswith(survivor.upstream) for call in down), down
    retried = [call for call in calls[before_kill:at_restart] if "," in call["upstream"]]  # tried two replicas
    assert len(retried) >= 2, "nginx tried the dead replica on its first turn and again after fail_timeout"
    assert all(call["upstream"] == f"{killed.upstream}, {survivor.upstream}" for call in retried), retried
    assert all(call["upstreamStatus"] == "502, 200" for call in retried), retried
    # Restarted and ready, it served requests again, with no retry in front of them.
    back = [call for call in calls[at_restart:] if call["upstream"] == killed.upstream]
    assert back and all(call["upstreamStatus"] == "200" for call in back)
    assert readiness[f"http://{killed.upstream}/readyz"]["status"] == "ready"
    restarted_log = killed.log.read_text(encoding="utf-8")[log_size:]
    assert "name=search_standards outcome=ok" in restarted_log, tail(killed.log)
    cluster.assert_token_never_logged()


def test_the_unit_file_is_valid_for_systemd(tmp_path: Path) -> None:
    """systemd's own reader accepts every directive of the unit (the cluster above only runs its command)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    relocated = tmp_path / UNIT.name
    relocated.write_text(
        UNIT.read_text(encoding="utf-8").replace("/opt/kgfegmcp", str(REPOSITORY_ROOT)), encoding="utf-8"
    )
    verified = subprocess.run(
        [analyze, "verify", str(relocated)], capture_output=True, text=True, timeout=60, check=False
    )
    assert verified.returncode == 0 and "Unknown" not in verified.stderr + verified.stdout, verified.stderr
