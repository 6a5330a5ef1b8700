"""The artifacts a new user makes by following the README, made once per session by the README's own
commands and shared: test_readme_commands.py checks what the user sees, the other installation tests
check the artifacts more deeply. Nothing is built twice.

Long runs that nothing else waits on start in the background, and each test waits only for its own, so
on two cores they overlap each other and the tests in between: the two runs in the developer's checkout
(the bundle build, and set-up serving while a client connects) start together when the first test needing
either begins; the uv user's install, the pip user's and the sdist build start when the wheel is built,
while the pipx user runs. Each starts only if a selected test needs it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from install_support import dev_tooling_problem, fresh_copy, lend_dev_tooling, new_user_env, uv_executable
from readme_runs import (
    BEFORE_SOURCES,
    BUNDLE_BLOCK,
    HINT,
    INSTALLED,
    WHEEL_BLOCK,
    Background,
    Built,
    PipUser,
    Session,
    UvUser,
    WheelUser,
    built_by,
    developer_steps,
    in_background,
    namespaced_session,
    readme_block,
    run_command,
    session_in_background,
    succeeded,
)


@pytest.fixture(scope="session")
def fresh_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository as `git clone` gives it to a new user: no virtual environment, no catalog, no dist/."""
    return fresh_copy(tmp_path_factory.mktemp("fresh-clone"))


