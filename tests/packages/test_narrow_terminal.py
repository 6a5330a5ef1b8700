"""Tables on an 80-column terminal lose nothing: a long path or id is folded inside its cell, never cut.

Each command runs as a real process whose stdout is a pseudo-terminal 80 columns wide (and ``COLUMNS=80``),
so rich lays its tables out as an operator would see them. A cell's text is read back by joining the
pieces of its column, line after line: every character of the path must be there, in order.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

from rich.console import Console

from checkout import REPOSITORY_ROOT
from kgfegmcp.cli.catalog_commands import catalog_table
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import FixtureWorld, base_graph

WIDTH = 80
#: Framework ids may be 96 characters: one that long, so its graph-package id cannot fit a narrow column.
LONG_FRAMEWORK = "fixture-" + "-".join(["curriculum"] * 6) + "-with-a-long-name"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x1b\x07]*(?:\x1b\\|\x07)")


def on_terminal(*arguments: str, environment: dict[str, str]) -> str:
    """Run the command line with its stdout on an 80-column pseudo-terminal; what it showed, styles removed."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, WIDTH, 0, 0))
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "kgfegmcp.cli", *arguments],
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=errors,
            cwd=REPOSITORY_ROOT,
            env={**os.environ, **environment, "COLUMNS": str(WIDTH), "TERM": "xterm"},
        )
        os.close(terminal)
        shown = bytearray()
        while True:
            try:
                data = os.read(controller, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not data:
                break
            shown += data
        os.close(controller)
        process.wait(timeout=120)
    text = _ANSI.sub("", shown.decode("utf-8")).replace("\r", "")
    assert all(len(line) <= WIDTH for line in text.splitlines()), text
    return text


def column(text: str, index: int) -> str:
    """Column ``index`` of every table row in ``text``, its pieces joined line after line, without whitespace
    (wrapping turns a space into a line break; the paths and ids looked for hold none)."""
    pieces = []
    for line in text.splitlines():
        cells = re.split("[│┃]", line)
        if len(cells) > index + 1:
            pieces.append(cells[index + 1])
    return "".join("".join(pieces).split())


def unspaced(text: str) -> str:
    """``text`` without whitespace, to be found in a :func:`column`."""
    return "".join(text.split())


def deep_world(tmp_path: Path) -> FixtureWorld:
    """A fixture world under a directory path far longer than 80 columns, holding one long-named package."""
    base = tmp_path.joinpath(*[f"nested-directory-{level:02d}" for level in range(8)])
    world = FixtureWorld(base)
    world.add_profile(LONG_FRAMEWORK)
    world.write(base_graph(LONG_FRAMEWORK))
    assert len(str(world.packages)) > 2 * WIDTH
    return world


def test_doctor_shows_a_long_root_whole(tmp_path: Path) -> None:
    world = deep_world(tmp_path)
    shown = on_terminal(
        "doctor",
        "--root",
        str(world.packages),
        environment={"KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""},
    )
    assert str(world.packages.resolve()) in column(shown, 2)  # the package root's detail
    assert unspaced(f"kgfegmcp packages validate {world.packages}") in column(shown, 3)  # the pending package's fix
    assert "…" not in shown


def test_packages_list_and_validate_show_long_ids_whole(tmp_path: Path) -> None:
    world = deep_world(tmp_path)
    environment = {"KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""}
    package_id = f"{LONG_FRAMEWORK}@2026-01"
    listed = on_terminal("packages", "list", "--root", str(world.packages), environment=environment)
    assert package_id in column(listed, 0)
    assert unspaced(f"Fixture framework {LONG_FRAMEWORK}") in column(listed, 6)  # the title
    validated = on_terminal("packages", "validate", str(world.packages), environment=environment)
    assert package_id in column(validated, 0)
    assert "…" not in listed + validated


def test_the_catalog_table_folds_its_root_into_the_title(tmp_path: Path) -> None:
    world = deep_world(tmp_path)
    (location,) = [
        PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL).validate(
            location
        )
        for location in [world.write(base_graph(LONG_FRAMEWORK))]
    ]
    console = Console(file=io.StringIO(), width=WIDTH, color_system=None)
    console.print(catalog_table([location], world.packages))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert all(len(line) <= WIDTH for line in shown.splitlines())
    above = unspaced(shown.split("┏", 1)[0])  # the title, wrapped above the table
    assert unspaced(f"default catalog in {world.packages.resolve()}") in above
    assert f"{LONG_FRAMEWORK}@2026-01" in column(shown, 0)
