"""What the installation tests share: a user's environment with nothing of this checkout in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
MCPB = REPOSITORY_ROOT / ".tools" / "mcpb" / "node_modules" / ".bin" / "mcpb"
#: Variables that would point a child process at this checkout or this test session.
_CHECKOUT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")


def _cache_dir(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def user_env(home: Path) -> dict[str, str]:
    """A new user's environment: no ``KGFEGMCP_*`` variable, and the per-user directories under ``home``.

    platformdirs follows the XDG variables on Linux, so the catalog and the derived cache land in
    ``home``. pip and uv keep this machine's download caches, so the registries are not asked twice.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.upper().startswith("KGFEGMCP_") and key not in _CHECKOUT_VARIABLES
    }
    pip_cache = _cache_dir(sys.executable, "-m", "pip", "cache", "dir")
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv is not None, "uv is installed by the dev extra (scripts/install_dev.sh)"
    env.update(
        {
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "PIP_CACHE_DIR": pip_cache,
            "UV_CACHE_DIR": _cache_dir(uv, "cache", "dir"),
            # Python comes from this machine; only the package registries are reached.
            "UV_PYTHON_DOWNLOADS": "never",
            "PATH": f"{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    return env
