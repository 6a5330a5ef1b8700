"""The README's command blocks, read as a reader sees them and run as a user types them: verbatim,
through bash with ``set -euo pipefail``; a long run in the background while other tests go on; the
commands on port 8765 in a network namespace of their own, the hosted recipe on another port, as a script
(without job control) runs it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from install_support import REPOSITORY_ROOT

README = REPOSITORY_ROOT / "README.md"
#: The README's wheel block and bundle block, by how they start.
WHEEL_BLOCK = "python3 -m pip wheel"
BUNDLE_BLOCK = "scripts/install_dev.sh && .venv/bin/python scripts/build_bundle.py"
#: Commands of the installed tool run from a directory of the user's, not the checkout ("from any directory").
INSTALLED = "kgfegmcp "
#: What the README says `kgfegmcp catalog init` does without the data packages, and what doctor says then:
#: run once, before the wheel block's own `catalog init`, so the tests can read the state a user meets first.
BEFORE_SOURCES = ("kgfegmcp catalog init", "kgfegmcp doctor --json")
PORT_8765 = "http://127.0.0.1:8765"
#: Guard against a hung command only; every wait inside is on a condition (a probe, a process's exit).
CEILING_SECONDS = 600
#: A README command that ends in `# -> PATH` (or `(about N MB)` after it) names the file it makes.
_ARTIFACT = re.compile(r"->\s*(?P<path>\S+)(?:\s*\(about (?P<mb>\d+(?:\.\d+)?) MB\))?")
#: A console block's commands are the lines after its prompt.
_PROMPT = "$ "
_STEP = "\n@@step\n"


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block of a Markdown file: its info string, its text, and the line it opens on."""

    language: str
    text: str
    line: int

    @property
    def commands(self) -> list[str]:
        """The commands a user types, one per entry, each exactly as written (with its comment)."""
        lines = self.text.splitlines()
        if self.language == "console":
            lines = [line.removeprefix(_PROMPT) for line in lines if line.startswith(_PROMPT)]
        commands: list[str] = []
        pending = ""
        for line in lines:
            if line.endswith("\\"):
                pending += line + "\n"
                continue
            if (pending + line).strip() and not line.lstrip().startswith("#"):
                commands.append(pending + line)
            pending = ""
        return commands


def fenced_blocks(markdown: str) -> list[Block]:
    """Every fenced block, in order; an unclosed fence is an error, not a block that runs to the end."""
    blocks: list[Block] = []
    opened: tuple[str, int, list[str]] | None = None
    for number, line in enumerate(markdown.splitlines(), start=1):
        if opened is None:
            if line.startswith("```"):
                opened = (line[3:].strip(), number, [])
        elif line.startswith("```"):
            blocks.append(Block(opened[0], "\n".join(opened[2]), opened[1]))
            opened = None
        else:
            opened[2].append(line)
    assert opened is None, f"README.md: the block opened on line {opened[1]} is never closed"
    return blocks


def readme_block(prefix: str) -> Block:
    """The one README block whose text starts with ``prefix``."""
    found = [block for block in fenced_blocks(README.read_text(encoding="utf-8")) if block.text.startswith(prefix)]
    assert len(found) == 1, f"README.md has {len(found)} blocks starting with {prefix!r}"
    return found[0]


def artifact(command: str) -> tuple[str, float | None] | None:
    """The file a command's `# -> PATH (about N MB)` comment promises, and its size in MB when stated."""
    match = _ARTIFACT.search(command.partition("#")[2])
    if match is None:
        return None
    return match["path"], float(match["mb"]) if match["mb"] else None


def bash_arguments(command: str) -> list[str]:
    """How a user's shell runs ``command``: verbatim, through bash, stopping at the first failure."""
    return ["bash", "-c", f"set -euo pipefail\n{command}"]


