"""What the installation tests share: a user's environment with nothing of this checkout in it, a fresh
copy of the repository, and the README's command blocks, read and run as a user types them."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
README = REPOSITORY_ROOT / "README.md"
MCPB = REPOSITORY_ROOT / ".tools" / "mcpb" / "node_modules" / ".bin" / "mcpb"
#: Variables that would point a child process at this checkout or this test session.
_CHECKOUT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
#: What scripts/install_dev.sh leaves in a checkout (besides nginx), each skipped by it when present.
DEV_TOOLING = (".venv", ".venv-sdk1", ".venv-mcp-2024-11-05", ".venv-mcp-2025-03-26", ".tools")
#: A README command that ends in `# -> PATH` (or `(about N MB)` after it) names the file it makes.
_ARTIFACT = re.compile(r"->\s*(?P<path>\S+)(?:\s*\(about (?P<mb>\d+(?:\.\d+)?) MB\))?")
#: A console block's commands are the lines after its prompt.
_PROMPT = "$ "


def _cache_dir(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def _uv() -> str:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv is not None, "uv is installed by the dev extra (scripts/install_dev.sh)"
    return uv


def _machine_caches() -> dict[str, str]:
    """pip and uv keep this machine's download caches, so the registries are not asked twice."""
    return {
        "PIP_CACHE_DIR": _cache_dir(sys.executable, "-m", "pip", "cache", "dir"),
        "UV_CACHE_DIR": _cache_dir(_uv(), "cache", "dir"),
        # Python comes from this machine; only the package registries are reached.
        "UV_PYTHON_DOWNLOADS": "never",
    }


def _without_checkout() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if not key.upper().startswith("KGFEGMCP_") and key not in _CHECKOUT_VARIABLES
    }


