"""`kgfegmcp packages fetch` end to end: a real process fetches from a server on 127.0.0.1, `packages
validate` accepts the result, and the served package shows its cross-framework references as evidence."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from case_server import BOIL, ELSEWHERE, FRAMEWORK_ID, MIX, V1P0, CaseServer, Reply, body_of, kitchen_science
from case_server import running_server as running
from fastmcp import Client
from mcp.types import TextResourceContents

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.config import load_settings

SNAPSHOT = "v2-0-20250115-080000"
PACKAGE_URI = f"kgfegmcp://framework/{FRAMEWORK_ID}/snapshot/{SNAPSHOT}"


@pytest.fixture(scope="module")
def server() -> Iterator[CaseServer]:
    with running() as started:
        yield started


def kgfegmcp(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", *arguments],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


async def test_fetch_validate_and_serve(
    server: CaseServer, profiles_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = body_of(kitchen_science())
    url = server.serve(V1P0, Reply(body=body))
    root = tmp_path / "graph_packages"
    fetched = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(root), "--profiles-dir", str(profiles_root))
    assert fetched.returncode == 0, fetched.stderr
    assert f"{FRAMEWORK_ID}@{SNAPSHOT}" in fetched.stdout and "pending" in fetched.stdout
    assert f"Fetched {len(body):,} bytes (HTTP 200); sha256 {hashlib.sha256(body).hexdigest()}." in fetched.stderr
    assert f"Next: kgfegmcp packages validate {root}" in fetched.stderr
    validated = kgfegmcp("packages", "validate", str(root), "--profiles-dir", str(profiles_root), "--json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert json.loads(validated.stdout)["status"] == "passed"

    settings = {"graph_packages_dir": root, "profiles_dir": profiles_root, "cache_dir": tmp_path / "cache"}
    async with Client(create_app(build_app_state(load_settings(settings)))) as client:
        report = await _read_text(client, f"{PACKAGE_URI}/unresolved")
        entries = {entry["associationType"]: entry for entry in json.loads(report)["items"]}
        exact = entries["exactMatchOf"]
        assert (exact["referenceKind"], exact["sourceEntityId"]) == ("crossFrameworkAssociation", BOIL)
        assert exact["destinationNode"]["identifier"] == ELSEWHERE and exact["locator"]["url"] == url

        provenance = json.loads(await _read_text(client, f"{PACKAGE_URI}/standard/{BOIL}/provenance"))
        assert exact["unresolvedId"] in json.dumps(provenance)

        notices = await _progression_notices(client, "KS.3")  # MIX: isRelatedTo a statement elsewhere
        (notice,) = [n for n in notices if n["code"] == "unresolved_reference"]
        assert (notice["nodeId"], notice["relationshipLabel"]) == (MIX, "relatesTo")
        assert notice["unresolvedId"] == entries["isRelatedTo"]["unresolvedId"]
        # exactMatchOf has no link kind here: progression answers do not list it as a missing link.
        assert not [n for n in await _progression_notices(client, "KS.1") if n["code"] == "unresolved_reference"]


async def _read_text(client: Client[Any], uri: str) -> str:
    (content,) = await client.read_resource(uri)
    assert isinstance(content, TextResourceContents)
    return content.text


async def _progression_notices(client: Client[Any], code: str) -> list[dict[str, Any]]:
    request = {"frameworkId": FRAMEWORK_ID, "statementCode": code}
    result = await client.call_tool("get_standard_progressions", {"request": request}, raise_on_error=False)
    assert not result.is_error and isinstance(result.structured_content, dict)
    notices: list[dict[str, Any]] = result.structured_content["warnings"]["items"]
    return notices


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--timeout", "0"], "configuration_error: Invalid fetch limits: --timeout: Input should be greater than 0."),
        (["--max-redirects", "50"], "configuration_error: Invalid fetch limits: --max-redirects: Input should be"),
    ],
)
def test_limits_out_of_range_are_refused(
    arguments: list[str], expected: str, server: CaseServer, tmp_path: Path
) -> None:
    run = kgfegmcp("packages", "fetch", "--case-url", server.base + V1P0, "--out", str(tmp_path), *arguments)
    assert run.returncode == 2 and run.stderr.startswith(expected), run.stderr
    assert "Next action: Limits: --timeout > 0, <= 600 (default 30.0)" in run.stderr
    assert not (tmp_path / FRAMEWORK_ID).exists()


def test_a_failed_fetch_is_one_line_and_writes_nothing(server: CaseServer, tmp_path: Path) -> None:
    url = server.serve("/ims/case/v1p0/CFPackages/missing", Reply(status=404, body=b"no such package"))
    run = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(tmp_path))
    assert run.returncode == 2
    assert run.stderr.startswith(f"source_fetch_error: 127.0.0.1 answered HTTP 404 Not Found for {url}: no such")
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert list(tmp_path.iterdir()) == []
