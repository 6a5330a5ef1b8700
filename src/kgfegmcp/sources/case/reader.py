"""A CASE ``CFPackage`` read from a file in passes, one validated record at a time.

The document is streamed (ijson's C parser), never held whole: :class:`CasePackageReader` reads the
file once for its shape, the CFDocument and the licences, then once for the CFItems and once for the
CFAssociations, one record at a time, validated against the models of
:mod:`kgfegmcp.sources.case.document`. Nesting, the number of records, repeated members (of the package
and of every record), the length of every string and what each record holds are bounded or refused while
reading (:class:`ReadLimits`), so that what a build takes in memory and time stays in proportion to its
input, and a package is built only from records a servable package can hold.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

import ijson
from pydantic import BaseModel, ValidationError

from kgfegmcp.core.errors import ManifestBuildError, echo, problem_list
from kgfegmcp.core.limits import CODE_QUERY_CHARS
from kgfegmcp.core.package_files import MAX_LINE_BYTES
from kgfegmcp.sources.case.document import (
    CaseAssociation,
    CaseDefinitions,
    CaseDocument,
    CaseItem,
    CaseRecord,
    json_type,
)
from kgfegmcp.sources.case.variants import (
    EMPTY_ARRAY_AS_ABSENT,
    LINK_IDENTIFIERS,
    RENAMED,
    Variant,
    accept_variants,
)

#: Nesting read at most: a CFPackage is a few levels deep (its free-form ``extensions`` a few more).
MAX_DEPTH = 512
#: CFItems and CFAssociations a package is built from at most: the scale this project is measured at
#: (docs/performance.md, "Growth to a million items"), and a bound on what a build may take in memory,
#: about 1.5 KiB per item (a 512 MiB body of minimal records would otherwise ask for several GiB).
MAX_CF_ITEMS = 1_000_000
MAX_CF_ASSOCIATIONS = 2_000_000
#: Characters one string of a record's members may hold, and all of a record's members together. A package
#: stores records as JSON lines of at most MAX_LINE_BYTES (1 MiB), a character takes at most 6 bytes there
#: (an escaped control character) and one line repeats a value at most three times (an unresolved entry
#: names an association's type in its own member, its reason and its locator): 3 * 6 * 49,152 bytes leave
#: room for the rest of the line.
MAX_MEMBER_CHARS = 32_768
MAX_RECORD_CHARS = 49_152
assert 3 * 6 * MAX_RECORD_CHARS + 128 * 1024 <= MAX_LINE_BYTES
#: ``humanCodingScheme``: a statement code is found by a code search, of at most this many characters.
MAX_CODE_CHARS = CODE_QUERY_CHARS.max
#: Bytes one JSON string may take as written, escapes included, before the parser is given it: at most 12
#: bytes stand for one character (an escaped surrogate pair), so a longer string is over every member
#: bound. It bounds the parser's memory, and its time: the parser reads a string cut across its reads again
#: from its start at every read, so its work grows with the square of the longest string it is given.
MAX_STRING_BYTES = 12 * MAX_MEMBER_CHARS
#: Values and member names one record (or the CFDocument, or a CFDefinitions member) may hold: records are
#: built whole, one at a time, so this bounds what one takes in memory beyond its text.
MAX_RECORD_VALUES = 100_000
#: Members the package object (and a ``CFPackage`` wrapper, and ``CFDefinitions``) may have.
MAX_PACKAGE_MEMBERS = 10_000
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


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """The bounds a CFPackage is read within (tests scale them down; the defaults are the product's)."""

    max_string_bytes: int = MAX_STRING_BYTES
    max_member_chars: int = MAX_MEMBER_CHARS
    max_code_chars: int = MAX_CODE_CHARS
    max_record_chars: int = MAX_RECORD_CHARS
    max_record_values: int = MAX_RECORD_VALUES
    max_package_members: int = MAX_PACKAGE_MEMBERS


#: The members of each collection's records that the package copies (their text is bounded); a record's
#: ``extensions`` and members neither CASE version defines are not read, so only the reading bounds hold them.
_COPIED: Mapping[str, frozenset[str]] = {
    collection: frozenset(
        {info.alias or name for name, info in model.model_fields.items()} - {"extensions"}
        | set(RENAMED.get(collection, {}))
        | set(LINK_IDENTIFIERS.get(collection, {}))
    )
    for collection, model in (("CFDocument", CaseDocument), ("CFItems", CaseItem), ("CFAssociations", CaseAssociation))
}
#: The member holding a statement code, bounded as a code is.
_CODE_MEMBER = ("CFItems", "humanCodingScheme")


class _LongString(Exception):
    """A JSON string longer than :attr:`ReadLimits.max_string_bytes`: raised instead of handing it to the parser."""


class _StringBound:
    """Finds, in JSON text fed to it chunk by chunk, a string longer than ``limit`` bytes as written.

    Each chunk is examined at C speed, never byte by byte in Python: every escape (a backslash and the byte
    after it) is replaced by two plain bytes, so the quotes left delimit strings, and the chunk is split at
    them. An escape cut by a chunk's end is finished in the next chunk.
    """

    _ESCAPES = re.compile(rb"\\[\s\S]")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.inside = False  # the text so far ends inside a string …
        self.run = 0  # … of this many bytes so far …
        self.escaped = False  # … whose last byte begins an escape

    def cut(self, chunk: bytes) -> int | None:
        """``None`` when ``chunk`` holds no string past the limit; else where to cut it: just after the opening
        quote of the first such string (0 when it began in an earlier chunk), so the parser reads every value
        before it and nothing of it beyond what it already has."""
        if not chunk:
            return None
        text = b"x" + chunk[1:] if self.escaped else chunk
        text = self._ESCAPES.sub(b"xx", text)
        parts = text.split(b'"')
        first = 0 if self.inside else 1  # parts[first::2] are inside strings
        lengths = list(map(len, parts[first::2]))
        if first == 0:
            lengths[0] += self.run
        if lengths and max(lengths) > self.limit:
            over = next(number for number, length in enumerate(lengths) if length > self.limit)
            index = first + 2 * over
            return sum(map(len, parts[:index])) + index  # the opening quote ends part index - 1
        ends_inside = (len(parts) - 1 - first) % 2 == 0
        self.inside = ends_inside
        self.run = lengths[-1] if ends_inside else 0
        self.escaped = ends_inside and text.endswith(b"\\")
        return None


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

    def __init__(
        self,
        stream: IO[bytes],
        label: str,
        hint: str | None,
        checked: bool,
        limits: ReadLimits,
        checkpoint: Callable[[], None] | None,
    ) -> None:
        stream.seek(0)
        self._stream = stream
        self._label = label
        self._hint = hint
        self.digest = hashlib.sha256()
        self.size = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")() if checked else None
        self._surrogates = _SurrogateEscapes() if checked else None
        self._strings = _StringBound(limits.max_string_bytes)
        self._overlong = False  # the parser was given the start of a string past the bound: stop at the next read
        self._checkpoint = checkpoint
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
        if self._overlong:
            raise _LongString
        if self._checkpoint is not None:
            self._checkpoint()  # the caller's deadline, at every read
        chunk = self._pending + self._take(_READ_BYTES if size < 0 else max(size - len(self._pending), 1))
        self._pending = b""
        cut = self._strings.cut(chunk)
        if cut == 0:
            raise _LongString
        if cut is not None:
            self._overlong = True
            chunk = chunk[:cut]
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
    max_members: int = MAX_PACKAGE_MEMBERS
    started: tuple[str, int] | None = None  # the record (collection, index) whose value starts now
    size: int = 0  # every byte of the file, read to its end …
    sha256: str = ""  # … and their SHA-256

    def count(self, array: tuple[str, ...]) -> None:
        """One more element in the array at ``array``; past its member's limit, reading stops."""
        found = self.counts[array] = self.counts.get(array, 0) + 1
        limit = self.limits.get(array[-1])
        if limit is not None and found > limit:
            raise _TooMany(array[-1], limit)
        self.started = (array[-1], found - 1)

    def member(self, place: tuple[str, ...], name: str, kind: str) -> None:
        """A member of the package object (or of its wrapper) with a value of ``kind``."""
        members = self.members[place]
        members.setdefault(name, []).append(kind)
        if len(members) > self.max_members:
            raise _TooMany("members", self.max_members)


class _TooMany(Exception):
    def __init__(self, member: str, limit: int) -> None:
        super().__init__(member, limit)
        self.member = member
        self.limit = limit


class _Refused(Exception):
    """A record that breaks a reading bound: the problem, said of the record (``CFItems[3] (identifier …)``)."""

    def __init__(self, where: str, problem: str, hint: str) -> None:
        super().__init__(where, problem)
        self.where = where
        self.problem = problem
        self.hint = hint


_CORRECT = "Ask the publisher to correct the CFPackage; a value is never cut short or chosen here."


@dataclass(slots=True)
class _Unit:
    """A value the first pass reads as one record (a CFItem, a CFAssociation, the CFDocument, a CFDefinitions
    member), and what its members hold so far."""

    where: str  # CFItems[3], CFDocument, CFDefinitions.CFLicenses
    depth: int  # the depth its value starts at
    limits: ReadLimits
    copied: frozenset[str]  # members whose text the package copies (bounded)
    code_member: str | None
    values: int = 0
    chars: int = 0
    identifier: str | None = None
    problem: str | None = None  # the first one found; said when the record ends, with its identifier
    member: str | None = None  # the member of the record being read …
    counted: bool = False  # … whether its text is copied …
    member_cap: int = 0  # … and how long one of its strings may be

    def named(self) -> str:
        shown = f" (identifier {echo(self.identifier, 120)!r})" if self.identifier is not None else ""
        return f"{self.where}{shown}"

    def enter(self, name: str) -> None:
        """The record's own member ``name`` starts."""
        self.member = name
        self.counted = name in self.copied
        self.member_cap = self.limits.max_code_chars if name == self.code_member else self.limits.max_member_chars

    def text(self, value: str, stack: list[list[Any]]) -> None:
        """A string inside the record, starting at the depth of ``stack``."""
        depth = len(stack)
        if depth == self.depth + 1 and self.member == "identifier" and self.identifier is None:
            self.identifier = value
        if not self.counted:
            return
        length = len(value)
        self.chars += length
        if length > self.member_cap and self.problem is None:
            what = (
                f"a statement code holds at most {self.member_cap:,} (the longest code a code search takes)"
                if self.member == self.code_member
                else f"one member holds at most {self.member_cap:,}"
            )
            self.problem = f"has a {'.'.join(_member_path(stack, self.depth))} of {length:,} characters; {what}"

    def close(self) -> None:
        """The record ended: its first problem, named with its identifier, or the text of all its members."""
        if self.problem is None and self.chars > self.limits.max_record_chars:
            self.problem = (
                f"holds {self.chars:,} characters of text in its members; a record holds at most "
                f"{self.limits.max_record_chars:,}, so that every line of the package stays within "
                f"{MAX_LINE_BYTES:,} bytes"
            )
        if self.problem is not None:
            raise _Refused(self.named(), self.problem, _CORRECT)


def _scan(source: _Source, label: str, hint: str | None, limits: Mapping[str, int], bounds: ReadLimits) -> _Layout:
    """One pass over every parse event: the shape of the top level (and of a ``CFPackage`` wrapper), element
    counts of its arrays (within ``limits``), the ``CFDocument`` and the ``CFDefinitions`` members it reads
    (licences, item types), and the nesting bound. Every record is held to ``bounds`` (its strings, its
    values, a member it repeats) and refused, named, at the first one it breaks."""
    layout = _Layout(limits=limits, max_members=bounds.max_package_members)
    stack: list[list[Any]] = []  # per open container: [is an object, current key, member names seen or None]
    building: ijson.ObjectBuilder | None = None
    build_at: tuple[str, ...] = ()
    build_depth = 0
    unit: _Unit | None = None
    max_values = bounds.max_record_values
    try:
        for event, value in ijson.basic_parse(source, use_float=True, buf_size=_READ_BYTES):
            if unit is not None:
                unit.values += 1
                if unit.values > max_values:
                    raise _Refused(unit.named(), f"holds more than {max_values:,} values and member names", _CORRECT)
            if event == "map_key":
                top = stack[-1]
                seen = top[2]
                if seen is not None:
                    if value in seen:
                        _repeated(unit, stack, value)
                    seen.add(value)
                top[1] = value
                if building is not None:
                    building.event(event, value)
                if unit is not None and len(stack) == unit.depth + 1:
                    unit.enter(value)
                continue
            if event in ("end_map", "end_array"):
                stack.pop()
                if building is not None:
                    building.event(event, value)
                    if len(stack) == build_depth:
                        layout.built[build_at] = building.value
                        building = None
                if unit is not None and len(stack) == unit.depth:
                    unit.close()
                    unit = None
                continue
            depth = len(stack)  # a value starts here
            opens = event in _OPENING
            if unit is not None:
                if event == "string":
                    unit.text(value, stack)
                if building is not None:
                    building.event(event, value)
            elif depth <= 3:
                watched = _place(stack, depth, _KINDS[event], layout)
                record, layout.started = layout.started, None
                if opens and (watched is not None or record is not None):
                    unit = _unit_at(watched, record, depth, bounds)
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
                tracked = event == "start_map" and (unit is not None or _definitions(stack, depth))
                stack.append([event == "start_map", None, set() if tracked else None])
        layout.size, layout.sha256 = source.finish()
    except ijson.JSONError as exc:
        raise _json_error(exc, label, hint) from None
    except _TooMany as exc:
        if exc.member == "members":
            raise ManifestBuildError(
                f"{label} has more than {exc.limit:,} members in one object of its top level; a CFPackage has a "
                "few (CFDocument, CFItems, CFAssociations, CFDefinitions …). Reading stopped.",
                hint=hint or "Build from one CASE CFPackage.",
            ) from None
        raise ManifestBuildError(
            f"{label} has more than {exc.limit:,} {exc.member}, the most a package is built from; reading stopped.",
            hint="Ask the publisher for the framework in smaller CFPackages (by subject or grade band).",
        ) from None
    except _Refused as exc:
        raise ManifestBuildError(f"{label}: {exc.where} {exc.problem}.", hint=exc.hint) from None
    except _LongString:
        where = unit.named() if unit is not None else "the package"
        path = _member_path(stack, unit.depth if unit is not None else 0)
        member = f" in {'.'.join(path)}" if path else ""
        code = unit is not None and unit.code_member is not None and path == [unit.code_member]
        most = (
            f"a statement code holds at most {bounds.max_code_chars:,} characters"
            if code
            else f"no member holds that much (at most {bounds.max_member_chars:,} characters)"
        )
        raise ManifestBuildError(
            f"{label}: {where} has a string{member} longer than {bounds.max_string_bytes:,} bytes as written; "
            f"{most}. Reading stopped.",
            hint=_CORRECT,
        ) from None
    return layout


def _member_path(stack: list[list[Any]], depth: int) -> list[str]:
    """The member names leading to the value being read, from the container at ``depth`` down."""
    return [str(entry[1]) for entry in stack[depth:] if entry[0] and entry[1] is not None]


def _repeated(unit: _Unit | None, stack: list[list[Any]], name: str) -> None:
    """A member an object names twice: noted on its record (said when the record ends, with its identifier),
    or refused at once in ``CFDefinitions``."""
    path = name if unit is None else ".".join([*_member_path(stack[:-1], unit.depth), name])
    problem = f"repeats the member {echo(path, 200)}; which of its values counts is not decided here"
    if unit is None:
        raise _Refused("CFDefinitions", problem, _CORRECT)
    if unit.problem is None:
        unit.problem = problem


def _definitions(stack: list[list[Any]], depth: int) -> bool:
    """Whether the object starting at ``depth`` is the ``CFDefinitions`` of the package (or of its wrapper)."""
    if depth == 1:
        return bool(stack[0][0]) and stack[0][1] == "CFDefinitions"
    return depth == 2 and stack[0][1] == "CFPackage" and bool(stack[1][0]) and stack[1][1] == "CFDefinitions"


def _unit_at(watched: tuple[str, ...] | None, record: tuple[str, int] | None, depth: int, bounds: ReadLimits) -> _Unit:
    """The unit a value starting at ``depth`` is: a record of a collection, or a member read whole."""
    if record is not None:
        collection, index = record
        code = _CODE_MEMBER[1] if collection == _CODE_MEMBER[0] else None
        return _Unit(f"{collection}[{index}]", depth, bounds, _COPIED.get(collection, frozenset()), code)
    assert watched is not None
    name = ".".join(part for part in watched if part != "CFPackage")
    return _Unit(name, depth, bounds, _COPIED.get(name, frozenset()), None)


def _place(stack: list[list[Any]], depth: int, kind: str, layout: _Layout) -> tuple[str, ...] | None:
    """Note a value starting ``depth`` levels down; the place to build it at, when it is one to build."""
    if depth == 0:
        layout.root = kind
        return None
    outer_is_object, outer_key = stack[0][0], stack[0][1]
    if not outer_is_object:
        return None
    if depth == 1:
        layout.member((), outer_key, kind)
        return ("CFDocument",) if outer_key == "CFDocument" else None
    inner_is_object, inner_key = stack[1][0], stack[1][1]
    if depth == 2:
        if not inner_is_object:
            layout.count((outer_key,))
            return None
        if outer_key == "CFPackage":
            layout.member(("CFPackage",), inner_key, kind)
            return ("CFPackage", "CFDocument") if inner_key == "CFDocument" else None
        return ("CFDefinitions", inner_key) if outer_key == "CFDefinitions" and inner_key in _DEFINITIONS_READ else None
    if outer_key != "CFPackage" or not inner_is_object:
        return None
    third_is_object, third_key = stack[2][0], stack[2][1]
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

    Every pass is held to ``limits`` (:class:`ReadLimits`), and calls ``checkpoint`` before each read
    (``packages fetch`` passes its deadline, which raises once it has passed), so a build ends within
    the caller's time whatever the file holds.
    """

    def __init__(
        self,
        stream: IO[bytes],
        label: str,
        hint: str | None = None,
        *,
        max_items: int = MAX_CF_ITEMS,
        max_associations: int = MAX_CF_ASSOCIATIONS,
        limits: ReadLimits | None = None,
        checkpoint: Callable[[], None] | None = None,
    ) -> None:
        self.label = label
        self.hint = hint
        self._stream = stream
        self._limits = limits or ReadLimits()
        self._checkpoint = checkpoint
        first = _Source(stream, label, hint, True, self._limits, checkpoint)
        counts = {"CFItems": max_items, "CFAssociations": max_associations}
        layout = _scan(first, label, hint, counts, self._limits)
        self.size, self.sha256 = layout.size, layout.sha256
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
        source = _Source(self._stream, self.label, self.hint, False, self._limits, self._checkpoint)
        prefix = ".".join((*self._frame, member, "item"))
        read = 0
        try:
            for index, value in enumerate(ijson.items(source, prefix, use_float=True, buf_size=_READ_BYTES)):
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
            finished = source.finish()
        except ijson.JSONError as exc:
            raise _json_error(exc, self.label, self.hint) from None
        except _LongString:  # the first pass read every string within the bound: these are other bytes
            raise _changed(self.label) from None
        if finished != (self.size, self.sha256):
            raise _changed(self.label)
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


def _changed(label: str) -> ManifestBuildError:
    return ManifestBuildError(f"{label} changed while it was being read.", hint="Run the command again.")


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
