"""The two views of a tool result a host may hand its model, and what each must carry on its own.

A host passes its model EITHER the text blocks of a result OR its ``structuredContent``, never both.
So each view alone must carry every statement the result returns (verbatim, with an id a follow-up
tool accepts, its type and grades), the licence and attribution of every package it cites, and how to
continue a paged answer. The checks here read no text format: statement records are found by walking
the structured content (any object with a ``description`` and a ``nodeId`` or ``statementCode``), and
licences, attributions and statement texts are read from the packages on disk, never from the answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: How far (characters) from a statement's text its id may stand in the text view and still be "with" it.
ID_WINDOW = 300


@dataclass(frozen=True)
class Views:
    """One result as a host sees it: the text blocks joined, and the structured content (``None`` when absent)."""

    blocks: tuple[str, ...]
    structured: dict[str, Any] | None

    @property
    def text(self) -> str:
        return "\n".join(self.blocks)


def views_of(result: dict[str, Any]) -> Views:
    """The two views of a JSON-RPC tool result (``content`` blocks, ``structuredContent``)."""
    blocks = tuple(block["text"] for block in result.get("content") or [] if block.get("type") == "text")
    structured = result.get("structuredContent")
    return Views(blocks, structured if isinstance(structured, dict) else None)


@dataclass(frozen=True)
class Record:
    """A statement the structured content returns (a standard, a heading, an ancestor, a component ...)."""

    where: str
    description: str
    ids: tuple[str, ...]
    statement_type: str | None
    grades: tuple[str, ...]

    @property
    def name(self) -> str:
        shown = self.description if len(self.description) <= 70 else self.description[:69] + "…"
        return f"{self.where} {'/'.join(self.ids)} {shown!r}"


def _embedded(text: str) -> Any:
    """A JSON document held in a string (a resource window), or ``None``."""
    if not text.startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _walk(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every JSON value with its path; documents embedded in strings are walked too (``path<json>``)."""
    yield where, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, f"{where}[]")
    elif isinstance(value, str):
        inner = _embedded(value)
        if inner is not None:
            yield from _walk(inner, f"{where}<json>")


def statement_records(structured: Any) -> list[Record]:
    """Every statement record anywhere in ``structured`` (including JSON documents held in strings)."""
    records = []
    for where, value in _walk(structured, ""):
        if not isinstance(value, dict) or not isinstance(value.get("description"), str):
            continue
        ids = tuple(str(value[key]) for key in ("statementCode", "nodeId") if isinstance(value.get(key), str))
        if not ids:
            continue
        grades = value.get("gradeLevels")
        labels = tuple(
            g if isinstance(g, str) else str(g.get("sourceLabel", ""))
            for g in (grades if isinstance(grades, list) else [])
        )
        kind = value.get("statementType")
        records.append(Record(where or ".", value["description"], ids, kind if isinstance(kind, str) else None, labels))
    return records


def strings(value: Any) -> list[str]:
    """Every string value inside a JSON document (keys excluded)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def package_ids(structured: Any) -> list[str]:
    """Every graph package the answer names (``graphPackageId`` anywhere, embedded documents included), in order."""
    found: list[str] = []
    for _, value in _walk(structured, ""):
        named = value.get("graphPackageId") if isinstance(value, dict) else None
        if isinstance(named, str) and named not in found:
            found.append(named)
    return found


def cursor_of(structured: Any) -> tuple[bool, dict[str, Any] | None]:
    """(found, page): the top-level ``page`` object of a paged answer."""
    page = structured.get("page") if isinstance(structured, dict) else None
    return (isinstance(page, dict), page if isinstance(page, dict) else None)


# -- what the packages on disk say ---------------------------------------------------------------


#: The shortest statement text whose presence in a view counts as showing it.
MIN_SHOWN_STATEMENT = 12


@dataclass(frozen=True)
class PackageFacts:
    """What a package's manifest and nodes artifact say, read from disk."""

    graph_package_id: str
    license: str
    attribution: str
    statements: frozenset[str]


