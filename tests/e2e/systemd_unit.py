"""Read deploy/systemd/kgfegmcp.service the way systemd would, so a test can start exactly its command.

There is no systemd here. This is a small reader for the part of the unit syntax the unit uses:
``[Section]`` headers, ``Key=value`` lines (repeated keys kept in order, ``\\`` continuations),
``Environment=`` assignments, ``EnvironmentFile=`` files (``NAME=value`` lines), and ``${NAME}``
in ``ExecStart=``. Anything outside that subset (specifiers such as ``%i``, ``$NAME`` without
braces, ``ExecStart=`` prefixes, backslashes in an environment file) is refused with an error
instead of being read differently from systemd.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Unit:
    """A unit file's settings: section -> ordered (key, value) pairs, repeated keys included."""

    sections: dict[str, list[tuple[str, str]]]

    def values(self, section: str, key: str) -> list[str]:
        """Every value of ``key`` in ``section``, in file order (``Environment=`` may repeat)."""
        return [value for name, value in self.sections.get(section, []) if name == key]

    def value(self, section: str, key: str) -> str:
        """The one value of ``key``; a missing or repeated key is an error."""
        found = self.values(section, key)
        if len(found) != 1:
            raise ValueError(f"[{section}] {key}= appears {len(found)} times, expected once")
        return found[0]


def read_unit(path: Path) -> Unit:
    """Parse a unit file: comments (``#``, ``;``), sections, ``Key=value`` lines and continuations."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    pending = ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = pending + raw.strip() if pending else raw.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        key, equals, value = line.partition("=")
        if current is None or not equals:
            raise ValueError(f"{path}:{number}: not a setting inside a section: {raw!r}")
        current.append((key.strip(), value.strip()))
    return Unit(sections)


def environment_assignments(value: str) -> dict[str, str]:
    """One ``Environment=`` value: space-separated ``NAME=value`` words, quoted as a shell would."""
    if "%" in value:
        raise ValueError(f"Environment={value!r} uses specifiers this reader does not implement")
    assignments = {}
    for word in shlex.split(value):
        name, equals, setting = word.partition("=")
        if not equals or not _NAME.match(name):
            raise ValueError(f"Environment= word {word!r} is not NAME=value")
        assignments[name] = setting
    return assignments


def read_environment_file(path: Path) -> dict[str, str]:
    """An ``EnvironmentFile=``: ``NAME=value`` lines, ``#``/``;`` comments, a whole value may be quoted."""
    assignments = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if "\\" in line:
            raise ValueError(f"{path}:{number}: backslashes are escapes in systemd; this reader refuses them")
        name, equals, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not _NAME.match(name):
            raise ValueError(f"{path}:{number}: not NAME=value: {raw!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        assignments[name] = value
    return assignments


def expand_command(value: str, environment: dict[str, str]) -> list[str]:
    """``ExecStart=`` as the argument vector systemd would run: words split, each ``${NAME}`` replaced.

    A ``${NAME}`` the environment does not define is an error here (systemd would pass an empty
    string, which the server would then refuse anyway).
    """
    if value[:1] in {"-", "@", "+", "!", ":"} or "%" in value:
        raise ValueError(f"ExecStart={value!r} uses prefixes or specifiers this reader does not implement")

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environment:
            raise ValueError(f"ExecStart= refers to ${{{name}}}, which the unit's environment does not set")
        return environment[name]

    words = []
    for word in shlex.split(value):
        if "$" in _REFERENCE.sub("", word):
            raise ValueError(f"ExecStart= word {word!r}: only ${{NAME}} references are implemented")
        words.append(_REFERENCE.sub(substitute, word))
    return words


def relocate(value: str, paths: dict[str, str]) -> str:
    """``value`` with a leading path in ``paths`` replaced (``/opt/kgfegmcp/x`` -> ``<checkout>/x``)."""
    for old, new in paths.items():
        if value == old or value.startswith(old + "/"):
            return new + value[len(old) :]
    return value


@dataclass(frozen=True)
class ServiceCommand:
    """What systemd would run for the unit: the argument vector, its environment and working directory."""

    argv: list[str]
    environment: dict[str, str]
    working_directory: Path


def service_command(unit: Unit, base_environment: dict[str, str], paths: dict[str, str]) -> ServiceCommand:
    """The unit's ``[Service]``: ``Environment=`` lines in order, then each ``EnvironmentFile=`` (which wins,
    as in systemd), then ``ExecStart=`` expanded against that environment.

    ``paths`` relocates the install prefix and the other absolute paths of the unit (the
    environment file's path included) to where this machine has them; nothing else is changed.
    """
    environment = dict(base_environment)
    for line in unit.values("Service", "Environment"):
        environment.update({name: relocate(value, paths) for name, value in environment_assignments(line).items()})
    for line in unit.values("Service", "EnvironmentFile"):
        optional = line.startswith("-")
        path = Path(relocate(line.removeprefix("-"), paths))
        if path.exists() or not optional:
            environment.update(read_environment_file(path))
    argv = [relocate(word, paths) for word in expand_command(unit.value("Service", "ExecStart"), environment)]
    working_directory = Path(relocate(unit.value("Service", "WorkingDirectory"), paths))
    return ServiceCommand(argv, environment, working_directory)
