"""`kgfegmcp packages fetch`: a CASE framework from its publisher's CASE API, built as a pending package."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError

from kgfegmcp.cli.console import download_bar, err, out, progress_bar, settings_with
from kgfegmcp.cli.package_commands import pending_table, write_pending_packages
from kgfegmcp.core.config import profile_roots
from kgfegmcp.core.errors import ConfigurationError, echo, problem_list
from kgfegmcp.profiles.repository import ProfileRepository

if TYPE_CHECKING:  # imported by the command itself: loading the command line (`serve` does) leaves them out
    from kgfegmcp.sources.case.client import CaseFetchOptions, FetchDeadline
    from kgfegmcp.sources.case.provider import CaseAddress

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
            help="A CASE 1.0/1.1 API address: …/CFPackages/<id>, …/CFDocuments/<id>, the listing …/CFDocuments, "
            "the API root https://HOST/ims/case/v1p0 (or v1p1), or https://HOST.",
        ),
    ],
    document: Annotated[
        str | None, typer.Option("--document", help="From a listing: the CFDocument with this identifier.")
    ] = None,
    title: Annotated[
        str | None, typer.Option("--title", help="From a listing: the CFDocument with this whole title (any case).")
    ] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Graph-package root to write into.")] = None,
    profiles_dir: Annotated[Path | None, typer.Option(help="Profiles root (KGFEGMCP_PROFILES_DIR).")] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds allowed for connecting and for each read (30).")
    ] = None,
    deadline: Annotated[
        float | None,
        typer.Option(
            "--deadline",
            help="Seconds allowed for every request together, redirects included, and the build of what was "
            "fetched (600).",
        ),
    ] = None,
    max_bytes: Annotated[
        int | None, typer.Option("--max-bytes", help="Largest response body accepted, decoded, in bytes (128 MiB).")
    ] = None,
    max_redirects: Annotated[
        int | None, typer.Option("--max-redirects", help="Redirects followed at most, per request (5).")
    ] = None,
) -> None:
    """Fetch one CFPackage from its publisher's CASE API and build it as a pending package.

    Given a listing, an API root or a host, the CFDocuments are listed; choose one with --document or
    --title (without either, the listing is shown and nothing is fetched). TLS is always verified,
    every redirect is held to the rules of the first URL and never downgrades https to http, all the
    requests and the build of the body together are bounded by --deadline, and the body is capped
    (decoded) while it streams in.
    The package's provenance names the package URL and the SHA-256 of the decoded bytes. Run
    `kgfegmcp packages validate` on the graph-package root afterwards to accept it.
    """
    from kgfegmcp.sources.case.client import FetchDeadline, shown_url
    from kgfegmcp.sources.case.provider import DocumentChoice, check_choice, locate_package, read_case_address

    options = _options(
        timeout_seconds=timeout, deadline_seconds=deadline, max_bytes=max_bytes, max_redirects=max_redirects
    )
    address = read_case_address(case_url)
    settings = settings_with(graph_packages_dir=out_dir, profiles_dir=profiles_dir)
    profiles = ProfileRepository(*profile_roots(settings))
    choice = DocumentChoice(document_id=document, title=title)
    check_choice(address, choice)
    within = FetchDeadline.starting_now(options.deadline_seconds)  # one deadline over every request
    if address.lists_documents and choice == DocumentChoice():
        _show_listing(address, options, within, case_url)
        return
    location = locate_package(address, choice, options, within, _note)
    if location.url != case_url:
        _note(f"Fetching its package from {shown_url(location.url)} ({location.reason}).")
    _fetch_and_build(location.url, options, within, settings.graph_packages_dir, profiles)


def _options(**limits: float | int | None) -> CaseFetchOptions:
    """The fetch limits the user gave, or ``configuration_error`` naming each flag out of range."""
    from kgfegmcp.sources.case.client import CaseFetchOptions, limits_summary

    try:
        return CaseFetchOptions.model_validate({name: v for name, v in limits.items() if v is not None})
    except ValidationError as exc:
        problems = [f"{_FLAGS.get(str(e['loc'][0]), e['loc'][0])}: {e['msg']}" for e in exc.errors()]
        raise ConfigurationError(
            f"Invalid fetch limits: {problem_list(problems)}.", hint=f"Limits: {limits_summary(_FLAGS)}."
        ) from None


def _note(line: str) -> None:
    err.print(line, markup=False, highlight=False)


def _show_listing(address: CaseAddress, options: CaseFetchOptions, within: FetchDeadline, case_url: str) -> None:
    """The provider's CFDocuments as a table on stdout; what to run next on stderr."""
    from rich.table import Table

    from kgfegmcp.sources.case.client import shown_url
    from kgfegmcp.sources.case.provider import read_listing

    listing = read_listing(address, options, within, _note)
    table = Table("identifier", "title", "version", "lastChangeDateTime", "language")
    for listed in listing.documents:
        cells = (listed.identifier, listed.title, listed.version, listed.last_change, listed.language)
        table.add_row(*(echo(cell, 200) if cell else "" for cell in cells))
    out.print(table, markup=False, highlight=False)
    again = f"kgfegmcp packages fetch --case-url {shown_url(case_url)}"
    _note(f"Nothing was fetched. Next: {again} --document ID (or --title TEXT)")


def _fetch_and_build(
    url: str, options: CaseFetchOptions, within: FetchDeadline, root: Path, profiles: ProfileRepository
) -> None:
    """The package's bytes into a temporary file, then built from there, a record at a time, as pending packages."""
    import httpx2

    from kgfegmcp.sources.case import CaseInputOrigin, CaseSource
    from kgfegmcp.sources.case.client import fetch_case_package, shown_url

    with tempfile.TemporaryFile(prefix="kgfegmcp-fetch-") as body:  # gone when closed, whatever happens
        with download_bar() as bar:
            task = bar.add_task("fetching the CFPackage", total=None)
            fetched = fetch_case_package(
                url,
                body,
                options,
                lambda received, declared: bar.update(task, completed=received, total=declared),
                within,
            )
        how = [f"HTTP {fetched.status_code}"]
        if fetched.content_encoding:
            how.append(f"{fetched.encoded_size:,} bytes {fetched.content_encoding}-compressed")
        if fetched.redirects:
            how.append(f"after {fetched.redirects} redirect(s) to {shown_url(fetched.retrieved_url)}")
        _note(f"Fetched {fetched.size:,} bytes ({', '.join(how)}); sha256 {fetched.sha256}.")
        hint = (
            "Check that the URL is the provider's getCFPackage address (…/CFPackages/<id>), or pass its listing "
            "(…/CFDocuments) and choose with --document or --title; the response had Content-Type "
            f"{echo(fetched.content_type or '(none)', 200)}."
        )
        origin = CaseInputOrigin.fetched(fetched.url, fetched.retrieved_url, hint)
        host = httpx2.URL(fetched.retrieved_url).host

        def checkpoint() -> None:  # the build shares the download's deadline: it is checked before every read
            within.check(host)

        with progress_bar() as progress:  # the body is read from its file, a record at a time, never whole
            task = progress.add_task("reading the CASE CFPackage", total=None)
            contents = CaseSource().build_stream(
                body, origin, profiles, lambda step: progress.update(task, description=step), checkpoint
            )
            checkpoint()  # nothing is written once the deadline has passed
            written = write_pending_packages(contents, root, progress, task)
    out.print(pending_table(written))
    _note(f"Next: kgfegmcp packages validate {root}")
