"""The artifacts a new user makes by following the README, made once per session by the README's own
commands and shared: test_readme_commands.py checks what the user sees, the other installation tests
check the artifacts more deeply. Nothing is built twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_support import (
    BEFORE_SOURCES,
    BUNDLE_BLOCK,
    INSTALLED,
    WHEEL_BLOCK,
    Built,
    WheelUser,
    built_by,
    dev_tooling_problem,
    fresh_copy,
    lend_dev_tooling,
    new_user_env,
    readme_block,
    run_command,
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
    return built_by(build, fresh_clone, new_user_env(tmp_path_factory.mktemp("wheel-builder")))


@pytest.fixture(scope="session")
def pipx_user(readme_wheel: Built, fresh_clone: Path, tmp_path_factory: pytest.TempPathFactory) -> WheelUser:
    """The README's wheel block, verbatim, in order, by a user with a fresh home: `pipx install` in the
    clone, then the installed `kgfegmcp` from a directory of the user's. `serve` is left to the tests."""
    home = tmp_path_factory.mktemp("pipx-user")
    anywhere = home / "anywhere"
    anywhere.mkdir()
    commands = readme_block(WHEEL_BLOCK).commands
    (serve,) = [command for command in commands if command.startswith("kgfegmcp serve")]
    user = WheelUser(home, new_user_env(home), anywhere, serve)
    for command in commands:
        if command.startswith(WHEEL_BLOCK):
            user.runs[command] = readme_wheel.run
        elif command.startswith("kgfegmcp catalog init") and BEFORE_SOURCES[0] not in user.runs:
            for probe in BEFORE_SOURCES:
                user.runs[probe] = run_command(probe, anywhere, user.env)
        if command not in user.runs and command != serve:
            cwd = anywhere if command.startswith(INSTALLED) else fresh_clone
            user.runs[command] = succeeded(run_command(command, cwd, user.env))
    assert BEFORE_SOURCES[0] in user.runs, "the wheel block has no `kgfegmcp catalog init`"
    return user


@pytest.fixture(scope="session")
def developer_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone in which `scripts/install_dev.sh` has run: this checkout's tooling, linked in."""
    problem = dev_tooling_problem()
    if problem is not None:
        pytest.fail(problem)
    checkout = fresh_copy(tmp_path_factory.mktemp("developer-checkout"))
    lend_dev_tooling(checkout)
    return checkout


@pytest.fixture(scope="session")
def readme_bundle(developer_checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The desktop bundle the README's bundle command built (the catalog built in it, not copied)."""
    (command,) = readme_block(BUNDLE_BLOCK).commands
    return built_by(command, developer_checkout, new_user_env(tmp_path_factory.mktemp("bundle-builder")))
