"""The wheel as a new user gets it: built in a fresh clone by the README's command, installed by the
README's `pipx install` (pipx makes the environment with uv, which is on PATH, so it has no pip), and run
from another directory with no ``KGFEGMCP_*`` variable: ``catalog init`` names what is missing and the one
command that installs it, ``--install-sources`` installs it (with uv) and builds the catalog into the
user's data directory, ``doctor`` agrees. test_readme_commands.py serves it.

Two other ways to the same wheel are checked against it: built from the sdist alone (what a package
index or a distribution's packager does), and installed into an environment that has pip (what
`python -m venv` then `pip install` users have), where ``--install-sources`` installs with that pip."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from install_support import fresh_copy, new_user_env, uv_executable
from readme_runs import Built, WheelUser, run_command, succeeded

from kgfegmcp.config import SHIPPED_DIR
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.sources.registry_sources import SOURCE_DISTRIBUTIONS

REQUIREMENTS = [source.requirement for source in SOURCE_DISTRIBUTIONS]


def test_the_wheel_ships_every_profile_and_prompt_configuration(readme_wheel: Built) -> None:
    shipped = {
        f"kgfegmcp/shipped/{path.relative_to(SHIPPED_DIR).as_posix()}"
        for path in SHIPPED_DIR.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert any("/profiles/" in name for name in shipped) and any("/prompts/" in name for name in shipped)
    with zipfile.ZipFile(readme_wheel.path) as archive:
        names = set(archive.namelist())
    assert shipped <= names, sorted(shipped - names)
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def test_init_names_each_missing_source_and_the_one_command_that_installs_it(pipx_user: WheelUser) -> None:
    missing = pipx_user.runs["kgfegmcp catalog init"]
    assert missing.returncode == 2, missing.stderr
    line = missing.stderr.strip()
    assert "\n" not in line and line.startswith("manifest_build_error: ")
    for source in SOURCE_DISTRIBUTIONS:
        assert f"{source.requirement} (not installed)" in line
    python = shlex.quote(str(pipx_user.venv / "bin" / "python"))
    requirements = " ".join(source.requirement for source in SOURCE_DISTRIBUTIONS)
    assert f"Next action: Run `uv pip install --python {python} --no-deps {requirements}`" in line


def test_install_sources_installs_with_uv_where_the_environment_has_no_pip(pipx_user: WheelUser) -> None:
    no_pip = subprocess.run([str(pipx_user.venv / "bin" / "python"), "-c", "import pip"], capture_output=True)
    assert no_pip.returncode != 0  # the case this covers: pipx's uv backend makes no pip
    built = pipx_user.run_of("kgfegmcp catalog init --install-sources")
    requirements = ", ".join(source.requirement for source in SOURCE_DISTRIBUTIONS)
    assert f"installing {requirements} (uv, --no-deps)" in built.stderr
    assert "validating us-ccss-ela-literacy-grades-2-4" in built.stderr  # progress, one line per step off a terminal


def test_doctor_fails_on_the_package_root_before_init_and_passes_after(pipx_user: WheelUser) -> None:
    before = pipx_user.runs["kgfegmcp doctor --json"]
    assert before.returncode == 1
    assert {check["area"] for check in json.loads(before.stdout) if check["status"] == "fail"} == {"package root"}

    after = run_command("kgfegmcp doctor --json", pipx_user.anywhere, pipx_user.env)
    assert after.returncode == 0, after.stdout
    checks = {check["area"]: check for check in json.loads(after.stdout)}
    site_packages = str(pipx_user.venv / "lib")
    assert site_packages in checks["profiles"]["detail"] and site_packages in checks["prompts"]["detail"]
    assert all(check["status"] == "ok" for check in checks.values()), checks


def wheel_contents(wheel: Path) -> dict[str, int]:
    """Every file a wheel ships, with the CRC of its bytes (the dist-info's only by name: tools sign them)."""
    with zipfile.ZipFile(wheel) as archive:
        return {info.filename: 0 if ".dist-info/" in info.filename else info.CRC for info in archive.infolist()}


@pytest.fixture(scope="module")
def wheel_from_sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist uv builds from a fresh clone, then the wheel uv builds from that sdist alone.

    A clone of its own: the README's wheel build leaves build/ and an egg-info in its clone, and setuptools
    reads a stale egg-info's SOURCES.txt into the next sdist, which would hide a file the sdist misses.
    """
    clone = fresh_copy(tmp_path_factory.mktemp("sdist-clone"))
    dist = tmp_path_factory.mktemp("sdist-dist")
    env = new_user_env(tmp_path_factory.mktemp("sdist-builder"))

    def uv_build(*arguments: str) -> None:
        run = subprocess.run(
            [uv_executable(), "build", "--quiet", "--out-dir", str(dist), *arguments],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stdout + run.stderr

    uv_build("--sdist", str(clone))
    (sdist,) = dist.glob("kgfegmcp-*.tar.gz")
    uv_build("--wheel", str(sdist))
    (wheel,) = dist.glob("kgfegmcp-*.whl")
    return wheel


@pytest.mark.slow
def test_the_wheel_built_from_the_sdist_ships_what_the_readme_wheel_ships(
    wheel_from_sdist: Path, readme_wheel: Built
) -> None:
    from_sdist, from_tree = wheel_contents(wheel_from_sdist), wheel_contents(readme_wheel.path)
    assert from_sdist.keys() == from_tree.keys(), {
        "missing from the sdist's wheel": sorted(from_tree.keys() - from_sdist.keys()),
        "only in the sdist's wheel": sorted(from_sdist.keys() - from_tree.keys()),
    }
    assert from_sdist == from_tree, sorted(name for name in from_tree if from_sdist[name] != from_tree[name])


@dataclass
class PipUser:
    """A user who made an environment with pip and installed the README's wheel into it, then ran `catalog init`
    (without the data packages), `catalog init --install-sources`, and the command the first one named."""

    venv: Path
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    pip_log: str = ""


@pytest.fixture(scope="module")
def pip_user(readme_wheel: Built, tmp_path_factory: pytest.TempPathFactory) -> PipUser:
    """The environment a `python -m venv` user has: pip in it (uv makes it with `--seed` and installs the wheel,
    in a second where pip takes fifteen: what is tested is what the environment holds), activated."""
    home = tmp_path_factory.mktemp("pip-user")
    env, anywhere, user = new_user_env(home), home / "anywhere", PipUser(home / "venv")
    anywhere.mkdir()
    uv, python = uv_executable(), str(user.venv / "bin" / "python")
    subprocess.run([uv, "venv", "--quiet", "--seed", "--python", "python3", str(user.venv)], env=env, check=True)
    subprocess.run([uv, "pip", "install", "--quiet", "--python", python, str(readme_wheel.path)], env=env, check=True)
    # `source venv/bin/activate`; pip records which pip ran, and from where, in PIP_LOG.
    log = home / "pip.log"
    env.update(
        {"VIRTUAL_ENV": str(user.venv), "PATH": f"{user.venv / 'bin'}{os.pathsep}{env['PATH']}", "PIP_LOG": str(log)}
    )
    for command in ("kgfegmcp catalog init", "kgfegmcp catalog init --install-sources"):
        user.runs[command] = run_command(command, anywhere, env)
    user.pip_log = log.read_text(encoding="utf-8") if log.is_file() else ""
    hint = re.search(r"Next action: Run `([^`]+)`", user.runs["kgfegmcp catalog init"].stderr)
    if hint is not None:  # run as the user pastes it; the test asserts it was there
        user.runs["hint"] = run_command(hint[1], anywhere, env)
    return user


@pytest.mark.slow
def test_install_sources_installs_with_pip_where_the_environment_has_it(pip_user: PipUser) -> None:
    python = str(pip_user.venv / "bin" / "python")
    missing = pip_user.runs["kgfegmcp catalog init"]
    assert missing.returncode == 2, missing.stderr
    command = shlex.join([python, "-m", "pip", "install", "--no-deps", *REQUIREMENTS])
    assert f"Next action: Run `{command}`" in missing.stderr

    built = succeeded(pip_user.runs["kgfegmcp catalog init --install-sources"])
    assert f"installing {', '.join(REQUIREMENTS)} (pip, --no-deps)" in built.stderr
    # The environment's own pip ran (its log says which), and installed exactly the three: no dependency.
    assert re.search(
        rf"Using pip \S+ from {re.escape(str(pip_user.venv))}/lib/python[\d.]+/site-packages/pip ", pip_user.pip_log
    )
    installed = " ".join(f"{source.distribution}-{source.version}" for source in SOURCE_DISTRIBUTIONS)
    assert f"Successfully installed {installed}\n" in built.stdout, built.stdout
    catalog = pip_user.venv.parent / ".local" / "share" / "kgfegmcp" / "graph_packages"
    assert len(list(catalog.glob(f"*/*/{MANIFEST_FILENAME}"))) == 5

    # The command init named is that same install, into that same environment: run as printed, it finds
    # every pinned package already there.
    hint = succeeded(pip_user.runs["hint"])
    site_packages = f"{pip_user.venv}/lib/"
    for requirement in REQUIREMENTS:
        assert re.search(
            rf"Requirement already satisfied: {re.escape(requirement)} in {re.escape(site_packages)}", hint.stdout
        ), hint.stdout
