"""Deterministic text summaries of tool results, for hosts that pass only text to the model.

Summaries restate structured evidence; they never add a claim the structured content lacks.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgfegmcp.services.frameworks import (
    CapabilitiesResult,
    FrameworkDetail,
    FrameworkSummary,
    ListFrameworksResult,
    StatisticsResult,
)
from kgfegmcp.services.standards import (
    SearchStandardsResult,
    StandardContextResult,
    StandardDetail,
)
from kgfegmcp.services.views import (
    DisclosureView,
    FrameworkRootView,
    PackageIdentity,
    ResultWarning,
    StandardView,
)


def standard_line(standard: StandardView) -> str:
    """One standard in its own terms, with its node id and package."""
    code = f"[{standard.statement_code}] " if standard.statement_code else ""
    grades = ", ".join(g.source_label for g in standard.grade_levels) or "no grade"
    return (
        f"{code}{standard.description} ({standard.statement_type.source_type}; {grades}; "
        f"nodeId {standard.node_id}; {standard.graph_package_id})"
    )


def _node_line(node: StandardView | FrameworkRootView) -> str:
    if isinstance(node, FrameworkRootView):
        return f"framework root: {node.name} (nodeId {node.node_id})"
    return standard_line(node)


def package_lines(packages: Iterable[PackageIdentity]) -> list[str]:
    """The short package identity of each package a result came from."""
    return [
        f"Package {p.graph_package_id}: manifest {p.manifest_uri}; nodes sha256 {p.nodes.sha256[:16]}…, "
        f"profile {p.profile.profile_id} {p.profile.version}"
        for p in packages
    ]


def warning_lines(warnings: Iterable[ResultWarning]) -> list[str]:
    """Warnings are evidence: one line each, with the package they concern."""
    return [f"Warning {w.code} ({w.graph_package_id or 'all'}): {w.message}" for w in warnings]


def disclosure_lines(disclosures: Iterable[DisclosureView]) -> list[str]:
    """Each distinct disclosure once."""
    # Several packages may share a disclosure: say it once. Two profiles may reuse an id with
    # different text: say both (keying on the id alone silently dropped one of them).
    seen: dict[tuple[str, str], None] = {}
    for disclosure in disclosures:
        seen.setdefault((disclosure.disclosure_id, disclosure.text), None)
    return [f"Disclosure: {text}" for _, text in seen]


def _framework_line(summary: FrameworkSummary) -> str:
    return (
        f"{summary.graph_package_id} — {summary.title} ({summary.jurisdiction}; {summary.academic_subject}; "
        f"{summary.in_language}; {summary.standards_items} standards items, {summary.learning_components} "
        f"learning components, {summary.learning_progression_links} progression links; "
        f"contains {', '.join(summary.graph_types.contains)}{'' if summary.is_current else '; not current'})"
    )


def list_frameworks(result: ListFrameworksResult) -> str:
    lines = [f"{result.page.returned} of {result.total} accepted packages (more: {result.page.has_more})."]
    lines += [f"- {_framework_line(f)}" for f in result.frameworks]
    lines += package_lines(result.packages)
    lines += disclosure_lines(result.disclosures)
    return "\n".join(lines)


def get_framework(result: FrameworkDetail) -> str:
    rights = result.rights
    lines = [
        _framework_line(result.framework),
        f"Source: {result.source.get('name')} {result.source.get('version')}",
        f"Licence: {rights.get('sourceLicense')}",
        f"Attribution: {rights.get('attributionStatement')}",
        f"Validation: {result.validation.get('status')} (validator {result.validation.get('validatorVersion')})",
        *(package_lines([result.package])),
        *(disclosure_lines(result.disclosures)),
    ]
    return "\n".join(lines)


def get_capabilities(result: CapabilitiesResult) -> str:
    lines = [
        "Server: read-only evidence; no model calls, no embeddings or semantic search; "
        f"search modes {', '.join(result.server['searchModes'])}; "
        f"{result.server['acceptedPackages']} accepted packages."
    ]
    for package in result.packages:
        enabled = [name for name, on in sorted(package.capabilities.items()) if on]
        lines.append(
            f"- {package.graph_package_id}: {', '.join(enabled) or 'no optional capabilities'}; "
            f"hierarchy {package.hierarchy_rule} (max depth {package.max_hierarchy_depth})"
        )
    lines += package_lines(p.package for p in result.packages)
    lines += disclosure_lines(d for p in result.packages for d in p.disclosures)
    return "\n".join(lines)


def get_framework_statistics(result: StatisticsResult) -> str:
    standards, components, links = result.standards, result.learning_components, result.learning_progressions
    lines = [
        f"Statistics for {result.package.graph_package_id}",
        f"Standards: {standards['items']} items ({standards['standards']} standards, {standards['groupings']} "
        f"groupings), {standards['multiParentItems']} with several parents.",
        "By statement type: " + "; ".join(f"{t['sourceType']} {t['items']}" for t in standards["byStatementType"]),
        "Standards by grade: "
        + ("; ".join(f"{g['sourceLabel']} {g['standards']}" for g in standards["standardsByGradeLevel"]) or "none"),
        f"Learning components (separate from standards): {components['components']} components, "
        f"{components['supportsRelationships']} supports links to {components['standardsWithComponents']} standards.",
        f"Learning progressions: buildsTowards {links['buildsTowards']}, relatesTo {links['relatesTo']}.",
        f"Unresolved items: {result.unresolved_items}.",
        *(disclosure_lines(result.disclosures)),
    ]
    return "\n".join(lines)


def search_standards(result: SearchStandardsResult) -> str:
    first = result.hits[0].rank if result.hits else 0
    last = result.hits[-1].rank if result.hits else 0
    lines = [
        f"{result.total} standards match {result.query!r} ({result.search_mode}); "
        + (f"showing {first}-{last}." if result.hits else "none on this page.")
    ]
    if not result.total:
        lines.append("A zero-result page means only that this lexical expression did not match these packages.")
    lines += [f"{hit.rank}. {standard_line(hit.standard)} [{hit.match_type}]" for hit in result.hits]
    lines += warning_lines(result.warnings)
    lines += package_lines(result.packages)
    lines += disclosure_lines(result.disclosures)
    return "\n".join(lines)


def get_standard(result: StandardDetail) -> str:
    lines = [
        standard_line(result.standard),
        f"Resource: {result.standard.uri}",
        f"Provenance: {result.standard.provenance_uri}",
        *(f"Parent: {_node_line(parent)}" for parent in result.parents),
        f"Children: {result.child_count}",
        *(package_lines([result.package])),
        *(disclosure_lines(result.disclosures)),
    ]
    return "\n".join(lines)


def get_standard_context(result: StandardContextResult) -> str:
    lines = [
        standard_line(result.standard),
        *(f"Parent: {_node_line(parent)}" for parent in result.parents),
        *(f"Child: {standard_line(child)}" for child in result.children),
        f"Ancestors returned: {len(result.ancestors)} (complete: {result.ancestors_complete}); "
        f"descendants returned: {len(result.descendants)} (complete: {result.descendants_complete}).",
        f"Root paths: {len(result.root_paths)} (complete: {result.root_paths_complete}).",
    ]
    for index, path in enumerate(result.root_paths, start=1):
        lines.append(f"Path {index}: " + " > ".join(path.node_ids))
    if result.truncated:
        lines.append(
            "Truncated by "
            + ", ".join(result.truncation_reasons)
            + ": do not treat this as complete hierarchy evidence."
        )
    direct = result.direct_relationships
    lines.append(
        f"Other relationships: {direct.learning_components_supporting} supporting learning components; "
        f"buildsTowards {direct.builds_towards_outgoing} out / {direct.builds_towards_incoming} in; "
        f"relatesTo {direct.relates_to_outgoing} out / {direct.relates_to_incoming} in."
    )
    lines += package_lines([result.package])
    lines += disclosure_lines(result.disclosures)
    return "\n".join(lines)
