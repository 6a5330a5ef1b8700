"""Deterministic text summaries of tool results, for hosts that pass only text to the model.

Summaries restate structured evidence; they never add a claim the structured content lacks, and they
never clip a statement: each standard (and heading, and component) is given whole, once, with its code,
statement type, grade labels and an id the follow-up tools take (its code where the code alone selects
it, else its node id), through :func:`statement_text`. Each package is named once, on a line that gives
its licence, link, manifest, what the answer was built from and its disclosure ids, with its attribution
statement verbatim on the next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from kgfegmcp.services.frameworks import (
    CapabilitiesResult,
    FilterValuesView,
    FrameworkDetail,
    FrameworkSummary,
    ListFrameworksResult,
    PackageCapabilities,
    StatisticsResult,
)
from kgfegmcp.services.graph_packages import GraphComponentPackageRef, GraphPackageRef
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
    SourceLocation,
    StandardRecord,
)

P = TypeVar("P", bound=PackageRef)

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


def standard_line(standard: StandardRecord, package: int | None = None, *, by_code: bool = False) -> str:
    """One standard in its own terms: code, text, statement type, grade labels, node id (and package number).

    ``by_code``: the line is cited by its code where the code alone selects the standard (the follow-up
    tools take ``statementCode``), by node id otherwise. Lines that other lines refer to by node id (a
    context's root paths, a comparison's headings) keep the node id.
    """
    code = f"[{standard.statement_code}] " if standard.statement_code else ""
    grades = ", ".join(standard.grade_levels) or "no grade"
    cited_by_code = by_code and standard.statement_code is not None and standard.code_selects is None
    node = "" if cited_by_code else f"; nodeId {standard.node_id}"
    retired = "; not current" if standard.is_current is False else ""
    where = f"; package {package}" if package is not None else ""
    return f"{code}{statement_text(standard)} ({standard.statement_type}; {grades}{node}{retired}{where})"


def node_line(node: StandardRecord | FrameworkRootRef) -> str:
    """A hierarchy node: a standard's line, or the framework root by name and node id."""
    if isinstance(node, FrameworkRootRef):
        return f"framework root: {node.name} (nodeId {node.node_id})"
    return standard_line(node)


#: Said once under an answer's package lines: where a package's disclosures are in full.
DISCLOSURE_SENTENCE = "Read a package's disclosures at its link (or get_framework) before citing it."


def package_lines(packages: Sequence[P], held: Callable[[P], str] | None = None) -> list[str]:
    """Each package once, by its number: its line and attribution (:func:`package_detail_lines`; ``held``
    says what a catalog entry holds), then the one sentence on disclosures and any withheld-text notice."""
    lines = [line for p in packages for line in package_detail_lines(p, held(p) if held else "")]
    if any(p.disclosure_ids for p in packages):
        lines.append(DISCLOSURE_SENTENCE)
    return lines + withheld_lines(packages)


def package_detail_lines(p: PackageRef, held: str = "") -> list[str]:
    """A package on one line (number, id, what it holds when ``held`` says, licence, labels, link, manifest,
    the files the answer was built from, disclosure ids), its attribution verbatim on the next, the operator's
    rights decision when one applies, and where a link's provenance is when the answer carries links."""
    built = p.built_from
    files = f"nodes {built.nodes}, relationships {built.relationships}, entityProvenance {built.entity_provenance}"
    if built.lc_entity_provenance:
        files += f", lcEntityProvenance {built.lc_entity_provenance}"
    disclosures = f"; disclosures {', '.join(p.disclosure_ids)}" if p.disclosure_ids else "; no disclosures"
    lines = [
        f"Package {p.number}: {p.graph_package_id}{held} (licence {p.license}; {_labels(p)}) at {p.uri} "
        f"(manifest: add /manifest); built from {files}, profile {built.profile}{disclosures}.",
        f"  Attribution: {p.attribution}",
    ]
    if p.operator_review:
        lines.append(f"  Rights: the operator's decision, review state {p.operator_review}.")
    if p.link_provenance:
        lines.append(f"  A link's provenance: {p.link_provenance}")
    return lines


def graph_package_lines(package: GraphPackageRef | GraphComponentPackageRef) -> list[str]:
    """What a graph answer's package block adds: the grades its standards carry, in the framework's order and
    by the names its profile gives them, and whether the package has progression links and components at all."""
    named = [
        grade.label if grade.display == grade.label else f"{grade.label} = {grade.display}" for grade in package.grades
    ]
    holds = package.holds
    lines = [f"Grades in this answer, in the framework's order: {', '.join(named)}."] if named else []
    lines.append(
        f"Package {package.number} holds progression links: {yes_no(holds.progression_links)}; "
        f"learning components: {yes_no(holds.learning_components)}."
    )
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


