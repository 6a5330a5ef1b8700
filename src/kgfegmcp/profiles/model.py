"""The interpretation profile: how generic code reads one curriculum family."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from kgfegmcp.core.epistemic import ClaimLabels
from kgfegmcp.core.identifiers import FrameworkId, ProfileId
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.rights import RightsPolicy

PROFILE_VERSION_PATTERN = r"^[0-9]+\.[0-9]+(\.[0-9]+)?$"
FRAMEWORK_PARENT_TYPE = "StandardsFramework"

SearchFacet = Literal["gradeLevel", "statementType", "academicSubject"]
ProgressionLabel = Literal["buildsTowards", "relatesTo"]


class ProfileRef(ContractModel):
    """A manifest's binding to one exact profile file."""

    profile_id: ProfileId
    version: str = Field(pattern=PROFILE_VERSION_PATTERN)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class GradeLabel(ContractModel):
    """A local grade label, kept verbatim, with its normalised facet."""

    source_label: str = Field(min_length=1, max_length=64)
    facet: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)
    display: str = Field(min_length=1, max_length=128)
    order: int = Field(ge=0, le=1000, description="Position in the local grade sequence.")
    aliases: tuple[Annotated[str, Field(min_length=1, max_length=64)], ...] = Field(
        (),
        max_length=32,
        description="Other ways people write this grade in a query (``5 ano``, ``3rd grade``); search reads "
        "them, with the display name and a source label holding a letter, as a grade, not as text.",
    )


class StatementTypeRule(ContractModel):
    """A source statement type and whether it is a standard or a grouping."""

    source_type: str = Field(min_length=1, max_length=128)
    normalized: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)
    role: Literal["standard", "grouping"]
    #: The Learning Commons classification items of this type carry as ``normalizedStatementType`` where a
    #: package's builder gives that rather than ``normalized`` (the construction pipeline does).
    classification: Literal["Standard", "Standard Grouping"] | None = None


class HierarchyEdgeRule(ContractModel):
    """One allowed parent type → child type pair of ``hasChild``."""

    parent_type: str = Field(min_length=1, max_length=128)
    child_type: str = Field(min_length=1, max_length=128)


class HierarchyRules(ContractModel):
    """Shape of the ``hasChild`` hierarchy this family may have."""

    rule: Literal["tree", "multiParentDag"]
    max_depth: int = Field(ge=1, le=64, description="Longest root-to-item path, in edges.")
    max_parents: int = Field(ge=1, le=64)
    allowed_edges: tuple[HierarchyEdgeRule, ...] | None = None

    @model_validator(mode="after")
    def _tree_has_one_parent(self) -> HierarchyRules:
        if self.rule == "tree" and self.max_parents != 1:
            raise ValueError("maxParents must be 1 when rule is 'tree'")
        return self


class CodePolicy(ContractModel):
    """What statement codes mean in this family and how they may be searched."""

    codes_present: Literal["allStandards", "some", "none"]
    unique: bool
    normalization: Literal["exact", "casefold"]
    pattern: str | None = Field(None, max_length=512)
    exact_search: bool
    prefix_search: bool
    derived_parent_separator: str | None = Field(None, min_length=1, max_length=4)

    @field_validator("pattern")
    @classmethod
    def _pattern_compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"pattern is not a valid regular expression: {exc}") from None
        return value

    @model_validator(mode="after")
    def _search_needs_codes(self) -> CodePolicy:
        if self.codes_present == "none" and (self.exact_search or self.prefix_search):
            raise ValueError("code search cannot be allowed when codesPresent is 'none'")
        if self.prefix_search and not self.exact_search:
            raise ValueError("prefixSearch requires exactSearch")
        return self


class Disclosure(ContractModel):
    """A statement shown with results from packages bound to this profile."""

    disclosure_id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)
    text: str = Field(min_length=1, max_length=2000)


