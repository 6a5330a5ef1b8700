"""`kgfegmcp packages …`: build, validate, review, list and count graph packages.

The writer and the lifecycle are imported by the commands that write: loading the command line, which
`kgfegmcp serve` does on every start, does not import them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kgfegmcp.cli.console import (
    add_row,
    cell,
    err,
    json_line,
    line,
    out,
    progress_bar,
    progress_text,
    settings_with,
    table,
)
from kgfegmcp.core.config import InvalidPackagePolicy, profile_roots
from kgfegmcp.core.errors import PackageValidationError
from kgfegmcp.core.identifiers import InvalidIdentifier, named_package_id
from kgfegmcp.core.operator_rights import decision_now, package_key, record_decision
from kgfegmcp.core.rights import DERIVATIVES_ORDER, REVIEW_STATUSES
from kgfegmcp.core.text_safety import shown_lines
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, manifest_document
from kgfegmcp.packages.tree import PackageLocation, discover_packages, locate_package
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.profiles.repository import DerivedProfile, ProfileRepository

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from kgfegmcp.packages.findings import Finding
    from kgfegmcp.packages.lifecycle import LifecycleOutcome
    from kgfegmcp.packages.writer import PackageContent


def _locations(paths: list[Path]) -> list[tuple[PackageLocation, tuple[object, ...]]]:
    """A path is a package (it has a manifest) or a root of ``<framework>/<snapshot>/`` packages."""
    found: list[tuple[PackageLocation, tuple[object, ...]]] = []
    for path in paths:
        if (path / MANIFEST_FILENAME).exists() or (path / MANIFEST_FILENAME).is_symlink():
            found.append((locate_package(path), ()))
            continue
        if not path.is_dir():
            raise PackageValidationError(f"{path} is neither a package nor a directory of packages.")
        discovery = discover_packages(path)
        for finding in discovery.root_findings:
            err.print(_root_finding(finding))
        for location in discovery.packages:
            found.append((location, tuple(discovery.package_findings.get(location.graph_package_id, ()))))
    return found


def _root_finding(finding: Finding) -> Text:
    """A finding about the package root (a stray entry), as one escaped line."""
    return line(cell(finding.code, "yellow"), ": ", finding.location or "", ": ", finding.message)


def _outcome_json(result: LifecycleOutcome) -> dict[str, object]:
    outcome = result.outcome
    return {
        "graphPackageId": outcome.graph_package_id,
        "status": result.result,
        "findings": [
            {
                "code": f.code,
                "severity": f.severity,
                "artifact": f.artifact,
                "location": f.location,
                "message": f.message,
            }
            for f in [*outcome.build_findings, *outcome.findings]
        ],
        "omittedFindings": outcome.omitted,
        "recoveredInterruptedRecording": result.recovered,
    }


#: The review states an operator may give a source at build time (``unreviewed`` is having given none).
OPERATOR_REVIEW_STATES: tuple[str, ...] = tuple(state for state in REVIEW_STATUSES if state != "unreviewed")


def _one_of(allowed: Collection[str]) -> Callable[[str | None], str | None]:
    """An option callback that takes ``None`` or one of ``allowed`` (typer's choices would need an Enum)."""

    def check(value: str | None) -> str | None:
        if value is not None and value not in allowed:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}.")
        return value

    return check