def yes_no(flag: bool) -> str:
    """A flag as the word a model would quote (never Python's ``True``/``False``)."""
    return "yes" if flag else "no"


def _framework_line(summary: FrameworkSummary) -> str:
    return (
        f"{summary.title} ({summary.jurisdiction}; {summary.academic_subject}; "
        f"{summary.in_language}; {summary.standards_items} standards items, {summary.learning_components} "
        f"learning components, {summary.learning_progression_links} progression links; "
        f"contains {', '.join(summary.graph_types.contains)}{'' if summary.is_current else '; not current'})"
    )


def _holds(summary: FrameworkSummary) -> str:
    """What a catalog entry's package line says it holds, after the ids the other tools take."""
    return f" (frameworkId {summary.framework_id}, snapshotId {summary.snapshot_id}) — {_framework_line(summary)}"


def list_frameworks(result: ListFrameworksResult) -> str:
    lines = [f"{len(result.frameworks)} of {result.total} accepted packages (more: {yes_no(result.page.has_more)})."]
    return "\n".join(lines + package_lines(result.frameworks, _holds))


def get_framework(result: FrameworkDetail) -> str:
    rights = result.rights
    lines = [
        *package_detail_lines(result.framework, _holds(result.framework)),
        f"Source: {result.source.name} {result.source.version}",
        f"Source licence: {rights.source_license}",
        f"Validation: {result.validation.get('status')} ({_validated_by(result.validation)})",
        *(disclosure_lines(result.disclosures)),
        *withheld_lines([result.framework]),
        *_filter_value_lines(result.filter_values),
    ]
    return "\n".join(lines)


def _validated_by(validation: dict[str, str | None]) -> str:
    """Who reached the recorded verdict: this server's validator, or a supplying pipeline (then when)."""
    if validation.get("validatorVersion") is None and validation.get("validatedAt"):
        return f"by its supplying pipeline, {validation['validatedAt']}; every rule here at load"
    return f"validator {validation.get('validatorVersion')}"


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


def _supports(package: PackageCapabilities) -> str:
    """What a capabilities entry's package line says the package supports, after the ids the other tools take."""
    enabled = [name for name, on in sorted(package.capabilities.to_wire().items()) if on]
    supports = ", ".join(enabled) or "no optional capabilities"
    ids = f" (frameworkId {package.framework_id}, snapshotId {package.snapshot_id})"
    return f"{ids}: {supports}; hierarchy {package.hierarchy_rule} (max depth {package.max_hierarchy_depth})"


def get_capabilities(result: CapabilitiesResult) -> str:
    lines = [
        "Server: read-only evidence; no model calls, no embeddings or semantic search; "
        f"search modes {', '.join(result.server.search_modes)}; "
        f"{result.server.accepted_packages} accepted packages."
    ]
    lines += package_lines(result.packages, _supports)
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


def unknown_terms_phrase(terms: Sequence[str], nearest: Mapping[str, Sequence[str]] | None = None) -> str:
    """Words found nowhere in the packages searched, each with the framework's nearest words where it has any
    (shown, not searched; the answer's last line says what to do about them)."""
    near = nearest or {}
    return "not found: " + ", ".join(
        f"{term} (the framework writes: {', '.join(near[term])})" if near.get(term) else term for term in terms
    )


#: Said once when a query word occurs nowhere in a package searched: query expansion is the host's.
REPHRASE_SENTENCE = "Words not found occur nowhere in that framework: rephrase them in its own vocabulary."


def _reading(reading: QueryInterpretationView, several: bool) -> str:
    """How one group of packages read the query, compactly. With several readings each gives only what is
    worth saying (grades, dropped words, words found nowhere) and where; the structured content has all."""
    parts = []
    if reading.grades:
        how = "preferred" if reading.grades_as == "preference" else "ignored (a grade filter was given)"
        parts.append(f"grades {', '.join(reading.grades)} {how}")
    if reading.subjects:
        how = "preferred" if reading.subjects_as == "preference" else "ignored (a subject filter was given)"
        parts.append(f"subjects {', '.join(reading.subjects)} {how}")
    if reading.request_words:
        parts.append(f"set aside as the request's own {', '.join(reading.request_words)}")
    if reading.dropped_words:
        parts.append(f"dropped {', '.join(reading.dropped_words)}")
    if reading.related_forms:
        parts.append(f"searched by related forms {', '.join(reading.related_forms)}")
    if reading.unknown_terms:
        parts.append(unknown_terms_phrase(reading.unknown_terms, reading.nearest_words))
    if not parts:
        return ""
    if several:
        return f"in {', '.join(_framework_ids(reading.graph_package_ids or []))}: " + ", ".join(parts)
    return f"searched {', '.join(reading.searched_terms) or 'no terms'} ({reading.analysis}), " + ", ".join(parts)


