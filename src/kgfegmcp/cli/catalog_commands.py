"""`kgfegmcp catalog init`: the default catalog, built and validated where an installed server looks.

The source importers and the package writer are imported by the command: loading the command line, which
`kgfegmcp serve` does on every start, does not import them.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from kgfegmcp.cli.console import add_row, cell, err, out, settings_with, table
from kgfegmcp.core.config import profile_roots
from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.profiles.repository import ProfileRepository

if TYPE_CHECKING:
    from kgfegmcp.packages.lifecycle import LifecycleOutcome


def _describe(installed: str | None) -> str:
    return "not installed" if installed is None else f"{installed} installed"


def _install_sources() -> None:
    """Install the unmet pinned sources into this environment: with its pip, or with uv where it has none."""
    from kgfegmcp.sources.registry_sources import install_arguments, unmet_sources

    unmet = unmet_sources()
    if not unmet:
        return
    arguments = install_arguments([source for source, _ in unmet])
    tool = "uv" if arguments[0] == "uv" else "pip"
    if tool == "pip" and importlib.util.find_spec("pip") is None:
        raise ManifestBuildError(
            "This environment has no pip, and no uv is on PATH, so --install-sources cannot install the source "
            "packages.",
            hint=f"Install them with the tool that made this environment (for pip: `{shlex.join(arguments)}`; "
            "for uv: `uv pip install --python <this environment's python> --no-deps ...`).",
        )
    err.print(cell(f"installing {', '.join(source.requirement for source, _ in unmet)} ({tool}, --no-deps)"))
    quiet = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}  # pip's nag about its own version is noise here
    completed = subprocess.run(arguments, check=False, env=quiet)
    if completed.returncode != 0:
        raise ManifestBuildError(f"{tool} could not install the source packages (exit {completed.returncode}).")


def _require_sources() -> None:
    """Name exactly which pinned source packages are missing or at another version, and the fix."""
    from kgfegmcp.sources.registry_sources import install_command, unmet_sources

    unmet = unmet_sources()
    if unmet:
        listed = "; ".join(f"{source.requirement} ({_describe(installed)})" for source, installed in unmet)
        raise ManifestBuildError(
            f"The default catalog is built from registry packages this environment lacks: {listed}.",
            hint=f"Run `{install_command([source for source, _ in unmet])}`, "
            "or `kgfegmcp catalog init --install-sources`.",
        )


def init_command(
    root: Annotated[
        Path | None, typer.Option(help="Graph-package root (KGFEGMCP_GRAPH_PACKAGES_DIR; default: user data dir).")
    ] = None,
    install_sources: Annotated[
        bool,
        typer.Option("--install-sources", help="First install the pinned source packages (--no-deps; pip, else uv)."),
    ] = False,
) -> None:
    """Build and validate the default catalog (BNCC, CCSS ELA, MEXT, ACARA) from the pinned registry packages
    and the official files shipped with the project.

    Running it again rebuilds the same bytes and revalidates them. The packages' decoded records and search
    indexes go into the derived-index cache (KGFEGMCP_CACHE_DIR), so the first start does not make them again.
    Exit code 0 only when every package passed.
    """
    from kgfegmcp.catalog.prepared import store_derived_indexes
    from kgfegmcp.derived.cache import DerivedIndexCache
    from kgfegmcp.sources.default_catalog import build_default_catalog

    settings = settings_with(graph_packages_dir=root)
    if install_sources:
        _install_sources()
    _require_sources()
    target = settings.graph_packages_dir  # the writer creates it, and removes what it created if it fails
    err.print(cell(f"building the default catalog into {target.resolve()}"))
    started = time.monotonic()
    with err.status("starting") as status:

        def progress(step: str) -> None:
            # On a terminal the status line is replaced; elsewhere (a log, a host's stderr) each step is a line.
            if err.is_terminal:
                status.update(cell(step))
            else:
                err.print(cell(f"  {step} ({time.monotonic() - started:.0f} s)"))

        profiles = ProfileRepository(*profile_roots(settings))
        outcomes = build_default_catalog(target, profiles, progress)
        accepted = all(outcome.accepted for outcome in outcomes)
        if settings.cache_dir is not None and accepted:
            # The first start would otherwise pass every package through every rule again, then index it.
            store_derived_indexes(outcomes, profiles, DerivedIndexCache(settings.cache_dir), progress)
    out.print(catalog_table(outcomes, target))
    if not accepted:
        err.print("Some packages did not validate; `kgfegmcp packages validate --json ROOT` lists the findings.")
        raise typer.Exit(1)
    hint = "" if root is None else f" --root {target}"
    err.print(
        cell(
            f"done in {time.monotonic() - started:.0f} s; serve it with `{this_command()} serve{hint}` (STDIO, as an "
            "MCP host starts it; add `--transport http` to serve HTTP)"
        )
    )


def catalog_table(outcomes: Sequence[LifecycleOutcome], target: Path) -> Table:
    """One row per package of the default catalog: its validation result and error count."""
    built = table("graph package", "result", "errors", title=f"default catalog in {target.resolve()}")
    for outcome in outcomes:
        errors = sum(1 for f in outcome.outcome.findings if f.severity == "error")
        add_row(
            built,
            outcome.outcome.graph_package_id,
            cell(outcome.result, "green" if outcome.accepted else "red"),
            str(errors),
        )
    return built


def this_command() -> str:
    """How to type this command again: ``kgfegmcp`` when that is what PATH finds, else its path as run
    (``.venv/bin/kgfegmcp`` in a checkout, where the console script is not on PATH)."""
    running = Path(sys.argv[0])
    found = shutil.which("kgfegmcp")
    if found is not None and Path(found).resolve() == running.resolve():
        return "kgfegmcp"
    try:
        return running.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(running)