def build_command(
    source: Annotated[
        str, typer.Option("--source", help="Source importer: bncc, ccss, case, nacca-pdf, mext-code-table or asn.")
    ],
    source_input: Annotated[Path | None, typer.Argument(help="Input file, for sources that take one.")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Graph-package root to write into.")] = None,
    profiles_dir: Annotated[Path | None, typer.Option(help="Profiles root (KGFEGMCP_PROFILES_DIR).")] = None,
    review_status: Annotated[
        str | None,
        typer.Option(
            "--review-status",
            callback=_one_of(OPERATOR_REVIEW_STATES),
            help="The operator's rights review of a source that states no licence (nacca-pdf): "
            f"{', '.join(OPERATOR_REVIEW_STATES)}, recorded in the operator rights file (as `packages review` "
            "does). Without it, text is withheld.",
        ),
    ] = None,
    rights_file: Annotated[
        Path | None, typer.Option(help="Operator rights file (KGFEGMCP_OPERATOR_RIGHTS_FILE).")
    ] = None,
) -> None:
    """Build pending packages from a source; run `packages validate` to accept them.

    A CASE or ASN package with no profile named after its framework in the profiles root binds a
    profile derived from the package, written there; the output lists what was derived, for review.
    A package carries its profile's rights; an operator's review (`--review-status`) is recorded
    outside it, in the operator rights file, which `serve` applies.
    """
    from kgfegmcp.sources import load_importer

    settings = settings_with(graph_packages_dir=out_dir, profiles_dir=profiles_dir, operator_rights_file=rights_file)
    importer = load_importer(source, review_status=review_status)
    profiles = ProfileRepository(*profile_roots(settings))
    with progress_bar() as progress:
        task = progress.add_task(f"reading {source}", total=None)
        contents = importer.build(
            source_input, profiles, lambda step: progress.update(task, description=progress_text(step))
        )
        written = write_pending_packages(contents, settings.graph_packages_dir, progress, task)
    out.print(pending_table(written))
    for content, location in written:
        rights = content.rights
        if review_status is not None:
            decision = decision_now(
                note="given at build time (packages build --review-status)", review_status=review_status
            )
            record_decision(settings.operator_rights_file, package_key(location.graph_package_id), decision)
            err.print(
                cell(
                    f"{location.graph_package_id}: the operator's review ({review_status}) is recorded in "
                    f"{settings.operator_rights_file}."
                )
            )
            rights = decision.apply(rights)
        denial = rights.full_text_denial()
        if denial is not None and importer.takes_review_status:
            err.print(
                cell(
                    f"{content.framework_id}: statement text is withheld because {denial}. After reviewing the "
                    f"source's terms, run `kgfegmcp packages review {location.graph_package_id} --status "
                    "provisional_operator_approved` (or approved) to serve its text; no rebuild is needed."
                )
            )


def write_pending_packages(
    contents: list[PackageContent], root: Path, progress: Progress, task: TaskID
) -> list[tuple[PackageContent, PackageLocation]]:
    """Write each built package as pending under ``root``, advancing ``task`` once per package.

    All of them or, should one fail, none of those this call created.
    """
    from kgfegmcp.packages.writer import PackageBatch

    progress.update(task, total=len(contents), completed=0)
    written = []
    with PackageBatch(root) as batch:
        for content in contents:
            progress.update(
                task,
                description=progress_text(f"writing {named_package_id(content.framework_id, content.snapshot_id)}"),
            )
            written.append((content, batch.write(content)))
            progress.advance(task)
    return written


def pending_table(written: list[tuple[PackageContent, PackageLocation]]) -> RenderableType:
    """One row per package just written: what it holds, and that it still awaits validation; then, for each
    package whose profile the build derived, what was derived (:func:`derived_profile_table`)."""
    pending = table("graph package", "items", "components", "relationships", "unresolved", "state")
    for content, location in written:
        add_row(
            pending,
            location.graph_package_id,
            str(len(content.items)),
            str(len(content.components)),
            str(len(content.relationships)),
            str(len(content.unresolved)),
            "pending",
        )
    reviews = [
        derived_profile_table(content.profile, content.framework_id)
        for content, _location in written
        if isinstance(content.profile, DerivedProfile)
    ]
    return Group(pending, *reviews) if reviews else pending


def derived_profile_table(profile: DerivedProfile, framework_id: str) -> Table:
    """What a derived profile holds and where each part came from, for the operator to review."""
    review = table(
        "part",
        "derived",
        title=f"derived profile {profile.profile.profile_id}/{profile.profile.version}",
        caption=f"A profile named {framework_id} in the profiles directory is bound instead on the next build.",
    )
    stored = "written now" if profile.written else "already there, byte for byte"
    add_row(review, "file", f"{profile.path} ({stored})")
    for part, how in profile.derivation:
        add_row(review, part, how)  # source text: escaped, never read as console markup
    return review


def review_command(
    package: Annotated[
        str, typer.Argument(help="The package, <framework-id>@<snapshot-id> (as `packages list` names it).")
    ],
    status: Annotated[
        str | None,
        typer.Option(
            "--status", callback=_one_of(REVIEW_STATUSES), help=f"Its review state: {', '.join(REVIEW_STATUSES)}."
        ),
    ] = None,
    full_text: Annotated[
        bool | None, typer.Option("--full-text/--no-full-text", help="Serve (or withhold) statement text.")
    ] = None,
    standard_resources: Annotated[
        bool | None,
        typer.Option("--standard-resources/--no-standard-resources", help="Serve (or withhold) standard resources."),
    ] = None,
    bulk: Annotated[
        bool | None,
        typer.Option(
            "--bulk/--no-bulk", help="Serve (or withhold) bulk artifacts (needs text and standard resources)."
        ),
    ] = None,
    derivatives: Annotated[
        str | None,
        typer.Option(
            "--derivatives",
            callback=_one_of(tuple(DERIVATIVES_ORDER)),
            help=f"Generated-derivative workflows: {', '.join(DERIVATIVES_ORDER)}.",
        ),
    ] = None,
    decided_by: Annotated[str | None, typer.Option("--by", help="Who decides (default: the logged-in user).")] = None,
    note: Annotated[str | None, typer.Option(help="Why, for the record.")] = None,
    withdraw: Annotated[
        bool, typer.Option("--withdraw", help="Remove the package's decision: its manifest's rights stand again.")
    ] = False,
    rights_file: Annotated[
        Path | None, typer.Option(help="Operator rights file (KGFEGMCP_OPERATOR_RIGHTS_FILE).")
    ] = None,
) -> None:
    """Record the operator's rights decision for a package: approve it, withhold its text, change its review state.

    The decision is kept in the operator rights file, outside every package, with who made it and when; what it
    states replaces the manifest's rights when the package is served (no rebuild). `kgfegmcp serve` applies it
    when it next starts, `kgfegmcp doctor` shows it now.
    """
    settings = settings_with(operator_rights_file=rights_file)
    try:
        key = package_key(package)
    except InvalidIdentifier as exc:
        raise typer.BadParameter(str(exc), param_hint="PACKAGE") from None
    stated = {
        "review_status": status,
        "allow_full_text": full_text,
        "allow_standard_resources": standard_resources,
        "allow_bulk_resource": bulk,
        "allow_generated_derivatives": derivatives,
    }
    given = [name for name, value in stated.items() if value is not None]
    if withdraw and (given or note is not None or decided_by is not None):
        raise typer.BadParameter("--withdraw takes no decision with it.")
    if not withdraw and not given:
        raise typer.BadParameter(
            "State a decision: --status, --full-text/--no-full-text, --standard-resources/--no-standard-resources, "
            "--bulk/--no-bulk or --derivatives (or --withdraw)."
        )
    decision = None if withdraw else decision_now(decided_by, note, **stated)
    record_decision(settings.operator_rights_file, key, decision)
    if decision is None:
        out.print(cell(f"{key}: the operator's decision is withdrawn ({settings.operator_rights_file})."))
    else:
        recorded = table("package", "decision", title=str(settings.operator_rights_file))
        add_row(recorded, key, decision.summary())
        out.print(recorded)
    err.print(cell("`kgfegmcp serve` applies it when it next starts; `kgfegmcp doctor` shows it now."))


_RECOVERED = {
    "finished": "an interrupted validation had written its whole result; its recording was finished.",
    "rolled_back": "an interrupted validation had not finished writing; its partial recording was removed.",
}


def _announce_wait(directory: Path) -> None:
    err.print(
        cell(
            f"{named_package_id(directory.parent.name, directory.name)}: another `kgfegmcp packages validate` "
            "(or build) holds this package; waiting for it to finish."
        )
    )


def validate_command(
    paths: Annotated[list[Path], typer.Argument(help="Package directories or graph-package roots.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report per package.")] = False,
    profiles_dir: Annotated[Path | None, typer.Option(help="Profiles root (KGFEGMCP_PROFILES_DIR).")] = None,
    policy: Annotated[
        InvalidPackagePolicy | None,
        typer.Option(help="What a failing pending package becomes (KGFEGMCP_INVALID_PACKAGE_POLICY)."),
    ] = None,
) -> None:
    """Validate packages: pending ones get a terminal state; terminal ones are checked read-only.

    Exit code 0 only when every package is (still) passed.
    """
    from kgfegmcp.packages.lifecycle import PackageLifecycle
    from kgfegmcp.packages.writer import PackageWriter

    settings = settings_with(profiles_dir=profiles_dir, invalid_package_policy=policy)
    lifecycle = PackageLifecycle(
        PackageValidator(ProfileRepository(*profile_roots(settings))),
        PackageWriter(),
        settings.invalid_package_policy,
        on_wait=_announce_wait,
    )
    locations = _locations(paths)
    if not locations:
        err.print("No graph package found.")
        raise typer.Exit(1)
    results: list[LifecycleOutcome] = []
    with progress_bar() as progress:
        task = progress.add_task("validating", total=len(locations))
        for location, prior in locations:
            progress.update(task, description=progress_text(f"validating {location.graph_package_id}"))
            result = lifecycle.validate(location, prior)  # type: ignore[arg-type]
            if result.recovered is not None:
                err.print(cell(f"{location.graph_package_id}: {_RECOVERED[result.recovered]}"))
            results.append(result)
            progress.advance(task)
    if as_json:
        for result in results:
            sys.stdout.write(json_line(_outcome_json(result)))
    else:
        verdicts = table("graph package", "result", "recorded", "errors", "warnings", "codes")
        for result in results:
            findings = result.outcome.findings
            errors = sum(1 for f in findings if f.severity == "error") + sum(result.outcome.omitted.values())
            warnings = sum(1 for f in [*result.outcome.build_findings, *findings] if f.severity == "warning")
            codes = ", ".join(sorted({f.code for f in findings if f.severity == "error"}))
            add_row(
                verdicts,
                result.outcome.graph_package_id,
                cell(result.result, "green" if result.accepted else "red"),
                "yes" if result.recorded else "no",
                str(errors),
                str(warnings),
                codes,
            )
        out.print(verdicts)
    if not all(r.accepted for r in results):
        raise typer.Exit(1)


def list_command(
    root: Annotated[Path | None, typer.Option(help="Graph-package root (KGFEGMCP_GRAPH_PACKAGES_DIR).")] = None,
) -> None:
    """List discovered packages with their recorded lifecycle state (no validation)."""
    settings = settings_with(graph_packages_dir=root)
    discovery = discover_packages(settings.graph_packages_dir)
    listing = table("graph package", "state", "current", "items", "components", "links", "title")
    for location in discovery.packages:
        manifest = manifest_document(location.path)
        try:
            add_row(listing, location.graph_package_id, *_listing(manifest))
        except (KeyError, TypeError, AttributeError):
            add_row(listing, location.graph_package_id, cell("unreadable manifest", "red"), "", "", "", "", "")
    for finding in discovery.root_findings:
        err.print(_root_finding(finding))
    out.print(listing)
    if not discovery.packages:
        err.print(cell(f"No packages under {settings.graph_packages_dir}."))


def _listing(manifest: Any) -> tuple[str, ...]:
    """State, current, items, components, links and title from a manifest document of either shape (read as
    recorded, unchecked: a listing still names a package whose manifest is broken)."""
    counts = manifest["counts"]
    if "manifestVersion" in manifest:  # as the construction pipeline supplies it
        framework = manifest["framework"]
        links = counts["buildsTowardsRelationships"] + counts["relatesToRelationships"]
        return (
            manifest["validation"]["status"],
            "yes" if framework.get("isCurrent") else "no",
            str(counts["itemNodes"]),
            str(counts["learningComponentNodes"]),
            str(links),
            framework.get("name", ""),
        )
    relationships = counts["relationships"]
    return (
        manifest["validation"]["status"],
        "yes" if manifest.get("isCurrent") else "no",
        str(counts["standards"]["items"]),
        str(counts["learningComponents"]["components"]),
        str(relationships["buildsTowards"] + relationships["relatesTo"]),
        manifest.get("title", ""),
    )


def stats_command(
    path: Annotated[
        Path | None, typer.Argument(help="A package directory or a graph-package root (default: the configured root).")
    ] = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the Markdown of docs/frameworks.md.")] = False,
    profiles_dir: Annotated[Path | None, typer.Option(help="Profiles root (KGFEGMCP_PROFILES_DIR).")] = None,
) -> None:
    """Per-package counts: items by statement type, grades, learning components, links, unresolved items."""
    from kgfegmcp.packages.stats import SUMMARY_COLUMNS, package_statistics, render_markdown, summary_row

    settings = settings_with(graph_packages_dir=path, profiles_dir=profiles_dir)
    profiles = ProfileRepository(*profile_roots(settings))
    locations = _locations([settings.graph_packages_dir])
    if not locations:
        err.print("No graph package found.")
        raise typer.Exit(1)
    all_stats = [package_statistics(location, profiles) for location, _findings in locations]
    if markdown:
        sys.stdout.write(shown_lines(render_markdown(all_stats)))
        return
    summary = table(*SUMMARY_COLUMNS)
    for stats in all_stats:
        add_row(summary, *summary_row(stats))
    out.print(summary)
    for stats in all_stats:
        detail = table("statement type", "role", "items", "grade label", "standards", title=stats.graph_package_id)
        rows = max(len(stats.types), len(stats.grades))
        for index in range(rows):
            kind = stats.types[index] if index < len(stats.types) else None
            grade = stats.grades[index] if index < len(stats.grades) else None
            add_row(
                detail,
                kind.statement_type if kind else "",
                kind.shown_role if kind else "",
                str(kind.items) if kind else "",
                grade.label if grade else "",
                str(grade.standards) if grade else "",
            )
        out.print(detail)