#: The licence a citation names for a package whose ``licenseUri`` is one of these Creative Commons
#: licences (the default catalog's); any other package is named by its ``sourceLicense`` verbatim. Written
#: out here, not derived, so the answers are checked against an independent reading.
CC_LICENCE_NAMES = {
    "https://creativecommons.org/licenses/by/4.0/": "CC BY 4.0",
    "http://creativecommons.org/licenses/by/3.0/us/": "CC BY 3.0 US",
}


def package_facts(root: Path) -> dict[str, PackageFacts]:
    """Licence name, attribution and every statement text of each package under ``root``."""
    facts = {}
    for manifest_path in sorted(root.glob("*/*/package_manifest.json")):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        (nodes,) = [a for a in manifest["artifacts"] if a["logicalName"] == "nodes"]
        texts = set()
        with (manifest_path.parent / nodes["path"]).open(encoding="utf-8") as lines:
            for line in lines:
                described = json.loads(line).get("properties", {}).get("description")
                if isinstance(described, str) and described:
                    texts.add(described)
        rights = manifest["rights"]
        facts[manifest["graphPackageId"]] = PackageFacts(
            manifest["graphPackageId"],
            CC_LICENCE_NAMES.get(rights.get("licenseUri") or "", rights["sourceLicense"]),
            rights["attributionStatement"],
            frozenset(texts),
        )
    return facts


def node_ids(root: Path, framework_id: str) -> dict[str, dict[str, Any]]:
    """Nodes of a framework's current package on disk: by statement code and by identifier."""
    (manifest_path,) = sorted(root.glob(f"{framework_id}/*/package_manifest.json"))
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    (nodes,) = [a for a in manifest["artifacts"] if a["logicalName"] == "nodes"]
    found: dict[str, dict[str, Any]] = {}
    with (manifest_path.parent / nodes["path"]).open(encoding="utf-8") as lines:
        for line in lines:
            node = json.loads(line)
            code = node.get("properties", {}).get("statementCode")
            if isinstance(code, str):
                found.setdefault(code, node)
    return found


# -- the checks ------------------------------------------------------------------------------------


def _near(text: str, needle: str, ids: tuple[str, ...]) -> bool:
    """Some occurrence of ``needle`` in ``text`` has one of ``ids`` within :data:`ID_WINDOW` characters."""
    start = text.find(needle)
    while start != -1:
        window = text[max(0, start - ID_WINDOW) : start + len(needle) + ID_WINDOW]
        if any(identifier in window for identifier in ids):
            return True
        start = text.find(needle, start + 1)
    return False


def text_view_problems(
    blocks: tuple[str, ...], expected: dict[str, Any], facts: dict[str, PackageFacts], *, cites: bool, paged: bool
) -> list[str]:
    """What the text view (its text ``blocks``) lacks of the result ``expected`` (the structured content of the
    same call). A statement's id counts as "with" it when it stands near the text, or when a JSON document
    in the text holds both in one object."""
    text = "\n".join(blocks)
    in_json = {
        (record.description, identifier)
        for block in blocks
        for record in statement_records(_embedded(block))
        for identifier in record.ids
    }
    # A text block that is a JSON document holds a statement with its backslashes escaped (ACARA's LaTeX, "\\(");
    # the model reads the decoded text.
    decoded = {description for description, _ in in_json}
    problems = []
    for record in statement_records(expected):
        if record.description not in text and record.description not in decoded:
            problems.append(f"text view lacks the statement text of {record.name}")
        elif not _near(text, record.description, record.ids) and not any(
            (record.description, identifier) in in_json for identifier in record.ids
        ):
            problems.append(f"text view has the statement {record.name} but none of its ids near it")
        if record.statement_type and record.statement_type not in text:
            problems.append(f"text view lacks the statement type {record.statement_type!r} of {record.name}")
        problems.extend(
            f"text view lacks the grade {grade!r} of {record.name}" for grade in record.grades if grade not in text
        )
    if cites:
        problems.extend(rights_problems("text", text, package_ids(expected), facts))
    if paged:
        _, page = cursor_of(expected)
        cursor = page.get("nextCursor") if page is not None and page.get("hasMore") else None
        if isinstance(cursor, str) and cursor not in text:
            problems.append("text view does not say how to continue (the next cursor is not in it)")
    return problems


