"""The filter values one package accepts: the grade labels, statement types and subjects its items use.

A filter matches an item's facets exactly (``search.package_indexes``), so a value no item of the
package carries can only ever give an empty page. The vocabulary lists what the items carry, in the
framework's own terms and in a fixed order, so a request naming anything else can be refused with
the values that would match, and ``get_framework`` can publish them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kgfegmcp.profiles.model import InterpretationProfile


@dataclass(frozen=True, slots=True)
class GradeValue:
    """A grade label items carry and its normalised facet (``None`` when the profile declares none)."""

    label: str
    facet: str | None


@dataclass(frozen=True, slots=True)
class TypeValue:
    """A statement type items carry, its normalised form and role (``None`` when undeclared)."""

    source_type: str
    normalized: str | None
    role: str | None


@dataclass(frozen=True, slots=True)
class FilterVocabulary:
    """What a package's filters accept: each value as the source writes it, or its normalised facet."""

    grades: tuple[GradeValue, ...]
    types: tuple[TypeValue, ...]
    subjects: tuple[str, ...]

    @staticmethod
    def of(
        profile: InterpretationProfile, combinations: Iterable[tuple[tuple[str, ...], str, str]]
    ) -> FilterVocabulary:
        """From the distinct (grade labels, statement type, subject) combinations of the items.

        Grades follow the profile's local order (undeclared labels last, by name), statement types
        the profile's declaration order (undeclared last), subjects their names.
        """
        labels: set[str] = set()
        types: set[str] = set()
        subjects: set[str] = set()
        for grade_labels, statement_type, subject in combinations:
            labels.update(grade_labels)
            types.add(statement_type)
            subjects.add(subject)
        grades = []
        for label in profile.in_grade_order(labels):
            declared = profile.grade_label(label)
            grades.append(GradeValue(label, declared.facet if declared is not None else None))
        rules = [
            TypeValue(r.source_type, r.normalized, r.role) for r in profile.statement_types if r.source_type in types
        ]
        rules += [TypeValue(t, None, None) for t in sorted(types - {r.source_type for r in rules})]
        return FilterVocabulary(tuple(grades), tuple(rules), tuple(sorted(subjects)))

    def accepts(self, kind: str, value: str) -> bool:
        """Whether a ``grade``, ``type`` or ``subject`` filter value matches something in this package."""
        if kind == "grade":
            return any(value in (g.label, g.facet) for g in self.grades)
        if kind == "type":
            return any(value in (t.source_type, t.normalized) for t in self.types)
        return value in self.subjects

    def shown(self, kind: str) -> list[str]:
        """The accepted values of one kind as a message lists them: ``label (facet)``."""
        if kind == "grade":
            return [f"{g.label} ({g.facet})" if g.facet else g.label for g in self.grades]
        if kind == "type":
            return [
                f"{t.source_type} ({t.normalized})" if t.normalized and t.normalized != t.source_type else t.source_type
                for t in self.types
            ]
        return list(self.subjects)
