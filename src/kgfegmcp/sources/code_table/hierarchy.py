"""Where each row of a code table sits: its parent, derived from the code's digits as the layout declares them.

"Zero the lowest non-zero digit" places only about 96 % of MEXT's rows, and some wrongly; the code says
more than that, and the table's order says the rest:

- **Levels nest in the layout's order, not left to right.** MEXT's digits nest 3 → 5 → 4 → 6 → 7 → 8 …
  (a 科目 (digit 4) sits under 第２款 各科目 (digit 5)). A row's ancestors are its code with every level
  after some level zeroed; the deepest one the table has is the parent.
- **The grade digit is an attribute as much as a level.** A heading may carry the grade of everything below
  it, a range containing it (小学校 ``L`` = 第３〜第６学年 over ``3``), or none; each is tried, narrowest
  first.
- **Printed headings place themselves.** The chapters (第N章) are the document's top divisions, although the
  all-zero code of 第１章 総則 reads as everyone's ancestor; a section (第N節) sits under the chapter before
  it. The layout names these headings and how each is placed. A row placed by its code never climbs out of
  its chapter.
- **Long lists count in decimal across several digits.** The 学年別漢字配当表 numbers its kanji 001, 002 …
  over three digits, so 011 (学) is not a child of 010 (貝). A run of rows whose trailing digits count up
  by one through a carry (…09 → …10) is one list of siblings.
- Where several candidates are equally deep, the nearest row before the child wins (the document's order).

Every placement says how it was found, so the package can say which rows were placed by the document's
order rather than by the code alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kgfegmcp.sources.code_table.layout import CodeTableLayout, Heading, Stage
from kgfegmcp.sources.code_table.table import CodeRow

#: How a row's parent was found.
PlacedBy = Literal["heading", "code", "code-following", "list", "chapter"]


@dataclass(frozen=True, slots=True)
class Placement:
    """A row's parent (an index into the rows; ``None`` for the framework root) and how it was found."""

    parent: int | None
    placed_by: PlacedBy