def _framework_ids(graph_package_ids: Sequence[str]) -> list[str]:
    """Packages named by framework id (``<frameworkId>@<snapshotId>`` cut at ``@``) where that is unambiguous."""
    frameworks = [graph_id.split("@", 1)[0] for graph_id in graph_package_ids]
    return list(graph_package_ids) if len(set(frameworks)) < len(frameworks) else frameworks


#: How a search hit matched, said once above the hits that matched so.
HOW_MATCHED = {
    "all_terms": "With every term",
    "some_terms": "With some terms",
    "phrase": "As a phrase",
    "code_exact": "By exact code",
    "code_prefix": "By code prefix",
    "derived_parent_code": "By the parent code derived from the query",
}


def _hit_lines(hits: Sequence[SearchHitView]) -> list[str]:
    """Each hit, its rank and the whole standard (cited by code where the code selects it, its package by
    number when the page has several); how the hits matched is said once above each run of like hits."""
    lines: list[str] = []
    said = None
    for hit in hits:
        how = hit.match_type or hit.coverage
        if how != said and how is not None:
            lines.append(f"{HOW_MATCHED.get(how, how)}:")
            said = how
        lines.append(f"{hit.rank}. {standard_line(hit, hit.package, by_code=True)}{_matched(hit)}")
    return lines


def _matched(hit: SearchHitView) -> str:
    """What a text hit matched, where the query does not say it all: a hit that matched only through its
    headings says so; one whose own text holds only some terms names them, and those only in its headings."""
    heading = ", ".join(hit.heading_terms or ())
    if hit.matched_in == "heading":
        return f" (matched only in its heading: {heading})"
    if not hit.matched_terms:
        return ""
    own = f"matched: {', '.join(hit.matched_terms)}"
    return f" ({own}; only in its heading: {heading})" if heading else f" ({own})"


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
    # How the query was read, when that says more than the query itself: named grades, dropped words,
    # words found nowhere. The structured content always has every reading.
    several = len(result.interpretation) > 1
    readings = [text for text in (_reading(r, several) for r in result.interpretation) if text]
    lines = [
        f"{result.total} standards match {result.query!r} ({'; '.join([result.search_mode, *counts])})"
        + (f"; {first}-{last}:" if result.hits else "; none on this page.")
    ]
    if readings:
        lines.append("Query: " + "; ".join(readings) + ".")
    if not result.total:
        lines.append("A zero-result page means only that this lexical expression did not match these packages.")
    lines += _hit_lines(result.hits)
    lines += warning_lines(result.warnings)
    lines += package_lines(result.packages)
    if any(r.unknown_terms for r in result.interpretation):
        lines.append(REPHRASE_SENTENCE)
    return "\n".join(lines)


def source_location(location: SourceLocation) -> str:
    """A page citation: the file, its page(s) and the numbers printed on them."""
    pages = f"page{'s' if len(location.pages) > 1 else ''} {', '.join(str(p) for p in location.pages)}"
    numbers = location.printed_pages or []
    printed = f" (printed page{'s' if len(numbers) > 1 else ''} {', '.join(numbers)})" if numbers else ""
    return f"{location.document}, {pages}{printed}"


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
        *([f"Printed in: {source_location(standard.source_location)}."] if standard.source_location else []),
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
        f"Ancestors beyond the parents: {len(result.ancestors)} (complete: {yes_no(result.ancestors_complete)})"
        + (":" if result.ancestors else "."),
        *(f"- depth {node.depth}: {node_line(node)}" for node in result.ancestors),
        f"Descendants beyond the children: {len(result.descendants)} (complete: {yes_no(result.descendants_complete)})"
        + (":" if result.descendants else "."),
        *(f"- depth {node.depth}: {standard_line(node)}" for node in result.descendants),
        f"Root paths: {len(result.root_paths)} (complete: {yes_no(result.root_paths_complete)}), "
        "by nodeId, root first:",
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
    lines += graph_package_lines(result.package) + package_lines([result.package])
    return "\n".join(lines)
