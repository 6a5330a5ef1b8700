"""`kgfegmcp packages build --source case` as a real process: input no servable package can hold is refused in
one coded line before anything is written, and one framework id never names two source documents."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ONE = "abcdef12-0000-4000-8000-000000000001"
OTHER = "abcdef12-0000-4000-8000-000000000002"  # the same first 8 characters as ONE


def package(identifier: str, title: str, version: str = "1.0", **item: Any) -> dict[str, Any]:
    """A CFPackage of one document and two statements (the second given ``item``'s members)."""
    statements = [
        {"identifier": f"{identifier[:-3]}101", "fullStatement": "数を数える。", "humanCodingScheme": "M.1"},
        {"identifier": f"{identifier[:-3]}102", "fullStatement": "形を比べる。", "humanCodingScheme": "M.2", **item},
    ]
    return {
        "CFDocument": {
            "identifier": identifier,
            "uri": f"https://case.test/uri/{identifier}",
            "title": title,
            "version": version,
            "lastChangeDateTime": "2025-01-15T08:00:00Z",
            "language": "ja",
        },
        "CFItems": [{**s, "CFItemType": "Standard"} for s in statements],
        "CFAssociations": [
            {
                "identifier": f"{identifier[:-3]}20{n}",
                "associationType": "isChildOf",
                "originNodeURI": {"identifier": s["identifier"]},
                "destinationNodeURI": {"identifier": identifier},
            }
            for n, s in enumerate(statements)
        ],
    }


@pytest.fixture
def profiles(tmp_path: Path, profiles_root: Path) -> Path:
    copy = tmp_path / "profiles"
    shutil.copytree(profiles_root, copy)
    return copy


def run_build(path: Path, root: Path, profiles: Path) -> subprocess.CompletedProcess[str]:
    command = ["packages", "build", "--source", "case", str(path), "--out", str(root), "--profiles-dir", str(profiles)]
    return subprocess.run(
        [sys.executable, "-m", "kgfegmcp.cli", *command], capture_output=True, text=True, check=False, timeout=300
    )


def build(path: Path, document: Any, root: Path, profiles: Path) -> subprocess.CompletedProcess[str]:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return run_build(path, root, profiles)


def refused(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("manifest_build_error: ") and run.stderr.count("\n") == 1, run.stderr
    assert "Traceback" not in run.stderr
    return run.stderr


def test_a_code_no_code_search_can_take_is_refused_and_nothing_written(tmp_path: Path, profiles: Path) -> None:
    root = tmp_path / "packages"
    run = build(tmp_path / "code.json", package(ONE, "Codes", humanCodingScheme="M." + "2" * 300), root, profiles)
    message = refused(run)
    assert f"CFItems[1] (identifier '{ONE[:-3]}102') has a humanCodingScheme of 302 characters" in message
    assert not root.exists()


def test_an_item_naming_a_member_twice_is_refused(tmp_path: Path, profiles: Path) -> None:
    """JSON keeps the last of two values of one member; which one the publisher meant is not decided here."""
    path = tmp_path / "twice.json"
    text = json.dumps(package(ONE, "Twice"), ensure_ascii=False)
    text = text.replace('"fullStatement": "形を比べる。"', '"fullStatement": "形を比べる。", "fullStatement": "Other"')
    root = tmp_path / "packages"
    path.write_text(text, encoding="utf-8")
    message = refused(run_build(path, root, profiles))
    assert f"CFItems[1] (identifier '{ONE[:-3]}102') repeats the member fullStatement" in message
    assert not root.exists()


def test_more_statement_types_than_a_profile_holds_are_refused_before_anything_is_written(
    tmp_path: Path, profiles: Path
) -> None:
    """Past about 10,000 types the derived profile is larger than a profile may be (1 MiB), so the package
    could never be validated: the build says so, and writes neither the profile nor the package."""
    document = package(ONE, "Many Types")
    marks = "!?.,;:*+"
    document["CFItems"] = [
        {
            "identifier": f"abcdef12-0000-4000-8000-{n:012d}",
            "fullStatement": f"Statement {n}.",
            "CFItemType": "Widget" + "".join(marks[(n // len(marks) ** k) % len(marks)] for k in range(5)),
        }
        for n in range(12_000)
    ]
    document["CFAssociations"] = []
    before = sorted(path.name for path in profiles.iterdir())
    root = tmp_path / "packages"
    message = refused(build(tmp_path / "types.json", document, root, profiles))
    assert "Cannot derive a profile for many-types: its 12,000 statement types and 0 grade labels need about" in message
    assert "a profile holds at most 1,048,576 bytes" in message and "nothing was written" in message
    assert sorted(path.name for path in profiles.iterdir()) == before and not root.exists()


# -- one framework id, one document -----------------------------------------------------------------


@pytest.mark.parametrize("version", ["2.0", "1.0"], ids=["another-snapshot", "the-same-snapshot"])
def test_a_framework_id_of_another_document_is_refused(version: str, tmp_path: Path, profiles: Path) -> None:
    """Titles with no Latin letter or digit give ``case-<first 8 characters of the identifier>``: two such
    documents whose identifiers begin alike had one framework id, two current snapshots (the catalog then
    answered ambiguous_framework for the genuine one) or, with the same snapshot id, the second replaced the
    first."""
    root = tmp_path / "packages"
    assert build(tmp_path / "one.json", package(ONE, "算数"), root, profiles).returncode == 0
    first = sorted(path.name for path in (root / "case-abcdef12").iterdir())
    message = refused(build(tmp_path / "other.json", package(OTHER, "理科", version), root, profiles))
    assert message.startswith(
        f"manifest_build_error: Cannot write case-abcdef12@v{version.replace('.', '-')}-20250115-080000: the "
        "framework id case-abcdef12 already belongs to case-abcdef12@v1-0-20250115-080000 in the graph-package "
        f"root, built from another source document, “算数” (identifier {ONE}, uri https://case.test/uri/{ONE}); "
        f"this package is built from “理科” (identifier {OTHER}, uri https://case.test/uri/{OTHER})."
    )
    assert "Next action: Build into another graph-package root (--out)" in message
    assert sorted(path.name for path in (root / "case-abcdef12").iterdir()) == first
    manifest = json.loads((root / "case-abcdef12" / first[0] / "package_manifest.json").read_text(encoding="utf-8"))
    assert manifest["title"] == "算数"


def test_a_new_version_of_the_same_document_is_another_snapshot(tmp_path: Path, profiles: Path) -> None:
    root = tmp_path / "packages"
    assert build(tmp_path / "one.json", package(ONE, "算数"), root, profiles).returncode == 0
    again = build(tmp_path / "two.json", package(ONE, "算数", "2.0"), root, profiles)
    assert again.returncode == 0, again.stderr
    assert sorted(path.name for path in (root / "case-abcdef12").iterdir()) == [
        "v1-0-20250115-080000",
        "v2-0-20250115-080000",
    ]
