"""The pinned registry packages the default catalog is built from: one table, read by the importers,
``kgfegmcp catalog init`` and ``kgfegmcp doctor``.

All three are installed ``--no-deps``: the build reads their data files only. ``bncc-mcp`` and
``chiron-common-core-standards`` declare MCP servers and model clients we never run, and ``bncc``
has no required dependency, so nothing is lost and nothing conflicts.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceDistribution:
    """One registry package whose data files a source importer reads."""

    distribution: str
    version: str
    import_name: str
    serves: str

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"

    @property
    def install_hint(self) -> str:
        return install_command([self])

    def installed_version(self) -> str | None:
        """The version installed in this environment, or None."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None


BNCC = SourceDistribution("bncc", "0.5.1", "bncc", "BNCC (4 packages)")
MAPA_DE_FOCO = SourceDistribution("bncc-mcp", "0.1.0", "bncc_mcp", "Mapa de Foco components of BNCC Fundamental")
CHIRON = SourceDistribution("chiron-common-core-standards", "0.1.0", "chiron_standards", "CCSS ELA & Literacy")

#: Every registry package the default catalog needs, in build order.
SOURCE_DISTRIBUTIONS: tuple[SourceDistribution, ...] = (BNCC, MAPA_DE_FOCO, CHIRON)


def unmet_sources() -> list[tuple[SourceDistribution, str | None]]:
    """The pinned packages absent or at another version here, each with what is installed (or None)."""
    unmet: list[tuple[SourceDistribution, str | None]] = []
    for source in SOURCE_DISTRIBUTIONS:
        installed = source.installed_version()
        if installed != source.version:
            unmet.append((source, installed))
    return unmet


def install_arguments(sources: Sequence[SourceDistribution]) -> list[str]:
    """The command that installs ``sources`` into the running environment (this interpreter's).

    With the environment's own pip; where it has none, as pipx (uv backend) and `uv tool` make them,
    with uv from PATH (`uv pip install --python <this interpreter>`). With neither, the pip command,
    which names what the environment lacks.
    """
    requirements = [source.requirement for source in sources]
    if importlib.util.find_spec("pip") is None and shutil.which("uv") is not None:
        return ["uv", "pip", "install", "--python", sys.executable, "--no-deps", *requirements]
    return [sys.executable, "-m", "pip", "install", "--no-deps", *requirements]


def install_command(sources: Sequence[SourceDistribution]) -> str:
    """The one command that installs ``sources`` into the running environment, as a user types it."""
    return shlex.join(install_arguments(sources))
