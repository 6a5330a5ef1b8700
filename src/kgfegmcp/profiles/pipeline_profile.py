"""The curriculum profile as the design's construction pipeline writes it (``profileSchemaVersion`` 1.1).

A supplied package binds its profile by the SHA-256 of ``<profiles>/<profile-id>/<version>/profile.json``,
in the pipeline's own vocabulary. :meth:`PipelineProfile.interpretation` reads that vocabulary as this
server's :class:`~kgfegmcp.profiles.model.InterpretationProfile`, without a guess: grade mappings become
grade labels (delivered items carry the normalised grade, shown by its local label), statement types keep
their source names with the pipeline's Standard / Standard Grouping as their role, the hierarchy's allowed
parents become allowed edges (roots hang from the framework) and its depth the longest chain they allow, the
code policy keeps availability, uniqueness, case and prefix search, and the required disclosures and known
source anomalies become disclosures. What only the pipeline's own extraction used (regular expressions over
the printed page, comparison dimensions, controlled values) is checked as part of the file and not used.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from kgfegmcp.core.epistemic import ClaimLabels
from kgfegmcp.core.identifiers import FrameworkId, ProfileId
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.profiles.model import (
    FRAMEWORK_PARENT_TYPE,
    PROFILE_VERSION_PATTERN,
    CodePolicy,
    Disclosure,
    GradeLabel,
    HierarchyEdgeRule,
    HierarchyRules,
    InterpretationProfile,
    StatementTypeRule,
)

Text = Annotated[str, Field(min_length=1, max_length=4000)]
ConfigurationKey = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=100)]
_CODES_PRESENT: dict[str, Literal["allStandards", "some", "none"]] = {
    "complete": "allStandards",
    "partial": "some",
    "none": "none",
}


class CodeParentRule(ContractModel):
    child_code_type: ConfigurationKey
    method: ConfigurationKey
    parent_code_type: ConfigurationKey
    regex: Text
    replacement: str


class CodeTypePolicy(ContractModel):
    code_type: ConfigurationKey
    patterns: tuple[Text, ...] = Field(min_length=1)
    scope_statement_types: tuple[Text, ...] = ()
    statement_types: tuple[Text, ...] = Field(min_length=1)


class CodeSearchPolicy(ContractModel):
    allow_prefix_search: bool = False
    availability: Literal["complete", "partial", "none"]
    canonicalization_notes: tuple[Text, ...] = ()
    case_sensitive: bool = False
    code_parent_rules: tuple[CodeParentRule, ...] = ()
    code_types: tuple[CodeTypePolicy, ...] = ()
    codes_are_unique_identifiers: bool = False
    prefix_delimiters: tuple[Text, ...] = ()
    punctuation_normalization: bool = False
    whitespace_normalization: bool = False

    @model_validator(mode="after")
    def _coded_as_declared(self) -> CodeSearchPolicy:
        if self.availability == "none" and (self.code_types or self.code_parent_rules or self.allow_prefix_search):
            raise ValueError("code availability 'none' declares no code types, rules or prefix search")
        if self.availability != "none" and not self.code_types:
            raise ValueError("a coded profile declares at least one code type")
        if self.allow_prefix_search and not self.prefix_delimiters:
            raise ValueError("prefix search needs at least one delimiter")
        return self


class ControlledValue(ContractModel):
    aliases: tuple[Text, ...] = ()
    canonical_value: Text


class EducationStageMapping(ContractModel):
    local_label: Text
    normalized_stage: str | None = None


class GradeMapping(ContractModel):
    aliases: tuple[Text, ...] = ()
    local_label: Text
    normalized_grades: tuple[Annotated[str, Field(min_length=1, max_length=64)], ...] = Field(min_length=1)


class HierarchyPolicy(ContractModel):
    allow_multi_parent: bool
    relationship_type: Literal["hasChild"] = "hasChild"
    root_statement_types: tuple[Text, ...] = Field(min_length=1)
    statement_type_order: tuple[Text, ...] = ()


class KnownSourceAnomaly(ContractModel):
    anomaly_id: ConfigurationKey
    description: Text
    required_disclosure: str | None = Field(None, min_length=1, max_length=2000)


class LanguagePolicy(ContractModel):
    allow_bilingual_pairing: bool = False
    languages: tuple[Annotated[str, Field(pattern=r"^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$")], ...] = Field(min_length=1)
    notes: tuple[Text, ...] = ()
    preserve_source_terminology: bool = True


class ParentCardinality(ContractModel):
    max_count: int | None = Field(None, ge=0)
    min_count: int = Field(0, ge=0)
    parent_statement_type: Text


class SourceRoleCapabilities(ContractModel):
    has_official_activities: bool = False
    has_official_assessment_guidance: bool = False
    has_official_resources: bool = False
    role_notes: tuple[Text, ...] = ()


class StatementTypePolicy(ContractModel):
    aliases: tuple[Text, ...] = ()
    allowed_parents: tuple[ParentCardinality, ...] = ()
    code_type: ConfigurationKey | None = None
    controlled_values: tuple[ControlledValue, ...] = ()
    description: Text
    identity_scope: tuple[Text, ...] = ()
    is_graph_node: bool = True
    normalized_statement_type: Literal["Standard", "Standard Grouping"]
    source_statement_type: Annotated[str, Field(min_length=1, max_length=128)]


class SubjectVocabulary(ContractModel):
    unmatched_value: str | None = None
    values: tuple[Text, ...] = Field(min_length=1)
    vocabulary_id: Text
    vocabulary_version: Annotated[str, Field(max_length=64)]


class PipelineProfile(ContractModel):
    """``profile.json`` of the construction pipeline, every key it may hold (unknown keys are refused)."""

    profile_schema_version: Literal["1.1"]
    profile_id: ProfileId
    profile_version: Annotated[str, Field(pattern=PROFILE_VERSION_PATTERN)]
    framework_ids: tuple[FrameworkId, ...] = Field(min_length=1)
    code_search_policy: CodeSearchPolicy
    comparison_dimensions: tuple[Text, ...] = ()
    education_stage_mappings: tuple[EducationStageMapping, ...] = ()
    grade_level_statement_types: tuple[Text, ...] = ()
    grade_mappings: tuple[GradeMapping, ...] = ()
    hierarchy: HierarchyPolicy
    known_source_anomalies: tuple[KnownSourceAnomaly, ...] = ()
    language_policy: LanguagePolicy
    local_subject: Text
    normalized_subjects: tuple[Text, ...]
    required_disclosures: tuple[Annotated[str, Field(min_length=1, max_length=2000)], ...] = ()
    rights: RightsPolicy
    source_role_capabilities: SourceRoleCapabilities = SourceRoleCapabilities()
    statement_types: tuple[StatementTypePolicy, ...] = Field(min_length=1)
    subject_aliases: tuple[Text, ...] = ()
    subject_mapping_note: str | None = Field(None, max_length=4000)
    subject_mapping_status: Literal["mapped", "other", "unreviewed"]
    subject_vocabulary: SubjectVocabulary

    @model_validator(mode="after")
    def _hierarchy_declared(self) -> PipelineProfile:
        types = {t.source_statement_type: t for t in self.statement_types}
        if len(types) != len(self.statement_types):
            raise ValueError("statementTypes repeats a sourceStatementType")
        named = {
            *self.hierarchy.root_statement_types,
            *self.hierarchy.statement_type_order,
            *self.grade_level_statement_types,
            *(p.parent_statement_type for t in self.statement_types for p in t.allowed_parents),
        }
        if named - types.keys():
            raise ValueError(f"the profile names undeclared statement types {sorted(named - types.keys())}")
        roots = set(self.hierarchy.root_statement_types)
        for name, policy in types.items():
            if name in roots and policy.allowed_parents:
                raise ValueError(f"root statement type {name!r} declares parents")
            if name not in roots and policy.is_graph_node and not policy.allowed_parents:
                raise ValueError(f"statement type {name!r} is no root and declares no parent")
            if not self.hierarchy.allow_multi_parent:
                bounds = [p.max_count for p in policy.allowed_parents]
                if any(b is None for b in bounds) or sum(b or 0 for b in bounds) > 1:
                    raise ValueError(f"a single-parent profile lets {name!r} have more than one parent")
        return self

    def interpretation(self) -> InterpretationProfile:
        """This profile in this server's terms (see the module docstring)."""
        return InterpretationProfile(
            profile_id=self.profile_id,
            version=self.profile_version,
            title=f"{self.local_subject} ({', '.join(self.framework_ids)})"[:256],
            in_language=self.language_policy.languages[0].lower(),
            grade_labels=self._grade_labels(),
            statement_types=tuple(
                StatementTypeRule(
                    source_type=t.source_statement_type,
                    normalized=_slug(t.source_statement_type),
                    role="standard" if t.normalized_statement_type == "Standard" else "grouping",
                    classification=t.normalized_statement_type,
                )
                for t in self.statement_types
            ),
            hierarchy=self._hierarchy(),
            code_policy=self._code_policy(),
            progression_labels=("buildsTowards", "relatesTo"),
            disclosures=self._disclosures(),
            default_rights=self.rights,
            claim_labels=ClaimLabels(standards="source_extracted", progression_links="source_extracted"),
            framework_ids=self.framework_ids,
        )

    def _grade_labels(self) -> tuple[GradeLabel, ...]:
        """One label per normalised grade (what delivered items carry), shown by its local label; each alias
        once across the profile."""
        labels: list[GradeLabel] = []
        seen_labels: set[str] = set()
        seen_aliases: set[str] = set()
        for order, mapping in enumerate(self.grade_mappings):
            for grade in mapping.normalized_grades:
                if grade in seen_labels:
                    continue
                seen_labels.add(grade)
                aliases = []
                for alias in (mapping.local_label, *mapping.aliases):
                    folded = alias.casefold()
                    if len(alias) <= 64 and folded not in seen_aliases and alias != grade:
                        seen_aliases.add(folded)
                        aliases.append(alias)
                labels.append(
                    GradeLabel(
                        source_label=grade,
                        facet=f"grade-{_slug(grade)}",
                        display=mapping.local_label[:128],
                        order=order,
                        aliases=tuple(aliases[:32]),
                    )
                )
        return tuple(labels)

    def _hierarchy(self) -> HierarchyRules:
        policies = {t.source_statement_type: t for t in self.statement_types if t.is_graph_node}
        edges = [
            HierarchyEdgeRule(parent_type=FRAMEWORK_PARENT_TYPE, child_type=root)
            for root in self.hierarchy.root_statement_types
        ]
        edges += [
            HierarchyEdgeRule(parent_type=parent.parent_statement_type, child_type=name)
            for name, policy in policies.items()
            for parent in policy.allowed_parents
        ]
        depth: dict[str, int] = {}

        def depth_of(name: str, trail: frozenset[str]) -> int:
            if name in depth:
                return depth[name]
            parents = [
                p.parent_statement_type for p in policies[name].allowed_parents if p.parent_statement_type not in trail
            ]
            found = 1 + max((depth_of(p, trail | {name}) for p in parents), default=0)
            depth[name] = found
            return found

        max_depth = max((depth_of(name, frozenset()) for name in policies), default=1)
        parents = max(
            (sum(p.max_count or len(policies) for p in t.allowed_parents) for t in policies.values()), default=1
        )
        multi = self.hierarchy.allow_multi_parent
        return HierarchyRules(
            rule="multiParentDag" if multi else "tree",
            max_depth=min(max_depth, 64),
            max_parents=min(max(parents, 1), 64) if multi else 1,
            allowed_edges=tuple(edges),
        )

    def _code_policy(self) -> CodePolicy:
        policy = self.code_search_policy
        coded = policy.availability != "none"
        return CodePolicy(
            codes_present=_CODES_PRESENT[policy.availability],
            unique=policy.codes_are_unique_identifiers,
            normalization="exact" if policy.case_sensitive else "casefold",
            exact_search=coded,
            prefix_search=coded and policy.allow_prefix_search,
        )

    def _disclosures(self) -> tuple[Disclosure, ...]:
        disclosures = [
            Disclosure(disclosure_id=f"required-{number}", text=text)
            for number, text in enumerate(self.required_disclosures, start=1)
        ]
        disclosures += [
            Disclosure(disclosure_id=_slug(anomaly.anomaly_id)[:64], text=anomaly.required_disclosure)
            for anomaly in self.known_source_anomalies
            if anomaly.required_disclosure
        ]
        return tuple(disclosures)


def _slug(text: str) -> str:
    """Lowercase words joined by single hyphens (a facet or a normalised type name)."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:64] or "unnamed"


def is_pipeline_profile(document: Any) -> bool:
    """Whether a profile document is the pipeline's (it names its schema version; this server's do not)."""
    return isinstance(document, dict) and "profileSchemaVersion" in document
