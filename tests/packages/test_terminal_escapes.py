"""A package written by hand with terminal attacks in its text: every command shows them escaped, never raw.

The package is not built here (the writer alone writes it), so its manifest title, framework name and
statements keep an ANSI colour, an OSC 8 hyperlink, a NUL and a right-to-left override. ``packages list``
prints the title, ``validate`` and ``doctor`` refuse it and say why, ``stats`` counts it: each is a real
process whose output must hold none of the characters raw, and must show them as escapes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from checkout import REPOSITORY_ROOT
from kgfegmcp.packages.tree import PackageLocation
from package_factory import TREE, FixtureWorld, base_graph

ATTACK = "\x1b[31mRED \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x00NUL \u202eEVIL"
RAW = ("\x00", "\x1b", "\u202e")


def hand_made(world: FixtureWorld) -> PackageLocation:
    graph = base_graph(TREE)
    graph.framework = replace(graph.framework, name=f"Fixture {ATTACK}")
    graph.items = [replace(item, description=f"{item.description} {ATTACK}") for item in graph.items]
    return world.write(graph, title=f"Fixture {ATTACK}")


def run(*arguments: str, world: FixtureWorld) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", *arguments],
        capture_output=True,
        text=True,
        cwd=REPOSITORY_ROOT,
        env={**os.environ, "KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )


def test_every_command_shows_the_attack_escaped(world: FixtureWorld) -> None:
    location = hand_made(world)
    listed = run("packages", "list", "--root", str(world.packages), world=world)
    validated = run("packages", "validate", str(location.path), world=world)
    as_json = run("packages", "validate", "--json", str(location.path), world=world)
    doctor = run("doctor", "--root", str(world.packages), world=world)
    stats = run("packages", "stats", str(location.path), "--markdown", world=world)
    for name, result in (("list", listed), ("validate", validated), ("json", as_json), ("doctor", doctor)):
        for character in RAW:
            assert character not in result.stdout + result.stderr, (name, character)
    assert "\\x1b[31mRED \\x1b]8;;http://x\\x1b\\link" in listed.stdout.replace("\n", "")
    assert "\\u202eEVIL" in listed.stdout and "\\x00NUL" in listed.stdout
    assert validated.returncode == 1 and "unsafe_text" in validated.stdout
    report = json.loads(as_json.stdout)
    unsafe = {f["location"] for f in report["findings"] if f["code"] == "unsafe_text"}
    assert {"manifest.title", "StandardsFramework.name", "StandardsFrameworkItem.description"} <= unsafe
    assert doctor.returncode == 1 and "unsafe_text" in doctor.stdout
    for character in RAW:
        assert character not in stats.stdout + stats.stderr


def test_a_refusal_that_quotes_a_file_name_shows_its_controls_escaped(world: FixtureWorld, tmp_path: Path) -> None:
    """The one coded line every command ends a refusal with quotes what it was given (here a file name, which
    may hold anything but NUL and a slash)."""
    missing = tmp_path / "curriculum \x1b[31mRED \u202eEVIL.json"
    refused = run("packages", "build", "--source", "case", str(missing), "--out", str(tmp_path / "out"), world=world)
    assert refused.returncode == 2
    assert refused.stderr.startswith("manifest_build_error: CASE input curriculum \\x1b[31mRED \\u202eEVIL.json")
    assert not any(raw in refused.stderr for raw in RAW) and refused.stderr.count("\n") == 1
