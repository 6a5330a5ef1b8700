"""The install's cursor secret: made once, owner-only, reused across restarts, never derivable nor shown.

Without ``KGFEGMCP_CURSOR_SECRET`` the server keeps a random secret in ``<cache>/cursor-secret.key``; a
file there that it cannot trust stops start-up; without a usable cache each process keys cursors by
a secret of its own, with one warning. See docs/configuration.md#pagination-cursors.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.cursor_secret import SECRET_FILE_NAME, resolve_cursor_secret
from kgfegmcp.core.errors import ConfigurationError
from package_factory import FixtureWorld, state_for
from tool_calls import call, error, structured, wire

pytestmark = pytest.mark.slow

SECRET_LOG = "kgfegmcp.core.cursor_secret"
LIST = {"includeNonCurrent": True, "limit": 1}
SEARCH = {"query": "count number", "limit": 2}


def secret_text(cache: Path) -> str:
    return (cache / SECRET_FILE_NAME).read_text(encoding="ascii")


async def first_pages(state: AppState) -> tuple[list[str], dict[str, str]]:
    """The first page of a listing and a search (exact wire text), and their next cursors."""
    async with Client(create_app(state)) as client:
        pages = {
            tool: await call(client, tool, request)
            for tool, request in (("list_frameworks", LIST), ("search_standards", SEARCH))
        }
    cursors = {tool: structured(page)["page"]["nextCursor"] for tool, page in pages.items()}
    return [wire(page) for page in pages.values()], cursors


async def continue_with(state: AppState, cursors: dict[str, str]) -> None:
    async with Client(create_app(state)) as client:
        for tool, request in (("list_frameworks", LIST), ("search_standards", SEARCH)):
            assert structured(await call(client, tool, {**request, "cursor": cursors[tool]}))["page"] is not None


def log_text(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


async def test_the_install_secret_is_made_once_owner_only_and_kept_across_restarts(
    fixture_world: FixtureWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    caplog.set_level(logging.INFO)
    first = state_for(fixture_world, cache_dir=cache)
    path = cache / SECRET_FILE_NAME
    status = path.lstat()
    assert stat.S_ISREG(status.st_mode) and stat.S_IMODE(status.st_mode) == 0o600
    secret = secret_text(cache)
    assert re.fullmatch(r"[0-9a-f]{64}\n", secret)
    made = [r.getMessage() for r in caplog.records if r.name == SECRET_LOG]
    assert made == [f"cursor secret: made {path} (owner-only); cursors stay valid across restarts"]
    before, cursors = await first_pages(first)

    # A restart reads the same file (untouched) and continues the pages the first start issued.
    second = state_for(fixture_world, cache_dir=cache)
    assert secret_text(cache) == secret and path.stat().st_mtime_ns == status.st_mtime_ns
    after, again = await first_pages(second)
    assert after == before and again == cursors  # byte-identical answers for the same install
    await continue_with(second, cursors)
    assert [r.name for r in caplog.records if r.name == SECRET_LOG] == [SECRET_LOG]  # made once, then only read
    # The secret appears nowhere a client or an operator's log can see it.
    assert secret.strip() not in log_text(caplog) and all(secret.strip() not in page for page in before)
    assert [p.name for p in cache.iterdir() if p.name.startswith(".cursor-secret")] == []


async def test_no_one_can_derive_the_secret(fixture_world: FixtureWorld, tmp_path: Path) -> None:
    """Two installs of the very same catalog hold different secrets: neither accepts the other's cursors."""
    one, two = (state_for(fixture_world, cache_dir=tmp_path / name) for name in ("one", "two"))
    assert one.catalog.fingerprint == two.catalog.fingerprint
    assert secret_text(tmp_path / "one") != secret_text(tmp_path / "two")
    _, cursors = await first_pages(one)
    async with Client(create_app(two)) as other:
        for tool, request in (("list_frameworks", LIST), ("search_standards", SEARCH)):
            message = await error(other, tool, {**request, "cursor": cursors[tool]})
            assert message.startswith("invalid_cursor: The cursor was altered, or belongs to another catalog.")


def settings_for(cache: Path | None, **extra: Any) -> Any:
    return load_settings({"cache_dir": cache, **extra})


