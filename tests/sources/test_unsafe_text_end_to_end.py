"""A CFPackage whose text carries terminal and bidirectional attacks, built and served end to end.

NUL, an ANSI colour (ESC[31m), an OSC 8 hyperlink (ESC]8;;http://x ESC\\) and a right-to-left override
(U+202E) in a fullStatement, a humanCodingScheme and the CFDocument's title: the real command line builds,
validates and lists it, and FastMCP's client asks the served package for it. None of the characters may
reach the operator's terminal, the package's files or a tool answer; the build names each member it
replaced them in, once, with a count.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR
from package_factory import FixtureWorld, state_for
from served_apps import SERVED
from tool_calls import call, wire

ATTACK = "\x00NUL \x1b[31mRED\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \u202eEVIL"
#: What must never arrive raw: NUL, ESC, U+202E (and, in JSON text, their escapes).
RAW = ("\x00", "\x1b", "\u202e")
ESCAPED_IN_JSON = ("\\u0000", "\\u001b", "\\u202e")
DOC = "7b1c0000-0000-4000-8000-000000000001"
GROUP, FIRST, SECOND = (
    "7b1c0000-0000-4000-8000-000000000010",
    "7b1c0000-0000-4000-8000-000000000020",
    "7b1c0000-0000-4000-8000-000000000021",
)
FRAMEWORK = "attack-standards-nul-31mred-0m-8-http-x-link-8-evil"


def cf_package() -> dict[str, Any]:
    def node(identifier: str) -> dict[str, str]:
        return {"identifier": identifier}

    def association(identifier: str, kind: str, origin: str, destination: str) -> dict[str, Any]:
        return {
            "identifier": identifier,
            "associationType": kind,
            "originNodeURI": node(origin),
            "destinationNodeURI": node(destination),
        }

    return {
        "CFDocument": {
            "identifier": DOC,
            "title": f"Attack Standards {ATTACK}",
            "creator": "Example Board",
            "lastChangeDateTime": "2024-03-01T10:00:00Z",
            "version": "1.0",
            "language": "en",
            "subject": ["Science"],
            "licenseURI": {"title": "CC BY 4.0", "identifier": "lic-1", "uri": "https://case.example/lic/1"},
        },
        "CFItems": [
            {"identifier": GROUP, "fullStatement": "Matter", "CFItemType": "Domain"},
            {
                "identifier": FIRST,
                "fullStatement": f"Describe the properties of matter. {ATTACK}",
                "humanCodingScheme": "PS.1\u202e\x1b[31m\x00",
                "CFItemType": "Standard",
                "educationLevel": ["01"],
            },
            {
                "identifier": SECOND,
                "fullStatement": "Compare the states of matter.",
                "humanCodingScheme": "PS.2",
                "CFItemType": "Standard",
                "educationLevel": ["02"],
            },
        ],
        "CFAssociations": [
            association("a1", "isChildOf", GROUP, DOC),
            association("a2", "isChildOf", FIRST, GROUP),
            association("a3", "isChildOf", SECOND, GROUP),
            association("a4", "precedes", FIRST, SECOND),
        ],
    }


def run_cli(*arguments: str, **settings: str) -> subprocess.CompletedProcess[bytes]:
    """The real command line, as bytes (what a terminal would be sent), with ``settings`` in its environment."""
    return subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", *arguments],
        capture_output=True,
        cwd=REPOSITORY_ROOT,
        env={**os.environ, **settings},
        timeout=120,
        check=False,
    )


def assert_nothing_raw(data: bytes, where: str) -> None:
    text = data.decode("utf-8")
    for character in RAW:
        assert character not in text, f"{character!r} reached {where}"


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for element in value:
            yield from strings(element)
    elif isinstance(value, dict):
        for key, element in value.items():
            yield key
            yield from strings(element)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[FixtureWorld, subprocess.CompletedProcess[bytes]]:
    """The CFPackage built by ``packages build`` into a fixture world (its own copy of the shipped profiles)."""
    world = FixtureWorld(tmp_path_factory.mktemp("unsafe-text"))
    shutil.copytree(SHIPPED_PROFILES_DIR, world.profiles_root)
    source = world.base / "attack.json"
    source.write_text(json.dumps(cf_package()), encoding="utf-8")
    run = run_cli(
        "packages",
        "build",
        "--source",
        "case",
        str(source),
        "--out",
        str(world.packages),
        "--profiles-dir",
        str(world.profiles_root),
    )
    assert run.returncode == 0, run.stderr.decode()
    return world, run


def package_dir(world: FixtureWorld) -> Path:
    (manifest,) = world.packages.glob("*/*/package_manifest.json")
    return manifest.parent


def test_the_build_output_carries_none_of_the_characters(
    built: tuple[FixtureWorld, subprocess.CompletedProcess[bytes]],
) -> None:
    _world, run = built
    assert_nothing_raw(run.stdout, "the build's table")
    assert_nothing_raw(run.stderr, "the build's messages")
    assert FRAMEWORK.encode() in run.stdout


def test_no_file_of_the_package_holds_them_raw_or_escaped(
    built: tuple[FixtureWorld, subprocess.CompletedProcess[bytes]],
) -> None:
    world, _run = built
    files = [path for path in package_dir(world).rglob("*") if path.is_file()]
    assert len(files) > 70
    for path in files:
        data = path.read_bytes()
        assert_nothing_raw(data, path.name)
        for escape in ESCAPED_IN_JSON:
            assert escape.encode() not in data, f"{escape} in {path.name}"
        records = [json.loads(line) for line in data.splitlines()] if path.suffix == ".jsonl" else [json.loads(data)]
        for text in strings(records):
            assert not any(character in text for character in RAW), path.name
    nodes = next(package_dir(world).glob("delivery/as_lc_nodes_*.jsonl")).read_text(encoding="utf-8")
    assert "Describe the properties of matter. \ufffdNUL \ufffd[31mRED" in nodes  # replaced, position kept


def test_the_build_names_each_member_once_with_a_count(
    built: tuple[FixtureWorld, subprocess.CompletedProcess[bytes]],
) -> None:
    world, _run = built
    report = json.loads((package_dir(world) / "detailed" / "as_validation_report.json").read_text(encoding="utf-8"))
    unsafe = [finding for finding in report["findings"] if finding["code"] == "unsafe_text"]
    locations = [finding["location"] for finding in unsafe]
    assert len(locations) == len(set(locations))  # one finding per member, never one per occurrence
    assert {
        "StandardsFrameworkItem.description",
        "StandardsFrameworkItem.statementCode",
        "StandardsFramework.name",
        "manifest.title",
    } <= set(locations)
    by_member = {finding["location"]: finding for finding in unsafe}
    statement = by_member["StandardsFrameworkItem.description"]
    assert statement["severity"] == "warning" and statement["stage"] == "build"
    assert statement["message"].startswith(f"1 value held U+0000, U+001B, U+202E; first in {FIRST}")
    assert "StandardsFrameworkItem.statementCode" in {f["location"] for f in unsafe}


def test_it_validates_and_every_command_shows_it_escaped(
    built: tuple[FixtureWorld, subprocess.CompletedProcess[bytes]],
) -> None:
    world, _run = built
    settings = {"KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""}
    validated = run_cli("packages", "validate", str(world.packages), **settings)
    assert validated.returncode == 0, validated.stdout.decode() + validated.stderr.decode()
    as_json = run_cli("packages", "validate", "--json", str(world.packages), **settings)
    listed = run_cli("packages", "list", "--root", str(world.packages), **settings)
    doctor = run_cli("doctor", "--root", str(world.packages), **settings)
    for name, run in (("validate", validated), ("validate --json", as_json), ("list", listed), ("doctor", doctor)):
        assert_nothing_raw(run.stdout + run.stderr, name)
    assert "Attack Standards \ufffdNUL \ufffd[31mRED" in listed.stdout.decode()
    assert json.loads(as_json.stdout)["status"] == "passed"


@pytest.fixture(scope="module")
def served_state(built: tuple[FixtureWorld, subprocess.CompletedProcess[bytes]]) -> Any:
    world, _run = built
    validated = run_cli("packages", "validate", str(world.packages), KGFEGMCP_PROFILES_DIR=str(world.profiles_root))
    assert validated.returncode == 0
    return state_for(world)


async def test_no_tool_answer_carries_them(
    built: tuple[FixtureWorld, subprocess.CompletedProcess[bytes]], served_state: Any
) -> None:
    code = "PS.1\ufffd\ufffd[31m\ufffd"
    requests: list[tuple[str, dict[str, Any]]] = [
        ("list_frameworks", {}),
        ("get_framework", {"frameworkId": FRAMEWORK}),
        ("search_standards", {"query": "properties of matter", "frameworkIds": [FRAMEWORK]}),
        ("search_standards", {"query": "RED EVIL link", "frameworkIds": [FRAMEWORK]}),
        ("get_standard", {"frameworkId": FRAMEWORK, "statementCode": code}),
        ("get_standard", {"frameworkId": FRAMEWORK, "nodeId": FIRST}),
        ("get_standard_context", {"frameworkId": FRAMEWORK, "nodeId": FIRST}),
        ("get_standard_progressions", {"frameworkId": FRAMEWORK, "nodeId": SECOND}),
        ("traverse_learning_progressions", {"frameworkId": FRAMEWORK, "nodeId": FIRST}),
    ]
    async with SERVED.client(served_state) as client:
        answers = [await call(client, tool, request) for tool, request in requests]
        standard = answers[5].structured_content
        assert standard is not None
        links = sorted({text for text in strings(standard) if text.startswith("kgfegmcp://") and "/standard/" in text})
        assert links
        snapshot = package_dir(built[0]).name
        package = f"kgfegmcp://framework/{FRAMEWORK}/snapshot/{snapshot}"
        evidence = [
            await call(client, "read_evidence", {"uri": uri})
            for uri in [
                *(uri for link in links for uri in (link, f"{link}/provenance")),
                f"{package}/manifest",
                f"{package}/profile",  # derived from the CFPackage: its title is the document's
            ]
        ]
    assert answers[4].structured_content == answers[5].structured_content  # the code, made safe, finds it
    for result in [*answers, *evidence]:
        text = wire(result)
        for character in RAW:
            assert character not in text
        for escape in ESCAPED_IN_JSON:
            assert escape not in text
    assert "Describe the properties of matter. \ufffdNUL" in wire(answers[5])


def test_a_statement_type_or_grade_holding_one_is_kept_reported_and_refused(tmp_path: Path) -> None:
    """A term the derived profile declares as the source spells it is not rewritten (that would part it from
    its declaration): the build names it, and validation refuses the package rather than serve it."""
    world = FixtureWorld(tmp_path)
    shutil.copytree(SHIPPED_PROFILES_DIR, world.profiles_root)
    document = cf_package()
    document["CFItems"][1]["CFItemType"] = "Stan\x1b[31mdard\u202e"
    document["CFItems"][1]["educationLevel"] = ["0\x1b1"]
    source = tmp_path / "terms.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    settings = {"KGFEGMCP_PROFILES_DIR": str(world.profiles_root), "KGFEGMCP_CACHE_DIR": ""}
    build = run_cli("packages", "build", "--source", "case", str(source), "--out", str(world.packages), **settings)
    assert build.returncode == 0, build.stderr.decode()
    validated = run_cli("packages", "validate", "--json", str(world.packages), **settings)
    assert validated.returncode == 1
    for run in (build, validated):
        assert_nothing_raw(run.stdout + run.stderr, "the terminal")
    report = json.loads(validated.stdout)
    assert report["status"] == "failed"
    kept = {
        (f["severity"], f["location"])
        for f in report["findings"]
        if f["code"] == "unsafe_text" and f["location"].startswith("StandardsFrameworkItem.")
    }
    assert {
        ("warning", "StandardsFrameworkItem.statementType"),
        ("warning", "StandardsFrameworkItem.gradeLevel"),
        ("error", "StandardsFrameworkItem.statementType"),
        ("error", "StandardsFrameworkItem.gradeLevel"),
    } <= kept
