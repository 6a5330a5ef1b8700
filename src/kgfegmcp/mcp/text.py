"""Deterministic text summaries of tool results, for hosts that pass only text to the model.

Summaries restate structured evidence; they never add a claim the structured content lacks, and they
never clip a statement: each standard (and heading, and component) is given whole, once, with its code,
statement type, grade labels and node id, through :func:`statement_text`. Each package is named once,
in a block that gives its licence, its attribution statement verbatim, its manifest, what the answer was
built from and its disclosure ids with the link where they are in full.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from kgfegmcp.services.frameworks import (
    CapabilitiesResult,
    FilterValuesView,
    FrameworkDetail,
    FrameworkSummary,
    ListFrameworksResult,
    StatisticsResult,
)
from kgfegmcp.services.standards import (
    QueryInterpretationView,
    SearchHitView,
    SearchStandardsResult,
    StandardContextResult,
    StandardDetail,
)
from kgfegmcp.services.views import (
    DisclosureView,
    FrameworkRootRef,
    PackageRef,
    ResultWarning,
    StandardRecord,
)

#: What a line shows instead of a statement's text its package's rights withhold (the package line says why).
WITHHELD_MARKER = "[text withheld]"


class HasText(Protocol):
    """A record that carries a statement's or component's text, absent when its rights withhold it."""

    @property
    def description(self) -> str | None: ...


def statement_text(record: HasText) -> str:
    """The text of a statement or component as every summary prints it: whole, or the withheld marker.

    Every summary takes statement text through here, so none can print text a package's rights withhold.
    """
    return record.description if record.description is not None else WITHHELD_MARKER


def withheld_lines(packages: Iterable[PackageRef]) -> list[str]:
    """One line per package whose rights withhold statement text: its notice code and why."""
    return [
        f"Package {p.graph_package_id}: {p.text_withheld.code}: {p.text_withheld.reason}"
        for p in packages
        if p.text_withheld is not None
    ]


def standard_line(standard: StandardRecord, package: int | None = None) -> str:
    """One standard in its own terms: code, text, statement type, grade labels, node id (and package number)."""
    code = f"[{standard.statement_code}] " if standard.statement_code else ""
    grades = ", ".join(standard.grade_levels) or "no grade"
    retired = "; not current" if standard.is_current is False else ""
    where = f"; package {package}" if package is not None else ""
    return (
        f"{code}{statement_text(standard)} ({standard.statement_type}; {grades}; nodeId {standard.node_id}"
        f"{retired}{where})"
    )


def node_line(node: StandardRecord | FrameworkRootRef) -> str:
    """A hierarchy node: a standard's line, or the framework root by name and node id."""
    if isinstance(node, FrameworkRootRef):
        return f"framework root: {node.name} (nodeId {node.node_id})"
    return standard_line(node)


def package_lines(packages: Sequence[PackageRef]) -> list[str]:
    """Each package once, by its number: id, labels, licence, attribution verbatim, manifest, what the answer
    was built from, and its disclosure ids with the link where they are in full."""
    lines: list[str] = []
    for p in packages:
        lines.append(f"Package {p.number}: {p.graph_package_id} ({_labels(p)}); licence {p.license}.")
        lines.extend(package_detail_lines(p))
    return lines + withheld_lines(packages)


def package_detail_lines(p: PackageRef) -> list[str]:
    """A package's attribution, manifest and built-from files, disclosures (and where a link's provenance is)."""
    built = p.built_from
    files = f"nodes {built.nodes}, relationships {built.relationships}, entityProvenance {built.entity_provenance}"
    if built.lc_entity_provenance:
        files += f", lcEntityProvenance {built.lc_entity_provenance}"
    lines = [
        f"  Attribution: {p.attribution}",
        f"  Manifest {p.manifest_uri}; built from {files}, profile {built.profile}.",
        f"  {_disclosures(p)}: read at {p.uri} (or get_framework) before citing."
        if p.disclosure_ids
        else f"  No disclosures; package resource {p.uri}.",
    ]
    if p.link_provenance:
        lines.append(f"  A link's provenance: {p.link_provenance}")
    return lines


def _labels(package: PackageRef) -> str:
    """The epistemic labels of the package's standards (and links), as its ``labels`` say them."""
    labels = package.labels
    return f"standards {labels.standards}" + (f", links {labels.links}" if labels.links else "")


def _disclosures(package: PackageRef) -> str:
    return f"Disclosures {', '.join(package.disclosure_ids) or 'none'}"


