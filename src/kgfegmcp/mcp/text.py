"""Deterministic text summaries of tool results, for hosts that pass only text to the model.

Summaries restate structured evidence; they never add a claim the structured content lacks. Each
package is named once, on one line that also gives its disclosure ids and the link where they are
in full. Search hits show a standard's text clipped (``…``): the whole text is in the structured
content and in ``get_standard``; every other summary gives it whole.
"""

from __future__ import annotations

from collections import Counter
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

#: The one sentence about disclosures when an answer lists several packages (each with its ids and link).
DISCLOSURE_SENTENCE = "Read a package's disclosures at its link (or get_framework) before citing its evidence."
#: Characters of a standard's text shown in a search summary (the structured hit holds it whole).
SNIPPET_CHARS = 32


def clipped(text: str, limit: int) -> str:
    """``text`` cut at a word boundary within ``limit`` characters, marked with ``…`` when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:.") + "…"


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


def standard_line(standard: StandardRecord) -> str:
    """One standard in its own terms: code, text, statement type, grade labels and node id."""
    code = f"[{standard.statement_code}] " if standard.statement_code else ""
    grades = ", ".join(standard.grade_levels) or "no grade"
    retired = "; not current" if standard.is_current is False else ""
    text = statement_text(standard)
    return f"{code}{text} ({standard.statement_type}; {grades}; nodeId {standard.node_id}{retired})"


def _node_line(node: StandardRecord | FrameworkRootRef) -> str:
    if isinstance(node, FrameworkRootRef):
        return f"framework root: {node.name} (nodeId {node.node_id})"
    return standard_line(node)


def package_lines(packages: Sequence[PackageRef]) -> list[str]:
    """Each package once: its id, its disclosure ids and the link where they are in full, in one sentence.

    Several packages are numbered from 1, so hit lines name theirs by :func:`package_label`.
    """
    if len(packages) == 1 and packages[0].disclosure_ids:
        (p,) = packages
        return [
            f"Package {p.graph_package_id} ({_labels(p)}): read its disclosures {', '.join(p.disclosure_ids)} at "
            f"{p.uri} before citing.",
            *withheld_lines(packages),
        ]
    lines = [
        f"Package {index}: {p.graph_package_id} ({p.uri}; {_labels(p)}): {_disclosures(p)}."
        for index, p in enumerate(packages, start=1)
    ]
    if any(p.disclosure_ids for p in packages):
        lines.append(DISCLOSURE_SENTENCE)
    return lines + withheld_lines(packages)


def package_label(index: int | None) -> str | None:
    """How a hit line names its package (``index`` into the answer's packages): by its number."""
    return None if index is None else f"package {index + 1}"


def _labels(package: PackageRef) -> str:
    """The epistemic labels of the package's standards (and links), as its ``labels`` say them."""
    labels = package.labels
    return f"standards {labels.standards}" + (f", links {labels.links}" if labels.links else "")


def _disclosures(package: PackageRef) -> str:
    return f"disclosures {', '.join(package.disclosure_ids) or 'none'}"


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
        f"{summary.graph_package_id} — {summary.title} ({summary.jurisdiction}; {summary.academic_subject}; "
        f"{summary.in_language}; {summary.standards_items} standards items, {summary.learning_components} "
        f"learning components, {summary.learning_progression_links} progression links; "
        f"contains {', '.join(summary.graph_types.contains)}{'' if summary.is_current else '; not current'})"
    )


def list_frameworks(result: ListFrameworksResult) -> str:
    lines = [f"{len(result.frameworks)} of {result.total} accepted packages (more: {result.page.has_more})."]
    # Each listed package is one line: what it holds, its disclosure ids and its link.
    lines += [f"- {_framework_line(f)}; {_disclosures(f)}: {f.uri}" for f in result.frameworks]
    if any(f.disclosure_ids for f in result.frameworks):
        lines.append(DISCLOSURE_SENTENCE)
    lines += withheld_lines(result.frameworks)
    return "\n".join(lines)


def get_framework(result: FrameworkDetail) -> str:
    rights = result.rights
    lines = [
        _framework_line(result.framework),
        f"Source: {result.source.name} {result.source.version}",
        f"Licence: {rights.source_license}",
        f"Attribution: {rights.attribution_statement}",
        f"Validation: {result.validation.get('status')} (validator {result.validation.get('validatorVersion')})",
        f"Package {result.framework.graph_package_id} ({result.framework.uri}); manifest "
        f"{result.framework.manifest_uri}.",
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
        lines.append(
            f"- {package.graph_package_id}: {', '.join(enabled) or 'no optional capabilities'}; "
            f"hierarchy {package.hierarchy_rule} (max depth {package.max_hierarchy_depth}); "
            f"{_disclosures(package)}: {package.uri}"
        )
    if any(p.disclosure_ids for p in result.packages):
        lines.append(DISCLOSURE_SENTENCE)
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


def _hit_line(hit: SearchHitView, package: str | None, cite_by_id: bool) -> str:
    """A hit as a search summary shows it: code, grades, the start of its text; the node id where the code
    cannot select it (no code, or a code another hit on the page shares)."""
    code = hit.statement_code or "(no code)"
    details = ", ".join(hit.grade_levels) or "no grade"
    if cite_by_id:
        details += f"; nodeId {hit.node_id}"
    if package:
        details += f"; {package}"
    how = f" [{hit.match_type}]" if hit.match_type else ""
    return f"{hit.rank}. {code} ({details}){how}: {clipped(statement_text(hit), SNIPPET_CHARS)}"


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
        + (f"; {first}-{last}, text clipped:" if result.hits else "; none on this page.")
    ]
    if not result.total:
        lines.append("A zero-result page means only that this lexical expression did not match these packages.")
    codes = Counter(hit.statement_code for hit in result.hits)
    for hit in result.hits:
        package = package_label(hit.package)
        cite_by_id = hit.statement_code is None or codes[hit.statement_code] > 1
        lines.append(_hit_line(hit, package, cite_by_id))
    lines += warning_lines(result.warnings)
    lines += package_lines(result.packages)
    return "\n".join(lines)


def get_standard(result: StandardDetail) -> str:
    standard = result.standard
    lines = [
        standard_line(standard),
        f"Resource: {standard.uri} (provenance: add /provenance)",
        *(f"Parent: {_node_line(parent)}" for parent in result.parents),
        f"Children: {result.child_count}",
        *package_lines([result.package]),
    ]
    return "\n".join(lines)


def get_standard_context(result: StandardContextResult) -> str:
    lines = [
        standard_line(result.standard),
        *(f"Parent: {_node_line(parent)}" for parent in result.parents),
        *(f"Child: {standard_line(child)}" for child in result.children),
        f"Ancestors beyond the parents: {len(result.ancestors)} (complete: {result.ancestors_complete}); "
        f"descendants beyond the children: {len(result.descendants)} (complete: {result.descendants_complete}).",
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
    return "\n".join(lines)
