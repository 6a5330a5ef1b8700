"""The ``kgfegmcp`` processes the fuzzer runs: their environment, and the HTTP server the request classes hit."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
KGFEGMCP = Path(sys.executable).parent / "kgfegmcp"
# The end-to-end tests' process helpers: a free loopback port, whether it accepts, a bounded stop.
sys.path.insert(0, str(REPOSITORY_ROOT / "tests" / "e2e"))
# And a command's own peak memory, measured past whatever the fuzzer holds.
sys.path.insert(0, str(REPOSITORY_ROOT / "tests"))
from e2e_support import accepting, free_port, stop  # noqa: E402

from peak_memory import run_measured as measured_run  # noqa: E402, F401 (for hostile_sources: the path is set here)


def server_environment(root: Path, cache: Path) -> dict[str, str]:
    """This environment without its ``KGFEGMCP_`` settings, serving ``root`` at log level INFO from ``cache``."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("KGFEGMCP_")}
    env.update(
        {
            "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root),
            "KGFEGMCP_PROFILES_DIR": str(SHIPPED_PROFILES_DIR),
            "KGFEGMCP_PROMPTS_DIR": str(SHIPPED_PROMPTS_DIR),
            "KGFEGMCP_CACHE_DIR": str(cache),
            "KGFEGMCP_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


@dataclass
class Server:
    """One ``kgfegmcp serve --transport http`` process and its stderr file."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_bytes(self, start: int) -> bytes:
        with self.log.open("rb") as handle:
            handle.seek(start)
            return handle.read()


@contextlib.contextmanager
def serve(
    packages: Path, start_timeout: float, cursor_secret: str, settings: dict[str, str] | None = None
) -> Iterator[Server]:
    """Start the server over ``packages`` keying cursors by ``cursor_secret`` (and ``settings``, ``KGFEGMCP_*``
    variables, on top); always stop it."""
    port = free_port()
    scratch = Path(tempfile.mkdtemp(prefix="kgfegmcp-fuzz-"))
    log = scratch / "server.log"
    cache = Path(os.environ.get("KGFEGMCP_CACHE_DIR") or scratch / "cache")
    env = {**server_environment(packages, cache), "KGFEGMCP_CURSOR_SECRET": cursor_secret, **(settings or {})}
    command = [str(KGFEGMCP), "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=REPOSITORY_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink
        )
    try:
        deadline = time.monotonic() + start_timeout
        while not accepting(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"fuzz: the server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        yield Server(f"http://127.0.0.1:{port}/mcp", process, log)
    finally:
        stop(process)
        shutil.rmtree(scratch, ignore_errors=True)