def warning_lines(warnings: Iterable[ResultWarning], package: str | None = None) -> list[str]:
    """Warnings are evidence: one line each, with the package they concern."""
    return [f"Warning {w.code} ({w.graph_package_id or package or 'all'}): {w.message}" for w in warnings]


def disclosure_lines(disclosures: Iterable[DisclosureView]) -> list[str]:
    """Each distinct disclosure in full (get_framework only)."""
    # Two profiles may reuse an id with different text: say both (keying on the id alone dropped one).
    seen: dict[tuple[str, str], None] = {}
    for disclosure in disclosures:
        seen.setdefault((disclosure.disclosure_id, disclosure.text), None)
    return [f"Disclosure {disclosure_id}: {text}" for disclosure_id, text in seen]


def _framework_line(summary: FrameworkSummary) -> str:
    return (
        f"{summary.title} ({summary.jurisdiction}; {summary.academic_subject}; "
        f"{summary.in_language}; {summary.standards_items} standards items, {summary.learning_components} "
        f"learning components, {summary.learning_progression_links} progression links; "
        f"contains {', '.join(summary.graph_types.contains)}{'' if summary.is_current else '; not current'})"
    )


def _package_entry(summary: FrameworkSummary) -> list[str]:
    """A catalog entry: the package line with what it holds, then its block."""
    return [
        f"Package {summary.number}: {summary.graph_package_id} — {_framework_line(summary)}; {_labels(summary)}; "
        f"licence {summary.license}.",
        *package_detail_lines(summary),
    ]


def list_frameworks(result: ListFrameworksResult) -> str:
    lines = [f"{len(result.frameworks)} of {result.total} accepted packages (more: {result.page.has_more})."]
    for summary in result.frameworks:
        lines += _package_entry(summary)
    lines += withheld_lines(result.frameworks)
    return "\n".join(lines)


def get_framework(result: FrameworkDetail) -> str:
    rights = result.rights
    lines = [
        *_package_entry(result.framework),
        f"Source: {result.source.name} {result.source.version}",
        f"Source licence: {rights.source_license}",
        f"Validation: {result.validation.get('status')} (validator {result.validation.get('validatorVersion')})",
        *(disclosure_lines(result.disclosures)),
        *withheld_lines([result.framework]),
        *_filter_value_lines(result.filter_values),
    ]
    return "\n".join(lines)


def _filter_value_lines(values: FilterValuesView) -> list[str]:
    """The values filters accept, each as the source writes it with its normalised form (either is accepted)."""

    def pair(source: str, normal: str | None) -> str:
        return f"{source} ({normal})" if normal and normal != source else source

    lines = [
        "Filter values (the source term or the form in brackets; anything else is refused):",
        "- gradeLevels: " + (", ".join(pair(g.label, g.facet) for g in values.grade_levels) or "none"),
        "- statementTypes: " + ", ".join(pair(t.type, t.normalized) for t in values.statement_types),
        "- academicSubjects: " + ", ".join(values.academic_subjects),
    ]
    if values.component_subjects is not None:
        lines.append("- learning components' academicSubjects: " + ", ".join(values.component_subjects))
    return lines


def get_capabilities(result: CapabilitiesResult) -> str:
    lines = [
        "Server: read-only evidence; no model calls, no embeddings or semantic search; "
        f"search modes {', '.join(result.server.search_modes)}; "
        f"{result.server.accepted_packages} accepted packages."
    ]
    for package in result.packages:
        enabled = [name for name, on in sorted(package.capabilities.to_wire().items()) if on]
        supports = ", ".join(enabled) or "no optional capabilities"
        lines.append(
            f"Package {package.number}: {package.graph_package_id}: {supports}; "
            f"hierarchy {package.hierarchy_rule} (max depth {package.max_hierarchy_depth}); {_labels(package)}; "
            f"licence {package.license}."
        )
        lines += package_detail_lines(package)
    lines += withheld_lines(result.packages)
    return "\n".join(lines)


def get_framework_statistics(result: StatisticsResult) -> str:
    standards, components, links = result.standards, result.learning_components, result.learning_progressions
    lines = [
        f"Statistics for {result.package.graph_package_id}",
        f"Standards: {standards.items} items ({standards.standards} standards, {standards.groupings} "
        f"groupings), {standards.multi_parent_items} with several parents.",
        "By statement type: " + "; ".join(f"{t['sourceType']} {t['items']}" for t in standards.by_statement_type),
        "Standards by grade: "
        + ("; ".join(f"{g['sourceLabel']} {g['standards']}" for g in standards.standards_by_grade_level) or "none"),
        f"Learning components (separate from standards): {components.components} components, "
        f"{components.supports_relationships} supports links to {components.standards_with_components} standards.",
        f"Learning progressions: buildsTowards {links.builds_towards}, relatesTo {links.relates_to}.",
        f"Unresolved items: {result.unresolved_items}.",
        *package_lines([result.package]),
    ]
    return "\n".join(lines)


