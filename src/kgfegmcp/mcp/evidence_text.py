"""Deterministic text summaries for the learning-component and comparison tools.

For hosts that pass only text to the model: each summary restates the structured evidence (ids,
confidences, citation links, warnings, attributions, disclosure ids) and adds no claim the structured
content lacks. Links are built from the package link by the one URI rule of compact answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgfegmcp.mcp.text import (
    REPHRASE_SENTENCE,
    graph_package_lines,
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
from kgfegmcp.services.views import ComponentPackageRef, ComponentsLabel, StandardRef, entity_uri


def _standard_ref(ref: StandardRef) -> str:
    """A standard an answer refers to: its code (with its node id where the code alone does not select it, its
    node id alone when it has no code) and its grade labels."""
    grades = ", ".join(ref.grade_levels) or "no grade"
    if ref.statement_code is None:
        return f"nodeId {ref.node_id} ({grades})"
    node = f"; nodeId {ref.node_id}" if ref.code_selects is False else ""
    return f"{ref.statement_code} ({grades}{node})"


def _supports(count: int, named: Sequence[StandardRef] | None) -> str:
    """What a component supports: the standards named (a search hit's first ones) and how many more, else a count."""
    if named is None:
        return f"supports {count} standard" + ("" if count == 1 else "s")
    if not named:
        return "supports no standard"
    listed = ", ".join(_standard_ref(ref) for ref in named)
    if count == 1:
        return f"supports {listed}"
    more = f" and {count - len(named)} more" if count > len(named) else ""
    return f"supports {count} standards: {listed}{more}"


def _component(
    component: LearningComponentRecord, package: int | None = None, supported: Sequence[StandardRef] | None = None
) -> str:
    """A component whole, with its node id, what it supports (``supported``: the standards a hit names), its
    attribution index and package number."""
    subject = f"{component.academic_subject}; " if component.academic_subject else ""
    where = f"; package {package}" if package is not None else ""
    credit = f"; attribution {component.attribution}" if component.attribution is not None else ""
    return (
        f"{statement_text(component)} (learning component; {subject}nodeId {component.node_id}; "
        f"{_supports(component.supports_count, supported)}{credit}{where})"
    )


def _confidence(value: float | None) -> str:
    return "not stated" if value is None else f"{value:g}"


def _shown(returned: int, total: int) -> str:
    omitted = total - returned
    return f"{returned} shown" + (f", {omitted} omitted by the limit." if omitted else ".")


def _attribution_lines(attributions: Sequence[ComponentAttribution]) -> list[str]:
    """Who authored and licensed the components, each distinct attribution once, verbatim, by its index
    (a component's ``attribution``)."""
    lines = []
    for index, a in enumerate(attributions):
        parts = [
            f"author {a.author}" if a.author else "",
            f"provider {a.provider}" if a.provider and a.provider != a.author else "",
            f"licence: {a.license}" if a.license else "",
            f"attribution: {a.attribution_statement}" if a.attribution_statement else "",
        ]
        lines.append(f"Components attribution {index}: " + " | ".join(p for p in parts if p))
    return lines


def _production(label: ComponentsLabel | None) -> str:
    """How components were produced, in a few words (the structured ``components`` of their package)."""
    if label is None:
        return "none in this package"
    return f"{label.production} by {label.source} ({label.epistemic_status})"


def _production_lines(packages: Sequence[ComponentPackageRef]) -> list[str]:
    """Each package's component production once (numbered like the package lines when there are several)."""
    return [f"Package {p.number} components: {_production(p.components)}." for p in packages]


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
            lines.append(f"Query words {unknown_terms_phrase(reading.unknown_terms, reading.nearest_words)}{where}.")
    lines += [f"{hit.rank}. {_component(hit, hit.package, hit.supported_standards)}" for hit in result.hits]
    lines.append("A component's resource is its package link + /learning-component/<nodeId>.")
    lines += warning_lines(result.warnings)
    lines += _tail(result.nature, result.attributions, result.packages)
    if any(r.unknown_terms for r in result.interpretation):
        lines.append(REPHRASE_SENTENCE)
    return "\n".join(lines)


def get_learning_component(result: LearningComponentDetail) -> str:
    """One component, its link and the ids of its supports relationships."""
    component = result.component
    lines = [_component(component), f"Resource: {component.uri} (provenance: add /provenance)"]
    if component.tags:
        lines.append(f"Tags: {', '.join(component.tags)}")
    for support in result.supports:
        code = f"{support.standard_statement_code} " if support.standard_statement_code else ""
        grades = ", ".join(support.standard_grade_levels) or "no grade"
        lines.append(
            f"Supports standard {code}({grades}; nodeId {support.standard_node_id}) via relationship "
            f"{support.relationship_id} (supportConfidence {_confidence(support.support_confidence)})"
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
    lines += graph_package_lines(result.package) + _tail(result.nature, result.attributions, [result.package])
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


def _heading_line(node: ContextNodeView) -> str:
    """A context node whole: the framework root by name, a heading like a standard (code, text, type, grades)."""
    if node.kind == "framework":
        return f"framework root: {statement_text(node)} (nodeId {node.node_id})"
    code = f"[{node.statement_code}] " if node.statement_code else ""
    grades = ", ".join(node.grade_levels or []) or "no grade"
    return f"{code}{statement_text(node)} ({node.statement_type}; {grades}; nodeId {node.node_id})"


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
        subjects = f"; subjects {', '.join(section.academic_subjects)}" if section.academic_subjects else ""
        searched = f"; query {section.query!r}" if section.query else ""
        lines.append(
            f"== Package {section.package.number}, {package}{searched}{grades}{subjects}: {section.total_matches} "
            "match(es), "
            f"{len(section.candidates)} shown"
        )
        reading = section.interpretation
        if reading is not None and reading.unknown_terms:
            lines.append(f"   query words {unknown_terms_phrase(reading.unknown_terms, reading.nearest_words)}")
        if section.context_nodes:
            lines.append("Headings the candidates sit under, each once:")
            lines += [f"- {_heading_line(node)}" for node in section.context_nodes]
        for candidate in section.candidates:
            cited = standard_line(candidate.standard, by_code=True)
            lines.append(f"{candidate.rank}. {cited} [{candidate.match_type}]")
            lines.append(
                "   under (nodeIds, root first): "
                + (" > ".join(candidate.context) or "no parent")
                + ("" if candidate.context_complete else f" (+{candidate.other_parent_chains} other parent chain(s))")
            )
            if candidate.unresolved_references:
                lines.append(f"   unresolved references concerning it: {candidate.unresolved_references}")
        lines += warning_lines(section.warnings, package)
    lines += package_lines([section.package for section in result.frameworks])
    if any(s.interpretation is not None and s.interpretation.unknown_terms for s in result.frameworks):
        lines.append(REPHRASE_SENTENCE)
    return "\n".join(lines)
