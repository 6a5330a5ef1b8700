"""`kgfegmcp packages fetch` end to end: a real process fetches from a server on 127.0.0.1, `packages
validate` accepts the result, and the served package shows its cross-framework references as evidence."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from case_server import (
    BOIL,
    DOC,
    ELSEWHERE,
    FRAMEWORK_ID,
    MIX,
    V1P0,
    CaseServer,
    Reply,
    body_of,
    kitchen_science,
    raw_header,
)
from case_server import running_server as running
from fastmcp import Client
from mcp.types import TextResourceContents

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.errors import has_unprintable

pytestmark = pytest.mark.slow

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


# -- hostile servers ------------------------------------------------------------------------------

#: A bound, not a performance figure: generous for a shared machine (the process's own start included),
#: far below what a drip takes.
SLACK_SECONDS = 15
#: A byte every 0.1 s: each read far within the default read timeout, the whole drip (600 bytes of head or
#: body, a minute) far beyond the deadline and its slack.
DRIP = 0.1
PADDED = {"Content-Type": "application/json", "X-Padding": "p" * 600}


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body=body_of(kitchen_science()), headers=PADDED, header_trickle=DRIP),
        Reply(body=b" " * 600, trickle=DRIP),
    ],
    ids=["headers", "body"],
)
def test_a_dripping_server_ends_in_the_deadline_error_and_nothing_is_written(
    reply: Reply, server: CaseServer, tmp_path: Path
) -> None:
    url = server.serve(f"/ims/case/v1p0/CFPackages/cli-drip-{reply.header_trickle}-{reply.trickle}", reply)
    started = time.monotonic()
    run = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(tmp_path), "--deadline", "0.5")
    assert time.monotonic() - started < 0.5 + SLACK_SECONDS
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith(
        "source_fetch_error: Fetching from 127.0.0.1 took longer than the deadline of 0.5 s."
    ), run.stderr
    assert list(tmp_path.iterdir()) == []


def _many_statements(count: int) -> dict[str, Any]:
    """The kitchen framework with ``count`` more statements: a body loopback sends at once, a build of seconds."""
    document = kitchen_science()
    document["CFItems"] += [
        {
            "identifier": f"7c2e0000-0000-4000-8000-{number:012d}",
            "fullStatement": f"Statement {number}: describe what happens to water and to sugar when heated.",
            "humanCodingScheme": f"KS.9.{number}",
            "CFItemType": "Standard",
        }
        for number in range(10_000, 10_000 + count)
    ]
    return document


def test_the_build_of_what_was_fetched_ends_at_the_deadline_too(
    server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    """--deadline bounds the command, not only its requests: a body that arrives at once but takes seconds to
    build (any large package, or one made to be slow) ends in the deadline error, and nothing is written."""
    body = body_of(_many_statements(15_000))
    url = server.serve("/ims/case/v1p0/CFPackages/cli-slow-build", Reply(body=body))
    root = tmp_path / "graph_packages"
    started = time.monotonic()
    run = kgfegmcp(
        *("packages", "fetch", "--case-url", url, "--out", str(root), "--profiles-dir", str(profiles_root)),
        *("--deadline", "1.5"),
    )
    assert time.monotonic() - started < 1.5 + SLACK_SECONDS
    assert run.returncode == 2, run.stdout + run.stderr
    fetched, refused = run.stderr.splitlines()
    assert fetched.startswith(f"Fetched {len(body):,} bytes (HTTP 200)")
    assert refused.startswith(
        "source_fetch_error: Building the CFPackage fetched from 127.0.0.1 took longer than the deadline of 1.5 s "
        "(--deadline bounds the download and the build together); nothing was written. Next action: Allow more "
        "time with --deadline"
    ), refused
    assert not root.exists() or list(root.iterdir()) == []


def test_a_redirect_to_a_url_with_credentials_sends_and_records_nothing(server: CaseServer, tmp_path: Path) -> None:
    final = "/with-creds/ims/case/v1p0/CFPackages/x"
    server.serve(final, Reply(body=body_of(kitchen_science())))
    location = f"http://operator:s3cret-token@127.0.0.1:{server.server.server_address[1]}{final}"
    url = server.serve("/ims/case/v1p0/CFPackages/cli-to-creds", Reply(status=302, headers={"Location": location}))
    run = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(tmp_path))
    assert run.returncode == 2 and "carries credentials" in run.stderr, run.stderr
    assert "s3cret-token" not in run.stdout + run.stderr
    assert not [path for path, _headers in server.requests if path == final]
    assert not [headers for _path, headers in server.requests if "Authorization" in headers]
    assert list(tmp_path.iterdir()) == []


def _raw_controls(stderr: str) -> list[str]:
    """Control characters on stderr other than the line ends of its lines."""
    return [character for line in stderr.split("\n") for character in line if has_unprintable(character)]


def test_control_characters_from_a_server_reach_stderr_escaped(server: CaseServer, tmp_path: Path) -> None:
    hostile = "\x1b[31mred\x1b[0m \x1b]8;;https://evil.test/\x07click\x1b]8;;\x07 bell\x07 c1\u009b2J rtl\u202eevil"
    error = Reply(status=503, reason=raw_header("\x1b[31mDown\x07\u202e"), body=hostile.encode("utf-8"))
    url = server.serve("/ims/case/v1p0/CFPackages/cli-hostile-error", error)
    run = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(tmp_path))
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and not _raw_controls(run.stderr), repr(run.stderr)
    assert "HTTP 503 \\x1b[31mDown\\x07 for" in run.stderr and "\\x1b]8;;https://evil.test/\\x07" in run.stderr

    hostile_type = {"Content-Type": raw_header("text/html\x1b]8;;https://evil.test/\x07")}
    url = server.serve("/ims/case/v1p0/CFPackages/cli-hostile-type", Reply(body=b"not json", headers=hostile_type))
    run = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(tmp_path))
    assert run.returncode == 2 and "manifest_build_error" in run.stderr, run.stderr
    assert not _raw_controls(run.stderr) and "Content-Type text/html\\x1b]8;;https://evil.test/\\x07" in run.stderr

    page = raw_header("<html><title>\x1b[31mSign in\u202e</title></html>").encode("latin-1")
    url = server.serve("/ims/case/v1p0/CFPackages/cli-hostile-page", Reply(body=page, headers=hostile_type))
    run = kgfegmcp("packages", "fetch", "--case-url", url, "--out", str(tmp_path))
    assert run.returncode == 2 and "source_fetch_error" in run.stderr and not _raw_controls(run.stderr), run.stderr
    assert (
        "titled “\\x1b[31mSign in\\u202e”" in run.stderr and "text/html\\x1b]8;;https://evil.test/\\x07" in run.stderr
    )
    assert list(tmp_path.iterdir()) == []


# -- choosing from a provider's listing ------------------------------------------------------------

LISTING = "/provider/ims/case/v1p0/CFDocuments"


@pytest.fixture(scope="module")
def provider(server: CaseServer) -> str:
    """A CASE 1.0 provider answering gzip: its listing (the kitchen framework and another) and the kitchen package."""
    gzipped = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    documents = [
        {"identifier": DOC, "title": "Kitchen Science for Tests", "version": "2.0", "language": "en"},
        {"identifier": "0a4e0000-0000-4000-8000-0000000000aa", "title": "Garden \x1b[31mScience", "version": "1.0"},
    ]
    server.serve(LISTING, Reply(body=gzip.compress(body_of({"CFDocuments": documents})), headers=gzipped))
    server.serve(f"/provider{V1P0}", Reply(body=gzip.compress(body_of(kitchen_science())), headers=gzipped))
    return server.base + "/provider/ims/case/v1p0"


def test_without_a_choice_the_listing_is_shown_and_nothing_fetched(provider: str, tmp_path: Path) -> None:
    run = kgfegmcp("packages", "fetch", "--case-url", provider, "--out", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert DOC in run.stdout and "Kitchen Science for Tests" in run.stdout and "Garden \\x1b[31mScience" in run.stdout
    assert not _raw_controls(run.stdout)
    assert run.stderr.splitlines() == [
        f"Listed 2 CFDocuments from {provider}/CFDocuments.",
        f"Nothing was fetched. Next: kgfegmcp packages fetch --case-url {provider} --document ID (or --title TEXT)",
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_document_chosen_by_title_is_fetched_compressed_and_accepted(
    provider: str, profiles_root: Path, tmp_path: Path
) -> None:
    root = tmp_path / "graph_packages"
    run = kgfegmcp(
        *("packages", "fetch", "--case-url", provider + "/CFDocuments", "--title", "kitchen science for tests"),
        *("--out", str(root), "--profiles-dir", str(profiles_root)),
    )
    assert run.returncode == 0, run.stderr
    body = body_of(kitchen_science())
    lines = run.stderr.splitlines()
    assert lines[1].startswith(f"Chose CFDocument {DOC} “Kitchen Science for Tests” (version 2.0")
    assert lines[2] == (
        f"Fetching its package from {provider}/CFPackages/{DOC} (built from the API root and the document's "
        "identifier: the CFDocument names no CFPackageURI)."
    )
    compressed = len(gzip.compress(body_of(kitchen_science())))
    assert lines[3] == (
        f"Fetched {len(body):,} bytes (HTTP 200, {compressed:,} bytes gzip-compressed); "
        f"sha256 {hashlib.sha256(body).hexdigest()}."
    )
    validated = kgfegmcp("packages", "validate", str(root), "--profiles-dir", str(profiles_root), "--json")
    assert validated.returncode == 0 and json.loads(validated.stdout)["status"] == "passed"


def test_a_choice_for_an_address_of_one_package_is_refused(server: CaseServer, tmp_path: Path) -> None:
    before = len(server.requests)
    run = kgfegmcp("packages", "fetch", "--case-url", server.base + V1P0, "--document", DOC, "--out", str(tmp_path))
    assert run.returncode == 2 and run.stderr.startswith("configuration_error: --document chooses from"), run.stderr
    assert len(server.requests) == before  # refused before any request
