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
import re
import shlex
import subprocess
import zipfile
from pathlib import Path

import pytest
from readme_runs import HINT, Built, PipUser, WheelUser, run_command, succeeded

from default_catalog_ids import DEFAULT_PACKAGES
from kgfegmcp.core.config import SHIPPED_DIR
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.sources.registry_sources import SOURCE_DISTRIBUTIONS

pytestmark = pytest.mark.slow

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


def test_the_wheel_built_from_the_sdist_ships_what_the_readme_wheel_ships(
    wheel_from_sdist: Path, readme_wheel: Built
) -> None:
    from_sdist, from_tree = wheel_contents(wheel_from_sdist), wheel_contents(readme_wheel.path)
    assert from_sdist.keys() == from_tree.keys(), {
        "missing from the sdist's wheel": sorted(from_tree.keys() - from_sdist.keys()),
        "only in the sdist's wheel": sorted(from_sdist.keys() - from_tree.keys()),
    }
    assert from_sdist == from_tree, sorted(name for name in from_tree if from_sdist[name] != from_tree[name])


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
    assert len(list(pip_user.catalog.glob(f"*/*/{MANIFEST_FILENAME}"))) == len(DEFAULT_PACKAGES)

    # The command init named is that same install, into that same environment: run as printed, it finds
    # every pinned package already there.
    hint = succeeded(pip_user.runs[HINT])
    site_packages = f"{pip_user.venv}/lib/"
    for requirement in REQUIREMENTS:
        assert re.search(
            rf"Requirement already satisfied: {re.escape(requirement)} in {re.escape(site_packages)}", hint.stdout
        ), hint.stdout
