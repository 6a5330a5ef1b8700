"""The MCPB bundle: its manifest agrees with the server and passes `mcpb validate`; the bundle the README's
command built (scripts/build_bundle.py, in a fresh checkout), unpacked by `mcpb unpack` into a temporary
folder and started exactly as a desktop host starts a `uv` bundle (the manifest's command, its variables
substituted), serves the catalog built into it, or the directory the user chose in its settings. With
`--catalog DIR`, the script packs an operator's validated root instead of building one, and refuses a
directory that holds no package."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from install_support import MCPB, REPOSITORY_ROOT, user_env
from mcp.client import advertise
from readme_runs import Built, succeeded

from default_catalog_ids import DEFAULT_PACKAGES
from kgfegmcp.mcp.curriculum_map import MAP_URI, map_document
from kgfegmcp.mcp.tools import TOOLS
from kgfegmcp.packages.manifest import MANIFEST_FILENAME

pytestmark = pytest.mark.slow

MANIFEST = json.loads((REPOSITORY_ROOT / "manifest.json").read_text(encoding="utf-8"))
CCSS = "us-ccss-ela-literacy-grades-2-4"


def test_the_manifest_declares_what_the_server_serves() -> None:
    project = tomllib.loads((REPOSITORY_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert MANIFEST["version"] == project["version"]
    assert [tool["name"] for tool in MANIFEST["tools"]] == [tool.name for tool in TOOLS]
    for entry, tool in zip(MANIFEST["tools"], TOOLS, strict=True):  # the first sentence a model reads
        assert entry["description"] == re.split(r"(?<=[.!?])\s+", tool.description)[0], tool.name
    assert (REPOSITORY_ROOT / MANIFEST["server"]["entry_point"]).is_file()
    arguments = MANIFEST["server"]["mcp_config"]["args"]
    assert arguments[arguments.index("-m") + 1] == "kgfegmcp.mcpb_server"
    for key, option in MANIFEST["user_config"].items():
        assert option["required"] is False and f"${{user_config.{key}}}" in arguments
    icon = (REPOSITORY_ROOT / MANIFEST["icon"]).read_bytes()
    assert icon[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", icon[16:24]) == (512, 512)


def test_mcpb_validate_accepts_the_manifest() -> None:
    run = subprocess.run(
        [str(MCPB), "validate", str(REPOSITORY_ROOT / "manifest.json")], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Manifest schema validation passes" in run.stdout


@pytest.fixture(scope="module")
def bundle(readme_bundle: Built) -> Path:
    """The bundle the README's command built in a fresh checkout (conftest.py)."""
    return readme_bundle.path


