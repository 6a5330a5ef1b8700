"""The package block of an answer that is a graph (the five tools ``register.py`` declares ``draws_map``).

Beside the package's identity such an answer says which grades its standards carry, in the order and with
the names the package's profile declares, and whether the package holds progression links and learning
components at all. A view drawing the answer (grade columns, the follow-ups it offers) then reads both
from the server instead of re-deriving a curriculum's grade sequence, and a model reading the answer gets
the grade names without another call. Only the grades the answer carries are listed, never the profile's
whole sequence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import Field

from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.services.views import ComponentPackageRef, PackageRef, ResultModel, StandardRecord, StandardRef


class AnswerGrade(ResultModel):
    """A grade label the answer's standards carry, and the name its profile displays it by."""

    label: str
    display: str


class PackageHoldings(ResultModel):
    """What the package holds at all, whatever this answer carries."""

    progression_links: bool
    learning_components: bool


#: The two fields, described once for both package blocks that carry them.
Grades = Annotated[
    list[AnswerGrade],
    Field(
        description="Every grade label this answer's standards carry, once, in the profile's grade order, with "
        "the profile's display name (the label itself where the profile declares none)."
    ),
]
Holds = Annotated[
    PackageHoldings, Field(description="Whether the package has any progression links / learning components.")
]


class GraphPackageRef(PackageRef):
    """The package of an answer that is a graph: its identity, the answer's grades, what the package holds."""

    grades: Grades
    holds: Holds


class GraphComponentPackageRef(ComponentPackageRef):
    """The package of a graph answer carrying learning components, with the answer's grades and holdings."""

    grades: Grades
    holds: Holds


def holds_progression_links(package: ServedPackage) -> bool:
    """Whether ``package`` has any progression link (``buildsTowards`` or ``relatesTo``), as its manifest counts
    them (validation recomputes the counts exactly)."""
    links = package.manifest.counts.links
    return links.builds_towards + links.relates_to > 0


def graph_fields(package: ServedPackage, standards: Iterable[StandardRecord | StandardRef]) -> dict[str, Any]:
    """The ``grades`` and ``holds`` of a graph answer's package block (:class:`GraphPackageRef`), from the
    standards the answer carries: pass them as ``PackageRef.of``'s ``extra``."""
    profile = package.profile.profile
    grades = []
    for label in profile.in_grade_order(label for standard in standards for label in standard.grade_levels):
        declared = profile.grade_label(label)
        grades.append(AnswerGrade(label=label, display=declared.display if declared is not None else label))
    holds = PackageHoldings(
        progression_links=holds_progression_links(package),
        learning_components=package.manifest.counts.components > 0,
    )
    return {"grades": grades, "holds": holds}
