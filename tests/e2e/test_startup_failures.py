"""Start-up with no accepted package exits non-zero with a clear ``catalog_error:`` message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from e2e_support import KGFEGMCP, REPOSITORY_ROOT, free_port, full_env

ENTRY_POINTS = {
    "cli-stdio": [KGFEGMCP, "serve", "--transport", "stdio"],
    "cli-http": [KGFEGMCP, "serve", "--transport", "http", "--host", "127.0.0.1", "--port", "{port}"],
    "mcpb-module": [sys.executable, "-m", "kgfegmcp.mcpb_server"],
    "http-module": [sys.executable, "-m", "kgfegmcp.http_server"],
}


@pytest.mark.parametrize(
    ("entry", "root_kind"),
    [("cli-stdio", "empty"), ("cli-http", "empty"), ("mcpb-module", "missing"), ("http-module", "missing")],
)
def test_no_accepted_package_fails_fast(entry: str, root_kind: str, tmp_path: Path) -> None:
    root = tmp_path / "graph_packages"
    if root_kind == "empty":
        root.mkdir()
    port = free_port()
    command = [part.replace("{port}", str(port)) for part in ENTRY_POINTS[entry]]
    env = {**full_env(root), "KGFEGMCP_HTTP_PORT": str(port)}
    completed = subprocess.run(
        command,
        cwd=REPOSITORY_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    stderr = completed.stderr.decode(errors="replace")
    assert completed.returncode != 0
    assert "catalog_error: No accepted graph package" in stderr, stderr[-2000:]
    assert "Traceback" not in stderr
    assert completed.stdout == b"", "nothing may reach stdout (the STDIO transport owns it)"
