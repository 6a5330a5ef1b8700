"""docs/errors.md lists every public error code, and a code it calls unreachable is raised nowhere; it lists every
warning and notice code with its meaning, and each is emitted somewhere."""

from __future__ import annotations

import ast
import re

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.errors import ERROR_CLASSES
from kgfegmcp.core.notice_codes import NoticeCode

DOC = REPOSITORY_ROOT / "docs" / "errors.md"
SOURCE = REPOSITORY_ROOT / "src" / "kgfegmcp"
ROW = re.compile(r"^\| `([a-z_]+)` \| (.+) \|$", re.MULTILINE)
NOTICES_HEADING = "## Warnings and notices beside evidence"


def _sections() -> tuple[str, str]:
    """The page before the notices section (the error table) and that section."""
    page = DOC.read_text(encoding="utf-8")
    errors, _, rest = page.partition(NOTICES_HEADING)
    notices = rest.split("\n## ", 1)[0]
    return errors, notices


def documented() -> dict[str, str]:
    return dict(ROW.findall(_sections()[0]))


def test_every_notice_code_is_documented_with_its_meaning() -> None:
    rows = ROW.findall(_sections()[1])
    assert len(rows) == len(dict(rows)), "a code is documented twice"
    assert dict(rows) == {code.value: code.description for code in NoticeCode}


def test_every_notice_code_is_emitted_somewhere() -> None:
    """Each member is named by an emitter (``NoticeCode.<NAME>``), so the table lists no code no answer carries."""
    named: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "NoticeCode":
                named.add(node.attr)
    assert sorted(code.name for code in NoticeCode if code.name not in named) == []


def constructed_classes() -> set[str]:
    """Names of every class called anywhere in the package (``SomeError(...)``)."""
    called: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(node.func.id)
    return called


def test_every_code_is_documented() -> None:
    assert set(documented()) == {*ERROR_CLASSES, "internal_error"}


def test_codes_called_unreachable_are_never_raised() -> None:
    unreachable = {code for code, where in documented().items() if where.startswith("**unreachable**")}
    assert unreachable == {"alignment_not_found"}
    called = constructed_classes()
    assert not [code for code in unreachable if ERROR_CLASSES[code].__name__ in called]


def test_reachable_codes_are_raised_somewhere() -> None:
    called = constructed_classes()
    reachable = {code for code, where in documented().items() if not where.startswith("**unreachable**")}
    assert [code for code in sorted(reachable - {"internal_error"}) if ERROR_CLASSES[code].__name__ not in called] == []
