"""Every command block of the README works verbatim on a fresh machine.

Each block is either run here, exactly as written, through bash with ``set -euo pipefail``, in the state a
new user has (a fresh copy of the repository, a fresh home, no ``KGFEGMCP_*`` variable), or listed with
the reason it is not; a block in neither list fails, so no command joins the README unchecked. Blocks are
known by how they start. What a user checks is asserted: exit code 0, the files the commands promise,
a real answer from the server they start. The commands on port 8765 run in a network namespace of their
own, so nothing else on this machine can hold that port; the hosted recipe runs there on another port.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from install_support import REPOSITORY_ROOT
from readme_runs import (
    BUNDLE_BLOCK,
    CEILING_SECONDS,
    CTRL_C,
    HOSTED_BLOCK,
    HOSTED_PORT,
    NO_TOKEN,
    PORT_8765,
    README,
    STOPPED,
    WHEEL_BLOCK,
    Built,
    Session,
    UvUser,
    WheelUser,
    bash_arguments,
    distributions,
    fenced_blocks,
    run_command,
)

from default_catalog_ids import DEFAULT_PACKAGES as DEFAULT_CATALOG
from kgfegmcp.mcp.tools import TOOLS
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.sources.registry_sources import SOURCE_DISTRIBUTIONS
from package_factory import FixtureWorld, lc_graph
from supplied_package import SuppliedPackageWriter

pytestmark = pytest.mark.slow

#: The README block that builds a package from NaCCA's English Basic 1-3 PDF.
PDF_BLOCK = ".venv/bin/kgfegmcp packages build --source nacca-pdf"
NACCA_PDF = REPOSITORY_ROOT.parent / "shared" / "data" / "ghana-nacca-2019" / "ENGLISH-LOWER-PRIMARY-B1-B3.pdf"

#: The README block that puts supplied packages and their profiles in place and validates them.
SUPPLIED_BLOCK = "mkdir -p data/graph_packages config/profiles"

#: README blocks this module runs, by how they start, each with the test that runs it.
RUN = {
    "scripts/setup.sh": "test_setup_serves_until_ctrl_c_and_a_client_connects",
    ".venv/bin/fastmcp list": "test_setup_serves_until_ctrl_c_and_a_client_connects",
    HOSTED_BLOCK: "test_the_hosted_commands_answer_with_the_token",
    BUNDLE_BLOCK: "test_the_bundle_command_builds_the_bundle_it_names",
    WHEEL_BLOCK: "test_the_wheel_block_installs_inits_checks_and_serves",
    "uv tool install": "test_the_uv_block_installs_inits_and_serves",
    PDF_BLOCK: "test_the_pdf_block_builds_and_validates_the_english_curriculum",
    SUPPLIED_BLOCK: "test_the_supplied_block_puts_a_pipeline_package_in_place_and_validates_it",
}
#: README blocks not run here, by how they start, and why.
NOT_RUN = {
    "scripts/test.sh": "the test command itself: it runs this module",
    "kgfegmcp catalog init [--root DIR]": "a synopsis of every subcommand's options, not a command to type",
    "$ .venv/bin/fastmcp list": "what a client prints without a token and with a wrong one: "
    "tests/e2e/test_http_auth.py checks that output against a real server",
}
#: Fenced blocks in these languages hold data (a host's configuration), not commands.
DATA_LANGUAGES = frozenset({"json", "toml", "yaml"})
#: The languages of command blocks (none given counts as one: a reader may type it).
COMMAND_LANGUAGES = frozenset({"", "sh", "bash", "shell", "console", "zsh"})
#: The packages of the default catalog (the README's table).
DEFAULT_PACKAGES = len(DEFAULT_CATALOG)
VERSION = tomllib.loads((REPOSITORY_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
EF06MA07 = {"frameworkId": "brazil-bncc-ensino-fundamental", "statementCode": "EF06MA07"}


def test_every_command_block_is_run_here_or_excused() -> None:
    blocks = fenced_blocks(README.read_text(encoding="utf-8"))
    unknown = [block.line for block in blocks if block.language not in COMMAND_LANGUAGES | DATA_LANGUAGES]
    assert not unknown, f"README.md blocks on lines {unknown}: a language neither here nor in DATA_LANGUAGES"
    commands = [block for block in blocks if block.language in COMMAND_LANGUAGES]
    classified = {**RUN, **NOT_RUN}
    assert not RUN.keys() & NOT_RUN.keys()
    for block in commands:
        keys = [key for key in classified if block.text.startswith(key)]
        assert len(keys) == 1, f"README.md line {block.line}: run it in this module (RUN) or say why not (NOT_RUN)"
    for key in classified:
        assert sum(block.text.startswith(key) for block in commands) == 1, f"no single README block starts {key!r}"
    for test in set(RUN.values()):
        assert callable(globals().get(test)), f"RUN names {test}, which this module does not define"


@pytest.mark.skipif(not NACCA_PDF.is_file(), reason="NaCCA's PDF is not here (never committed; ../shared/data)")
def test_the_pdf_block_builds_and_validates_the_english_curriculum(tmp_path: Path) -> None:
    """The block verbatim, where a user has the PDF they downloaded and the checkout's environment."""
    (block,) = [b for b in fenced_blocks(README.read_text(encoding="utf-8")) if b.text.startswith(PDF_BLOCK)]
    (tmp_path / ".venv").symlink_to(REPOSITORY_ROOT / ".venv")
    shutil.copyfile(NACCA_PDF, tmp_path / NACCA_PDF.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # the user's configuration directory, not the developer's
    run = run_command(block.text, tmp_path, env)
    assert run.returncode == 0, run.stderr
    assert "ghana-nacca-primary-english-language-basic-1-3" in run.stdout and "passed" in run.stdout
    (manifest,) = (tmp_path / "data" / "graph_packages").glob(f"*/*/{MANIFEST_FILENAME}")
    assert '"reviewStatus": "review_required"' in manifest.read_text(encoding="utf-8")  # the profile's
    decisions = json.loads((tmp_path / "config" / "kgfegmcp" / "operator_rights.json").read_text(encoding="utf-8"))
    (decision,) = decisions["decisions"].values()
    assert decision["reviewStatus"] == "provisional_operator_approved" and decision["decidedBy"]


def test_the_supplied_block_puts_a_pipeline_package_in_place_and_validates_it(tmp_path: Path) -> None:
    """The block verbatim, where a user unpacked what the pipeline handed over into ``supplied/``."""
    (block,) = [b for b in fenced_blocks(README.read_text(encoding="utf-8")) if b.text.startswith(SUPPLIED_BLOCK)]
    (tmp_path / ".venv").symlink_to(REPOSITORY_ROOT / ".venv")
    handed = FixtureWorld(tmp_path / "handed-over")
    writer = SuppliedPackageWriter(handed)
    location = writer.write(lc_graph("fixture-supplied-lc"), writer.profile("fixture-supplied-lc"))
    shutil.copytree(handed.packages, tmp_path / "supplied" / "packages")
    shutil.copytree(handed.profiles_root, tmp_path / "supplied" / "profiles")
    run = run_command(block.text, tmp_path, {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")})
    assert run.returncode == 0, run.stderr
    assert "passed" in run.stdout  # and the exit status says every package was accepted
    assert (tmp_path / "data" / "graph_packages" / location.framework_id / location.snapshot_id).is_dir()
    assert (tmp_path / "config" / "profiles" / "fixture-supplied-lc" / "2.0" / "profile.json").is_file()


async def serve_and_call(command: str, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Start a README `serve` command verbatim over STDIO, as a host does; list the tools and ask for one standard."""
    bash, *arguments = bash_arguments(command)
    transport = StdioTransport(command=bash, args=arguments, env=env, cwd=str(cwd))
    async with Client(transport, init_timeout=CEILING_SECONDS) as client:
        assert [tool.name for tool in await client.list_tools()] == [tool.name for tool in TOOLS]
        result = await client.call_tool("get_standard", {"request": EF06MA07})
    assert not result.is_error and result.structured_content is not None
    return result.structured_content


async def test_the_wheel_block_installs_inits_checks_and_serves(readme_wheel: Built, pipx_user: WheelUser) -> None:
    assert readme_wheel.path.name == f"kgfegmcp-{VERSION}-py3-none-any.whl"  # the README names this version's
    # Every command exited 0 (the fixture ran them in order). The catalog went where the README says.
    assert len(list(pipx_user.catalog.glob(f"*/*/{MANIFEST_FILENAME}"))) == DEFAULT_PACKAGES
    assert (pipx_user.home / ".local" / "bin" / "kgfegmcp").exists()  # what `kgfegmcp` ran: pipx's
    doctor = pipx_user.run_of("kgfegmcp doctor")
    assert re.search(rf"│ catalog +│ ok +│ `kgfegmcp serve` serves {DEFAULT_PACKAGES} packages", doctor.stdout), (
        doctor.stdout
    )

    answer = await serve_and_call(pipx_user.serve, pipx_user.anywhere, pipx_user.env)
    assert answer["standard"]["statementCode"] == "EF06MA07"
    # "The first start stores decoded records and search indexes in the user cache directory."
    assert (pipx_user.home / ".cache" / "kgfegmcp" / "derived").is_dir()


def test_init_without_the_data_packages_names_the_command_the_readme_quotes(pipx_user: WheelUser) -> None:
    readme = " ".join(README.read_text(encoding="utf-8").split())
    quoted = re.search(
        r"\(`python -m pip install --no-deps ([^`]+)`, or `uv pip install --python … --no-deps …`", readme
    )
    assert quoted is not None, "README.md no longer quotes the commands `catalog init` names"
    assert quoted[1].split() == [source.requirement for source in SOURCE_DISTRIBUTIONS]
    missing = pipx_user.runs["kgfegmcp catalog init"]
    assert missing.returncode == 2
    # pipx made the environment with uv (uv is on PATH), so it has no pip: the command is the README's other one.
    assert f"Run `uv pip install --python {pipx_user.venv}/bin/python --no-deps {quoted[1]}`" in missing.stderr


async def test_the_uv_block_installs_inits_and_serves(uv_user: UvUser, fresh_clone: Path) -> None:
    # Every command exited 0 (the fixture ran them in order).
    assert (uv_user.home / ".local" / "bin" / "kgfegmcp").exists()  # what `kgfegmcp` ran: uv's
    assert len(list(uv_user.catalog.glob(f"*/*/{MANIFEST_FILENAME}"))) == DEFAULT_PACKAGES
    answer = await serve_and_call(uv_user.serve, fresh_clone, uv_user.env)  # uvx needs no data package
    assert answer["standard"]["statementCode"] == "EF06MA07"


def test_the_uv_route_installs_no_more_than_pipx(uv_user: UvUser, pipx_user: WheelUser) -> None:
    """The data packages' own dependencies (numpy, openai, …) are never read, so neither route installs them."""
    assert distributions(uv_user.venv) == distributions(pipx_user.venv)
    assert not {"numpy", "openai"} & distributions(uv_user.venv)


def test_the_bundle_command_builds_the_bundle_it_names(readme_bundle: Built) -> None:
    assert readme_bundle.path.name == f"kgfegmcp-{VERSION}.mcpb"
    assert readme_bundle.about_mb is not None
    assert round(readme_bundle.path.stat().st_size / 1e6) == round(readme_bundle.about_mb), "README: 'about N MB'"
    assert "validating us-ccss-ela-literacy-grades-2-4" in readme_bundle.run.stdout  # built, not copied


def test_setup_serves_until_ctrl_c_and_a_client_connects(
    developer_session: tuple[Session, str], developer_checkout: Path
) -> None:
    session, printed = developer_session
    assert f"{PORT_8765}/mcp" in printed  # "It prints the URL"
    catalog = developer_checkout / "data" / "graph_packages"
    assert len(list(catalog.glob(f"*/*/{MANIFEST_FILENAME}"))) == DEFAULT_PACKAGES
    # It served until Ctrl-C, and then stopped (130 is how a shell reports a command ended by Ctrl-C).
    assert session.of(CTRL_C).split() in (["stopped", "130"], ["stopped", "0"]), printed[-2000:]
    listed = session.of(".venv/bin/fastmcp list")
    assert f"Tools ({len(TOOLS)})" in listed and all(f"  {tool.name}(request" in listed for tool in TOOLS)
    hits = session.json_of(".venv/bin/fastmcp call http://127.0.0.1:8765/mcp search_standards")["hits"]
    assert "EF06MA07" in [hit["statementCode"] for hit in hits]


def test_setup_without_serving_ends_with_the_command_that_serves(
    developer_session: tuple[Session, str], developer_checkout: Path
) -> None:
    """Run again after the session (nothing to install, the same bytes rebuilt), `--no-serve` stops after
    validating, and its last line is the command that serves, as typed in the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    run = run_command("scripts/setup.sh --no-serve", developer_checkout, env)
    assert run.returncode == 0, run.stderr[-2000:]
    serve = ".venv/bin/kgfegmcp serve --transport http --host 127.0.0.1 --root data/graph_packages"
    assert run.stdout.strip().splitlines()[-1] == f"built and validated; serve it over HTTP with: {serve}"


def test_the_hosted_commands_answer_with_the_token(developer_session: tuple[Session, str]) -> None:
    """The recipe as a script runs it (no job control), on a port other than the default."""
    session, _ = developer_session
    assert session.of(f"PORT={HOSTED_PORT}") == ""
    assert json.loads(session.of('until curl -fs "http://127.0.0.1:$PORT/readyz"; '))["status"] == "ready"
    answer = session.json_of('.venv/bin/fastmcp call "http://127.0.0.1:$PORT/mcp" get_standard --auth')
    assert answer["standard"]["statementCode"] == "EF06MA07"
    assert session.of(NO_TOKEN) == "401"  # the token was required: the hosted server is not open
    # `kill "$SERVER"` stopped it: SIGTERM, which uvicorn turns into a clean shutdown (or the signal's status).
    assert session.of(STOPPED).split()[-1] in ("0", "143"), session.of(STOPPED)
