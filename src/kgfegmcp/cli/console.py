"""What every command shares: the two consoles, the progress bar, settings with CLI overrides, and the one
way text from a package or a source reaches the terminal (:func:`cell`, :func:`table`, :func:`json_line`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

from kgfegmcp.core.config import BackendSettings, load_settings
from kgfegmcp.core.text_safety import shown, shown_json

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn

# Tables go to stdout; progress, warnings and errors to stderr. Off a terminal both are wide, so
# piped tables are not wrapped at 80 columns. Lines printed on stderr are never wrapped: an error is
# one `<code>: <message> Next action: <hint>` line however long, for people and scripts alike.
out = Console() if Console().is_terminal else Console(width=200)
err = (
    Console(stderr=True, soft_wrap=True)
    if Console(stderr=True).is_terminal
    else Console(stderr=True, width=200, soft_wrap=True)
)


def cell(value: object, style: str = "") -> Text:
    """A table cell or a piece of a message that may come from a package or a source: every control and
    bidirectional formatting character shown as its escape (``\\x1b``, ``\\u202e``), never read as markup.

    Curriculum text is data: an ESC in a title must not recolour the operator's terminal, an OSC 8 sequence
    must not hide a link in it, a ``[red]`` in a statement must not be taken for console markup.
    """
    return Text(shown(str(value)), style=style)


def line(*parts: str | Text) -> Text:
    """One message from parts: plain strings are passed through :func:`cell`; styled parts made by it are kept."""
    return Text.assemble(*(part if isinstance(part, Text) else cell(part) for part in parts))


def table(*headers: str, title: str | None = None, caption: str | None = None) -> Table:
    """A table that loses nothing at any width: every column folds what does not fit (a long path or a
    package id is wrapped inside its cell, never cut with an ellipsis), and so do the title and caption."""
    return Table(
        *(Column(header, overflow="fold") for header in headers),
        title=None if title is None else Text(shown(title), overflow="fold"),
        caption=None if caption is None else Text(shown(caption), overflow="fold"),
    )


def add_row(target: Table, *values: str | Text) -> None:
    """Add one row; each plain value passes :func:`cell` (a styled value is a :func:`cell` already)."""
    target.add_row(*(value if isinstance(value, Text) else cell(value) for value in values))


def progress_text(step: str) -> str:
    """A progress bar's description (which rich reads as markup) from text that may come from a source."""
    return escape(shown(step))


def json_line(value: object, *, sort_keys: bool = True) -> str:
    """One JSON document for stdout (with its newline): UTF-8 kept, every control, bidirectional formatting
    and invisible mark inside a string written as its ``\\uXXXX`` escape, so the same JSON value is printed
    and a terminal showing it is never driven by it."""
    return shown_json(json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)) + "\n"


def settings_with(**overrides: object) -> BackendSettings:
    """Settings from the environment, with the options the user gave on the command line on top."""
    return load_settings({k: v for k, v in overrides.items() if v is not None})


def _bar(*counters: ProgressColumn) -> Progress:
    """A transient bar on stderr with ``counters`` between the bar and the elapsed time; silent off a terminal."""
    # Imported by the commands that show a bar, not by loading the command line (`serve` loads it too).
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        *counters,
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def progress_bar() -> Progress:
    """Steps done of how many."""
    from rich.progress import MofNCompleteColumn  # deferred as in _bar

    return _bar(MofNCompleteColumn())


def download_bar() -> Progress:
    """Bytes received and the rate (a bar without end until the size is known)."""
    from rich.progress import DownloadColumn, TransferSpeedColumn  # deferred as in _bar

    return _bar(DownloadColumn(), TransferSpeedColumn())