@pytest.fixture(scope="session")
def readme_wheel(fresh_clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The wheel the README's wheel command built in a fresh clone, with the machine's python3."""
    (build,) = [command for command in readme_block(WHEEL_BLOCK).commands if command.startswith(WHEEL_BLOCK)]
    env = new_user_env(tmp_path_factory.mktemp("wheel-builder"))
    return built_by(build, fresh_clone, run_command(build, fresh_clone, env))


def _uv_user(clone: Path, home: Path, scratch: Path) -> UvUser:
    """Start the README's uv block but `serve`: the commands that name dist/ in the clone, the rest elsewhere."""
    anywhere = home / "anywhere"
    anywhere.mkdir()
    commands = readme_block("uv tool install").commands
    (serve,) = [command for command in commands if command.startswith("uvx ")]
    steps = [
        step
        for command in commands
        if command != serve
        for step in (f"cd {shlex.quote(str(anywhere if command.startswith(INSTALLED) else clone))}", command)
    ]
    env = new_user_env(home)
    return UvUser(home, env, serve, steps, session_in_background(steps, clone, env, scratch))


def _pipx_user(wheel: Built, clone: Path, home: Path) -> WheelUser:
    """The README's wheel block, verbatim, in order: `pipx install` in the clone, then the installed
    `kgfegmcp` from a directory of the user's. `serve` is left to the tests."""
    anywhere = home / "anywhere"
    anywhere.mkdir()
    commands = readme_block(WHEEL_BLOCK).commands
    (serve,) = [command for command in commands if command.startswith("kgfegmcp serve")]
    user = WheelUser(home, new_user_env(home), anywhere, serve)
    for command in commands:
        if command.startswith(WHEEL_BLOCK):
            user.runs[command] = wheel.run
        elif command.startswith("kgfegmcp catalog init") and BEFORE_SOURCES[0] not in user.runs:
            for probe in BEFORE_SOURCES:
                user.runs[probe] = run_command(probe, anywhere, user.env)
        if command not in user.runs and command != serve:
            cwd = anywhere if command.startswith(INSTALLED) else clone
            user.runs[command] = succeeded(run_command(command, cwd, user.env))
    assert BEFORE_SOURCES[0] in user.runs, "the wheel block has no `kgfegmcp catalog init`"
    return user


def _pip_user(wheel: Built, home: Path) -> PipUser:
    """A `python -m venv` user: an environment with pip (made by uv with `--seed`, and the wheel installed by uv,
    in a second where pip takes fifteen: what is tested is what the environment holds), activated; then
    `catalog init`, `catalog init --install-sources` and the command the first one named, from their directory."""
    anywhere = home / "anywhere"
    anywhere.mkdir()
    env, user = new_user_env(home), PipUser(home, home / "venv")
    uv, python = uv_executable(), str(user.venv / "bin" / "python")
    subprocess.run([uv, "venv", "--quiet", "--seed", "--python", "python3", str(user.venv)], env=env, check=True)
    subprocess.run([uv, "pip", "install", "--quiet", "--python", python, str(wheel.path)], env=env, check=True)
    log = home / "pip.log"  # pip writes which pip ran, from where, to PIP_LOG
    activated = {"VIRTUAL_ENV": str(user.venv), "PATH": f"{user.venv / 'bin'}{os.pathsep}{env['PATH']}"}
    env.update({**activated, "PIP_LOG": str(log)})
    for command in ("kgfegmcp catalog init", "kgfegmcp catalog init --install-sources"):
        user.runs[command] = run_command(command, anywhere, env)
    user.pip_log = log.read_text(encoding="utf-8") if log.is_file() else ""
    named = re.search(r"Next action: Run `([^`]+)`", user.runs["kgfegmcp catalog init"].stderr)
    if named is not None:  # the test asserts it was named
        user.runs[HINT] = run_command(named[1], anywhere, env)
    return user


def _wheel_from_sdist(clone: Path, home: Path, scratch: Path) -> tuple[Background, Path]:
    """Start uv building the sdist of ``clone``, then the wheel from that sdist alone (a packager's path)."""
    dist = scratch / "dist"
    command = (
        f"uv build --quiet --sdist --out-dir {dist} . && uv build --quiet --wheel --out-dir {dist} {dist}/*.tar.gz"
    )
    return in_background(command, clone, new_user_env(home), scratch), dist


@dataclass
class WheelUsers:
    """New users, each with a fresh home, installing the README's wheel: with pipx, with uv, and into an
    environment with pip; and a packager building the wheel from the sdist."""

    pipx: WheelUser | None = None
    uv: UvUser | None = None
    pip: Future[PipUser] | None = None
    sdist: tuple[Background, Path] | None = None


@pytest.fixture(scope="session")
def wheel_users(
    request: pytest.FixtureRequest, readme_wheel: Built, fresh_clone: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WheelUsers]:
    """The README's install paths and the sdist's at once, each only if a selected test needs it: the uv user,
    the pip user and the sdist build in the background, the pipx user meanwhile."""
    needed = {name for item in request.session.items for name in getattr(item, "fixturenames", ())}
    users = WheelUsers()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pip-user")
    if "uv_user" in needed:
        users.uv = _uv_user(fresh_clone, tmp_path_factory.mktemp("uv-user"), tmp_path_factory.mktemp("uv-run"))
    if "wheel_from_sdist" in needed:
        # A clone of its own: the README's wheel build left build/ and an egg-info in the other, and setuptools
        # reads a stale egg-info's SOURCES.txt into the next sdist, which would hide a file the sdist misses.
        clone = fresh_copy(tmp_path_factory.mktemp("sdist-clone"))
        home, scratch = tmp_path_factory.mktemp("packager"), tmp_path_factory.mktemp("sdist-run")
        users.sdist = _wheel_from_sdist(clone, home, scratch)
    if "pip_user" in needed:
        users.pip = pool.submit(_pip_user, readme_wheel, tmp_path_factory.mktemp("pip-user"))
    try:
        if "pipx_user" in needed:
            users.pipx = _pipx_user(readme_wheel, fresh_clone, tmp_path_factory.mktemp("pipx-user"))
        yield users
    finally:
        if users.uv is not None:
            users.uv.run.stop()
        if users.sdist is not None:
            users.sdist[0].stop()
        pool.shutdown(wait=True)  # its commands end by themselves (each under the ceiling)


@pytest.fixture(scope="session")
def pipx_user(wheel_users: WheelUsers) -> WheelUser:
    """A new user who ran the README's wheel block up to `serve`, with pipx."""
    assert wheel_users.pipx is not None
    return wheel_users.pipx


@pytest.fixture(scope="session")
def uv_user(wheel_users: WheelUsers) -> UvUser:
    """A new user who ran the README's uv block up to `serve`: every command exited 0."""
    assert wheel_users.uv is not None
    succeeded(wheel_users.uv.run.result())
    return wheel_users.uv


@pytest.fixture(scope="session")
def pip_user(wheel_users: WheelUsers) -> PipUser:
    """A new user who installed the README's wheel into an environment with pip, then built the catalog."""
    assert wheel_users.pip is not None
    return wheel_users.pip.result()


@pytest.fixture(scope="session")
def wheel_from_sdist(wheel_users: WheelUsers) -> Path:
    """The wheel uv built from the sdist uv built from a fresh clone."""
    assert wheel_users.sdist is not None
    run, dist = wheel_users.sdist
    succeeded(run.result())
    (wheel,) = dist.glob("kgfegmcp-*.whl")
    return wheel


@pytest.fixture(scope="session")
def developer_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone in which `scripts/install_dev.sh` has run: this checkout's tooling, linked in."""
    problem = dev_tooling_problem()
    if problem is not None:
        pytest.fail(problem)
    checkout = fresh_copy(tmp_path_factory.mktemp("developer-checkout"))
    lend_dev_tooling(checkout)
    return checkout


@dataclass
class DeveloperRuns:
    """The two long runs in the developer's checkout, each None unless a selected test needs it."""

    bundle: Background | None = None
    session: Background | None = None
    steps: list[str] = field(default_factory=list)
    setup_log: Path | None = None


@pytest.fixture(scope="session")
def developer_runs(
    request: pytest.FixtureRequest, developer_checkout: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[DeveloperRuns]:
    """The README's bundle command and the developer's session, each started (together) only if a selected
    test needs it; ended at the end of the session if no test waited for it."""
    needed = {name for item in request.session.items for name in getattr(item, "fixturenames", ())}
    runs = DeveloperRuns()
    if "readme_bundle" in needed:
        env = new_user_env(tmp_path_factory.mktemp("bundle-builder"))
        (command,) = readme_block(BUNDLE_BLOCK).commands
        runs.bundle = in_background(command, developer_checkout, env, tmp_path_factory.mktemp("bundle-run"))
    if "developer_session" in needed:
        scratch = tmp_path_factory.mktemp("developer-run")
        runs.setup_log, env = scratch / "setup.log", new_user_env(tmp_path_factory.mktemp("developer"))
        runs.steps = developer_steps(runs.setup_log)
        runs.session = namespaced_session(runs.steps, developer_checkout, env, scratch)
    yield runs
    for run in (runs.bundle, runs.session):
        if run is not None:
            run.stop()


@pytest.fixture(scope="session")
def readme_bundle(developer_runs: DeveloperRuns, developer_checkout: Path) -> Built:
    """The desktop bundle the README's bundle command built (the catalog built in it, not copied)."""
    assert developer_runs.bundle is not None
    (command,) = readme_block(BUNDLE_BLOCK).commands
    return built_by(command, developer_checkout, developer_runs.bundle.result())


@pytest.fixture(scope="session")
def developer_session(developer_runs: DeveloperRuns) -> tuple[Session, str]:
    """What each step of the developer's session printed (`readme_runs.developer_steps`), and what
    `scripts/setup.sh` printed (to its log)."""
    assert developer_runs.session is not None and developer_runs.setup_log is not None
    session = Session.of_run(developer_runs.steps, developer_runs.session.result())
    return session, developer_runs.setup_log.read_text(encoding="utf-8")
