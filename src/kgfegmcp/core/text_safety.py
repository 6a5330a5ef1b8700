"""Text from a source or a package, made safe to print in a terminal and to render in a host.

A curriculum's text reaches people two ways: tool answers a host renders (the curriculum map draws
codes and statements) and the operator's terminal (``packages build``, ``list``, ``validate``,
``doctor``). A control character can rewrite a terminal (ESC starts ANSI and OSC sequences, OSC 8
makes a hidden hyperlink, NUL and the C1 controls confuse both), and a bidirectional override or
embedding makes a code or a label read as another. So this module holds the one definition of such
characters, and the two ways text is made safe:

- :func:`safe_text`, at build: every text a source gives a package passes it, so no package built
  here holds one (``graph_builder`` counts what it replaced as one ``unsafe_text`` finding per member);
- :func:`shown`, for a terminal: every cell and message the command line prints from package or
  source data shows each such character as an escape (``\\x1b``), never raw.

The validator refuses a package not built here that holds one (``packages/checks/text_safety.py``).

The implicit directional marks LRM, RLM and ALM (U+200E, U+200F, U+061C) are kept in package text:
Arabic, Hebrew and Persian text uses them to place digits, punctuation and Latin words where the
reader expects them, and unlike an override, an embedding or an isolate a mark cannot carry a run of
text out of its order, only settle the neutral characters beside it. A terminal still shows them
escaped, since an operator reading codes there is better served seeing them than having them act.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

#: What no package text may hold: the C0 controls except TAB, LF and CR; DEL; the C1 controls; the
#: bidirectional embeddings and overrides (U+202A to U+202E) and isolates (U+2066 to U+2069).
UNSAFE_TEXT: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: The implicit directional marks LRM, RLM and ALM: kept in package text (see above), but in a statement code or
#: a grade label, short strings a host shows as labels, a mark is invisible yet makes the label read as another
#: string (and can move the neutral characters beside it), so validation warns of one there.
DIRECTIONAL_MARKS: Final = re.compile("[\u061c\u200e\u200f]")
#: What a terminal line never shows raw: :data:`UNSAFE_TEXT`, TAB, LF and CR (a line stays one line), the
#: line and paragraph separators, and the implicit directional marks.
UNPRINTABLE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
#: What an unsafe character becomes at build: a space for the controls Python reads as whitespace (so a
#: text and its whitespace-collapsed copy stay each other's copy), else U+FFFD, the replacement character.
REPLACEMENT: Final = "\ufffd"


def has_unsafe(text: str) -> bool:
    """Whether ``text`` holds a character no package text may hold."""
    return UNSAFE_TEXT.search(text) is not None


def unsafe_code_points(text: str, pattern: re.Pattern[str] = UNSAFE_TEXT) -> set[str]:
    """The unsafe characters of ``text`` (as ``pattern`` has them), each as ``U+XXXX`` (the form a finding names
    them in)."""
    return {code_point(match.group()) for match in pattern.finditer(text)}


def code_point(character: str) -> str:
    """``U+001B`` for ESC: how a message names a character without holding it."""
    return f"U+{ord(character):04X}"


def code_points_text(points: Iterable[str]) -> str:
    """``U+0000, U+001B`` in code-point order."""
    return ", ".join(sorted(points))


def _replacement(match: re.Match[str]) -> str:
    return " " if match.group().isspace() else REPLACEMENT


def safe_text(text: str) -> str:
    """``text`` with each unsafe character replaced: by a space when Python reads it as whitespace
    (VT, FF, the file/group/record/unit separators, NEL), else by U+FFFD.

    A replacement, not a deletion: the position stays visible, and replacing commutes with collapsing
    whitespace (``" ".join(text.split())``), so a statement and the verbatim source text it was
    collapsed from are still each other's copy after both were made safe.
    """
    return UNSAFE_TEXT.sub(_replacement, text) if UNSAFE_TEXT.search(text) else text


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def shown(text: str) -> str:
    """``text`` for a terminal: each :data:`UNPRINTABLE` character as its escape (``\\x1b``, ``\\u202e``)."""
    return UNPRINTABLE.sub(_escape, text)


def shown_lines(text: str) -> str:
    """Lines of text for a terminal (a Markdown document): as :func:`shown`, the line breaks kept."""
    return "\n".join(shown(part) for part in text.split("\n"))


#: :data:`UNPRINTABLE` but TAB, LF and CR, which JSON text never holds raw inside a string.
_UNPRINTABLE_IN_JSON: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def shown_json(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it, ``ensure_ascii=False``) for a terminal: the same JSON value, with
    every :data:`UNPRINTABLE` character a string holds written as its ``\\uXXXX`` escape."""
    return _UNPRINTABLE_IN_JSON.sub(_json_escape, text)


def has_unprintable(text: str) -> bool:
    """Whether ``text`` holds a character :func:`shown` escapes."""
    return UNPRINTABLE.search(text) is not None


#: How many places a finding names where a member held unsafe characters (the count says how many in all).
EXAMPLES: Final = 3
#: Characters of a member name or an entity id a message repeats (escaped, then clipped).
SHOWN_CHARS: Final = 120