def run_command(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One README command, verbatim, through bash with ``set -euo pipefail``, as the user's shell runs it."""
    return subprocess.run(
        bash_arguments(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=CEILING_SECONDS, check=False
    )


def succeeded(run: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``run``, after asserting that it exited 0 (its command and output in the message when not)."""
    assert run.returncode == 0, f"{run.args[-1]!r} exited {run.returncode}\n{run.stdout}\n{run.stderr}"
    return run


class Background:
    """A command started now and waited for when its result is first needed, so independent runs overlap.

    Its output goes to files, not pipes, so it never blocks on a reader that comes later. It leads a
    process group of its own, so stopping it stops what it started.
    """

    def __init__(self, arguments: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> None:
        self._out: IO[str] = (scratch / "stdout").open("w+", encoding="utf-8")
        self._err: IO[str] = (scratch / "stderr").open("w+", encoding="utf-8")
        self._process = subprocess.Popen(
            arguments, cwd=cwd, env=env, stdout=self._out, stderr=self._err, text=True, start_new_session=True
        )
        self._result: subprocess.CompletedProcess[str] | None = None

    def result(self) -> subprocess.CompletedProcess[str]:
        """Wait for the command to end (the ceiling guards a hang only); what it printed and its exit code."""
        if self._result is None:
            code = self._process.wait(timeout=CEILING_SECONDS)
            printed = []
            for stream in (self._out, self._err):
                stream.seek(0)
                printed.append(stream.read())
                stream.close()
            self._result = subprocess.CompletedProcess(self._process.args, code, *printed)
        return self._result

    def stop(self) -> None:
        """End the command if no test waited for it (one that failed before it did): SIGTERM to its group,
        which a session's shell turns into its EXIT trap (ending its jobs); SIGKILL if that does not end it."""
        if self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
        self.result()


def in_background(command: str, cwd: Path, env: dict[str, str], scratch: Path) -> Background:
    """``run_command``, started now."""
    return Background(bash_arguments(command), cwd, env, scratch)


def _marked(steps: list[str]) -> list[str]:
    """The steps, each after a line that marks where its output starts (`Session`)."""
    mark = f"printf '{_STEP.encode('unicode_escape').decode()}'"
    return [line for step in steps for line in (mark, step)]


def session_in_background(steps: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> Background:
    """Run ``steps`` (shell text) as one bash session, started now."""
    return Background(bash_arguments("\n".join(_marked(steps))), cwd, env, scratch)


def namespaced_session(steps: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> Background:
    """Run ``steps`` (shell text) as one bash session in a network namespace of its own, with its own
    loopback, and with job control, so a background job is stopped by SIGINT as by Ctrl-C in a terminal."""
    assert shutil.which("unshare") and shutil.which("ip"), "util-linux's unshare and iproute2's ip are needed"
    prelude = [
        "ip link set lo up",
        "set -m",
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",  # no server outlives the session
        "trap 'exit 143' TERM",  # stopped (Background.stop): exit, so the EXIT trap runs
    ]
    script = "\n".join([*prelude, *_marked(steps)])
    return Background(["unshare", "--map-root-user", "--net", *bash_arguments(script)], cwd, env, scratch)


@dataclass(frozen=True, slots=True)
class Session:
    """What a namespaced session's steps printed, each cut at the mark put before it."""

    steps: list[str]
    printed: list[str]

    @classmethod
    def of_run(cls, steps: list[str], run: subprocess.CompletedProcess[str]) -> Session:
        return cls(steps, succeeded(run).stdout.split(_STEP)[1:])

    def of(self, prefix: str) -> str:
        """What the one step starting with ``prefix`` printed."""
        (text,) = [text for step, text in zip(self.steps, self.printed, strict=True) if step.startswith(prefix)]
        return text

    def json_of(self, prefix: str) -> dict[str, Any]:
        """The first JSON document a step printed (`fastmcp call` prints the structured result)."""
        text = self.of(prefix)
        document, _ = json.JSONDecoder().raw_decode(text[text.index("{") :])
        assert isinstance(document, dict)
        return document


#: Steps around the README's commands in the developer's session: each waits on a condition or ends what
#: a command started. Set-up is ready when its server answers the probe; `kill -0` ends the wait if it stopped.
READY = f"until curl -fs {PORT_8765}/readyz >/dev/null; do kill -0 %1; sleep 0.2; done"
CTRL_C = "kill -INT %1; status=0; wait %1 || status=$?; echo stopped $status"
#: The hosted recipe's block starts by choosing its port; the session chooses another than the default, so
#: a command that names 8765 instead of "$PORT" finds nothing there (the namespace keeps this one free).
HOSTED_BLOCK = "PORT="
HOSTED_PORT = 18765
NO_TOKEN = (
    "curl -s -o /dev/null -w '%{http_code}' -X POST \"http://127.0.0.1:$PORT/mcp\" "
    "-H 'Content-Type: application/json' -d '{}'"
)
#: After the recipe's `kill "$SERVER"`: the server it started has ended.
STOPPED = 'status=0; wait "$SERVER" || status=$?; echo hosted server stopped $status'


def hosted_steps() -> list[str]:
    """The README's hosted recipe on ``HOSTED_PORT``, in a shell without job control (as a script runs it), and
    a request without the token while the server runs."""
    first, *rest = readme_block(HOSTED_BLOCK).commands
    assert first == "PORT=8765", f"the hosted recipe should begin by choosing its port, not {first!r}"
    *serving, stop = rest
    assert stop == 'kill "$SERVER"', f"the hosted recipe should end by stopping its server, not {stop!r}"
    return ["set +m", f"PORT={HOSTED_PORT}", *serving, NO_TOKEN, stop, STOPPED]


def developer_steps(setup_log: Path) -> list[str]:
    """A developer's session in the README's order: `scripts/setup.sh` (it serves until Ctrl-C) and, while
    it runs, the commands that connect a client; Ctrl-C; then the hosted commands, on the catalog set-up
    built, with a request without the token."""
    (setup,) = readme_block("scripts/setup.sh").commands
    return [
        f"{setup} >{setup_log} 2>&1 &",
        READY,
        *readme_block(".venv/bin/fastmcp list").commands,
        CTRL_C,
        *hosted_steps(),
    ]


@dataclass(frozen=True, slots=True)
class Built:
    """A file a README command made, where the command's `# -> PATH` comment says, and the run that made it."""

    path: Path
    about_mb: float | None
    run: subprocess.CompletedProcess[str]


def built_by(command: str, cwd: Path, run: subprocess.CompletedProcess[str]) -> Built:
    """What ``command``'s run in ``cwd`` made: it must have succeeded and left the file its comment names."""
    promised = artifact(command)
    assert promised is not None, f"{command!r} names no `# -> PATH` it makes"
    succeeded(run)
    path = cwd / promised[0]
    assert path.is_file(), f"{command!r} exited 0 but left no {promised[0]}"
    return Built(path, promised[1], run)


@dataclass
class UvUser:
    """A new user following the README's uv block (another home): all but `serve`, run in the background."""

    home: Path
    env: dict[str, str]
    serve: str
    steps: list[str]
    run: Background

    @property
    def catalog(self) -> Path:
        return self.home / ".local" / "share" / "kgfegmcp" / "graph_packages"

    @property
    def venv(self) -> Path:
        """The environment `uv tool install` made for the tool."""
        return self.home / ".local" / "share" / "uv" / "tools" / "kgfegmcp"


@dataclass
class WheelUser:
    """A new user who ran the README's wheel block up to `serve`: every run, keyed by its command."""

    home: Path
    env: dict[str, str]
    anywhere: Path
    serve: str
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)

    @property
    def catalog(self) -> Path:
        """Where the README says the catalog goes: the user data directory."""
        return self.home / ".local" / "share" / "kgfegmcp" / "graph_packages"

    @property
    def venv(self) -> Path:
        """The environment pipx made for the tool."""
        return self.home / ".local" / "share" / "pipx" / "venvs" / "kgfegmcp"

    def run_of(self, prefix: str) -> subprocess.CompletedProcess[str]:
        """The run of the one README command starting with ``prefix`` (the commands carry their comments)."""
        (run,) = [
            run for command, run in self.runs.items() if command.startswith(prefix) and command not in BEFORE_SOURCES
        ]
        return run


@dataclass
class PipUser:
    """A new user who made an environment with pip, installed the README's wheel into it and, from a directory
    of theirs, ran `catalog init` (no data packages yet), `catalog init --install-sources`, and then the
    command the first one named, as printed: each run keyed by its command (that last one by ``HINT``)."""

    home: Path
    venv: Path
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    #: What pip logged (PIP_LOG) while `--install-sources` ran: which pip, from which environment.
    pip_log: str = ""

    @property
    def catalog(self) -> Path:
        return self.home / ".local" / "share" / "kgfegmcp" / "graph_packages"


#: The key of the run of the command `catalog init` named, in ``PipUser.runs``.
HINT = "the command `kgfegmcp catalog init` named"


def distributions(venv: Path) -> set[str]:
    """The distributions an environment holds, by normalised name (the installers' own tools left out)."""
    listing = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m; print(*(d.name for d in m.distributions()))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return {name.lower().replace("_", "-") for name in listing.stdout.split()} - {"pip", "setuptools", "wheel"}
