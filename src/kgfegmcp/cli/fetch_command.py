"""`kgfegmcp packages fetch`: a CASE framework from its publisher's CASE API, built as a pending package."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from kgfegmcp.cli.console import download_bar, err, out, progress_bar, settings_with
from kgfegmcp.cli.package_commands import pending_table, write_pending_packages
from kgfegmcp.errors import ConfigurationError, echo, problem_list
from kgfegmcp.profiles.repository import ProfileRepository

_FLAGS = {
    "timeout_seconds": "--timeout",
    "deadline_seconds": "--deadline",
    "max_bytes": "--max-bytes",
    "max_redirects": "--max-redirects",
}


def fetch_command(
    case_url: Annotated[
        str,
        typer.Option(
            "--case-url",
            help="CASE 1.0/1.1 getCFPackage address, e.g. https://HOST/ims/case/v1p0/CFPackages/<id> (or v1p1).",
        ),
    ],
    out_dir: Annotated[Path | None, typer.Option("--out", help="Graph-package root to write into.")] = None,
    profiles_dir: Annotated[Path | None, typer.Option(help="Profiles root (KGFEGMCP_PROFILES_DIR).")] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds allowed for connecting and for each read (30).")
    ] = None,
    deadline: Annotated[
        float | None, typer.Option("--deadline", help="Seconds allowed for the whole fetch, redirects included (600).")
    ] = None,
    max_bytes: Annotated[
        int | None, typer.Option("--max-bytes", help="Largest response body accepted, in bytes (128 MiB).")
    ] = None,
    max_redirects: Annotated[
        int | None, typer.Option("--max-redirects", help="Redirects followed at most (5).")
    ] = None,
) -> None:
    """Fetch one CFPackage from its publisher's CASE API and build it as a pending package.

    TLS is always verified, every redirect is held to the rules of the first URL and never downgrades
    https to http, the whole exchange is bounded by --deadline, and the body is capped while it streams
    in. The package's provenance names the URL and the SHA-256 of the fetched bytes. Run
    `kgfegmcp packages validate` on the graph-package root afterwards to accept it.
    """
    from kgfegmcp.sources.case import CaseInputOrigin, CaseSource
    from kgfegmcp.sources.case.client import CaseFetchOptions, fetch_case_package, limits_summary, shown_url

    limits = {"timeout_seconds": timeout, "deadline_seconds": deadline, "max_bytes": max_bytes}
    limits["max_redirects"] = max_redirects
    try:
        options = CaseFetchOptions.model_validate({name: v for name, v in limits.items() if v is not None})
    except ValidationError as exc:
        problems = [f"{_FLAGS.get(str(e['loc'][0]), e['loc'][0])}: {e['msg']}" for e in exc.errors()]
        raise ConfigurationError(
            f"Invalid fetch limits: {problem_list(problems)}.", hint=f"Limits: {limits_summary(_FLAGS)}."
        ) from None
    settings = settings_with(graph_packages_dir=out_dir, profiles_dir=profiles_dir)
    profiles = ProfileRepository(settings.profiles_dir)
    with tempfile.TemporaryFile(prefix="kgfegmcp-fetch-") as body:  # gone when closed, whatever happens
        with download_bar() as bar:
            task = bar.add_task("fetching the CFPackage", total=None)
            fetched = fetch_case_package(
                case_url, body, options, lambda received, declared: bar.update(task, completed=received, total=declared)
            )
        redirected = (
            f", after {fetched.redirects} redirect(s) to {shown_url(fetched.retrieved_url)}"
            if fetched.redirects
            else ""
        )
        err.print(
            f"Fetched {fetched.size:,} bytes (HTTP {fetched.status_code}{redirected}); sha256 {fetched.sha256}.",
            markup=False,
            highlight=False,
        )
        hint = (
            "Check that the URL is the provider's getCFPackage address (…/CFPackages/<id>); the response had "
            f"Content-Type {echo(fetched.content_type or '(none)', 200)}."
        )
        origin = CaseInputOrigin.fetched(fetched.url, fetched.retrieved_url, hint)
        with progress_bar() as progress:  # the body is read from its file, a record at a time, never whole
            task = progress.add_task("reading the CASE CFPackage", total=None)
            contents = CaseSource().build_stream(
                body, origin, profiles, lambda step: progress.update(task, description=step)
            )
            written = write_pending_packages(contents, settings.graph_packages_dir, progress, task)
    out.print(pending_table(written))
    err.print(f"Next: kgfegmcp packages validate {settings.graph_packages_dir}", markup=False, highlight=False)