def user_env(home: Path) -> dict[str, str]:
    """A new user's environment: no ``KGFEGMCP_*`` variable, and the per-user directories under ``home``.

    platformdirs follows the XDG variables on Linux, so the catalog and the derived cache land in
    ``home``. uv (the desktop host's runner) is on PATH.
    """
    env = _without_checkout()
    uv = _uv()
    env.update(
        {
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_CONFIG_HOME": str(home / "config"),
            **_machine_caches(),
            "PATH": f"{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    return env


def new_user_env(home: Path) -> dict[str, str]:
    """The environment of a user whose home is ``home``, who has python3, pipx and uv, and nothing else of ours.

    No ``KGFEGMCP_*`` and no ``XDG_*`` variable, so every default path is the one the README names
    (``~/.local/share/kgfegmcp``, ``~/.cache/kgfegmcp``); ``~/.local/bin``, where pipx and uv put the
    commands they install, comes first on PATH; no directory of this checkout is on it.
    """
    caches = _machine_caches()
    tools = home / ".tools"  # pipx, uv and uvx as the user installed them; here this session's
    tools.mkdir(parents=True, exist_ok=True)
    for name in ("pipx", "uv", "uvx"):
        found = shutil.which(name, path=str(Path(sys.executable).parent))
        assert found is not None, f"{name} is installed by the dev extra (scripts/install_dev.sh)"
        (tools / name).symlink_to(found)
    env = {key: value for key, value in _without_checkout().items() if not key.startswith("XDG_")}
    ours = (REPOSITORY_ROOT.resolve(), Path(sys.prefix).resolve())
    path = [
        entry
        for entry in env.get("PATH", "").split(os.pathsep)
        if entry and not any(Path(entry).resolve().is_relative_to(root) for root in ours)
    ]
    env.update(
        {
            "HOME": str(home),
            **caches,
            "PATH": os.pathsep.join([str(home / ".local" / "bin"), str(tools), *path]),
        }
    )
    return env


def fresh_copy(target: Path) -> Path:
    """What a clone of this working tree would hold once committed: tracked and new files, nothing ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPOSITORY_ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is listed too
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def dev_tooling_problem() -> str | None:
    """Why this checkout's test tooling cannot be lent to a copy, or None.

    A copy with this checkout's `.venv` linked in runs `scripts/install_dev.sh` as a second set-up does:
    everything found current, nothing installed. That holds only while `scripts/install.sh`'s stamp
    matches its digest (the bytes of scripts/install.sh and pyproject.toml); otherwise it would reinstall
    the project into this `.venv` from the copy.
    """
    missing = [name for name in DEV_TOOLING if not (REPOSITORY_ROOT / name).exists()]
    if missing or shutil.which("nginx") is None:
        return f"missing {missing or 'nginx'}: run scripts/install_dev.sh (scripts/test.sh does)"
    stamp = REPOSITORY_ROOT / ".venv" / ".kgfegmcp-install"
    digest = hashlib.sha256(
        (REPOSITORY_ROOT / "scripts" / "install.sh").read_bytes() + (REPOSITORY_ROOT / "pyproject.toml").read_bytes()
    ).hexdigest()
    recorded = stamp.read_text(encoding="utf-8").split() if stamp.is_file() else []
    if len(recorded) != 2 or recorded[0] != digest or not {"dev", "sources"} <= set(recorded[1].split(",")):
        return ".venv predates scripts/install.sh or pyproject.toml: run scripts/install_dev.sh (scripts/test.sh does)"
    return None


def lend_dev_tooling(checkout: Path) -> None:
    """Link this checkout's test tooling into ``checkout``: the state `scripts/install_dev.sh` leaves there."""
    for name in DEV_TOOLING:
        (checkout / name).symlink_to(REPOSITORY_ROOT / name)


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block of a Markdown file: its info string, its text, and the line it opens on."""

    language: str
    text: str
    line: int

    @property
    def commands(self) -> list[str]:
        """The commands a user types, one per entry, each exactly as written (with its comment)."""
        lines = self.text.splitlines()
        if self.language == "console":
            lines = [line.removeprefix(_PROMPT) for line in lines if line.startswith(_PROMPT)]
        commands: list[str] = []
        pending = ""
        for line in lines:
            if line.endswith("\\"):
                pending += line + "\n"
                continue
            if (pending + line).strip() and not line.lstrip().startswith("#"):
                commands.append(pending + line)
            pending = ""
        return commands


def fenced_blocks(markdown: str) -> list[Block]:
    """Every fenced block, in order; an unclosed fence is an error, not a block that runs to the end."""
    blocks: list[Block] = []
    opened: tuple[str, int, list[str]] | None = None
    for number, line in enumerate(markdown.splitlines(), start=1):
        if opened is None:
            if line.startswith("```"):
                opened = (line[3:].strip(), number, [])
        elif line.startswith("```"):
            blocks.append(Block(opened[0], "\n".join(opened[2]), opened[1]))
            opened = None
        else:
            opened[2].append(line)
    assert opened is None, f"README.md: the block opened on line {opened[1]} is never closed"
    return blocks


def readme_block(prefix: str) -> Block:
    """The one README block whose text starts with ``prefix``."""
    found = [block for block in fenced_blocks(README.read_text(encoding="utf-8")) if block.text.startswith(prefix)]
    assert len(found) == 1, f"README.md has {len(found)} blocks starting with {prefix!r}"
    return found[0]


def artifact(command: str) -> tuple[str, float | None] | None:
    """The file a command's `# -> PATH (about N MB)` comment promises, and its size in MB when stated."""
    comment = command.partition("#")[2]
    match = _ARTIFACT.search(comment)
    if match is None:
        return None
    return match["path"], float(match["mb"]) if match["mb"] else None


def run_command(command: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """One README command, verbatim, through bash with ``set -euo pipefail``, as the user's shell runs it."""
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{command}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def succeeded(run: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``run``, after asserting that it exited 0 (its command and output in the message when not)."""
    assert run.returncode == 0, f"{run.args[-1]!r} exited {run.returncode}\n{run.stdout}\n{run.stderr}"
    return run


#: The README's wheel block and bundle block, by how they start.
WHEEL_BLOCK = "python3 -m pip wheel"
BUNDLE_BLOCK = "scripts/install_dev.sh && .venv/bin/python scripts/build_bundle.py"
#: Commands of the installed tool run from a directory of the user's, not the checkout ("from any directory").
INSTALLED = "kgfegmcp "


@dataclass(frozen=True, slots=True)
class Built:
    """A file a README command made, where the command's `# -> PATH` comment says, and the run that made it."""

    path: Path
    about_mb: float | None
    run: subprocess.CompletedProcess[str]


def built_by(command: str, cwd: Path, env: dict[str, str]) -> Built:
    """Run ``command`` verbatim in ``cwd``; it must succeed and leave the file its comment names."""
    promised = artifact(command)
    assert promised is not None, f"{command!r} names no `# -> PATH` it makes"
    run = succeeded(run_command(command, cwd, env))
    path = cwd / promised[0]
    assert path.is_file(), f"{command!r} exited 0 but left no {promised[0]}"
    return Built(path, promised[1], run)


@dataclass
class WheelUser:
    """A new user who ran the README's wheel block up to `serve`: every run, keyed by its command."""

    home: Path
    env: dict[str, str]
    anywhere: Path
    serve: str
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)

    @property
    def catalog(self) -> Path:
        """Where the README says the catalog goes: the user data directory."""
        return self.home / ".local" / "share" / "kgfegmcp" / "graph_packages"

    @property
    def venv(self) -> Path:
        """The environment pipx made for the tool."""
        return self.home / ".local" / "share" / "pipx" / "venvs" / "kgfegmcp"

    def run_of(self, prefix: str) -> subprocess.CompletedProcess[str]:
        """The run of the one README command starting with ``prefix`` (the commands carry their comments)."""
        (run,) = [
            run for command, run in self.runs.items() if command.startswith(prefix) and command not in BEFORE_SOURCES
        ]
        return run


#: What the README says `kgfegmcp catalog init` does without the data packages, and what doctor says then:
#: run once, before the block's own `catalog init`, so the tests can read the state a new user meets first.
BEFORE_SOURCES = ("kgfegmcp catalog init", "kgfegmcp doctor --json")