class InterpretationProfile(ContractModel):
    """Grade labels, statement types, hierarchy and code rules of one curriculum family."""

    profile_id: ProfileId
    version: str = Field(pattern=PROFILE_VERSION_PATTERN)
    title: str = Field(min_length=1, max_length=256)
    in_language: str = Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    grade_labels: tuple[GradeLabel, ...]
    statement_types: tuple[StatementTypeRule, ...] = Field(min_length=1)
    hierarchy: HierarchyRules
    code_policy: CodePolicy
    search_facets: tuple[SearchFacet, ...] = ()
    progression_labels: tuple[ProgressionLabel, ...] = ()
    disclosures: tuple[Disclosure, ...] = ()
    default_rights: RightsPolicy
    #: How bound packages state their standards and links (validation holds provenance to it).
    claim_labels: ClaimLabels = ClaimLabels()
    #: Bound packages were read page by page (a PDF): each item's provenance locator states its ``file`` and
    #: ``pages``, which ``get_standard`` reads to cite the page. Other packages' provenance is never read there.
    page_locators: bool = False
    #: The frameworks the profile may be bound to (a supplied profile names them; this server's profiles do not).
    framework_ids: tuple[FrameworkId, ...] | None = None

    @model_validator(mode="after")
    def _unique_vocabularies(self) -> InterpretationProfile:
        for name, values in (
            ("gradeLabels.sourceLabel", [g.source_label for g in self.grade_labels]),
            ("gradeLabels.aliases", [a.casefold() for g in self.grade_labels for a in g.aliases]),
            ("statementTypes.sourceType", [s.source_type for s in self.statement_types]),
            ("disclosures.disclosureId", [d.disclosure_id for d in self.disclosures]),
            ("searchFacets", list(self.search_facets)),
            ("progressionLabels", list(self.progression_labels)),
        ):
            if len(set(values)) != len(values):
                raise ValueError(f"{name} values must be unique")
        if self.hierarchy.allowed_edges is not None:
            known = {s.source_type for s in self.statement_types}
            for edge in self.hierarchy.allowed_edges:
                if edge.parent_type != FRAMEWORK_PARENT_TYPE and edge.parent_type not in known:
                    raise ValueError(f"hierarchy parentType {edge.parent_type!r} is not a statement type")
                if edge.child_type not in known:
                    raise ValueError(f"hierarchy childType {edge.child_type!r} is not a statement type")
        return self

    @cached_property
    def _statement_type_index(self) -> dict[str, StatementTypeRule]:
        return {rule.source_type: rule for rule in self.statement_types}

    @cached_property
    def _grade_label_index(self) -> dict[str, GradeLabel]:
        return {label.source_label: label for label in self.grade_labels}

    def statement_type(self, source_type: str) -> StatementTypeRule | None:
        """The rule for one source statement type, if declared (looked up for every item: indexed)."""
        return self._statement_type_index.get(source_type)

    def grade_terms(self, source_labels: Iterable[str]) -> frozenset[str]:
        """Local grade labels plus their declared facets: what a grade filter may name."""
        terms: set[str] = set()
        for label in source_labels:
            terms.add(label)
            declared = self.grade_label(label)
            if declared is not None:
                terms.add(declared.facet)
        return frozenset(terms)

    def grade_label(self, source_label: str) -> GradeLabel | None:
        """The declared local grade label, if any."""
        return self._grade_label_index.get(source_label)

    @cached_property
    def grades_in_order(self) -> tuple[GradeLabel, ...]:
        """The declared grade labels in the local grade sequence: by ``order``, then by label."""
        return tuple(sorted(self.grade_labels, key=lambda g: (g.order, g.source_label)))

    def in_grade_order(self, source_labels: Iterable[str]) -> list[str]:
        """``source_labels`` once each, in the one grade order every answer and listing follows: the declared
        labels as :attr:`grades_in_order` has them, then any label the profile does not declare, by label."""
        present = set(source_labels)
        declared = [g.source_label for g in self.grades_in_order if g.source_label in present]
        return declared + sorted(present.difference(declared))