def shown_clipped(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` escaped for a message (:func:`shown`), cut to ``limit`` characters with an ellipsis."""
    escaped = shown(text)
    return escaped if len(escaped) <= limit else escaped[: limit - 1] + "…"


@dataclass(slots=True)
class UnsafeMember:
    """What one member (``StandardsFrameworkItem.statementCode``, ``entityProvenance.sourceText``) held:
    how many values had unsafe characters, which ones, and the first few entities that had them."""

    member: str
    values: int = 0
    code_points: set[str] = field(default_factory=set)
    examples: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """``2 values held U+001B, U+202E; first in <id>, <id>``: safe to print, bounded."""
        held = f"{self.values} value{'' if self.values == 1 else 's'} held {code_points_text(self.code_points)}"
        return f"{held}; first in {', '.join(self.examples)}" if self.examples else held


class UnsafeTextTally:
    """Unsafe characters counted per member, never per occurrence, so a finding per member kind says it all.

    ``pattern`` is what counts as unsafe: :data:`UNSAFE_TEXT` unless a check counts something else (the
    :data:`DIRECTIONAL_MARKS` of codes and grade labels).
    """

    def __init__(self, pattern: re.Pattern[str] = UNSAFE_TEXT) -> None:
        self._pattern = pattern
        self._members: dict[str, UnsafeMember] = {}

    def note(self, member: str, entity: str | None, text: str) -> bool:
        """Count ``text`` under ``member`` when it holds an unsafe character; whether it does."""
        if self._pattern.search(text) is None:
            return False
        found = self._members.get(member)
        if found is None:
            found = self._members[member] = UnsafeMember(shown_clipped(member))
        found.values += 1
        found.code_points |= unsafe_code_points(text, self._pattern)
        if entity is not None and len(found.examples) < EXAMPLES:
            found.examples.append(shown_clipped(entity))
        return True

    def safe(self, member: str, entity: str | None, text: str) -> str:
        """``text`` made safe (:func:`safe_text`), counted under ``member`` when that changed it."""
        return safe_text(text) if self.note(member, entity, text) else text

    def safe_json(self, member: str, entity: str | None, value: Any) -> Any:
        """A JSON value with every string (member names too) made safe, each counted under its path:
        ``member.key.key``, ``[]`` for an array's elements."""
        if isinstance(value, str):
            return self.safe(member, entity, value)
        if isinstance(value, list):
            return [self.safe_json(f"{member}[]", entity, element) for element in value]
        if isinstance(value, dict):
            safe: dict[str, Any] = {}
            for key in sorted(value):  # sorted: a name that becomes another's keeps a stable winner
                name = self.safe(f"{member} (a member name)", entity, key)
                safe[name] = self.safe_json(f"{member}.{name}", entity, value[key])
            return safe
        return value

    def members(self) -> list[UnsafeMember]:
        """Every member that held unsafe characters, by name."""
        return [self._members[name] for name in sorted(self._members)]

    def absorb(self, other: UnsafeTextTally) -> None:
        """Add what ``other`` counted to this tally."""
        for name, theirs in other._members.items():
            ours = self._members.setdefault(name, UnsafeMember(theirs.member))
            ours.values += theirs.values
            ours.code_points |= theirs.code_points
            ours.examples.extend(theirs.examples[: EXAMPLES - len(ours.examples)])


class UnsafeBytesScan:
    """Counts the unsafe characters in a JSON or JSONL file fed to it in chunks, raw or as JSON escapes.

    Raw in the bytes: DEL, the C1 controls, the bidirectional formatting characters (JSON lets them be
    written unescaped; the raw C0 controls it does not, so a parser refuses those first). As escapes:
    ``\\u0000`` to ``\\u001f`` but TAB, LF and CR, ``\\u007f`` to ``\\u009f``, ``\\u202a`` to ``\\u202e``,
    ``\\u2066`` to ``\\u2069``, ``\\b`` and ``\\f``, each only where the backslash starts an escape (it is
    preceded by an even run of backslashes). A character split across two chunks is counted once.
    """

    _ESCAPE: Final = re.compile(rb"\\(?:u00[01][0-9a-fA-F]|u00[89][0-9a-fA-F]|u007[fF]|u202[a-eA-E]|u206[6-9]|[bf])")
    _RAW_C2: Final = re.compile(rb"\xc2[\x80-\x9f]")
    _RAW_E2: Final = re.compile(rb"\xe2(?:\x80[\xaa-\xae]|\x81[\xa6-\xa9])")
    _ALLOWED: Final = frozenset({b"\\u0009", b"\\u000a", b"\\u000A", b"\\u000d", b"\\u000D"})
    #: The longest form counted (``\u202e``): this much of a chunk's end is scanned again with the next one.
    _TAIL: Final = 6

    def __init__(self) -> None:
        self.count = 0
        self._tail = b""
        #: Backslashes directly before the tail, whatever came before this chunk (only their parity matters).
        self._backslashes_before_tail = 0

    def feed(self, chunk: bytes) -> None:
        """Count what ``chunk`` holds (and what it completes of a character the previous chunk began)."""
        if not chunk:
            return
        window = self._tail + chunk
        fresh = len(self._tail)  # a match ending within the tail was counted with the previous chunk
        if b"\x7f" in chunk:
            self.count += chunk.count(b"\x7f")
        for pattern in (self._RAW_C2, self._RAW_E2):
            self.count += sum(1 for match in pattern.finditer(window) if match.end() > fresh)
        if b"\\" in window:
            for match in self._ESCAPE.finditer(window):
                if match.end() > fresh and match.group() not in self._ALLOWED and self._starts_escape(window, match):
                    self.count += 1
        cut = max(0, len(window) - self._TAIL)
        self._backslashes_before_tail = self._run_before(window, cut)
        self._tail = window[cut:]

    def _run_before(self, window: bytes, end: int) -> int:
        """How many backslashes directly precede ``window[end]`` (counting those before the window)."""
        start = end
        while start > 0 and window[start - 1] == 0x5C:
            start -= 1
        run = end - start
        return run + self._backslashes_before_tail if start == 0 else run

    def _starts_escape(self, window: bytes, match: re.Match[bytes]) -> bool:
        return self._run_before(window, match.start()) % 2 == 0
