"""Deterministic text summaries for the learning-component and comparison tools.

For hosts that pass only text to the model: each summary restates the structured evidence (ids,
confidences, citation links, warnings, attributions, disclosure ids) and adds no claim the structured
content lacks. Links are built from the package link by the one URI rule of compact answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgfegmcp.mcp.text import (
    clipped,
    package_label,
    package_lines,
    standard_line,
    statement_text,
    unknown_terms_phrase,
    warning_lines,
)
from kgfegmcp.services.comparison import ComparisonResult, ContextNodeView
from kgfegmcp.services.components import (
    ComponentAttribution,
    ComponentsForStandardResult,
    LearningComponentDetail,
    LearningComponentRecord,
    SearchLearningComponentsResult,
    StandardsForComponentResult,
)
from kgfegmcp.services.views import ComponentPackageRef, ComponentsLabel, entity_uri

#: Characters of each context node's text in a comparison summary (whole in contextNodes).
CONTEXT_CHARS = 40


def _component(component: LearningComponentRecord, package: str | None = None) -> str:
    subject = f"{component.academic_subject}; " if component.academic_subject else ""
    where = f"; {package}" if package else ""
    return (
        f"{statement_text(component)} (learning component; {subject}nodeId {component.node_id}; "
        f"supports {component.supports_count} standard(s){where})"
    )


def _confidence(value: float | None) -> str:
    return "not stated" if value is None else f"{value:g}"


def _shown(returned: int, total: int) -> str:
    omitted = total - returned
    return f"{returned} shown" + (f", {omitted} omitted by the limit." if omitted else ".")


def _attribution_lines(attributions: Sequence[ComponentAttribution]) -> list[str]:
    """Who authored and licensed the components, each distinct attribution once."""
    lines = []
    for index, a in enumerate(attributions):
        parts = [
            f"provider {a.provider or a.author}" if a.provider or a.author else "",
            f"licence: {a.license.rstrip('.')}" if a.license else "",
            f"attribution: {a.attribution_statement.rstrip('.')}" if a.attribution_statement else "",
        ]
        label = "Components" if len(attributions) == 1 else f"Components [attribution {index}]"
        lines.append(f"{label}: " + "; ".join(p for p in parts if p) + ".")
    return lines


def _production(label: ComponentsLabel | None) -> str:
    """How components were produced, in a few words (the structured ``components`` of their package)."""
    if label is None:
        return "none in this package"
    return f"{label.production} by {label.source} ({label.epistemic_status})"


def _production_lines(packages: Sequence[ComponentPackageRef]) -> list[str]:
    """Each package's component production once (numbered like the package lines when there are several)."""
    if len(packages) == 1:
        return [f"Components: {_production(packages[0].components)}."]
    return [f"Package {index} components: {_production(p.components)}." for index, p in enumerate(packages, start=1)]


def _tail(
    nature: str, attributions: Sequence[ComponentAttribution], packages: Sequence[ComponentPackageRef]
) -> list[str]:
    """What every component answer ends with: its nature, production, attributions, packages and disclosure ids."""
    return [nature, *_production_lines(packages), *_attribution_lines(attributions), *package_lines(packages)]


def search_learning_components(result: SearchLearningComponentsResult) -> str:
    """Ranked component hits (their links: the package link + /learning-component/<nodeId>)."""
    first = result.hits[0].rank if result.hits else 0
    last = result.hits[-1].rank if result.hits else 0
    lines = [
        f"{result.total} learning components match {result.query!r}; "
        + (f"showing {first}-{last}." if result.hits else "none on this page.")
    ]
    if not result.total:
        lines.append("A zero-result page means only that this lexical expression did not match these packages.")
    several = len(result.interpretation) > 1
    for reading in result.interpretation:
        if reading.unknown_terms:
            where = f" in {', '.join(reading.graph_package_ids or ())}" if several else ""
            lines.append(f"Query words {unknown_terms_phrase(reading.unknown_terms)}{where}.")
    for hit in result.hits:
        package = package_label(hit.package)
        lines.append(f"{hit.rank}. {_component(hit, package)}")
    lines.append("A component's resource is its package link + /learning-component/<nodeId>.")
    lines += warning_lines(result.warnings)
    lines += _tail(result.nature, result.attributions, result.packages)
    return "\n".join(lines)


