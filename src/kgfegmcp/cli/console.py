"""What every command shares: the two consoles, the progress bar and settings with CLI overrides."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from kgfegmcp.config import BackendSettings, load_settings

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
