"""The named hostile inputs of the ``hostile-sources`` class: CASE CFPackages a build reads from a file, and
bodies a provider answers ``packages fetch`` with, each written at a scale (1.0: the size that was found to
hurt; a test runs them smaller) so the same attack can be tried quickly or in full."""

from __future__ import annotations

import gzip
import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

#: Raw characters no build may pass to a record, an answer or a terminal: NUL, an ANSI colour, an OSC 8 link,
#: a right-to-left override, a bell and a C1 control.
HOSTILE_CHARACTERS = ("\x00", "\x1b[31m", "\x1b]8;;http://x.test/\x1b\\", "\u202e", "\x07", "\x9b")
#: Whether a case must be refused, must build, or may do either (the size decides) within the invariants.
Expect = Literal["refused", "built", "either"]


@dataclass(frozen=True)
class BuildStep:
    """``packages build --source case FILE`` into the case's root."""

    path: Path


@dataclass(frozen=True)
class FetchStep:
    """``packages fetch`` of a package a local provider answers with these bytes and headers."""

    body: bytes
    headers: tuple[tuple[str, str], ...]
    deadline_seconds: float
    #: What the body decodes to: the input a build's memory is held to (a compressed body is small by design).
    decoded_size: int


Step = BuildStep | FetchStep


@dataclass(frozen=True)
class SourceScenario:
    """One named attack: what it does, how its input is written, and what its last step must end in."""

    name: str
    what: str
    expect: Expect
    make: Callable[[float, random.Random, Path], list[Step]]