@pytest.fixture(scope="module")
def unpacked(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("unpacked") / "kgfegmcp"
    subprocess.run([str(MCPB), "unpack", str(bundle), str(folder)], check=True, capture_output=True)
    return folder


def test_the_bundle_holds_the_server_the_catalog_and_the_lock(bundle: Path, default_catalog_root: Path) -> None:
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
    for required in ("manifest.json", "icon.png", "pyproject.toml", "README.md", "uv.lock"):
        assert required in names
    assert "src/kgfegmcp/mcpb_server.py" in names
    assert any(name.startswith("src/kgfegmcp/shipped/profiles/") for name in names)
    catalog = {
        p.relative_to(default_catalog_root).as_posix() for p in default_catalog_root.glob(f"*/*/{MANIFEST_FILENAME}")
    }
    assert len(catalog) == len(DEFAULT_PACKAGES) and {f"graph_packages/{name}" for name in catalog} <= names
    assert not [name for name in names if "__pycache__" in name or name.startswith(".venv")]


def host_transport(folder: Path, home: Path, packages_dir: str) -> StdioTransport:
    """The manifest's mcp_config as a host runs it: ${__dirname} and ${user_config.*} substituted.

    The host's environment forbids writing bytecode (as some do, and this machine's does): what the
    bundle caches for its next start, it caches because its manifest says so.
    """
    config = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["server"]["mcp_config"]

    def substitute(value: str) -> str:
        return value.replace("${__dirname}", str(folder)).replace("${user_config.graph_packages_dir}", packages_dir)

    env = {**user_env(home), "PYTHONDONTWRITEBYTECODE": "1", **config.get("env", {})}
    arguments = [substitute(argument) for argument in config["args"]]
    return StdioTransport(command=config["command"], args=arguments, env=env, cwd=str(home))


async def call(client: Client[Any], tool: str, request: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, {"request": request})
    assert result.structured_content is not None
    return result.structured_content


async def test_the_unpacked_bundle_serves_its_catalog_as_a_host_starts_it(unpacked: Path, tmp_path: Path) -> None:
    # A desktop host that renders MCP Apps declares the extension, and is served the curriculum map too.
    apps = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]
    async with Client(host_transport(unpacked, tmp_path, ""), init_timeout=600, extensions=apps) as client:
        assert [tool.name for tool in await client.list_tools()] == [tool.name for tool in TOOLS]
        listed = await call(client, "list_frameworks", {})
        search = await call(client, "search_standards", {"query": "main idea", "frameworkIds": [CCSS], "limit": 3})
        view = (await client.read_resource_mcp(MAP_URI)).contents
    assert len(listed["frameworks"]) == len(DEFAULT_PACKAGES)
    assert [getattr(content, "text", None) for content in view] == [map_document()]
    assert search["hits"][0]["statementCode"] == "RI.3.2"  # "Determine the main idea of a text; …"
    # The next start reads the bytecode this one wrote, for the server and for its dependencies, instead
    # of compiling every module again (docs/performance.md, "The desktop bundle's starts").
    assert (unpacked / "src" / "kgfegmcp" / "mcp" / "__pycache__").is_dir()
    assert list((unpacked / ".venv").glob("lib/python3*/site-packages/fastmcp/__pycache__/__init__.*.pyc"))


async def test_the_users_package_directory_replaces_the_bundled_catalog(
    unpacked: Path, default_catalog_root: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "my-packages"
    shutil.copytree(default_catalog_root / CCSS, mine / CCSS)
    async with Client(host_transport(unpacked, tmp_path, str(mine)), init_timeout=600) as client:
        listed = await call(client, "list_frameworks", {})
    assert [framework["graphPackageId"].split("@")[0] for framework in listed["frameworks"]] == [CCSS]


def build_bundle(checkout: Path, catalog: Path, out: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """scripts/build_bundle.py in ``checkout``, shipping ``catalog`` (`--catalog`), written to ``out``."""
    return subprocess.run(
        [
            str(checkout / ".venv" / "bin" / "python"),
            str(checkout / "scripts" / "build_bundle.py"),
            "--catalog",
            str(catalog),
            "--out",
            str(out),
        ],
        cwd=checkout,
        env=user_env(home),
        capture_output=True,
        text=True,
        check=False,
    )


def zip_contents(bundle: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(bundle) as archive:
        return {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}


def test_the_bundle_ships_the_operators_catalog_as_it_is_and_nothing_else(
    bundle: Path, developer_checkout: Path, default_catalog_root: Path, tmp_path: Path
) -> None:
    # One validated package, not the five a build would make: what is shipped can only be the copy.
    catalog = tmp_path / "operators-catalog"
    shutil.copytree(default_catalog_root / CCSS, catalog / CCSS)
    run = succeeded(build_bundle(developer_checkout, catalog, tmp_path / "out", tmp_path))
    assert "validating" not in run.stdout  # copied, not built
    (built,) = (tmp_path / "out").glob("kgfegmcp-*.mcpb")
    shipped, readme = zip_contents(built), zip_contents(bundle)
    expected = {
        f"graph_packages/{path.relative_to(catalog).as_posix()}": path.read_bytes()
        for path in catalog.rglob("*")
        if path.is_file()
    }
    assert {name: data for name, data in shipped.items() if name.startswith("graph_packages/")} == expected
    # Everything else is the bundle the README's command packs.
    assert {name for name in shipped if not name.startswith("graph_packages/")} == {
        name for name in readme if not name.startswith("graph_packages/")
    }


def test_build_bundle_refuses_a_catalog_that_holds_no_package(developer_checkout: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = build_bundle(developer_checkout, empty, tmp_path / "out", tmp_path)
    assert run.returncode == 1 and f"--catalog {empty} holds no graph package" in run.stderr, run.stderr
    assert not list((tmp_path / "out").glob("*.mcpb"))
