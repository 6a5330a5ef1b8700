"""The ``kgfegmcp`` command line. This is the only place its commands are declared."""

from __future__ import annotations

import sys

import typer

from kgfegmcp.cli import fetch_command, package_commands
from kgfegmcp.cli.console import err
from kgfegmcp.cli.serve_command import serve_command
from kgfegmcp.errors import KgfegmcpError

app = typer.Typer(
    name="kgfegmcp",
    help="Read-only MCP server over validated curriculum graph packages.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
packages_app = typer.Typer(help="Build, validate and inspect graph packages.", no_args_is_help=True)
app.add_typer(packages_app, name="packages")

packages_app.command("build")(package_commands.build_command)
packages_app.command("fetch")(fetch_command.fetch_command)
packages_app.command("validate")(package_commands.validate_command)
packages_app.command("list")(package_commands.list_command)
packages_app.command("stats")(package_commands.stats_command)
app.command("serve")(serve_command)


def main() -> None:
    """Command-line entry (the console script reaches it through ``launcher``): domain errors exit 2."""
    try:
        app()
    except KgfegmcpError as exc:
        err.print(exc.public_message, markup=False)
        sys.exit(2)