def _identifier(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def cf_package(
    rng: random.Random, items: list[dict[str, Any]], *, title: str = "Hostile Mathematics"
) -> dict[str, Any]:
    """A CFPackage of ``items`` (each given an identifier and a type unless it has them), all under the document."""
    document = {"identifier": _identifier(rng), "title": title, "creator": "Fuzz", "language": "en"}
    records = [{"identifier": _identifier(rng), "CFItemType": "Standard", **item} for item in items]
    associations = [
        {
            "identifier": _identifier(rng),
            "associationType": "isChildOf",
            "originNodeURI": {"identifier": item["identifier"], "title": "item"},
            "destinationNodeURI": {"identifier": document["identifier"], "title": title},
        }
        for item in records
    ]
    return {"CFDocument": document, "CFItems": records, "CFAssociations": associations}


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def _package_file(directory: Path, name: str, package: dict[str, Any]) -> Path:
    return _write(directory, name, json.dumps(package, ensure_ascii=False))


def _one_item(**members: Any) -> Callable[[float, random.Random, Path], list[Step]]:
    """A package of a few ordinary items and one with ``members`` (callables of the scale give the values)."""

    def make(scale: float, rng: random.Random, directory: Path) -> list[Step]:
        hostile = {key: value(scale) if callable(value) else value for key, value in members.items()}
        items = [{"fullStatement": f"Count to {n}.", "humanCodingScheme": f"M.{n}"} for n in range(1, 4)]
        items.append({"fullStatement": "Hostile item.", "humanCodingScheme": "M.X", **hostile})
        return [BuildStep(_package_file(directory, "package.json", cf_package(rng, items)))]

    return make


def _repeated_member(_scale: float, rng: random.Random, directory: Path) -> list[Step]:
    text = json.dumps(cf_package(rng, [{"fullStatement": "Shown.", "humanCodingScheme": "M.1"}]))
    # The same member twice in one CFItem: a reader that keeps the last value builds what the author did not see.
    text = text.replace('"fullStatement": "Shown."', '"fullStatement": "Shown.", "fullStatement": "Hidden."', 1)
    return [BuildStep(_write(directory, "package.json", text))]


def _many_similar_types(scale: float, rng: random.Random, directory: Path) -> list[Step]:
    count = max(2, int(24_000 * scale))
    # Names that differ only in punctuation share one slug, so each must be made unique.
    items = [
        {"fullStatement": f"Item {n}.", "humanCodingScheme": f"T.{n}", "CFItemType": f"Type {n:x}!"}
        for n in range(count)
    ]
    items += [
        {"fullStatement": f"Item {n}b.", "humanCodingScheme": f"T.{n}b", "CFItemType": f"Type {n:x}?"}
        for n in range(count)
    ]
    return [BuildStep(_package_file(directory, "package.json", cf_package(rng, items)))]


def _framework_id_collision(_scale: float, rng: random.Random, directory: Path) -> list[Step]:
    steps: list[Step] = []
    prefix = f"{rng.getrandbits(32):08x}"
    for n, title in enumerate(("数学", "算数")):  # no Latin slug in either title
        package = cf_package(rng, [{"fullStatement": f"整数 {n}", "humanCodingScheme": f"J.{n}"}], title=title)
        package["CFDocument"]["identifier"] = prefix + _identifier(rng)[8:]  # the first 8 hex characters shared
        steps.append(BuildStep(_package_file(directory, f"package-{n}.json", package)))
    return steps


def _gzip_body(trailer: Callable[[bytes], bytes]) -> Callable[[float, random.Random, Path], list[Step]]:
    """A package whose first gzip member inflates past 256 KiB, followed by what ``trailer`` adds."""

    def make(scale: float, rng: random.Random, _directory: Path) -> list[Step]:
        count = max(3_000, int(10_000 * scale))  # about 100 bytes each: past 256 KiB inflated
        items = [{"fullStatement": f"Count to {n} in steps.", "humanCodingScheme": f"G.{n}"} for n in range(count)]
        package = json.dumps(cf_package(rng, items))
        first = gzip.compress(package.encode("utf-8"), mtime=0)
        body = first + trailer(first)
        return [FetchStep(body, (("Content-Encoding", "gzip"),), 20.0, 2 * len(package.encode("utf-8")))]

    return make


def _over_deadline(scale: float, rng: random.Random, _directory: Path) -> list[Step]:
    count = max(20_000, int(200_000 * scale))  # about 90 MB: under the 128 MiB body cap, over the deadline
    items = [{"fullStatement": f"Statement {n}.", "humanCodingScheme": f"D.{n}"} for n in range(count)]
    package = json.dumps(cf_package(rng, items)).encode("utf-8")
    return [FetchStep(gzip.compress(package, mtime=0), (("Content-Encoding", "gzip"),), 1.0, len(package))]


SOURCE_SCENARIOS: tuple[SourceScenario, ...] = (
    SourceScenario(
        "huge-code",
        "one humanCodingScheme of 120 MB",
        "refused",
        _one_item(humanCodingScheme=lambda s: "C" * int(120e6 * s) + "1"),
    ),
    SourceScenario(
        "huge-statement",
        "one fullStatement of 30 MB",
        "either",
        _one_item(fullStatement=lambda s: "Add. " * int(6e6 * s)),
    ),
    SourceScenario(
        "long-cjk-statement",
        "one fullStatement of 18 MB of CJK text",
        "either",
        _one_item(fullStatement=lambda s: "整数の加法と減法。" * int(18e6 / 27 * s)),
    ),
    SourceScenario(
        "control-characters",
        "NUL, ANSI and OSC 8 escapes, U+202E, BEL and a C1 control in a statement, a code and notes",
        "built",
        _one_item(
            fullStatement="Add" + "".join(HOSTILE_CHARACTERS) + " fractions.",
            humanCodingScheme="M.\u202e9.1",
            notes="\x1b[2J\x1b[Hcleared",
        ),
    ),
    SourceScenario("repeated-member", "a CFItem with the member fullStatement twice", "refused", _repeated_member),
    SourceScenario(
        "many-similar-types", "48,000 CFItemTypes whose names share 24,000 slugs", "either", _many_similar_types
    ),
    SourceScenario(
        "framework-id-collision",
        "two CFDocuments whose titles give no Latin slug and whose identifiers share 8 hex characters, one root",
        "refused",
        _framework_id_collision,
    ),
    SourceScenario(
        "gzip-second-member",
        "a gzip body of two members, the first inflating past 256 KiB",
        "either",
        _gzip_body(lambda first: first),
    ),
    SourceScenario(
        "gzip-trailing-bytes",
        "a gzip body with 64 bytes after its only member",
        "either",
        _gzip_body(lambda _: b"\x00" * 64),
    ),
    SourceScenario(
        "over-the-deadline", "a package too large to fetch and build within a 1 s deadline", "either", _over_deadline
    ),
)