def unknown_terms_phrase(terms: Sequence[str]) -> str:
    """Words found nowhere in the packages searched, and what to do about them."""
    return f"{', '.join(terms)} found nowhere here (rephrase in the framework's own words)"


def _reading(reading: QueryInterpretationView, several: bool) -> str:
    """How one group of packages read the query, compactly."""
    parts = [f"searched {', '.join(reading.searched_terms) or 'no terms'} ({reading.analysis})"]
    if reading.grades:
        how = "a preference" if reading.grades_as == "preference" else "ignored: a grade filter was given"
        parts.append(f"grades {', '.join(reading.grades)} as {how}")
    if reading.dropped_words:
        parts.append(f"dropped {', '.join(reading.dropped_words)}")
    if reading.unknown_terms:
        parts.append(unknown_terms_phrase(reading.unknown_terms))
    where = f" in {', '.join(reading.graph_package_ids)}" if several and reading.graph_package_ids else ""
    return "; ".join(parts) + where


def _hit_line(hit: SearchHitView) -> str:
    """A hit: its rank, the whole standard (its package by number when the page has several) and how it matched."""
    how = f" [{hit.match_type or hit.coverage}]" if hit.match_type or hit.coverage else ""
    return f"{hit.rank}. {standard_line(hit, hit.package)}{how}"


def search_standards(result: SearchStandardsResult) -> str:
    first = result.hits[0].rank if result.hits else 0
    last = result.hits[-1].rank if result.hits else 0
    matched = result.matched
    counts = [
        f"{n} {what}"
        for n, what in (
            (matched.code, "by code"),
            (matched.all_terms, "with every term"),
            (matched.some_terms, "with some terms"),
        )
        if n
    ]
    several = len(result.packages) > 1
    # How the query was read, when that says more than the query itself: named grades, dropped words,
    # words found nowhere, or several readings. The structured content always has it.
    informative = several or any(r.grades or r.dropped_words or r.unknown_terms for r in result.interpretation)
    named = several or len(result.interpretation) > 1
    readings = [_reading(reading, named) for reading in result.interpretation] if informative else []
    lines = [
        f"{result.total} standards match {result.query!r} ({'; '.join([result.search_mode, *readings, *counts])})"
        + (f"; {first}-{last}:" if result.hits else "; none on this page.")
    ]
    if not result.total:
        lines.append("A zero-result page means only that this lexical expression did not match these packages.")
    lines += [_hit_line(hit) for hit in result.hits]
    lines += warning_lines(result.warnings)
    lines += package_lines(result.packages)
    return "\n".join(lines)


def get_standard(result: StandardDetail) -> str:
    standard = result.standard
    details = [f"language {standard.in_language}"]
    if standard.academic_subject:
        details.insert(0, f"subject {standard.academic_subject}")
    lines = [
        standard_line(standard),
        f"Resource: {standard.uri} (provenance: add /provenance); {'; '.join(details)}.",
        *([f"Notes: {standard.notes}"] if standard.notes else []),
        *([f"CASE URI: {standard.case_identifier_uri}"] if standard.case_identifier_uri else []),
        *(f"Parent: {node_line(parent)}" for parent in result.parents),
        f"Children: {result.child_count}",
        *package_lines([result.package]),
    ]
    return "\n".join(lines)


def get_standard_context(result: StandardContextResult) -> str:
    lines = [
        standard_line(result.standard),
        *(f"Parent: {node_line(parent)}" for parent in result.parents),
        *(f"Child: {standard_line(child)}" for child in result.children),
        f"Ancestors beyond the parents: {len(result.ancestors)} (complete: {result.ancestors_complete})"
        + (":" if result.ancestors else "."),
        *(f"- depth {node.depth}: {node_line(node)}" for node in result.ancestors),
        f"Descendants beyond the children: {len(result.descendants)} (complete: {result.descendants_complete})"
        + (":" if result.descendants else "."),
        *(f"- depth {node.depth}: {standard_line(node)}" for node in result.descendants),
        f"Root paths: {len(result.root_paths)} (complete: {result.root_paths_complete}), by nodeId, root first:",
        *(f"Path {index}: " + " > ".join(path.node_ids) for index, path in enumerate(result.root_paths, start=1)),
        *(f"On a path: {node_line(node)}" for node in result.path_nodes),
    ]
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
    return "\n".join(lines)
