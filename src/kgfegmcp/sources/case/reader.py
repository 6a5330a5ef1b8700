"""A CASE ``CFPackage`` read from a file in passes, one validated record at a time.

The document is streamed (ijson's C parser), never held whole: :class:`CasePackageReader` reads the
file once for its shape, the CFDocument and the licences, then once for the CFItems and once for the
CFAssociations, one record at a time, validated against the models of
:mod:`kgfegmcp.sources.case.document`. Nesting, the number of records and repeated top-level members
are bounded or refused while reading.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

import ijson
from pydantic import BaseModel, ValidationError

from kgfegmcp.errors import ManifestBuildError, echo, problem_list
from kgfegmcp.sources.case.document import (
    CaseAssociation,
    CaseDefinitions,
    CaseDocument,
    CaseItem,
    CaseRecord,
    json_type,
)
from kgfegmcp.sources.case.variants import EMPTY_ARRAY_AS_ABSENT, Variant, accept_variants

#: Nesting read at most: a CFPackage is a few levels deep (its free-form ``extensions`` a few more).
MAX_DEPTH = 512
#: CFItems and CFAssociations a package is built from at most: the scale this project is measured at
#: (docs/performance.md, "Growth to a million items"), and a bound on what a build may take in memory,
#: about 1.5 KiB per item (a 512 MiB body of minimal records would otherwise ask for several GiB).
MAX_CF_ITEMS = 1_000_000
MAX_CF_ASSOCIATIONS = 2_000_000
_READ_BYTES = 1 << 16
_M = TypeVar("_M", bound=BaseModel)
_R = TypeVar("_R", bound=CaseRecord)
#: What a standard pydantic error type means for a CASE member.
_EXPECTED: Mapping[str, str] = {
    "string_type": "a string",
    "int_type": "an integer",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
}


def _path(location: Sequence[int | str]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _problem(error: Mapping[str, Any]) -> str:
    where = _path(error["loc"])
    if error["type"] == "missing":
        return f"{where} is required"
    expected = _EXPECTED.get(error["type"])
    if expected is not None:
        return f"{where} must be {expected}, not {json_type(error.get('input'))}"
    return f"{where} {error['msg']}"


class _SurrogateEscapes:
    """Finds a ``\\u`` escape of a lone UTF-16 surrogate in JSON text fed to it chunk by chunk.

    Escapes are matched whole, left to right, so an escaped backslash is never taken for the start
    of an escape. An escape that may run past a chunk's end is carried into the next chunk.
    """

    _ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|[\s\S])")

    def __init__(self) -> None:
        self._carry = b""
        self._high_at_end = False  # the carried text follows a high surrogate escape

    def lone(self, chunk: bytes, final: bool) -> bool:
        """Whether the text fed so far (``final``: all of it) holds a lone surrogate escape."""
        text = self._carry + chunk
        cut = len(text)
        matches = list(self._ESCAPE.finditer(text))
        if not final and matches and matches[-1].start() >= len(text) - 6:
            cut = matches.pop().start()  # possibly cut short: read again with the next chunk
        elif not final and text.endswith(b"\\") and (not matches or matches[-1].end() < len(text)):
            cut = len(text) - 1  # a backslash beginning an escape the next chunk ends
        expect_low_at = 0 if self._high_at_end else -1
        for match in matches:
            code = int(match.group(1), 16) if match.group(1) else -1
            low = 0xDC00 <= code <= 0xDFFF
            if expect_low_at >= 0 and not (low and match.start() == expect_low_at):
                return True  # a high surrogate not followed by a low one
            if low and expect_low_at < 0:
                return True  # a low surrogate with no high one before it
            expect_low_at = match.end() if 0xD800 <= code <= 0xDBFF else -1
        if expect_low_at >= 0 and (final or expect_low_at < cut):
            return True
        self._high_at_end = expect_low_at == cut
        self._carry = text[cut:]
        return False


class _Source:
    """The file as ijson reads it: without a UTF-8 byte order mark, hashed and counted on the way.

    The first pass (``checked``) also refuses bytes that are not UTF-8 and escapes of lone surrogates
    (which the parser would silently turn into ``?``); later passes only confirm the bytes are the same.
    """

    def __init__(self, stream: IO[bytes], label: str, hint: str | None, checked: bool) -> None:
        stream.seek(0)
        self._stream = stream
        self._label = label
        self._hint = hint
        self.digest = hashlib.sha256()
        self.size = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")() if checked else None
        self._surrogates = _SurrogateEscapes() if checked else None
        head = self._take(3)
        self._pending = b"" if head == codecs.BOM_UTF8 else head

    def _take(self, size: int) -> bytes:
        chunk = self._stream.read(size)
        self.digest.update(chunk)
        self.size += len(chunk)
        return chunk

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        chunk = self._pending + self._take(_READ_BYTES if size < 0 else max(size - len(self._pending), 1))
        self._pending = b""
        final = not chunk
        if self._decoder is not None:
            try:
                self._decoder.decode(chunk, final)
            except UnicodeDecodeError as exc:
                raise ManifestBuildError(f"{self._label} is not UTF-8 text ({exc.reason}).", hint=self._hint) from None
        if self._surrogates is not None and self._surrogates.lone(chunk, final):
            raise ManifestBuildError(
                f"{self._label} holds a \\u escape of a lone surrogate, which is not text.", hint=self._hint
            )
        return chunk

    def finish(self) -> tuple[int, str]:
        """Read what the parser left (trailing whitespace) and return the size and SHA-256 of every byte."""
        while self.read(_READ_BYTES):
            pass
        return self.size, self.digest.hexdigest()


def _json_error(exc: Exception, label: str, hint: str | None) -> ManifestBuildError:
    """A parser error as one line (the parser's own message quotes the input; only its first line is kept)."""
    text = exc.args[0] if exc.args else ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    reason = str(text).strip().splitlines()[0].rstrip(".") if str(text).strip() else type(exc).__name__
    if "integer overflow" in reason or "floating point) overflow" in reason:
        return ManifestBuildError(
            f"{label} holds a JSON number too large to read (integers up to 64 bits, finite floats).", hint=hint
        )
    return ManifestBuildError(f"{label} is not valid JSON: {echo(reason, 200)}.", hint=hint)


#: The members of a CFPackage this reader knows; any other is named as not read.
_PACKAGE_MEMBERS = ("CFDocument", "CFItems", "CFAssociations", "CFDefinitions", "CFRubrics", "extensions")
#: What each known member of the package must be (``null`` or absent is always allowed).
_MEMBER_KINDS = {
    "CFItems": "array",
    "CFAssociations": "array",
    "CFDefinitions": "object",
    "CFRubrics": "array",
    "extensions": "object",
}
#: Top-level members of a pre-CASE OpenSALT document (``lsDoc``, ``lsItems``, ``lsAssociations``).
_PRE_CASE_MEMBERS = ("lsDoc", "lsItems", "lsAssociations")
#: The members of ``CFDefinitions`` read in the first pass, whole (they are small).
_DEFINITIONS_READ = ("CFLicenses", "CFItemTypes")
_OPENING = {"start_map": "object", "start_array": "array"}
_KINDS = {"string": "string", "number": "number", "boolean": "boolean", "null": "null", **_OPENING}


@dataclass
class _Layout:
    """What the first pass learns: the top-level shape, and the small members built whole."""

    root: str = "null"
    members: dict[tuple[str, ...], dict[str, list[str]]] = field(default_factory=lambda: {(): {}, ("CFPackage",): {}})
    counts: dict[tuple[str, ...], int] = field(default_factory=dict)
    built: dict[tuple[str, ...], Any] = field(default_factory=dict)
    limits: Mapping[str, int] = field(default_factory=dict)

    def count(self, array: tuple[str, ...]) -> None:
        """One more element in the array at ``array``; past its member's limit, reading stops."""
        found = self.counts[array] = self.counts.get(array, 0) + 1
        limit = self.limits.get(array[-1])
        if limit is not None and found > limit:
            raise _TooMany(array[-1], limit)


class _TooMany(Exception):
    def __init__(self, member: str, limit: int) -> None:
        super().__init__(member, limit)
        self.member = member
        self.limit = limit


def _scan(source: _Source, label: str, hint: str | None, limits: Mapping[str, int]) -> _Layout:
    """One pass over every parse event: the shape of the top level (and of a ``CFPackage`` wrapper), element
    counts of its arrays (within ``limits``), the ``CFDocument`` and the ``CFDefinitions`` members it reads
    (licences, item types), and the nesting bound."""
    layout = _Layout(limits=limits)
    stack: list[list[Any]] = []  # per open container: [is an object, current key]
    building: ijson.ObjectBuilder | None = None
    build_at: tuple[str, ...] = ()
    build_depth = 0
    try:
        for event, value in ijson.basic_parse(source, use_float=True):
            if event == "map_key":
                stack[-1][1] = value
                if building is not None:
                    building.event(event, value)
                continue
            if event in ("end_map", "end_array"):
                stack.pop()
                if building is not None:
                    building.event(event, value)
                    if len(stack) == build_depth:
                        layout.built[build_at] = building.value
                        building = None
                continue
            depth = len(stack)  # a value starts here
            opens = event in _OPENING
            if building is not None:
                building.event(event, value)
            elif depth <= 3:
                watched = _place(stack, depth, _KINDS[event], layout)
                if watched is not None:
                    if opens:
                        building, build_at, build_depth = ijson.ObjectBuilder(), watched, depth
                        building.event(event, value)
                    else:
                        layout.built[watched] = value
            if opens:
                if depth >= MAX_DEPTH:
                    raise ManifestBuildError(
                        f"{label} is JSON nested too deeply to decode; a CASE CFPackage is only a few levels deep "
                        f"(at most {MAX_DEPTH} are read).",
                        hint=hint,
                    )
                stack.append([event == "start_map", None])
    except ijson.JSONError as exc:
        raise _json_error(exc, label, hint) from None
    except _TooMany as exc:
        raise ManifestBuildError(
            f"{label} has more than {exc.limit:,} {exc.member}, the most a package is built from; reading stopped.",
            hint="Ask the publisher for the framework in smaller CFPackages (by subject or grade band).",
        ) from None
    return layout


def _place(stack: list[list[Any]], depth: int, kind: str, layout: _Layout) -> tuple[str, ...] | None:
    """Note a value starting ``depth`` levels down; the place to build it at, when it is one to build."""
    if depth == 0:
        layout.root = kind
        return None
    outer_is_object, outer_key = stack[0]
    if not outer_is_object:
        return None
    if depth == 1:
        layout.members[()].setdefault(outer_key, []).append(kind)
        return ("CFDocument",) if outer_key == "CFDocument" else None
    inner_is_object, inner_key = stack[1]
    if depth == 2:
        if not inner_is_object:
            layout.count((outer_key,))
            return None
        if outer_key == "CFPackage":
            layout.members[("CFPackage",)].setdefault(inner_key, []).append(kind)
            return ("CFPackage", "CFDocument") if inner_key == "CFDocument" else None
        return ("CFDefinitions", inner_key) if outer_key == "CFDefinitions" and inner_key in _DEFINITIONS_READ else None
    if outer_key != "CFPackage" or not inner_is_object:
        return None
    third_is_object, third_key = stack[2]
    if not third_is_object:
        layout.count(("CFPackage", inner_key))
        return None
    if inner_key == "CFDefinitions" and third_key in _DEFINITIONS_READ:
        return ("CFPackage", "CFDefinitions", third_key)
    return None


class CasePackageReader:
    """A CFPackage read from a file in passes, so it is never held whole.

    The first pass (on opening) checks the bytes are UTF-8 JSON nested at most :data:`MAX_DEPTH`
    deep, finds the ``CFDocument`` (also inside a ``{"CFPackage": …}`` wrapper) and reads it, the
    licences and the item type definitions; :meth:`items` and :meth:`associations` then read the file
    again each time they are called, handing over one validated record at a time. Every record first
    has its accepted variants rewritten (:mod:`kgfegmcp.sources.case.variants`). A record of a type
    CASE does not allow is a problem, counted and named (the first ten) by :meth:`refuse_wrong_types`,
    never coerced. Problems, variants and unknown members are counted on the first full pass over a
    collection only.
    """

    def __init__(
        self,
        stream: IO[bytes],
        label: str,
        hint: str | None = None,
        *,
        max_items: int = MAX_CF_ITEMS,
        max_associations: int = MAX_CF_ASSOCIATIONS,
    ) -> None:
        self.label = label
        self.hint = hint
        self._stream = stream
        first = _Source(stream, label, hint, checked=True)
        layout = _scan(first, label, hint, {"CFItems": max_items, "CFAssociations": max_associations})
        self.size, self.sha256 = first.finish()
        wrapped = layout.members[()].get("CFPackage") == ["object"]
        self._frame: tuple[str, ...] = ("CFPackage",) if wrapped else ()
        self._members = layout.members[self._frame]
        self._counts = {
            member: layout.counts.get((*self._frame, member), 0)
            for member in ("CFItems", "CFAssociations", "CFRubrics", "CFDefinitions")
        }
        self._problems: list[str] = []
        self._problem_count = 0
        self._unknown: Counter[str] = Counter()
        self._variants: Counter[Variant] = Counter()
        self._unread = {"CFItems", "CFAssociations"}  # collections a full pass has not read yet
        self._skipped: set[str] = set()  # collections of a type CASE does not allow: never read
        if layout.root != "object" or self._members.get("CFDocument") != ["object"]:
            raise _not_a_package(label, layout.root, self._members, hint)
        repeated = sorted(name for name, kinds in self._members.items() if len(kinds) > 1)
        if repeated:
            raise ManifestBuildError(
                f"{label} repeats the member(s) {', '.join(echo(name) for name in repeated[:8])}; which one counts "
                "is not decided here.",
                hint="Ask the publisher to correct the CFPackage.",
            )
        for member, kind in _MEMBER_KINDS.items():
            found_kind = self._members.get(member, ["null"])[0]
            if found_kind == "array" and member in EMPTY_ARRAY_AS_ABSENT and not self._counts[member]:
                self._variants[Variant(member, "an empty array where CASE has an object; read as absent")] += 1
            elif found_kind not in (kind, "null"):
                self._problem(f"{member} must be {'an' if kind[0] in 'ao' else 'a'} {kind}, not {found_kind}")
                self._skipped.add(member)
        self._unknown.update(f"CFPackage.{name}" for name in self._members if name not in _PACKAGE_MEMBERS)
        raw_document = layout.built.get((*self._frame, "CFDocument"))
        assert isinstance(raw_document, dict)
        version = raw_document.get("caseVersion")
        #: The package does not declare CASE 1.1: the links CASE 1.0 packages carry are expected.
        self.case_1_0 = not (isinstance(version, str) and version.strip().startswith("1.1"))
        self._variants.update(accept_variants("CFDocument", raw_document, self.case_1_0))
        self.document = self._validated(CaseDocument, raw_document, ("CFDocument",))
        if self.document is not None:
            self._unknown.update(f"CFDocument.{name}" for name in self.document.unknown_members())
        licences = layout.built.get((*self._frame, "CFDefinitions", "CFLicenses"))
        definitions = {} if licences is None else {"CFLicenses": licences}
        self.definitions = self._validated(CaseDefinitions, definitions, ("CFDefinitions",))
        self.item_types = _defined_item_types(layout.built.get((*self._frame, "CFDefinitions", "CFItemTypes")))
        self.rubrics = self._counts["CFRubrics"]
        if self._problems:
            self.refuse_wrong_types()
        assert self.document is not None
        if not (self.document.identifier or "").strip() or not (self.document.title or "").strip():
            raise ManifestBuildError(f"{label}: the CFDocument needs an identifier and a title.")

    def _problem(self, text: str) -> None:
        self._problem_count += 1
        if len(self._problems) < 10:
            self._problems.append(text)

    def _validated(
        self, model: type[_M], value: Any, where: tuple[str | int, ...], *, counted: bool = True
    ) -> _M | None:
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            if counted:
                for error in exc.errors(include_url=False):
                    self._problem(_problem({**error, "loc": (*where, *error["loc"])}))
            return None

    def items(self) -> Iterator[tuple[int, CaseItem | None]]:
        """Each CFItem in order, validated; ``None`` for one of a type CASE does not allow."""
        return self._records("CFItems", CaseItem)

    def associations(self) -> Iterator[tuple[int, CaseAssociation | None]]:
        """Each CFAssociation in order, validated; ``None`` for one of a type CASE does not allow."""
        return self._records("CFAssociations", CaseAssociation)

    def _records(self, member: str, model: type[_R]) -> Iterator[tuple[int, _R | None]]:
        if member in self._skipped or self._members.get(member, ["null"])[0] == "null":
            self._unread.discard(member)
            return  # absent or null (nothing to read), or of a type CASE does not allow (refused)
        counted = member in self._unread
        source = _Source(self._stream, self.label, self.hint, checked=False)
        prefix = ".".join((*self._frame, member, "item"))
        read = 0
        try:
            for index, value in enumerate(ijson.items(source, prefix, use_float=True)):
                read += 1
                if not isinstance(value, dict):
                    if counted:
                        self._problem(f"{member}[{index}] must be an object, not {json_type(value)}")
                    yield index, None
                    continue
                variants = accept_variants(member, value, self.case_1_0)
                record = self._validated(model, value, (member, index), counted=counted)
                if counted:
                    self._variants.update(variants)
                    if record is not None:
                        self._unknown.update(f"{member}.{name}" for name in record.unknown_members())
                yield index, record
        except ijson.JSONError as exc:
            raise _json_error(exc, self.label, self.hint) from None
        if source.finish() != (self.size, self.sha256):
            raise ManifestBuildError(f"{self.label} changed while it was being read.", hint="Run the command again.")
        if read != self._counts[member]:
            raise ManifestBuildError(
                f"{self.label} has member names that read as the path {prefix} ({read} records found there, "
                f"{self._counts[member]} in {member}); it is refused rather than guessed at.",
                hint="Ask the publisher to correct the CFPackage.",
            )
        self._unread.discard(member)

    def refuse_wrong_types(self) -> None:
        """``manifest_build_error`` naming the members of a type CASE does not allow, when there are any.

        Collections no full pass has read yet are read first, so one message counts every such member.
        """
        if not self._problems:
            return
        if "CFItems" in self._unread:
            for _ in self.items():
                pass
        if "CFAssociations" in self._unread:
            for _ in self.associations():
                pass
        raise ManifestBuildError(
            f"{self.label} has {self._problem_count} member(s) of a type CASE 1.0/1.1 does not allow: "
            f"{problem_list(self._problems, total=self._problem_count)}.",
            hint="Ask the publisher to correct the CFPackage; a value of another type is read only where its "
            "meaning is certain (a string of digits for an integer).",
        )

    def unknown_fields(self) -> dict[str, int]:
        """``collection.member`` → how many records carry it, for members neither CASE version defines."""
        return dict(sorted(self._unknown.items()))

    def variants(self) -> dict[Variant, int]:
        """Each accepted variant (:mod:`~kgfegmcp.sources.case.variants`) → how many records had it."""
        return dict(sorted(self._variants.items()))


def _not_a_package(label: str, root: str, members: Mapping[str, list[str]], hint: str | None) -> ManifestBuildError:
    """The one-line refusal of input that is no CFPackage, saying what it is instead."""
    if root == "object":
        pre_case = [name for name in _PRE_CASE_MEMBERS if name in members]
        if pre_case:
            return ManifestBuildError(
                f"{label} is a pre-CASE OpenSALT document ({', '.join(pre_case)}), not a CASE CFPackage.",
                hint="Export the framework again as a CASE 1.0 CFPackage (the provider's CASE export, or GET "
                "…/ims/case/v1p0/CFPackages/<id> from its server) and build that file.",
            )
        names = sorted(members)[:8]
        found = f"a JSON object with members {', '.join(echo(name) for name in names)}" if names else "a JSON object"
    else:
        found = f"a JSON {root}"
    return ManifestBuildError(
        f"{label} is not a CFPackage: it has no CFDocument object (found {found}).",
        hint=hint
        or "Build from one CASE CFPackage, as a provider's …/ims/case/v1p0/CFPackages/<id> answers it: a JSON "
        "object with a CFDocument, CFItems and CFAssociations.",
    )


def _defined_item_types(value: Any) -> dict[str, str]:
    """``CFDefinitions.CFItemTypes``: identifier → title, for the definitions that give both as text.

    Only names a type an item refers to by ``CFItemTypeURI`` alone; nothing else is read from them.
    """
    found: dict[str, str] = {}
    for entry in value if isinstance(value, list) else []:
        if isinstance(entry, dict):
            identifier, title = entry.get("identifier"), entry.get("title")
            if isinstance(identifier, str) and isinstance(title, str) and title.strip():
                found.setdefault(identifier, title)
    return found
