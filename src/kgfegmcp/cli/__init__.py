"""The ``kgfegmcp`` command line. This is the only place its commands are declared."""

from __future__ import annotations

from typing import Annotated

import typer

from kgfegmcp import __version__
from kgfegmcp.cli import catalog_commands, diff_command, fetch_command, package_commands
from kgfegmcp.cli.doctor_command import doctor_command
from kgfegmcp.cli.serve_command import serve_command
from kgfegmcp.core.entry_boundary import run_entry_point

app = typer.Typer(
    name="kgfegmcp",
    help="Read-only MCP server over validated curriculum graph packages.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"kgfegmcp {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Read-only MCP server over validated curriculum graph packages."""


packages_app = typer.Typer(help="Build, validate and inspect graph packages.", no_args_is_help=True)
app.add_typer(packages_app, name="packages")
catalog_app = typer.Typer(help="The default catalog in the user's data directory.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")

packages_app.command("build")(package_commands.build_command)
packages_app.command("fetch")(fetch_command.fetch_command)
packages_app.command("validate")(package_commands.validate_command)
packages_app.command("review")(package_commands.review_command)
packages_app.command("list")(package_commands.list_command)
packages_app.command("stats")(package_commands.stats_command)
packages_app.command("diff")(diff_command.diff_command)
catalog_app.command("init")(catalog_commands.init_command)
app.command("doctor")(doctor_command)
app.command("serve")(serve_command)


def main() -> None:
    """Command-line entry (the console script reaches it through ``launcher``).

    Every failure of every command leaves through one boundary: one coded line on stderr, exit 2.
    """
    run_entry_point(app)