def rights_problems(view: str, held: str, packages: Iterable[str], facts: dict[str, PackageFacts]) -> list[str]:
    """The licence names and attribution statements of ``packages`` that the ``view`` (whose text is ``held``)
    does not hold verbatim."""
    problems = []
    for package in packages:
        fact = facts[package]
        for what, value in (("licence", fact.license), ("attribution", fact.attribution)):
            if value not in held:
                problems.append(f"{view} view lacks the {what} of {package}: {value[:60]!r}…")
    return problems


def structured_view_problems(
    structured: dict[str, Any] | None, text: str, facts: dict[str, PackageFacts], *, cites: bool, paged: bool
) -> list[str]:
    """What the structured view lacks: statements the text shows, licences, attributions, the page state."""
    if structured is None:
        return ["no structured content"]
    problems = []
    every = "\x00".join(strings(structured))
    named = package_ids(structured)
    # A statement is shown when its text is in the view; one of a few characters (MEXT's lists hold single kanji
    # and terms such as "lim") is in any text, shown or not, so it says nothing.
    shown = {
        statement
        for package in named
        for statement in facts[package].statements
        if len(statement) >= MIN_SHOWN_STATEMENT and statement in text
    }
    problems.extend(
        f"structured view lacks a statement the text view shows: {s[:70]!r}" for s in sorted(shown) if s not in every
    )
    if cites:
        problems.extend(rights_problems("structured", every, named, facts))
    if paged:
        found, page = cursor_of(structured)
        if not found or page is None:
            problems.append("paged answer without a page object")
        elif "nextCursor" not in page:
            problems.append(f"page has no nextCursor key (hasMore {page.get('hasMore')!r}): {page}")
        elif page.get("hasMore") is True and not isinstance(page["nextCursor"], str):
            problems.append(f"page says hasMore but gives no nextCursor: {page}")
        elif page.get("hasMore") is False and page["nextCursor"] is not None:
            problems.append(f"last page gives a nextCursor: {page}")
        elif page.get("hasMore") not in (True, False):
            problems.append(f"page has no hasMore: {page}")
    return problems


def cites_evidence(tool: str, structured: dict[str, Any]) -> bool:
    """Whether the answer hands the model evidence to cite: statements, a resource window, instructions, a framework."""
    return bool(statement_records(structured)) or tool in {
        "read_evidence",
        "get_workflow_instructions",
        "get_framework",
    }


def report(label: str, problems: list[str]) -> str:
    """One readable failure message: the call, then one line per problem."""
    return f"{label}: {len(problems)} problem(s)\n  " + "\n  ".join(problems)


# -- leanness ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overhead:
    """A view's bytes beyond the statement texts and the attribution texts it carries
    (``statement_bytes``: those held verbatim; ``statement_bytes_total``: those the answer returns)."""

    view_bytes: int
    statement_bytes: int
    rights_bytes: int
    statements: int
    statement_bytes_total: int

    @property
    def overhead(self) -> int:
        return self.view_bytes - self.statement_bytes - self.rights_bytes


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def overhead(view: str, structured: dict[str, Any], facts: dict[str, PackageFacts]) -> Overhead:
    """``view`` (a text view, or the structured content as compact JSON) measured against the answer
    ``structured``: each statement text and attribution is taken off once (the licence name counts as
    overhead: the bound allows the attributions only), and only when the
    view holds it verbatim (a view that leaves one out gains nothing by it)."""
    records = statement_records(structured)
    statement_bytes = sum(len(r.description.encode("utf-8")) for r in records if r.description in view)
    rights = [text for package in package_ids(structured) for text in (facts[package].attribution,) if text in view]
    return Overhead(
        len(view.encode("utf-8")),
        statement_bytes,
        sum(len(t.encode("utf-8")) for t in rights),
        len(records),
        sum(len(r.description.encode("utf-8")) for r in records),
    )
