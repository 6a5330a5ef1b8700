"""Start-up as an operator sees it on a real process: a refusal exits non-zero with a ``catalog_error:``
that names the root, package or profile to fix; what is left out of a catalog that does start
(excluded packages, overlays of frameworks not served) is named on stderr, one line each."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from e2e_support import KGFEGMCP, PROFILES_ROOT, PROMPTS_ROOT, REPOSITORY_ROOT, free_port, full_env, server_env
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from default_catalog_ids import DEFAULT_PACKAGES
from kgfegmcp import __version__
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.prompts.repository import copy_generic_configs
from package_factory import DAG, LC, TREE, base_graph, build_all, standard_world

pytestmark = pytest.mark.slow

ENTRY_POINTS = {
    "cli-stdio": [KGFEGMCP, "serve", "--transport", "stdio"],
    "cli-http": [KGFEGMCP, "serve", "--transport", "http", "--host", "127.0.0.1", "--port", "{port}"],
    "mcpb-module": [sys.executable, "-m", "kgfegmcp.mcpb_server"],
    "http-module": [sys.executable, "-m", "kgfegmcp.http_transport.server"],
}
COMPUTACAO = "brazil-bncc-computacao"


def serve_stdio(root: Path, **settings: str) -> tuple[int, str]:
    """``kgfegmcp serve --transport stdio`` with stdin closed: it starts (or refuses), then exits at EOF.

    Returns the exit code and stderr with its line wrapping undone (the console wraps long lines).
    """
    completed = subprocess.run(
        [KGFEGMCP, "serve", "--transport", "stdio"],
        cwd=REPOSITORY_ROOT,
        env={**full_env(root), **settings},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert completed.stdout == b"", "nothing may reach stdout (the STDIO transport owns it)"
    stderr = completed.stderr.decode(errors="replace")
    assert "Traceback" not in stderr, stderr[-2000:]
    return completed.returncode, " ".join(stderr.split())


@pytest.mark.parametrize(
    ("entry", "root_kind"),
    [("cli-stdio", "empty"), ("cli-http", "empty"), ("mcpb-module", "missing"), ("http-module", "missing")],
)
def test_no_accepted_package_fails_fast(entry: str, root_kind: str, tmp_path: Path) -> None:
    root = tmp_path / "graph_packages"
    if root_kind == "empty":
        root.mkdir()
    port = free_port()
    command = [part.replace("{port}", str(port)) for part in ENTRY_POINTS[entry]]
    env = {**full_env(root), "KGFEGMCP_HTTP_PORT": str(port)}
    completed = subprocess.run(
        command,
        cwd=REPOSITORY_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    stderr = completed.stderr.decode(errors="replace")
    assert completed.returncode != 0
    assert "catalog_error: No accepted graph package" in stderr, stderr[-2000:]
    assert "Traceback" not in stderr
    assert completed.stdout == b"", "nothing may reach stdout (the STDIO transport owns it)"
    message = " ".join(stderr.split())
    if root_kind == "missing":  # named, resolved, and told apart from an empty root
        assert f"KGFEGMCP_GRAPH_PACKAGES_DIR {root.resolve()} does not exist" in message
        assert "kgfegmcp catalog init" in message and "holds no package" not in message
    else:
        assert f"{root.resolve()} holds no package" in message and "does not exist" not in message


async def test_a_subset_of_the_catalog_starts_with_the_shipped_prompts(
    default_catalog_root: Path, tmp_path: Path
) -> None:
    """Only Computação in the root, the shipped overlays for every default framework: it serves."""
    root = tmp_path / "graph_packages"
    shutil.copytree(default_catalog_root / COMPUTACAO, root / COMPUTACAO)
    log = tmp_path / "stderr.log"
    transport = StdioTransport(
        command=KGFEGMCP,
        args=["serve", "--transport", "stdio"],
        env=server_env(root),  # the shipped prompts and profiles
        cwd=str(REPOSITORY_ROOT),
        keep_alive=False,
        log_file=log,
    )
    async with Client(transport) as client:
        tools = await client.list_tools()
    assert "search_standards" in {tool.name for tool in tools}
    stderr = log.read_text(errors="replace")
    skipped = [line for line in stderr.splitlines() if "skipped prompt overlay" in line]
    others = sorted(p.name for p in (PROMPTS_ROOT / "overlays").iterdir() if p.name != COMPUTACAO)
    assert len(skipped) == len(others) == len(DEFAULT_PACKAGES) - 1, stderr[-2000:]
    for framework_id in others:
        (line,) = [line for line in skipped if f"framework {framework_id} " in line]
        assert " WARNING " in line and str((PROMPTS_ROOT / "overlays" / framework_id).resolve()) in line


def test_excluded_packages_are_named_with_state_and_codes(tmp_path: Path) -> None:
    world = standard_world(tmp_path / "world")
    built = build_all(world)
    graph = base_graph(TREE)
    graph.items = [replace(item, grade_level=("99",)) for item in graph.items]  # unknown_grade_label
    failed = world.write(graph, snapshot_id="2025-01", is_current=False)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in [*built.values(), failed]:
        lifecycle.validate(location)
    prompts = copy_generic_configs(PROMPTS_ROOT, tmp_path / "prompts")  # no overlay: only exclusions to report
    settings = {"KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_PROMPTS_DIR": str(prompts)}

    code, stderr = serve_stdio(world.packages, **settings)
    assert code == 0, stderr[-2000:]
    assert f"not serving {TREE}@2025-01 ({failed.path.absolute()}): recorded failed (unknown_grade_label)." in stderr
    assert f"`kgfegmcp packages validate {failed.path.absolute()}` lists its findings" in stderr

    for served in (DAG, LC):
        shutil.rmtree(world.packages / served)
    shutil.rmtree(built[TREE].path)
    code, stderr = serve_stdio(world.packages, **settings)
    assert code == 2
    assert (
        f"catalog_error: No accepted graph package: every package under {world.packages.resolve()} is excluded "
        f"({TREE}@2025-01 (failed: unknown_grade_label))"
    ) in stderr


@pytest.mark.parametrize("change", ["deleted", "edited"])
def test_a_broken_bound_profile_is_named_with_its_path(default_catalog_root: Path, tmp_path: Path, change: str) -> None:
    root = tmp_path / "graph_packages"
    shutil.copytree(default_catalog_root / COMPUTACAO, root / COMPUTACAO)
    profiles = tmp_path / "profiles"
    shutil.copytree(PROFILES_ROOT, profiles)
    profile = profiles / COMPUTACAO / "2.1.json"
    if change == "deleted":
        profile.unlink()
    else:
        profile.write_bytes(profile.read_bytes() + b"\n")
    code, stderr = serve_stdio(root, KGFEGMCP_PROFILES_DIR=str(profiles))
    assert code == 2
    assert "no longer validates (profile_binding_mismatch)" in stderr
    hint = stderr.split(" Next action: ", 1)[1]
    assert f"Restore {profile} (profile {COMPUTACAO} version 2.1, SHA-256 " in hint
    assert "against the current profile" in hint and "still match its manifest" in hint
    assert "restore its validated bytes" not in hint


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_a_package_start_up_cannot_read_is_one_coded_line_from_every_entry_point(entry: str, tmp_path: Path) -> None:
    """A passed package whose manifest is nested 100,000 deep (beside two good ones): whatever start-up
    makes of it (a finding, or an incident), every entry point exits 2 with one coded line, no traceback."""
    world = standard_world(tmp_path / "world")
    built = build_all(world)
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in built.values():
        lifecycle.validate(location)
    (built[TREE].path / "package_manifest.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    prompts = copy_generic_configs(PROMPTS_ROOT, tmp_path / "prompts")
    port = free_port()
    command = [part.replace("{port}", str(port)) for part in ENTRY_POINTS[entry]]
    env = {
        **full_env(world.packages),
        "KGFEGMCP_PROFILES_DIR": str(world.profiles_root),
        "KGFEGMCP_PROMPTS_DIR": str(prompts),
        "KGFEGMCP_HTTP_PORT": str(port),
    }
    completed = subprocess.run(
        command, cwd=REPOSITORY_ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False
    )
    stderr = completed.stderr.decode(errors="replace")
    assert completed.returncode == 2, stderr[-2000:]
    assert "Traceback" not in stderr and completed.stdout == b""
    line = stderr.strip().splitlines()[-1]
    coded = line.startswith("catalog_error: ") or (line.startswith("internal_error: ") and "; incident " in line)
    assert coded and " Next action: " in line, line


def test_the_console_script_says_its_version() -> None:
    """An operator's first check (the wheel's version), answered without reading any catalog."""
    done = subprocess.run([KGFEGMCP, "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"kgfegmcp {__version__}\n", "")
