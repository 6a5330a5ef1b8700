"""What the installation tests share: a user's environment with nothing of this checkout in it, and a
fresh copy of the repository, bare or with this checkout's test tooling lent to it."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from checkout import REPOSITORY_ROOT
from worlds import RUN_DIRECTORY

MCPB = REPOSITORY_ROOT / ".tools" / "mcpb" / "node_modules" / ".bin" / "mcpb"
#: Variables that would point a child process at this checkout or this test session.
_CHECKOUT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", RUN_DIRECTORY)
#: What scripts/install_dev.sh leaves in a checkout (besides nginx), each skipped by it when present.
DEV_TOOLING = (".venv", ".venv-sdk1", ".venv-mcp-2024-11-05", ".venv-mcp-2025-03-26", ".tools")


def _cache_dir(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def uv_executable() -> str:
    """The uv of the dev extra (this environment's), else uv from PATH."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv is not None, "uv is installed by the dev extra (scripts/install_dev.sh)"
    return uv


def _machine_caches() -> dict[str, str]:
    """pip and uv keep this machine's download caches, so the registries are not asked twice."""
    return {
        "PIP_CACHE_DIR": _cache_dir(sys.executable, "-m", "pip", "cache", "dir"),
        "UV_CACHE_DIR": _cache_dir(uv_executable(), "cache", "dir"),
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
    uv = uv_executable()
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