def unfit(tmp_path: Path) -> dict[str, tuple[Any, str]]:
    """Ways the secret file can be there but unusable, each with what the refusal says."""
    good = "a" * 64 + "\n"

    def mode(bits: int) -> Any:
        def make(path: Path) -> None:
            path.write_text(good)
            path.chmod(bits)

        return make

    def symlink(path: Path) -> None:
        target = tmp_path / "elsewhere.key"
        target.write_text(good)
        target.chmod(0o600)
        path.symlink_to(target)

    def content(data: bytes) -> Any:
        def make(path: Path) -> None:
            path.write_bytes(data)
            path.chmod(0o600)

        return make

    return {
        "group-readable": (mode(0o640), "is open to group or others (mode 0640; 0600 expected)"),
        "world-readable": (mode(0o604), "is open to group or others (mode 0604; 0600 expected)"),
        "group-writable": (mode(0o620), "is open to group or others (mode 0620; 0600 expected)"),
        "symbolic link": (symlink, "is a symbolic link"),
        "FIFO": (lambda path: os.mkfifo(path, 0o600), "is not a regular file"),
        "directory": (lambda path: path.mkdir(mode=0o700), "is not a regular file"),
        "empty": (content(b""), "is not one line of 32 to 1024 printable characters"),
        "too short": (content(b"x" * 31 + b"\n"), "is not one line of 32 to 1024 printable characters"),
        "too long": (content(b"x" * 1025), "is not one line of 32 to 1024 printable characters"),
        "two lines": (content(b"x" * 40 + b"\n" + b"y" * 40 + b"\n"), "is not one line of 32 to 1024 printable"),
        "binary": (content(bytes(range(256)) * 2), "is not one line of 32 to 1024 printable characters"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "group-readable",
        "world-readable",
        "group-writable",
        "symbolic link",
        "FIFO",
        "directory",
        "empty",
        "too short",
        "too long",
        "two lines",
        "binary",
    ],
)
def test_an_unfit_secret_file_stops_start_up_and_is_left_alone(tmp_path: Path, case: str) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / SECRET_FILE_NAME
    make, problem = unfit(tmp_path)[case]
    make(path)
    before = path.lstat()
    with pytest.raises(ConfigurationError) as refused:
        resolve_cursor_secret(settings_for(cache))
    message = refused.value.public_message
    assert refused.value.code == "configuration_error"
    assert message.startswith(f"configuration_error: The cursor secret file {path} {problem}"), message
    assert "Next action: Delete it to have a new one made" in message
    assert "a" * 32 not in message and "x" * 32 not in message  # never the content
    after = path.lstat()
    assert (after.st_ino, after.st_mode, after.st_mtime_ns) == (before.st_ino, before.st_mode, before.st_mtime_ns)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_secret_file_of_another_user_stops_start_up(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / SECRET_FILE_NAME
    path.write_text("b" * 64 + "\n")
    path.chmod(0o600)
    os.chown(path, 65534, 65534)
    with pytest.raises(ConfigurationError, match="belongs to another user"):
        resolve_cursor_secret(settings_for(cache))


def test_serve_refuses_an_unfit_secret_file_with_one_coded_line(tmp_path: Path, fixture_world: FixtureWorld) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / SECRET_FILE_NAME
    path.write_text("c" * 64 + "\n")
    path.chmod(0o644)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    environment.update(
        KGFEGMCP_GRAPH_PACKAGES_DIR=str(fixture_world.packages),
        KGFEGMCP_PROFILES_DIR=str(fixture_world.profiles_root),
        KGFEGMCP_CACHE_DIR=str(cache),
    )
    kgfegmcp = Path(sys.executable).parent / "kgfegmcp"
    completed = subprocess.run(
        [str(kgfegmcp), "serve", "--transport", "stdio"],
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode != 0 and completed.stdout == ""
    lines = completed.stderr.strip().splitlines()
    assert lines[-1].startswith(f"configuration_error: The cursor secret file {path} is open to group or others"), lines
    assert "Traceback" not in completed.stderr and "c" * 32 not in completed.stderr


def test_the_setting_wins_and_no_file_is_made(tmp_path: Path) -> None:
    chosen = "replicas-share-this-cursor-secret-of-40-chars"
    assert resolve_cursor_secret(settings_for(tmp_path / "cache", cursor_secret=chosen)).get_secret_value() == chosen
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("where", ["cache off", "cache root is a file"])
def test_without_a_usable_cache_each_process_has_its_own_secret_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, where: str
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache root should be")
    cache = None if where == "cache off" else blocker
    caplog.set_level(logging.INFO, logger=SECRET_LOG)
    first = resolve_cursor_secret(settings_for(cache)).get_secret_value()
    warnings = [r for r in caplog.records if r.name == SECRET_LOG]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    reason = (
        "KGFEGMCP_CACHE_DIR is empty (the cache is off)"
        if cache is None
        else f"{blocker / SECRET_FILE_NAME} cannot be written"
    )
    assert warnings[0].getMessage().startswith(f"cursor secret: {reason}")
    assert "a secret of this process alone" in warnings[0].getMessage()
    second = resolve_cursor_secret(settings_for(cache)).get_secret_value()
    assert re.fullmatch("[0-9a-f]{64}", first) and first != second
    assert first not in log_text(caplog) and second not in log_text(caplog)


_RESOLVE = """
import hashlib, sys, time
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.cursor_secret import resolve_cursor_secret
settings = load_settings({"cache_dir": sys.argv[1]})
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
print(hashlib.sha256(resolve_cursor_secret(settings).get_secret_value().encode()).hexdigest())
"""


def test_replicas_starting_together_on_one_cache_agree_on_one_secret(tmp_path: Path) -> None:
    cache = tmp_path / "shared-cache"
    start = time.time() + 3  # every process past its imports, then all at once
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _RESOLVE, str(cache), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    digests = set()
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        digests.add(out.strip())
    assert digests == {hashlib.sha256(secret_text(cache).strip().encode()).hexdigest()}
    assert sorted(p.name for p in cache.iterdir()) == [SECRET_FILE_NAME]  # no temporary file left behind
