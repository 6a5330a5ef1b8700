"""Run the ``kgfegmcp`` command line, swapping one file for a special file as it is opened (tests only).

    python swap_driver.py KIND PATH ASIDE -- kgfegmcp arguments...

At the first audit event ``open`` for reading of a file named like PATH, the driver replaces PATH
by a KIND (``corrupt.make_special``: a FIFO, a socket, a directory, or a symlink to the same bytes,
moved into the directory ASIDE) before the open goes on: the race a reader that checks a path, then opens it, loses. The event
names only the last component when a reader opens relative to a directory descriptor, so the
driver is given the whole path and matches its name.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from corrupt import make_special


def main() -> None:
    kind, target, aside = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    arguments = sys.argv[sys.argv.index("--") + 1 :]
    swapped = False

    def reading(args: tuple[Any, ...]) -> bool:
        path, mode, flags = args[0], args[1], args[2]
        if not isinstance(path, (str, bytes, os.PathLike)) or Path(os.fsdecode(path)).name != target.name:
            return False
        if isinstance(mode, str):
            return not any(flag in mode for flag in "wax+")
        return isinstance(flags, int) and not flags & (os.O_WRONLY | os.O_RDWR)

    def hook(name: str, args: tuple[Any, ...]) -> None:
        nonlocal swapped
        if swapped or name != "open" or not reading(args):
            return
        swapped = True
        make_special(target, kind, aside)

    sys.addaudithook(hook)
    sys.argv = ["kgfegmcp", *arguments]
    from kgfegmcp.launcher import main as launch

    launch()


if __name__ == "__main__":
    main()
