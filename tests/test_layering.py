"""The layering of ``src/`` is a checked contract, not a promise in docstrings.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``): services never import the MCP layer, the
server never imports the source adapters, packages never import services, and nothing imports a layer above
it. import-linter reads every import of ``src/kgfegmcp``, those inside functions too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from checkout import REPOSITORY_ROOT


def test_every_import_contract_is_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run(
        [str(lint_imports), "--no-cache", str(REPOSITORY_ROOT / "pyproject.toml")],
        cwd=REPOSITORY_ROOT / "src",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout
