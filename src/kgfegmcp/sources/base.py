"""The contract every build-time source adapter fulfils."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from kgfegmcp.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository

#: Called with a short description of the step being worked on.
ProgressCallback = Callable[[str], None]


class SourceAdapter(Protocol):
    """Turns one installed registry dataset (or an input file) into package contents."""

    name: str

    def build(
        self,
        source_input: Path | None,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """Read the source and return one :class:`PackageContent` per package, in a stable order.

        Raise a :class:`kgfegmcp.errors.KgfegmcpError` subclass (normally ``manifest_build_error``)
        with a clear message when the input cannot be represented.
        """
        ...


def refuse_input(
    source: str, source_input: Path | None, reads: str, progress: ProgressCallback | None
) -> ProgressCallback:
    """For sources that read installed registry data: refuse an input file; return a usable reporter."""
    if source_input is not None:
        raise ManifestBuildError(
            f"The {source} source reads {reads}; it takes no input file.",
            hint=f"Run `kgfegmcp packages build --source {source}` without an input.",
        )
    return progress or (lambda _step: None)
