"""The wheel as a new user gets it: built from the repository with ``python -m build``, installed with
uv into a fresh virtual environment (made by ``python -m venv``, so it has pip) outside the checkout, and run from another directory with no
``KGFEGMCP_*`` variable: ``catalog init`` names what is missing, installs it on request, builds the
catalog into the user's data directory; ``doctor`` agrees; ``serve`` answers an MCP client."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from install_support import REPOSITORY_ROOT, user_env

from kgfegmcp.config import SHIPPED_DIR
from kgfegmcp.mcp.register import TOOLS
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.sources.registry_sources import SOURCE_DISTRIBUTIONS

NOT_SOURCE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built (through the sdist, as `python -m build` does) from a copy of the project files."""
    source = tmp_path_factory.mktemp("project")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPOSITORY_ROOT / name, source / name)
    shutil.copytree(REPOSITORY_ROOT / "src", source / "src", ignore=NOT_SOURCE)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], check=True, capture_output=True)
    (built,) = dist.glob("kgfegmcp-*.whl")
    return built


@pytest.fixture(scope="module")
def venv_bin(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with only the wheel and its dependencies.

    uv installs them (as `uv tool install` or `uvx` would, and ten times faster than pip here); pip stays
    in the environment for `catalog init --install-sources`.
    """
    home = tmp_path_factory.mktemp("venv-home")
    venv = home / "venv"
    env = user_env(home)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], check=True, env=env)
    return venv / "bin"


def test_the_wheel_ships_every_profile_and_prompt_configuration(wheel: Path) -> None:
    shipped = {
        f"kgfegmcp/shipped/{path.relative_to(SHIPPED_DIR).as_posix()}"
        for path in SHIPPED_DIR.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert any("/profiles/" in name for name in shipped) and any("/prompts/" in name for name in shipped)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert shipped <= names, sorted(shipped - names)
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


async def test_installed_wheel_inits_the_catalog_and_serves_it_from_anywhere(venv_bin: Path, tmp_path: Path) -> None:
    env = user_env(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    kgfegmcp = str(venv_bin / "kgfegmcp")

    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kgfegmcp, *arguments], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=600, check=False
        )

    # Without the source packages, init names exactly each missing one and the one command that installs them.
    missing = run("catalog", "init")
    assert missing.returncode == 2, missing.stderr
    line = missing.stderr.strip()
    assert "\n" not in line and line.startswith("manifest_build_error: ")
    for source in SOURCE_DISTRIBUTIONS:
        assert f"{source.requirement} (not installed)" in line
    assert "-m pip install --no-deps " + " ".join(s.requirement for s in SOURCE_DISTRIBUTIONS) in line
    assert "Next action: " in line

    before = run("doctor", "--json")
    assert before.returncode == 1
    failing = {check["area"] for check in json.loads(before.stdout) if check["status"] == "fail"}
    assert failing == {"package root"}

    built = run("catalog", "init", "--install-sources")
    assert built.returncode == 0, built.stderr
    assert "validating us-ccss-ela-literacy-grades-2-4" in built.stderr  # progress, one line per step off a terminal
    root = tmp_path / "data" / "kgfegmcp" / "graph_packages"
    assert len(list(root.glob(f"*/*/{MANIFEST_FILENAME}"))) == 5

    after = run("doctor", "--json")
    assert after.returncode == 0, after.stdout
    checks = {check["area"]: check for check in json.loads(after.stdout)}
    site_packages = str(venv_bin.parent / "lib")
    assert site_packages in checks["profiles"]["detail"] and site_packages in checks["prompts"]["detail"]
    assert all(check["status"] == "ok" for check in checks.values()), checks

    transport = StdioTransport(command=kgfegmcp, args=["serve"], env=env, cwd=str(elsewhere))
    async with Client(transport, init_timeout=300) as client:
        assert [tool.name for tool in await client.list_tools()] == [name for name, _ in TOOLS]
        result = await client.call_tool(
            "get_standard", {"request": {"frameworkId": "brazil-bncc-ensino-fundamental", "statementCode": "EF06MA07"}}
        )
    assert result.structured_content is not None
    assert result.structured_content["standard"]["statementCode"] == "EF06MA07"
    assert (tmp_path / "cache" / "kgfegmcp" / "derived").is_dir()  # the derived cache went to the user's cache
