"""Hosts of their own for a multi-host test: Linux network namespaces joined by veth pairs.

Each host is a network namespace with its loopback up and one veth link per neighbour, on private
addresses that exist only inside the namespaces. Processes started on a host run in their own
process group. :class:`Network` removes every process group, namespace (and with it every veth)
and per-namespace ``/etc/netns`` file it made when it closes, whether the test passed or not.
Needs root and iproute2; :func:`namespaces_unavailable` says why not, for a skip.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

IP_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
NETNS_ETC = Path("/etc/netns")  # `ip netns exec NAME` bind-mounts /etc/netns/NAME/* over /etc/*
#: Namespaces this module names: kgf-<pid of the test process>-<host>.
OWN_NAME = re.compile(r"^kgf-(\d+)-[a-z0-9]+$")


def ip(*arguments: str) -> str:
    """Run ``ip ARGUMENTS``; a failure raises with iproute2's own message."""
    completed = subprocess.run(
        ["ip", *arguments], capture_output=True, text=True, timeout=IP_TIMEOUT, check=False, stdin=subprocess.DEVNULL
    )
    if completed.returncode != 0:
        raise RuntimeError(f"ip {' '.join(arguments)}: {completed.stderr.strip() or completed.returncode}")
    return completed.stdout


def namespaces_unavailable() -> str | None:
    """Why this machine cannot make network namespaces (not root, no iproute2, refused), else None."""
    if os.geteuid() != 0:
        return "network namespaces need root (run the tests as root, as CI does)"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not on PATH"
    probe = f"kgf-{os.getpid()}-probe"
    try:
        ip("netns", "add", probe)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
        return f"`ip netns add` is refused here: {error}"
    try:
        ip("-n", probe, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1")
        ip("netns", "exec", probe, "true")
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
        return f"network namespaces are only partly usable here: {error}"
    finally:
        ip("netns", "del", probe)
    return None


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (the test process a namespace name records)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_namespaces() -> list[str]:
    """Delete namespaces an earlier test process left behind when it was killed outright.

    Only names this module makes (``kgf-<pid>-<host>``) whose test process is gone; any process
    still running inside one is killed first, since only this module starts processes there.
    """
    removed = []
    for line in ip("netns", "list").splitlines():
        name = line.split()[0] if line.split() else ""
        match = OWN_NAME.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        with contextlib.suppress(RuntimeError):  # one that cannot be removed does not stop this run
            for pid in ip("netns", "pids", name).split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            ip("netns", "del", name)
        shutil.rmtree(NETNS_ETC / name, ignore_errors=True)
        removed.append(name)
    return removed


@dataclass(frozen=True)
class Host:
    """One network namespace: a host with its own interfaces, addresses and routes."""

    name: str
    namespace: str

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run on this host (``ip netns exec`` execs it: the process is ``argv`` itself)."""
        return ["ip", "netns", "exec", self.namespace, *argv]


@dataclass(frozen=True)
class Link:
    """A veth pair between two hosts, a /30 of its own: the hub's end and the leaf's end."""

    hub_address: str
    leaf_address: str


def stop_group(process: subprocess.Popen[bytes], sig: signal.Signals = signal.SIGTERM) -> None:
    """Signal the process group ``process`` leads, wait, then SIGKILL whatever of the group is left."""
    if process.poll() is not None:
        return  # reaped already (the test killed it): its group id may belong to someone else by now
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_TIMEOUT)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # a leader that ignored SIGTERM, or children it left
    process.wait(timeout=STOP_TIMEOUT)


class Network:
    """The namespaces, links and processes of one test run, all removed by :meth:`close`.

    Every resource registers its own removal the moment it exists, so a failure half-way through
    building the network still removes what was built; processes go before namespaces.
    """

    def __init__(self, subnet_base: str = "10.231") -> None:
        self.prefix = f"kgf-{os.getpid()}"
        self.subnet_base = subnet_base
        self._cleanup = contextlib.ExitStack()
        self._links = 0

    def __enter__(self) -> Network:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop every process, delete every namespace and /etc/netns entry made (last made, first removed)."""
        self._cleanup.close()

    def add_host(self, name: str) -> Host:
        """A new namespace ``kgf-<pid>-<name>`` with its loopback up (nothing listens on 127.0.0.1 without it)."""
        host = Host(name, f"{self.prefix}-{name}")
        ip("netns", "add", host.namespace)
        self._cleanup.callback(self._delete_namespace, host.namespace)
        ip("-n", host.namespace, "link", "set", "lo", "up")
        return host

    def _delete_namespace(self, namespace: str) -> None:
        """``ip netns del``; its veth ends go with it (a failure here must not hide the test's own)."""
        with contextlib.suppress(RuntimeError):
            ip("netns", "del", namespace)

    def connect(self, hub: Host, leaf: Host) -> Link:
        """A veth pair from ``hub`` to ``leaf`` on the next /30, both ends up.

        Both ends are created inside their namespaces (never in the machine's own), so their names
        cannot collide with another run's; deleting either namespace deletes the pair.
        """
        self._links += 1
        subnet = f"{self.subnet_base}.{self._links}"
        link = Link(f"{subnet}.1", f"{subnet}.2")
        veth = ["type", "veth", "peer", "name", "eth0", "netns", leaf.namespace]  # the leaf's end: its eth0
        ip("-n", hub.namespace, "link", "add", leaf.name, *veth)  # the hub's end, named after the leaf
        ip("-n", hub.namespace, "addr", "add", f"{link.hub_address}/30", "dev", leaf.name)
        ip("-n", leaf.namespace, "addr", "add", f"{link.leaf_address}/30", "dev", "eth0")
        ip("-n", hub.namespace, "link", "set", leaf.name, "up")
        ip("-n", leaf.namespace, "link", "set", "eth0", "up")
        return link

    def hosts_file(self, host: Host, entries: dict[str, str]) -> None:
        """Name resolution on ``host`` alone: its /etc/hosts (``ip netns exec`` mounts it over /etc/hosts)."""
        directory = NETNS_ETC / host.namespace
        made_root = not NETNS_ETC.exists()
        directory.mkdir(parents=True, exist_ok=False)
        self._cleanup.callback(self._remove_etc, directory, made_root)
        lines = ["127.0.0.1 localhost", *(f"{address} {name}" for name, address in entries.items())]
        (directory / "hosts").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def _remove_etc(self, directory: Path, made_root: bool) -> None:
        """Remove one namespace's /etc files, and /etc/netns too if this run made it and it is empty."""
        shutil.rmtree(directory, ignore_errors=True)
        if made_root:
            with contextlib.suppress(OSError):
                NETNS_ETC.rmdir()  # fails, and stays, while another run's namespace has files there

    def spawn(
        self,
        host: Host,
        argv: Sequence[str],
        *,
        env: dict[str, str],
        cwd: Path,
        stdout: Path,
        stderr: Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` on ``host`` as the leader of a new process group; stopped (SIGTERM, then SIGKILL) at close.

        Its stdout goes to ``stdout`` (appended: a restarted process keeps one log), stderr to
        ``stderr`` or the same file.
        """
        with stdout.open("ab") as out, stderr.open("ab") if stderr else contextlib.nullcontext(out) as err:
            process = subprocess.Popen(
                host.command(argv),
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        self._cleanup.callback(stop_group, process)
        return process

    def run(
        self,
        host: Host,
        argv: Sequence[str],
        *,
        env: dict[str, str],
        cwd: Path,
        timeout: float,
        stdin: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` on ``host`` to completion (killed after ``timeout``); its output, whatever the exit code."""
        return subprocess.run(
            host.command(argv),
            cwd=cwd,
            env=env,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def wait_for(condition_met: Callable[[], object], timeout: float, what: str, interval: float = 0.05) -> None:
    """Poll ``condition_met()`` until it is truthy, or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while not condition_met():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def tail(path: Path, characters: int = 3000) -> str:
    """The end of a log file, for an assertion message."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-characters:]
    except FileNotFoundError:
        return f"({path} was never written)"