class CodeHierarchy:
    """The parent of every row of one table, in one pass over the rows in document order."""

    def __init__(self, layout: CodeTableLayout, stage: Stage, rows: Sequence[CodeRow]) -> None:
        self._layout = layout
        self._rows = rows
        self._levels = tuple(p - 1 for p in layout.code.levels)  # 0-based positions, outermost first
        self._grade = layout.code.grade_digit - 1
        self._zero = layout.code.zero
        self._revision = None if layout.code.revision_digit is None else layout.code.revision_digit - 1
        self._index = {row.code: i for i, row in enumerate(rows)}
        self._broader = _broader_grades(stage, self._zero)
        self._headings: list[tuple[int, Heading] | None] = [self._heading(row.text) for row in rows]

    def _heading(self, text: str) -> tuple[int, Heading] | None:
        for rank, (pattern, heading) in enumerate(self._layout.heading_patterns):
            if pattern.match(text):
                return rank, heading
        return None

    def heading(self, index: int) -> Heading | None:
        """The printed heading kind of a row, if its text is one."""
        found = self._headings[index]
        return None if found is None else found[1]

    def place(self) -> list[Placement]:
        """Every row's placement, in row order."""
        placements: list[Placement] = []
        division = 0  # index of the chapter (top heading) the rows being placed are in
        run_window: int | None = None  # the first level index of the counting window of the run in progress
        for i, row in enumerate(self._rows):
            heading = self._headings[i]
            window = self._counting_window(i, run_window, placements) if i else None
            run_window = window
            if heading is not None and heading[1].placement == "top":
                division = i
                placements.append(Placement(None, "heading"))
            elif heading is not None and heading[1].placement == "underPrecedingHeading":
                placements.append(self._under_heading(i, heading[0], division))
            elif window is not None:
                placements.append(Placement(placements[i - 1].parent, "list"))
            else:
                placements.append(self._by_code(i, row.code, division))
        return placements

    def _under_heading(self, i: int, rank: int, division: int) -> Placement:
        for j in range(i - 1, -1, -1):
            found = self._headings[j]
            if found is not None and found[0] < rank:
                return Placement(j, "heading")
        return self._by_code(i, self._rows[i].code, division)

    # -- by code -----------------------------------------------------------------------------------

    def _by_code(self, i: int, code: str, division: int) -> Placement:
        """The deepest existing ancestor code: before the row and in its chapter if any is, else after it."""
        for candidates in self._ancestors(code):
            found = [j for j in (self._index.get(c) for c in candidates) if j is not None and j != i]
            before = [j for j in found if division <= j < i]
            if before:
                return Placement(max(before), "code")
            after = [j for j in found if j > i]
            if after:
                return Placement(min(after), "code-following")
        return Placement(division if division != i else None, "chapter")

    def _ancestors(self, code: str) -> list[list[str]]:
        """Ancestor codes of ``code``, deepest first; each entry the equally deep variants, narrowest grade first."""
        digits = list(code)
        levels = self._levels
        deepest = max((k for k, p in enumerate(levels) if digits[p] != self._zero), default=-1)
        grade = digits[self._grade]
        grades = [grade, *self._broader.get(grade, ()), self._zero]
        grades = list(dict.fromkeys(grades))
        base = digits.copy()
        if self._revision is not None:
            base[self._revision] = self._zero
        shells: list[list[str]] = []
        if deepest >= 0 and levels[deepest] == self._grade:
            shells.append(self._variants(base, levels[: deepest + 1], grades[1:-1]))
        for cut in range(deepest, -1, -1):
            shells.append(self._variants(base, levels[:cut], grades))
        return shells

    def _variants(self, base: list[str], kept: Sequence[int], grades: Sequence[str]) -> list[str]:
        shell = base.copy()
        kept_set = set(kept)
        for p in self._levels:
            if p not in kept_set:
                shell[p] = self._zero
        variants = []
        for grade in grades:
            shell[self._grade] = grade
            variants.append("".join(shell))
        return variants

    # -- lists counted over several digits ------------------------------------------------------------

    def _counting_window(self, i: int, run_window: int | None, placements: list[Placement]) -> int | None:
        """The first level index of the decimal counter row ``i`` continues from row ``i - 1``, or ``None``."""
        previous, current = self._rows[i - 1].code, self._rows[i].code
        levels = self._levels
        level_set = set(levels)
        if any(a != b for p, (a, b) in enumerate(zip(previous, current, strict=True)) if p not in level_set):
            return None
        before = [previous[p] for p in levels]
        after = [current[p] for p in levels]
        changed = [k for k in range(len(levels)) if before[k] != after[k]]
        if not changed:
            return None
        last = max((k for k in range(len(levels)) if before[k] != self._zero or after[k] != self._zero), default=-1)
        first = changed[0]
        if run_window is None:
            carried = (
                len(changed) >= 2
                and before[first] == "0"
                and after[first] == "1"
                and all(d == "9" for d in before[first + 1 : last + 1])
                and all(d == "0" for d in after[first + 1 : last + 1])
            )
            if not carried or not self._lists_under_window(i - 1, first, placements):
                return None
            window = first
        else:
            window = min(run_window, first)
        old, new = "".join(before[window : last + 1]), "".join(after[window : last + 1])
        if not (old.isdecimal() and new.isdecimal() and old.isascii() and new.isascii()):
            return None
        return window if int(new) == int(old) + 1 else None

    def _lists_under_window(self, previous: int, window: int, placements: list[Placement]) -> bool:
        """Whether the row before a carry hangs from its code with the counting window zeroed (the list's head)."""
        parent = placements[previous].parent
        if parent is None:
            return False
        code = list(self._rows[previous].code)
        for p in self._levels[window:]:
            code[p] = self._zero
        head = "".join(code)
        return self._rows[parent].code == head


def _broader_grades(stage: Stage, zero: str) -> dict[str, tuple[str, ...]]:
    """Each grade value → the values whose grades strictly contain its grades, narrowest first."""
    sets = {value: frozenset(labels) for value, labels in stage.grades.items() if value != zero}
    broader: dict[str, tuple[str, ...]] = {}
    for value, labels in sets.items():
        wider = [(len(other), v) for v, other in sets.items() if labels < other]
        broader[value] = tuple(v for _, v in sorted(wider))
    return broader
