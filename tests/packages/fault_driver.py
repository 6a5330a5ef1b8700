"""Run the ``kgfegmcp`` command line with one fault injected at a chosen file operation (tests only).

    python fault_driver.py kill|pause EVENT NAME[,NAME...] -- kgfegmcp arguments...

EVENT is an audit event: ``open`` (a file opened for writing) or ``os.rename`` (its source or target;
``os.replace`` raises it too). At the first operation on a file with one of the NAMEs, ``kill`` sends
the process SIGKILL (no cleanup, no ``finally``: what ``kill -9`` does), and ``pause`` prints
``paused`` to stderr and holds whatever the process holds at that point until a line (or the end) comes
on its standard input: the test releases it once what it holds it for has happened.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

action, event, names = sys.argv[1], sys.argv[2], set(sys.argv[3].split(","))
arguments = sys.argv[sys.argv.index("--") + 1 :]
fired = False


def _hits(args: tuple[Any, ...]) -> bool:
    if event == "open":
        path, mode = args[0], args[1]
        writing = isinstance(mode, str) and any(flag in mode for flag in "wax+")
        return writing and isinstance(path, (str, bytes, os.PathLike)) and Path(os.fsdecode(path)).name in names
    return any(isinstance(a, (str, bytes, os.PathLike)) and Path(os.fsdecode(a)).name in names for a in args[:2])


def hook(name: str, args: tuple[Any, ...]) -> None:
    global fired
    if fired or name != event or not _hits(args):
        return
    fired = True
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    print("paused", file=sys.stderr, flush=True)
    sys.stdin.readline()


sys.addaudithook(hook)
sys.argv = ["kgfegmcp", *arguments]
from kgfegmcp.launcher import main  # noqa: E402

main()
