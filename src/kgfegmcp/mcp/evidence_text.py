"""Deterministic text summaries for the learning-component and comparison tools.

For hosts that pass only text to the model: each summary restates the structured evidence (ids,
confidences, citation links, warnings, disclosures) and adds no claim the structured content lacks.
"""

from __future__ import annotations

from kgfegmcp.mcp.text import disclosure_lines, package_lines, standard_line, warning_lines
from kgfegmcp.services.comparison import ComparisonResult
from kgfegmcp.services.components import (
    ComponentsForStandardResult,
    LearningComponentDetail,
    LearningComponentView,
    SearchLearningComponentsResult,
    StandardsForComponentResult,
)
from kgfegmcp.services.views import DisclosureView, PackageIdentity


def _component(component: LearningComponentView) -> str:
    subject = f"{component.academic_subject}; " if component.academic_subject else ""
    return (
        f"{component.description} (learning component; {subject}nodeId {component.node_id}; "
        f"{component.graph_package_id}; supports {component.supports_count} standard(s))"
    )


def _confidence(value: float | None) -> str:
    return "not stated" if value is None else f"{value:g}"


def _shown(returned: int, omitted: int) -> str:
    return f"{returned} shown" + (f", {omitted} omitted by the limit." if omitted else ".")


def _single_package_tail(nature: str, package: PackageIdentity, disclosures: list[DisclosureView]) -> list[str]:
    """What every one-package component answer ends with: its nature, package identity and disclosures."""
    return [nature, *package_lines([package]), *disclosure_lines(disclosures)]


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
    lines += warning_lines(result.warnings)
    lines += package_lines(result.packages)
    lines += disclosure_lines(result.disclosures)
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
    lines += _single_package_tail(result.nature, result.package, result.disclosures)
    return "\n".join(lines)


def get_learning_components_for_standard(result: ComponentsForStandardResult) -> str:
    """Each supports link into the standard, with every citation link printed."""
    lines = [
        f"Standard: {standard_line(result.standard)}",
        f"{result.total} learning component(s) support this standard; {_shown(result.returned, result.omitted)}",
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
    lines += _single_package_tail(result.nature, result.package, result.disclosures)
    return "\n".join(lines)


def get_standards_for_learning_component(result: StandardsForComponentResult) -> str:
    """The standards a component supports, in their own grade labels and statement types."""
    lines = [
        f"Learning component: {_component(result.component)}",
        f"It supports {result.total} standard(s); {_shown(result.returned, result.omitted)}",
    ]
    for index, support in enumerate(result.standards, start=1):
        lines += [
            f"{index}. {standard_line(support.standard)}",
            f"   supports relationship {support.relationship_id}; "
            f"supportConfidence {_confidence(support.support_confidence)}",
            f"   relationship: {support.relationship_uri}",
            f"   standard: {support.standard_uri}; provenance: {support.standard.provenance_uri}",
        ]
    lines += _single_package_tail(result.nature, result.package, result.disclosures)
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
            lines.append(f"{candidate.rank}. {standard_line(candidate.standard)} [{candidate.match_type}]")
            lines.append(
                f"   context: {context or 'none'}"
                + ("" if candidate.context_complete else f" (+{candidate.other_parent_chains} other parent chain(s))")
            )
            lines.append(f"   resource: {candidate.standard.uri}; provenance: {candidate.provenance_uri}")
            if candidate.unresolved_references:
                lines.append(f"   unresolved references concerning it: {candidate.unresolved_references}")
        lines += warning_lines(section.warnings)
        lines += package_lines([section.package])
        lines += disclosure_lines(section.disclosures)
    return "\n".join(lines)
