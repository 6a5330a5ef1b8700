"""Deterministic text summaries for the learning-component and comparison tools.

For hosts that pass only text to the model: each summary restates the structured evidence (ids,
confidences, citation links, warnings, disclosures) and adds no claim the structured content lacks.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgfegmcp.services.comparison import ComparisonResult
from kgfegmcp.services.components import (
    ComponentsForStandardResult,
    LearningComponentDetail,
    LearningComponentView,
    SearchLearningComponentsResult,
    StandardsForComponentResult,
)
from kgfegmcp.services.views import DisclosureView, PackageIdentity, ResultWarning, StandardView


def _standard(standard: StandardView) -> str:
    code = f"[{standard.statement_code}] " if standard.statement_code else ""
    grades = ", ".join(g.source_label for g in standard.grade_levels) or "no grade"
    return (
        f"{code}{standard.description} ({standard.statement_type.source_type}; {grades}; "
        f"nodeId {standard.node_id}; {standard.graph_package_id})"
    )


def _component(component: LearningComponentView) -> str:
    subject = f"{component.academic_subject}; " if component.academic_subject else ""
    return (
        f"{component.description} (learning component; {subject}nodeId {component.node_id}; "
        f"{component.graph_package_id}; supports {component.supports_count} standard(s))"
    )


def _confidence(value: float | None) -> str:
    return "not stated" if value is None else f"{value:g}"


def _packages(packages: Iterable[PackageIdentity]) -> list[str]:
    return [
        f"Package {p.graph_package_id}: manifest {p.manifest_uri}; nodes sha256 {p.nodes.sha256[:16]}…, "
        f"profile {p.profile.profile_id} {p.profile.version}"
        for p in packages
    ]


def _warnings(warnings: Iterable[ResultWarning]) -> list[str]:
    return [f"Warning {w.code} ({w.graph_package_id or 'all'}): {w.message}" for w in warnings]


def _disclosures(disclosures: Iterable[DisclosureView]) -> list[str]:
    seen: dict[str, str] = {}
    for disclosure in disclosures:
        seen.setdefault(disclosure.disclosure_id, disclosure.text)
    return [f"Disclosure: {text}" for text in seen.values()]


def search_learning_components(result: SearchLearningComponentsResult) -> str:
    """Ranked component hits with their resource links."""
    first = result.hits[0].rank if result.hits else 0
    last = result.hits[-1].rank if result.hits else 0
    lines = [
        f"{result.total} learning components match {result.query!r}; "
        + (f"showing {first}-{last}." if result.hits else "none on this page.")
    ]
    if not result.total:
        lines.append("A zero-result page means only that this lexical expression did not match these packages.")
    for hit in result.hits:
        lines.append(f"{hit.rank}. {_component(hit.component)}")
        lines.append(f"   Resource: {hit.component.uri}; provenance: {hit.component.provenance_uri}")
    lines.append(result.nature)
    lines += _warnings(result.warnings)
    lines += _packages(result.packages)
    lines += _disclosures(result.disclosures)
    return "\n".join(lines)


def get_learning_component(result: LearningComponentDetail) -> str:
    """One component, its links and the ids of its supports relationships."""
    component = result.component
    lines = [
        _component(component),
        f"Resource: {component.uri}",
        f"Provenance: {component.provenance_uri}",
    ]
    if component.provider or component.author:
        lines.append(f"Provider: {component.provider or component.author}")
    if component.license:
        lines.append(f"Licence: {component.license}")
    if component.attribution_statement:
        lines.append(f"Attribution: {component.attribution_statement}")
    for support in result.supports:
        lines.append(
            f"Supports standard nodeId {support.standard_node_id} via relationship {support.relationship_id} "
            f"(supportConfidence {_confidence(support.support_confidence)}; {support.relationship_uri})"
        )
    lines.append(result.nature)
    lines += _packages([result.package])
    lines += _disclosures(result.disclosures)
    return "\n".join(lines)


def get_learning_components_for_standard(result: ComponentsForStandardResult) -> str:
    """Each supports link into the standard, with every citation link printed."""
    lines = [
        f"Standard: {_standard(result.standard)}",
        f"{result.total} learning component(s) support this standard; {result.returned} shown"
        + (f", {result.omitted} omitted by the limit." if result.omitted else "."),
    ]
    for index, support in enumerate(result.supports, start=1):
        lines += [
            f"{index}. {_component(support.component)}",
            f"   supports relationship {support.relationship_id}; "
            f"supportConfidence {_confidence(support.support_confidence)}",
            f"   relationship: {support.relationship_uri}",
            f"   component: {support.component_uri}",
            f"   component provenance: {support.component_provenance_uri}",
            f"   standard: {support.standard_uri}",
        ]
    lines.append(result.nature)
    lines += _packages([result.package])
    lines += _disclosures(result.disclosures)
    return "\n".join(lines)


def get_standards_for_learning_component(result: StandardsForComponentResult) -> str:
    """The standards a component supports, in their own grade labels and statement types."""
    lines = [
        f"Learning component: {_component(result.component)}",
        f"It supports {result.total} standard(s); {result.returned} shown"
        + (f", {result.omitted} omitted by the limit." if result.omitted else "."),
    ]
    for index, support in enumerate(result.standards, start=1):
        lines += [
            f"{index}. {_standard(support.standard)}",
            f"   supports relationship {support.relationship_id}; "
            f"supportConfidence {_confidence(support.support_confidence)}",
            f"   relationship: {support.relationship_uri}",
            f"   standard: {support.standard_uri}; provenance: {support.standard.provenance_uri}",
        ]
    lines.append(result.nature)
    lines += _packages([result.package])
    lines += _disclosures(result.disclosures)
    return "\n".join(lines)


def compare_framework_evidence(result: ComparisonResult) -> str:
    """Per-framework candidates with context and provenance; the review notice comes first."""
    lines = [
        f"Comparison evidence for {result.query!r} ({result.search_mode}); at most "
        f"{result.max_matches_per_framework} candidate(s) per framework, retrieved independently.",
        result.review_notice,
    ]
    for section in result.frameworks:
        grades = f"; grades {', '.join(section.grade_levels)}" if section.grade_levels else ""
        lines.append(
            f"== {section.graph_package_id}{grades}: {section.total_matches} match(es), {section.returned} shown"
        )
        for candidate in section.candidates:
            context = " > ".join(
                (f"[{node.statement_code}] " if node.statement_code else "") + node.description
                for node in candidate.context
            )
            lines.append(f"{candidate.rank}. {_standard(candidate.standard)} [{candidate.match_type}]")
            lines.append(
                f"   context: {context or 'none'}"
                + ("" if candidate.context_complete else f" (+{candidate.other_parent_chains} other parent chain(s))")
            )
            lines.append(f"   resource: {candidate.standard.uri}; provenance: {candidate.provenance_uri}")
            if candidate.unresolved_references:
                lines.append(f"   unresolved references concerning it: {candidate.unresolved_references}")
        lines += _warnings(section.warnings)
        lines += _packages([section.package])
        lines += _disclosures(section.disclosures)
    return "\n".join(lines)
