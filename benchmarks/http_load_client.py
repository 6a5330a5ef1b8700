"""The load generator: clients over kept-alive HTTP/1.1 connections to the balancer, a few dozen lines over
asyncio streams so that they cost the client core little, each answer judged and timed."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import time

from http_load_procfs import children_of, cpu_seconds, proc_status
from http_load_report import RunStats
from http_load_servers import BALANCER_PORT, Served
from http_load_workload import Plan

PROTOCOL_VERSION = "2025-06-18"
CALL_TIMEOUT = 30.0
SAMPLE_SECONDS = 5.0  # RSS curve resolution during a run


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
