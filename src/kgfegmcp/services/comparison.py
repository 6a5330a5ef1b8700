"""Cross-framework evidence without graph merging: independent bounded retrieval inside each package.

Each selected framework is searched on its own (the same ranking as search_standards, find_standards), its
quota applied independently, and each candidate returned with its parent chain inside its own
package (node ids; each context node is described once per framework). Nothing is ranked, aligned,
matched or scored across frameworks: the result is candidate evidence for review, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.epistemic import COMPARISON_CANDIDATE
from kgfegmcp.core.errors import InvalidComparisonSelectionError
from kgfegmcp.core.notice_codes import NoticeCode
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.search.service import SearchFilters, find_standards, require_servable
from kgfegmcp.services.filter_values import WHERE_LISTED, FilterKind, require_known, standards_accepted
from kgfegmcp.services.requests import CompareFrameworkEvidenceRequest
from kgfegmcp.services.standards import QueryInterpretationView, interpretation_views
from kgfegmcp.services.views import (
    PackageRef,
    ResultModel,
    ResultWarning,
    StandardRecord,
    permitted_text,
)

REVIEW_NOTICE = (
    "These are candidates retrieved independently inside each framework, for review. The server asserts no "
    "alignment, equivalence, grade correspondence, prerequisite or score across frameworks; scores are local "
    "to one package and are not comparable between packages. No link between frameworks is created."
)
#: Upper bound on a candidate's parent chain (profiles allow hierarchies of at most 64 levels).
MAX_CONTEXT_DEPTH = 64


class ContextNodeView(ResultModel):
    """One ancestor of candidates inside its own package, described once per framework."""

    node_id: str
    kind: Literal["framework", "item"]
    statement_code: str | None = None
    statement_type: str | None = None
    grade_levels: list[str] | None = Field(None, description="Items: the source grade labels (left out when none).")
    description: str | None = None  # the framework's name at the root; absent only under textWithheld


class ComparisonCandidate(ResultModel):
    """One standard retrieved in one framework, with its parent chain (ids into the section's contextNodes)."""

    rank: int
    match_type: str
    package_local_score: float
    standard: StandardRecord
    context: list[str] = Field(description="Node ids from the framework root down to the parent (contextNodes).")
    context_complete: bool
    other_parent_chains: int
    unresolved_references: int


class FrameworkEvidence(ResultModel):
    """One framework's independently retrieved candidates, its warnings and its package named once."""

    package: PackageRef
    query: str | None = Field(None, description="The query this framework was searched with, when queries gave one.")
    grade_levels: list[str] | None = None
    academic_subjects: list[str] | None = None
    interpretation: QueryInterpretationView | None = Field(
        None,
        description="How this framework's profile read the query (language, grade words); absent for code search.",
    )
    candidates: list[ComparisonCandidate]
    total_matches: int
    context_nodes: list[ContextNodeView] = Field(description="Every node the candidates' context names, once.")
    warnings: list[ResultWarning]


class ComparisonResult(ResultModel):
    """Per-framework candidate evidence, never a cross-framework conclusion."""

    query: str | None = Field(None, description="The query of every framework without its own (sections say theirs).")
    search_mode: str
    max_matches_per_framework: int
    frameworks: list[FrameworkEvidence]
    alignment_asserted: Literal[False] = False
    candidate_status: Literal["retrieval_candidate"] = Field(
        COMPARISON_CANDIDATE, description="Epistemic status of every candidate: retrieved, not asserted to align."
    )
    review_notice: str = REVIEW_NOTICE


@dataclass(frozen=True, slots=True)
class FrameworkSelection:
    """One selected package and the facet filters that apply in it (its own entry's, else the shared ones)."""

    package: ServedPackage
    grades: list[str] | None
    subjects: list[str] | None

    def values(self, kind: FilterKind) -> list[str] | None:
        return self.grades if kind == "grade" else self.subjects


#: Per facet kind: the per-framework field, its values' field, and why a framework names its own values
#: (grades may also be shared, as gradeLevels; subjects are given per framework only).
_FACET_FIELDS: dict[FilterKind, tuple[str, str, str]] = {
    "grade": ("frameworkGradeLevels", "gradeLevels", "Grade labels are local: give each framework its own labels"),
    "subject": ("frameworkAcademicSubjects", "academicSubjects", "Subjects are local: give each framework its own"),
}


class ComparisonService:
    """compare_framework_evidence over the shared catalog and search indexes."""

    def __init__(self, catalog: AcceptedCatalog) -> None:
        self._catalog = catalog

    def _select(self, request: CompareFrameworkEvidenceRequest) -> list[FrameworkSelection]:
        """One package per framework and its filters; ``invalid_comparison_selection`` when inconsistent."""
        frameworks = request.framework_ids
        if len(set(frameworks)) != len(frameworks):
            raise InvalidComparisonSelectionError(
                "frameworkIds repeats a framework; compare 2 to 8 distinct frameworks.",
                hint="Name each framework once.",
            )
        snapshots = request.snapshot_ids or []
        if len(set(snapshots)) != len(snapshots):
            raise InvalidComparisonSelectionError("snapshotIds repeats a snapshot.", hint="Name each snapshot once.")
        pinned: dict[str, ServedPackage] = {}
        for snapshot_id in snapshots:
            matching = [
                p for p in self._catalog.packages if p.snapshot_id == snapshot_id and p.framework_id in frameworks
            ]
            if not matching:
                raise InvalidComparisonSelectionError(
                    f"snapshotId {snapshot_id!r} is not an accepted snapshot of any selected framework.",
                    hint="Each snapshotId must pin one of the frameworks named in frameworkIds.",
                )
            for package in matching:
                if package.framework_id in pinned:
                    raise InvalidComparisonSelectionError(
                        f"snapshotIds pin framework {package.framework_id!r} twice; "
                        "compare one snapshot per framework.",
                        hint="Keep one snapshotId per framework.",
                    )
                pinned[package.framework_id] = package
        grades_for = self._per_framework(
            "grade", frameworks, [(e.framework_id, e.grade_levels) for e in request.framework_grade_levels or []]
        )
        subjects_for = self._per_framework(
            "subject",
            frameworks,
            [(e.framework_id, e.academic_subjects) for e in request.framework_academic_subjects or []],
        )
        if request.grade_levels is not None and len(set(request.grade_levels)) != len(request.grade_levels):
            raise InvalidComparisonSelectionError("gradeLevels repeats a grade.", hint="Name each grade once.")
        selected = []
        for framework_id in frameworks:
            package = pinned.get(framework_id) or self._catalog.resolve(framework_id)
            selected.append(
                FrameworkSelection(
                    package,
                    grades_for.get(framework_id, request.grade_levels),
                    subjects_for.get(framework_id),
                )
            )
        self._known(selected, "grade", grades_for, request.grade_levels)
        self._known(selected, "subject", subjects_for, None)
        return sorted(selected, key=lambda chosen: (chosen.package.framework_id, chosen.package.snapshot_id))

    @staticmethod
    def _per_framework(
        kind: FilterKind, frameworks: list[str], entries: list[tuple[str, list[str]]]
    ) -> dict[str, list[str]]:
        """The per-framework entries of one facet, each for a selected framework, once, without repeats."""
        field = _FACET_FIELDS[kind][0]
        per_framework: dict[str, list[str]] = {}
        for framework_id, values in entries:
            if framework_id not in frameworks:
                raise InvalidComparisonSelectionError(
                    f"{field} names {framework_id!r}, which is not in frameworkIds.",
                    hint=f"Give {kind} filters only for selected frameworks.",
                )
            if framework_id in per_framework:
                raise InvalidComparisonSelectionError(
                    f"{field} names {framework_id!r} twice.", hint="Give one entry per framework."
                )
            if len(set(values)) != len(values):
                raise InvalidComparisonSelectionError(
                    f"{field} for {framework_id!r} repeats a {kind}.", hint=f"Name each {kind} once."
                )
            per_framework[framework_id] = list(values)
        return per_framework

    @staticmethod
    def _known(
        selected: list[FrameworkSelection],
        kind: FilterKind,
        per_framework: dict[str, list[str]],
        shared: list[str] | None,
    ) -> None:
        """``invalid_request`` for a grade or subject that would leave a framework's section empty by construction.

        Each framework is searched on its own: its own entry's values must each be one of its labels, and
        the shared values must hold a label of every framework they apply to (and each value one of some
        framework), since grade labels and subjects are local to a framework.
        """
        own_field, shared_field, local = _FACET_FIELDS[kind]
        own_hint = f"{local} in {own_field} ({WHERE_LISTED})."
        for chosen in selected:
            if chosen.package.framework_id in per_framework:
                field = f"{own_field}[{chosen.package.framework_id}].{shared_field}"
                require_known(field, kind, chosen.values(kind), [standards_accepted(chosen.package, kind)], own_hint)
        sharing = [chosen.package for chosen in selected if chosen.package.framework_id not in per_framework]
        if shared is None or not sharing:
            return
        accepted = [standards_accepted(package, kind) for package in sharing]
        require_known(shared_field, kind, shared, accepted, own_hint)
        for known in accepted:
            if not any(known.accepts(value) for value in shared):
                require_known(shared_field, kind, shared, [known], own_hint)

    def compare_framework_evidence(self, request: CompareFrameworkEvidenceRequest) -> ComparisonResult:
        """Independent, bounded retrieval in each selected framework."""
        selected = self._select(request)
        require_servable([chosen.package.standards_index for chosen in selected], request.search_mode, "exact")
        return ComparisonResult(
            query=request.query,
            search_mode=request.search_mode,
            max_matches_per_framework=request.max_matches_per_framework,
            frameworks=[self._section(chosen, request, number) for number, chosen in enumerate(selected, start=1)],
        )

    def _section(
        self, chosen: FrameworkSelection, request: CompareFrameworkEvidenceRequest, number: int
    ) -> FrameworkEvidence:
        package = chosen.package
        store = package.store
        index = package.standards_index
        filters = SearchFilters(
            grade_levels=frozenset(chosen.grades or ()), academic_subjects=frozenset(chosen.subjects or ())
        )
        query = request.query_for(package.framework_id)
        outcome = find_standards(
            [index], request.words_of(query), request.search_mode, "exact", filters, request.max_matches_per_framework
        )
        warnings: list[ResultWarning] = []
        if request.search_mode in ("code", "auto") and index.codes is None:
            warnings.append(
                ResultWarning(
                    code=NoticeCode.CODE_SEARCH_UNSUPPORTED,
                    message="This framework does not support statement-code search; only its text was searched."
                    if request.search_mode == "auto"
                    else "This framework does not support statement-code search; nothing was searched in it.",
                )
            )
        for warning in outcome.warnings:
            if warning.code != NoticeCode.CODE_SEARCH_UNAVAILABLE:  # reported above as code_search_unsupported
                warnings.append(ResultWarning(code=warning.code, message=warning.message))
        unresolved = package.unresolved
        candidates = []
        incomplete = 0
        unresolved_total = 0
        context_nodes: dict[str, ContextNodeView] = {}
        for rank, hit in enumerate(outcome.hits[: request.max_matches_per_framework], start=1):
            context, complete, others = self._context(package, store, hit.item)
            concerning = len(unresolved.concerning([hit.item.identifier]))
            unresolved_total += concerning
            incomplete += 0 if complete else 1
            for node in context:
                context_nodes.setdefault(node.node_id, node)
            candidates.append(
                ComparisonCandidate(
                    rank=rank,
                    match_type=hit.match_type,
                    package_local_score=hit.score,
                    standard=StandardRecord.of(package, hit.item),
                    context=[node.node_id for node in context],
                    context_complete=complete,
                    other_parent_chains=others,
                    unresolved_references=concerning,
                )
            )
        if incomplete:
            warnings.append(
                ResultWarning(
                    code=NoticeCode.CONTEXT_INCOMPLETE,
                    message=f"{incomplete} candidate(s) sit under several parents; one parent chain is shown for "
                    "each (otherParentChains counts the rest). Call get_standard_context for every root path.",
                )
            )
        if not candidates:
            warnings.append(
                ResultWarning(
                    code=NoticeCode.NO_MATCHES,
                    message="No standard of this framework matched the query and filters. This means only that "
                    "the lexical expression did not match here, not that the framework lacks the idea.",
                )
            )
        if unresolved_total:
            warnings.append(
                ResultWarning(
                    code=NoticeCode.UNRESOLVED_EVIDENCE_PRESENT,
                    message=f"{unresolved_total} unresolved reference(s) in this package concern the candidates "
                    "shown (see each candidate's unresolvedReferences and the package's unresolved resource).",
                )
            )
        readings = interpretation_views(outcome.interpretations, single_package=True)
        return FrameworkEvidence(
            package=PackageRef.of(package, number),
            query=query if request.queries and package.framework_id in request.queries else None,
            grade_levels=chosen.grades,
            academic_subjects=chosen.subjects,
            interpretation=readings[0] if readings else None,
            candidates=candidates,
            total_matches=outcome.total,
            context_nodes=list(context_nodes.values()),
            warnings=warnings,
        )

    @staticmethod
    def _context(package: ServedPackage, store: GraphStore, item: ItemNode) -> tuple[list[ContextNodeView], bool, int]:
        """The first-parent chain from the root down to the item's parent; complete when it is the only chain."""
        chain: list[ContextNodeView] = []
        complete = True
        others = 0
        node_id = item.identifier
        seen = {node_id}
        for _ in range(MAX_CONTEXT_DEPTH):
            parents = store.parents(node_id)
            if not parents:
                break
            if len(parents) > 1:
                complete = False
                others += len(parents) - 1
            node_id = parents[0]
            if node_id in seen:  # validation forbids hierarchy cycles; never loop if one slipped through
                complete = False
                break
            seen.add(node_id)
            parent = store.item(node_id)
            if parent is None:
                chain.append(ContextNodeView(node_id=node_id, kind="framework", description=package.framework.name))
                break
            chain.append(
                ContextNodeView(
                    node_id=node_id,
                    kind="item",
                    statement_code=parent.statement_code,
                    statement_type=parent.statement_type,
                    grade_levels=list(parent.grade_level) or None,
                    description=permitted_text(package, parent.description),
                )
            )
        else:
            complete = False
        chain.reverse()
        return chain, complete, others
