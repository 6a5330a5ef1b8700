"""`kgfegmcp packages diff OLD NEW`: what changed between two validated snapshots of one framework."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from kgfegmcp.cli.console import cell, err, out, settings_with, table
from kgfegmcp.core.config import profile_roots
from kgfegmcp.core.text_safety import shown_json
from kgfegmcp.packages.tree import locate_package
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.profiles.repository import ProfileRepository

if TYPE_CHECKING:
    from kgfegmcp.packages.snapshot_diff import FieldValue, NodeRef, ProgressionLink, SnapshotDiff, Statement

#: Characters of statement text a table cell shows; the JSON always carries the full text.
TEXT_CHARS = 72
#: Rows each table shows unless ``--max-rows`` says otherwise.
DEFAULT_MAX_ROWS = 100


def shorten(text: str, limit: int = TEXT_CHARS) -> str:
    """One line of at most ``limit`` characters, an ellipsis marking a cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _ref(ref: NodeRef) -> str:
    if ref.kind == "framework":
        return "(framework root)"
    return ref.statement_code or shorten(ref.description, 40)


def _refs(refs: Sequence[NodeRef]) -> str:
    return "; ".join(_ref(ref) for ref in refs) or "(none)"


def _value(value: FieldValue) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, tuple):
        return ", ".join(value) or "(none)"
    return shorten(value)


def _cells(*values: str) -> list[Text]:
    """Curriculum text as cells: escaped, and never read as markup (it may hold ``[...]``)."""
    return [cell(value) for value in values]


def _show(target: Table, rows: list[list[Text]], max_rows: int) -> None:
    """Print a table of at most ``max_rows`` rows (0: all), saying how many were left out."""
    if not rows:
        return
    shown = rows if max_rows == 0 else rows[:max_rows]
    for row in shown:
        target.add_row(*row)
    out.print(target)
    if len(shown) < len(rows):
        out.print(cell(f"… {len(rows) - len(shown)} more rows; --max-rows 0 shows all, --json gives the full diff."))


def _statement_rows(statements: Sequence[Statement]) -> list[list[Text]]:
    return [
        _cells(
            s.statement_code or "",
            s.case_identifier_uuid,
            s.statement_type,
            ", ".join(s.grade_level),
            shorten(s.description),
        )
        for s in statements
    ]


def _link_rows(links: Sequence[ProgressionLink]) -> list[list[Text]]:
    return [_cells(link.label, _ref(link.source), _ref(link.target)) for link in links]


def render_tables(diff: SnapshotDiff, max_rows: int) -> None:
    """Summary first, then one table per kind of difference that occurs."""
    summary = table(
        "", diff.old.graph_package_id, diff.new.graph_package_id, title=f"packages diff: {diff.framework_id}"
    )
    summary.add_row(*_cells("statements", str(diff.old.statements), str(diff.new.statements)))
    summary.add_row(*_cells("progression links", str(diff.old.progression_links), str(diff.new.progression_links)))
    out.print(summary)
    counts = table("difference", "count", title="summary")
    for label, value in diff.summary.model_dump(by_alias=False).items():
        counts.add_row(*_cells(label.replace("_", " "), str(value)))
    out.print(counts)
    if not diff.has_differences:
        out.print("No differences in statements, hierarchy or progression links.")
    columns = ("code", "CASE identifier", "statement type", "grades", "text")
    _show(table(*columns, title="added statements"), _statement_rows(diff.added), max_rows)
    _show(table(*columns, title="removed statements"), _statement_rows(diff.removed), max_rows)
    changed = table("code (new)", "matched by", "field", "old", "new", title="changed statements")
    _show(
        changed,
        [
            _cells(entry.new.statement_code or shorten(entry.new.description, 40), entry.matched_by)
            + _cells(change.field, _value(change.old), _value(change.new))
            for entry in diff.changed
            for change in entry.changes
        ],
        max_rows,
    )
    moved = table("statement", "old parents", "new parents", title="moved statements")
    _show(moved, [_cells(_ref(m.new), _refs(m.old_parents), _refs(m.new_parents)) for m in diff.moved], max_rows)
    link_columns = ("label", "source", "target")
    _show(table(*link_columns, title="progression links added"), _link_rows(diff.links_added), max_rows)
    _show(table(*link_columns, title="progression links removed"), _link_rows(diff.links_removed), max_rows)
    ambiguous = table(
        "code", "statements old/new", "unmatched old (CASE id)", "unmatched new (CASE id)", title="ambiguous codes"
    )
    _show(
        ambiguous,
        [
            _cells(
                a.statement_code,
                f"{a.old_statements}/{a.new_statements}",
                "; ".join(ref.case_identifier_uuid for ref in a.unmatched_old),
                "; ".join(ref.case_identifier_uuid for ref in a.unmatched_new),
            )
            for a in diff.ambiguous_codes
        ],
        max_rows,
    )


def diff_command(
    old: Annotated[Path, typer.Argument(help="The earlier snapshot: a package directory <framework>/<snapshot>/.")],
    new: Annotated[Path, typer.Argument(help="The later snapshot of the same framework.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the full diff as canonical JSON.")] = False,
    exit_code: Annotated[
        bool, typer.Option("--exit-code", help="Exit 1 when the snapshots differ (like `git diff --exit-code`).")
    ] = False,
    max_rows: Annotated[
        int, typer.Option(min=0, help="Rows per table (0: all); --json always holds everything.")
    ] = DEFAULT_MAX_ROWS,
    profiles_dir: Annotated[Path | None, typer.Option(help="Profiles root (KGFEGMCP_PROFILES_DIR).")] = None,
) -> None:
    """Statements added, removed, changed and moved, and progression links added or removed.

    Both packages must be recorded passed by `packages validate` and still match it byte for byte.
    Exit code 0 whether or not they differ (1 with --exit-code when they do); 2 when a package is refused.
    """
    # Imported by the command, not by loading the command line, which `kgfegmcp serve` does on every start.
    from kgfegmcp.packages.snapshot_diff import diff_packages

    settings = settings_with(profiles_dir=profiles_dir)
    validator = PackageValidator(ProfileRepository(*profile_roots(settings)))
    with err.status("verifying and comparing the two snapshots"):
        diff = diff_packages(locate_package(old), locate_package(new), validator)
    if as_json:
        sys.stdout.buffer.write(shown_json(diff.to_json_bytes().decode("utf-8")).encode("utf-8"))
        sys.stdout.flush()
    else:
        render_tables(diff, max_rows)
    if exit_code and diff.has_differences:
        raise typer.Exit(1)