def get_learning_component(result: LearningComponentDetail) -> str:
    """One component, its link and the ids of its supports relationships."""
    component = result.component
    lines = [_component(component), f"Resource: {component.uri} (provenance: add /provenance)"]
    if component.tags:
        lines.append(f"Tags: {', '.join(component.tags)}")
    for support in result.supports:
        lines.append(
            f"Supports standard nodeId {support.standard_node_id} via relationship {support.relationship_id} "
            f"(supportConfidence {_confidence(support.support_confidence)})"
        )
    lines += _tail(result.nature, result.attributions, [result.package])
    return "\n".join(lines)


def get_learning_components_for_standard(result: ComponentsForStandardResult) -> str:
    """Each supports link into the standard, with the links to cite it and open its evidence."""
    base = result.package.uri
    lines = [
        f"Standard: {standard_line(result.standard)}",
        f"Standard link: {result.standard.uri}",
        f"{result.total} learning component(s) support this standard; {_shown(len(result.supports), result.total)}",
    ]
    for index, support in enumerate(result.supports, start=1):
        lines += [
            f"{index}. {_component(support.component)}",
            f"   supports relationship {support.relationship_id}; "
            f"supportConfidence {_confidence(support.support_confidence)}",
            f"   relationship: {entity_uri(base, 'relationship', support.relationship_id)}",
            f"   component: {entity_uri(base, 'learning-component', support.component.node_id)}",
        ]
    lines.append("A component's provenance is its link + /provenance; a relationship's is inside its document.")
    lines += _tail(result.nature, result.attributions, [result.package])
    return "\n".join(lines)


def get_standards_for_learning_component(result: StandardsForComponentResult) -> str:
    """The standards a component supports, in their own grade labels and statement types."""
    lines = [
        f"Learning component: {_component(result.component)}",
        f"It supports {result.total} standard(s); {_shown(len(result.standards), result.total)}",
    ]
    for index, support in enumerate(result.standards, start=1):
        lines += [
            f"{index}. {standard_line(support.standard)}",
            f"   supports relationship {support.relationship_id}; "
            f"supportConfidence {_confidence(support.support_confidence)}",
        ]
    lines.append("Links: the package link + /standard/<nodeId>, /relationship/<id>, /learning-component/<nodeId>.")
    lines += _tail(result.nature, result.attributions, [result.package])
    return "\n".join(lines)


def _context_text(node: ContextNodeView) -> str:
    code = f"[{node.statement_code}] " if node.statement_code else ""
    if not code and node.description is None:  # withheld text: the heading is cited by its type and id
        code = f"[{node.statement_type}, nodeId {node.node_id}] "
    return code + clipped(statement_text(node), CONTEXT_CHARS)


def compare_framework_evidence(result: ComparisonResult) -> str:
    """Per-framework candidates with their context; the review notice comes first."""
    lines = [
        f"Comparison evidence for {repr(result.query) if result.query else 'a query per framework'} "
        f"({result.search_mode}); at most "
        f"{result.max_matches_per_framework} candidate(s) per framework, retrieved independently "
        f"({result.candidate_status}).",
        result.review_notice,
    ]
    for section in result.frameworks:
        package = section.package.graph_package_id
        grades = f"; grades {', '.join(section.grade_levels)}" if section.grade_levels else ""
        nodes = {node.node_id: node for node in section.context_nodes}
        searched = f"; query {section.query!r}" if section.query else ""
        lines.append(
            f"== {package}{searched}{grades}: {section.total_matches} match(es), {len(section.candidates)} shown"
        )
        if section.interpretation is not None and section.interpretation.unknown_terms:
            lines.append(f"   query words {unknown_terms_phrase(section.interpretation.unknown_terms)}")
        for candidate in section.candidates:
            # The framework root heads every chain: name it once per section, not per candidate.
            chain = [nodes[n] for n in candidate.context if nodes[n].kind != "framework"]
            lines.append(f"{candidate.rank}. {standard_line(candidate.standard)} [{candidate.match_type}]")
            lines.append(
                "   under: "
                + (" > ".join(_context_text(node) for node in chain) or "the framework root")
                + ("" if candidate.context_complete else f" (+{candidate.other_parent_chains} other parent chain(s))")
            )
            if candidate.unresolved_references:
                lines.append(f"   unresolved references concerning it: {candidate.unresolved_references}")
        lines += warning_lines(section.warnings, package)
    lines += package_lines([section.package for section in result.frameworks])
    return "\n".join(lines)
