"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``) against the real server.

Only the scenarios that test a server's protocol behaviour apply; the others expect the suite's own
reference tools (``test_simple_text`` …) that a curriculum server does not and should not have.
"""

from __future__ import annotations

import subprocess

import pytest
from e2e_support import REPOSITORY_ROOT, HttpServer

pytestmark = pytest.mark.slow

CONFORMANCE = REPOSITORY_ROOT / ".tools" / "conformance" / "node_modules" / ".bin" / "conformance"
SCENARIOS = ("server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario(default_http_server: HttpServer, scenario: str) -> None:
    assert CONFORMANCE.exists(), "scripts/install_dev.sh installs the conformance suite"
    run = subprocess.run(
        [str(CONFORMANCE), "server", "--url", default_http_server.url, "--scenario", scenario],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    assert " 0 failed" in output and "Passed:" in output, output[-3000:]
