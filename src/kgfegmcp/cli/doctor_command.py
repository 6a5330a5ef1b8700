"""`kgfegmcp doctor`: one table of what this installation can serve and what to fix."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kgfegmcp.cli.console import add_row, cell, json_line, out, table


def doctor_command(
    root: Annotated[Path | None, typer.Option(help="Graph-package root (KGFEGMCP_GRAPH_PACKAGES_DIR).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as one JSON array.")] = False,
) -> None:
    """Check Python, the source packages, settings, profiles, packages, prompts and cache.

    Exit code 1 when a check fails (the server would not start, or not serve what it should).
    """
    # Imported here, not by loading the command line, which `kgfegmcp serve` does on every start.
    from kgfegmcp.doctor import CheckStatus, run_checks

    style_of = {CheckStatus.OK: "green", CheckStatus.WARN: "yellow", CheckStatus.FAIL: "red"}
    checks = run_checks({"graph_packages_dir": root} if root is not None else None)
    if as_json:
        sys.stdout.write(json_line([check.model_dump(mode="json") for check in checks], sort_keys=False))
    else:
        found = table("check", "status", "detail", "fix")
        for check in checks:
            add_row(found, check.area, cell(check.status, style_of[check.status]), check.detail, check.fix or "")
        out.print(found)
    if any(check.status is CheckStatus.FAIL for check in checks):
        raise typer.Exit(1)
