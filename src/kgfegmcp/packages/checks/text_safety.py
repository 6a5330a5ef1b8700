"""No text a package serves holds a control or bidirectional formatting character (``kgfegmcp.core.text_safety``).

A package built here never does: the build replaces each one and reports it (``unsafe_text`` warnings).
A package not built here (a supplied package, one edited by hand) is refused when it does, since the
server serves its text as it stands: an ESC, a NUL or a right-to-left override would reach tool answers,
the curriculum map and the operator's terminal. The check reads the decoded delivery (every text field and
code of every node, every relationship's ids), the manifest, and the bytes of every other artifact the
server serves, where JSON holds such a character raw or as an escape.

The implicit directional marks (LRM, RLM, ALM) are allowed in text, where right-to-left scripts need them,
but a statement code or grade label holding one is reported (``directional_mark_in_code``, a warning): the
mark is invisible, so the code a host shows reads as another string. A warning, not a refusal: a code in a
right-to-left script may need its mark, and the curriculum map isolates every label it shows, so a mark can
move nothing outside the label it is in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.text_safety import DIRECTIONAL_MARKS, UNSAFE_TEXT, UnsafeBytesScan, UnsafeTextTally
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.checks.context import all_nodes
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.records import PROPERTIES_BY_LABEL, ItemNode, NodeRecord

#: Findings per source of text (the nodes, the relationships, the manifest), one per member; the members
#: beyond are counted in one more finding.
MAX_MEMBERS: Final = 20
#: Read and checked record by record (their members are named); every other served artifact is scanned as bytes.
_DECODED: Final = frozenset({"nodes", "relationships"})
_WHY: Final = (
    "control or bidirectional formatting characters, which no served text may hold (they would drive a "
    "terminal or reorder a label); `kgfegmcp packages build` replaces them in a source's text (a statement "
    "type or grade label holding one must be corrected in the source)"
)
_MARK_WHY: Final = (
    "an implicit directional mark is invisible, so where a host shows this code or grade label it reads as "
    "another string (and the characters beside the mark may move); remove it in the source unless the code's "
    "script needs it (a warning: the package is served)"
)


def _node_texts(node: NodeRecord) -> Iterator[tuple[str, str]]:
    """``(member, text)`` of every string a node serves: its id, each text property, each array element."""
    yield f"{node.label}.identifier", node.identifier
    for attribute, wire, kind, _required in PROPERTIES_BY_LABEL[node.label]:
        value = getattr(node, attribute)
        if kind == "str" and isinstance(value, str):
            yield f"{node.label}.{wire}", value
        elif kind == "array" and value:
            for element in value:
                yield f"{node.label}.{wire}", element


def _note_marks(marks: UnsafeTextTally, item: ItemNode) -> None:
    """Count a directional mark in the item's code or grade labels, naming the item and the value (escaped)."""
    code, grades = item.statement_code or "", item.grade_level
    if DIRECTIONAL_MARKS.search(code) is None and not any(DIRECTIONAL_MARKS.search(label) for label in grades):
        return  # the common case
    for member, text in ((f"{item.label}.statementCode", code), *((f"{item.label}.gradeLevel", g) for g in grades)):
        marks.note(member, f"{item.identifier} {text}", text)


def _strings(value: Any, member: str) -> Iterator[tuple[str, str]]:
    """``(path, string)`` of every string in a JSON value (member names too)."""
    if isinstance(value, str):
        yield member, value
    elif isinstance(value, list):
        for element in value:
            yield from _strings(element, f"{member}[]")
    elif isinstance(value, dict):
        for key, element in value.items():
            yield f"{member} (a member name)", key
            yield from _strings(element, f"{member}.{key}")


class TextSafetyCheck(PackageCheck):
    """Refuse a package whose served text holds a control or bidirectional formatting character; warn of a
    directional mark in a statement code or grade label."""

    codes = (FindingCode.UNSAFE_TEXT, FindingCode.DIRECTIONAL_MARK_IN_CODE)

    def run(self) -> None:
        nodes = UnsafeTextTally()
        marks = UnsafeTextTally(DIRECTIONAL_MARKS)
        for node in all_nodes(self.content):
            if isinstance(node, ItemNode):
                _note_marks(marks, node)
            texts = list(_node_texts(node))
            if UNSAFE_TEXT.search("\n".join(text for _member, text in texts)) is None:
                continue  # the common case: one search per node
            for member, text in texts:
                nodes.note(member, node.identifier, text)
        self._report(nodes, "nodes")
        for marked in marks.members():  # two members at most: statementCode and gradeLevel
            self.out.add(
                FindingCode.DIRECTIONAL_MARK_IN_CODE,
                f"{marked.summary()}: {_MARK_WHY}",
                artifact="nodes",
                location=marked.member,
                severity="warning",
            )
        relationships = UnsafeTextTally()
        for record in self.content.relationships:
            for field in ("identifier", "source_identifier", "target_identifier", "unresolved_status"):
                value = getattr(record, field)
                if isinstance(value, str):
                    relationships.note(f"{record.label}.{field}", record.identifier, value)
        self._report(relationships, "relationships")
        manifest = UnsafeTextTally()
        for member, text in _strings(self.manifest.model_dump(mode="json", by_alias=True), "manifest"):
            manifest.note(member, None, text)
        self._report(manifest, None)
        self._scan_artifacts()

    def _report(self, tally: UnsafeTextTally, artifact: str | None) -> None:
        members = tally.members()
        where = MANIFEST_FILENAME if artifact is None else artifact
        for member in members[:MAX_MEMBERS]:
            self.out.add(
                FindingCode.UNSAFE_TEXT,
                f"{member.summary()}: {_WHY}",
                artifact=artifact,
                location=member.member,
            )
        beyond = members[MAX_MEMBERS:]
        if beyond:
            values = sum(member.values for member in beyond)
            self.out.add(
                FindingCode.UNSAFE_TEXT,
                f"{len(beyond)} more members of {where} held such characters ({values} values): {_WHY}",
                artifact=artifact,
            )

    def _scan_artifacts(self) -> None:
        """Every other served artifact, as bytes: what its JSON holds raw or escaped, counted per artifact."""
        reader = self.context.reader
        for entry in self.manifest.all_artifacts():
            name = entry.logical_name
            if name in _DECODED or name not in ARTIFACT_ROLE or not reader.available(name):
                continue
            scan = UnsafeBytesScan()
            for chunk in reader.raw_chunks(name):
                scan.feed(chunk)
            if scan.count:
                self.out.add(
                    FindingCode.UNSAFE_TEXT,
                    f"{scan.count} character{'' if scan.count == 1 else 's'} in its JSON strings are {_WHY}",
                    artifact=name,
                    location=entry.path,
                )
