"""Filter values checked against the packages they apply to, so a mistyped value is refused, never an empty page.

Filters match the framework's own terms exactly: a grade label or its normalised facet, a statement
type or its normalised form, an academic subject as the package names it. Nothing is coerced: a
value that matches nothing in any package it applies to is refused with ``invalid_request``, naming
(boundedly) the values each package accepts and, when the value is how a query writes a grade
("quinto ano", "5th grade"), the label it names. Across several packages a value is accepted when
at least one of them uses it: results merge, and the other packages simply hold none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.errors import InvalidRequestError, echo, problem_list

FilterKind = Literal["grade", "type", "subject"]

_WHAT: dict[FilterKind, str] = {"grade": "grade label", "type": "statement type", "subject": "academic subject"}
#: How a message lists accepted values: at most this many per package, for at most this many packages.
MAX_SHOWN_VALUES = 16
MAX_SHOWN_PACKAGES = 3
#: Where the full lists are.
WHERE_LISTED = "get_framework lists every accepted value under filterValues"


def _names_no_grade(_: str) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Accepted:
    """What one package accepts for one filter, and how it names a grade a query may write otherwise."""

    graph_package_id: str
    accepts: Callable[[str], bool]
    shown: Sequence[str]
    grade_named: Callable[[str], str | None] = _names_no_grade


def standards_accepted(package: ServedPackage, kind: FilterKind) -> Accepted:
    """The standards filter values of one package (search_standards, compare_framework_evidence)."""
    index = package.standards_index
    vocabulary = index.vocabulary

    def named(text: str) -> str | None:
        label = index.interpreter.grade_named(text)
        return label if label is not None and vocabulary.accepts("grade", label) else None

    return Accepted(
        package.graph_package_id,
        lambda value: vocabulary.accepts(kind, value),
        vocabulary.shown(kind),
        named if kind == "grade" else _names_no_grade,
    )


def component_subjects_accepted(package: ServedPackage) -> Accepted:
    """The learning-component subjects of one package (search_learning_components)."""
    index = package.component_index
    subjects = index.subjects if index is not None else ()
    return Accepted(package.graph_package_id, subjects.__contains__, subjects)


def require_known(
    field: str, kind: FilterKind, values: Sequence[str] | None, accepted: Sequence[Accepted], hint: str | None = None
) -> None:
    """``invalid_request`` when a value matches nothing in every package it applies to."""
    unknown = [value for value in values or () if not any(a.accepts(value) for a in accepted)]
    if not unknown:
        return
    what = _WHAT[kind]
    where = "this package" if len(accepted) == 1 else f"any of the {len(accepted)} packages it applies to"
    named = []
    for value in unknown:
        for a in accepted:
            label = a.grade_named(value)
            if label is not None:
                named.append(
                    f"{echo(value)!r} is how a query writes {label!r} ({a.graph_package_id}): filter by {label!r}"
                )
                break
    lists = [f"{a.graph_package_id} accepts {_values(a.shown)}" for a in accepted[:MAX_SHOWN_PACKAGES]]
    if len(accepted) > MAX_SHOWN_PACKAGES:
        lists.append(f"{len(accepted) - MAX_SHOWN_PACKAGES} more package(s)")
    shown = ", ".join(repr(echo(value)) for value in unknown[:5]) + (
        f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
    )
    raise InvalidRequestError(
        f"{field}: {shown} {_is_not(what, len(unknown))} of {where}. Filters take each package's own values: "
        f"{problem_list([*named, *lists])}.",
        hint=hint or f"Use the framework's own values ({WHERE_LISTED}), or leave {field} out.",
    )


def _is_not(what: str, count: int) -> str:
    if count > 1:
        return f"are not {what}s"
    return f"is not {'an' if what[0] in 'aeiou' else 'a'} {what}"


def _values(shown: Sequence[str]) -> str:
    if not shown:
        return "none (no item carries one)"
    listed = ", ".join(shown[:MAX_SHOWN_VALUES])
    return listed + (f", … ({len(shown) - MAX_SHOWN_VALUES} more)" if len(shown) > MAX_SHOWN_VALUES else "")
