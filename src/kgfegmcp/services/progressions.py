"""Stored learning progressions: the five tools' behaviour, one package at a time.

Links are read exactly as the package stores them (``buildsTowards`` and ``relatesTo`` between two
items of the same package); nothing here creates, infers or crosses links between packages. Every
result is measured as a whole (canonical JSON text plus the structured content it parses to) against
the 1 MiB / 100,000-character ceiling, so a page may hold fewer items than asked and says why it
stopped. Judgement warnings and coverage notices (such as unresolved references the package keeps)
travel with the evidence they qualify, with total and omitted counts.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import islice
from typing import TypeVar

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.core.errors import (
    CapabilityUnavailableError,
    InvalidProgressionRequestError,
    LearningProgressionNotFoundError,
)
from kgfegmcp.core.limits import MAX_PROGRESSION_CANDIDATES, MAX_QUEUE_ADMISSIONS
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.graph.progressions import (
    LABEL_ORDER,
    PathReason,
    PathSearch,
    ProgressionPath,
    ProgressionPaths,
    ProgressionTraversal,
    TraversalLimits,
    TraversalRun,
    TraversalView,
    TraversedEdge,
    incident_links,
    ordered_labels,
)
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import BUILDS_TOWARDS, ItemNode, RelationshipLabel, RelationshipRecord
from kgfegmcp.resources.policy import provenance_part_uri
from kgfegmcp.services.ceiling import ensure_fits, fit_result
from kgfegmcp.services.graph_packages import GraphPackageRef, graph_fields
from kgfegmcp.services.paging import Pager, resume_after
from kgfegmcp.services.progression_notices import coverage_notices, progression_notices
from kgfegmcp.services.progression_views import (
    FollowedLinkView,
    FrontierView,
    LearningProgressionResult,
    LinkJudgementView,
    PageStop,
    PathCounters,
    PathLimitsView,
    PathsResult,
    PathView,
    ProgressionFilters,
    ProgressionLinkView,
    ProgressionNotice,
    ProgressionPage,
    ResultCeilingView,
    SearchProgressionsResult,
    StandardProgressionsResult,
    TraversalCounters,
    TraversalLimitsView,
    TraversalNodeView,
    TraversalResult,
)
from kgfegmcp.services.requests import (
    FindLearningProgressionPathsRequest,
    GetLearningProgressionRequest,
    GetStandardProgressionsRequest,
    ProgressionLinkType,
    SearchLearningProgressionsRequest,
    TraverseLearningProgressionsRequest,
)
from kgfegmcp.services.standards import StandardsService
from kgfegmcp.services.views import (
    PackageRef,
    ResultModel,
    StandardRecord,
    StandardRef,
)

ResultT = TypeVar("ResultT", bound=ResultModel)


class ProgressionService:
    """The five progression tools over the accepted catalog's graph stores."""

    def __init__(self, catalog: AcceptedCatalog, standards: StandardsService, cursors: CursorCodec) -> None:
        self._catalog = catalog
        self._standards = standards
        self._cursors = cursors

    # -- views ---------------------------------------------------------------------------------

    def _link(self, package: ServedPackage, rel: RelationshipRecord) -> ProgressionLinkView:
        store = package.store
        return ProgressionLinkView(
            relationship_id=rel.identifier,
            link_type=rel.label,
            source_node_id=rel.source_identifier,
            source_statement_code=self._item(store, rel.source_identifier).statement_code,
            target_node_id=rel.target_identifier,
            target_statement_code=self._item(store, rel.target_identifier).statement_code,
            unresolved_status=rel.unresolved_status,
            judgement=link_judgement(package, rel),
        )

    def _records(self, package: ServedPackage, node_ids: Iterable[str]) -> list[StandardRecord]:
        """Each standard once, in first-mention order: links refer to these by node id."""
        return [StandardRecord.of(package, self._item(package.store, node)) for node in dict.fromkeys(node_ids)]

    @staticmethod
    def _item(store: GraphStore, identifier: str) -> ItemNode:
        item = store.item(identifier)
        assert item is not None  # validation guarantees progression endpoints are items
        return item

    @staticmethod
    def _kinds(link_types: list[ProgressionLinkType] | None) -> tuple[RelationshipLabel, ...]:
        if link_types is None:
            return LABEL_ORDER
        if len(set(link_types)) != len(link_types):
            raise InvalidProgressionRequestError("linkTypes repeats a value.", hint="Name each link type once.")
        return ordered_labels(link_types)

    # -- get_learning_progression ----------------------------------------------------------------

    def get_learning_progression(self, request: GetLearningProgressionRequest) -> LearningProgressionResult:
        """One exact stored link; ``learning_progression_not_found`` for anything else."""
        package = self._catalog.resolve(request.framework_id, request.snapshot_id)
        store = package.store
        rel = store.relationship(request.progression_id)
        if rel is None or rel.label not in LABEL_ORDER:
            raise LearningProgressionNotFoundError(
                f"No learning-progression link with id {request.progression_id!r} in {package.graph_package_id}.",
                hint="Use get_standard_progressions or search_learning_progressions to find link ids.",
            )
        source, target = self._item(store, rel.source_identifier), self._item(store, rel.target_identifier)
        result = LearningProgressionResult(
            link=self._link(package, rel),
            provenance_part_uri=provenance_part_uri(package.runtime, provenance_part_of(rel.identifier)),
            standards=[StandardRecord.of(package, source), StandardRecord.of(package, target)],
            warnings=progression_notices(package, [rel], [source.identifier, target.identifier], (rel.label,)),
            ceiling=ResultCeilingView(),
            package=PackageRef.of(package, links="carried"),
        )
        return ensure_fits(result, "stored link")

    # -- get_standard_progressions -------------------------------------------------------------

    def get_standard_progressions(self, request: GetStandardProgressionsRequest) -> StandardProgressionsResult:
        """A page of the standard's direct links in result order, cut to the ceiling."""
        package, item = self._standards.resolve_standard(request)
        store = package.store
        kinds = self._kinds(request.link_types)
        pager = Pager(self._cursors, ToolName.GET_STANDARD_PROGRESSIONS, request)
        total = 0
        for kind in kinds:
            if request.direction in ("out", "both"):
                total += len(store.outgoing(item.identifier, kind))
            if request.direction in ("in", "both"):
                total += len(store.incoming(item.identifier, kind))
        offset = pager.start(total).offset
        budget = min(request.limit, MAX_PROGRESSION_CANDIDATES)
        steps = list(islice(incident_links(store, item.identifier, kinds, request.direction), offset, offset + budget))
        coverage = coverage_notices(package, kinds)
        views = [self._link(package, step.relationship) for step in steps]

        def build(count: int) -> StandardProgressionsResult:
            shown = steps[:count]
            resume = resume_after(offset, count, total)
            stop: PageStop
            if count < len(steps):
                stop = "byte_limit"
            elif resume is None:
                stop = "exhausted"
            elif len(steps) == request.limit:
                stop = "limit"
            else:
                stop = "candidate_limit"
            standards = self._records(package, [item.identifier, *(s.neighbour for s in shown)])
            return StandardProgressionsResult(
                standard_node_id=item.identifier,
                direction=request.direction,
                link_types=list(kinds),
                links=views[:count],
                total_links=total,
                page=pager.page(
                    ProgressionPage,
                    resume,
                    limit=request.limit,
                    returned=count,
                    stopped_by=stop,
                    candidates_examined=count,
                ),
                standards=standards,
                warnings=progression_notices(
                    package, (s.relationship for s in shown), [item.identifier], kinds, coverage
                ),
                ceiling=ResultCeilingView(),
                package=GraphPackageRef.of(package, links="carried", **graph_fields(package, standards)),
            )

        result, _ = fit_result(build, len(steps), "link")
        return result

    # -- search_learning_progressions ----------------------------------------------------------

    def search_learning_progressions(self, request: SearchLearningProgressionsRequest) -> SearchProgressionsResult:
        """Links of one package matching every given filter (on either standard), in result order."""
        package = self._catalog.resolve(request.framework_id, request.snapshot_id)
        store = package.store
        facts = package.progression_facts
        kinds = self._kinds(request.link_types)
        grades = self._known(request.grade_levels, facts.grade_terms, "gradeLevels", "grade label or facet")
        subjects = self._known(request.academic_subjects, facts.subjects, "academicSubjects", "academic subject")
        matching_positions: set[int] | None = None
        if request.query is not None:
            index = package.standards_index.text
            if index is None:
                raise CapabilityUnavailableError(f"{package.graph_package_id} does not support lexical text search.")
            reading = package.standards_index.interpreter.interpret(
                request.words_of(request.query), recognise_grades=False
            )
            matching_positions = index.matching_positions(reading.terms)
        pager = Pager(self._cursors, ToolName.SEARCH_LEARNING_PROGRESSIONS, request)
        sequence = array("I")  # relationship positions, kind by kind, file order within each
        for kind in kinds:
            sequence += facts.links[kind]
        # A cursor resumes the scan at a link still to examine, so it points inside the sequence.
        offset = pager.start(len(sequence)).offset
        profile = package.profile.profile

        def matches(rel: RelationshipRecord) -> bool:
            ends = (self._item(store, rel.source_identifier), self._item(store, rel.target_identifier))
            if grades is not None and not any(profile.grade_terms(end.grade_level) & grades for end in ends):
                return False
            if subjects is not None and not any(
                (end.academic_subject or package.framework.academic_subject) in subjects for end in ends
            ):
                return False
            return matching_positions is None or any(
                store.item_order(end.identifier) in matching_positions for end in ends
            )

        found: list[tuple[int, RelationshipRecord]] = []
        next_match: int | None = None
        index_ = offset
        examined = 0
        while index_ < len(sequence) and examined < MAX_PROGRESSION_CANDIDATES:
            rel = store.relationship_at(sequence[index_])
            examined += 1
            if matches(rel):
                if len(found) == request.limit:
                    next_match = index_
                    break
                found.append((index_, rel))
            index_ += 1
        scan_end = index_  # first position not examined (or the peeked next match)
        exhausted = next_match is None and scan_end >= len(sequence)
        coverage = coverage_notices(package, kinds)
        filters = ProgressionFilters(
            query=request.query,
            grade_levels=request.grade_levels,
            academic_subjects=request.academic_subjects,
            link_types=list(kinds),
        )
        views = [self._link(package, rel) for _, rel in found]

        def build(count: int) -> SearchProgressionsResult:
            shown = found[:count]
            stop: PageStop
            resume: int | None
            if count < len(found):
                stop, resume = "byte_limit", found[count][0]
            elif next_match is not None:
                stop, resume = "limit", next_match
            elif exhausted:
                stop, resume = "exhausted", None
            else:
                stop, resume = "candidate_limit", scan_end
            links = views[:count]
            ends = [node for _, rel in shown for node in (rel.source_identifier, rel.target_identifier)]
            return SearchProgressionsResult(
                filters=filters,
                match_rule=(
                    "A link matches when every given filter holds for its source or its target standard; "
                    "a standard matches the text query as in search_standards (lexical, accent-insensitive, by stem, "
                    "stop words dropped) when it holds at least one searched word; grade words stay text here."
                ),
                links=links,
                page=pager.page(
                    ProgressionPage,
                    resume,
                    limit=request.limit,
                    returned=count,
                    stopped_by=stop,
                    candidates_examined=examined,
                ),
                standards=self._records(package, ends),
                warnings=progression_notices(package, (rel for _, rel in shown), ends, kinds, coverage),
                ceiling=ResultCeilingView(),
                package=PackageRef.of(package, links="carried"),
            )

        result, _ = fit_result(build, len(found), "link")
        return result

    @staticmethod
    def _known(values: list[str] | None, known: frozenset[str], field_name: str, what: str) -> frozenset[str] | None:
        if values is None:
            return None
        if len(set(values)) != len(values):
            raise InvalidProgressionRequestError(f"{field_name} repeats a value.", hint="Name each value once.")
        unknown = [v for v in values if v not in known]
        if unknown:
            sample = ", ".join(sorted(known)[:24])
            raise InvalidProgressionRequestError(
                f"{field_name} names {', '.join(repr(v) for v in unknown[:5])}, not a {what} of this package.",
                hint=f"Use this package's own terms, for example: {sample}.",
            )
        return frozenset(values)

    # -- traverse_learning_progressions --------------------------------------------------------

    def traverse_learning_progressions(self, request: TraverseLearningProgressionsRequest) -> TraversalResult:
        """Bounded breadth-first traversal; completeness computed from what the result holds."""
        package, item = self._standards.resolve_standard(request)
        store = package.store
        kinds = self._kinds(request.link_types)
        limits = TraversalLimits(request.max_depth, request.max_nodes, request.max_edges)
        traversal = ProgressionTraversal(store)
        run = traversal.run(item.identifier, kinds, request.direction, limits)
        coverage = coverage_notices(package, kinds)
        # Each reached standard's node, built once; a trial cut adds the links it followed from there.
        reached = {
            n.node_id: TraversalNodeView.of(package, self._item(store, n.node_id), depth=n.depth) for n in run.nodes
        }
        # A link is listed under the node it was followed from, so that node's id is not repeated per link;
        # its direction is the traversal's own unless it ran both ways (then it is said per link).
        both = request.direction == "both"
        followed = [(e.from_node, self._followed(package, e, both)) for e in run.edges]

        def build(count: int) -> TraversalResult:
            view = traversal.view(run, count)
            by_node: dict[str, list[FollowedLinkView]] = {}
            for from_node, link in followed[:count]:
                by_node.setdefault(from_node, []).append(link)
            nodes = [
                reached[n.node_id].model_copy(update={"followed": by_node[n.node_id]})
                if n.node_id in by_node
                else reached[n.node_id]
                for n in view.nodes
            ]
            return self._traversal_result(package, run, view, nodes, coverage)

        result, _ = fit_result(build, len(run.edges), "link")
        return result

    def _followed(self, package: ServedPackage, edge: TraversedEdge, both: bool) -> FollowedLinkView:
        """A followed link, to the other end's node id and code."""
        rel = edge.relationship
        other = rel.target_identifier if edge.direction == "out" else rel.source_identifier
        return FollowedLinkView(
            relationship_id=rel.identifier,
            link_type=rel.label,
            to=other,
            to_statement_code=self._item(package.store, other).statement_code,
            direction=edge.direction if both else None,
            unresolved_status=rel.unresolved_status,
            judgement=link_judgement(package, rel),
        )

    def _traversal_result(
        self,
        package: ServedPackage,
        run: TraversalRun,
        view: TraversalView,
        nodes: list[TraversalNodeView],
        coverage: list[ProgressionNotice],
    ) -> TraversalResult:
        if view.graph_exhausted:
            interpretation = (
                "Every stored link of the requested kinds and direction reachable from the start is in this "
                "result (within this package; links never cross packages)."
            )
        elif view.scope_complete:
            interpretation = (
                f"Everything within {run.limits.max_depth} links of the start is in this result; the frontier "
                "lists standards with further links beyond that depth, which were not followed."
            )
        else:
            interpretation = (
                "This traversal stopped at a bound before covering its depth: links beyond the frontier were not "
                "examined, so an absent standard or link is not evidence that none exists."
            )
        return TraversalResult(
            direction=run.direction,
            link_types=list(run.labels),
            limits=TraversalLimitsView(
                max_depth=run.limits.max_depth,
                max_nodes=run.limits.max_nodes,
                max_edges=run.limits.max_edges,
                max_admissions=run.limits.max_admissions,
            ),
            nodes=nodes,
            frontier=FrontierView(
                not_expanded={f.node_id: f.unreturned_links for f in view.frontier if f.reason == "not_expanded"}
                or None,
                max_depth={f.node_id: f.unreturned_links for f in view.frontier if f.reason == "max_depth"} or None,
            ),
            scope_complete=view.scope_complete,
            graph_exhausted=view.graph_exhausted,
            truncation_reasons=list(view.truncation_reasons),
            counters=TraversalCounters(
                nodes_reached=len(run.nodes),
                edges_followed=len(run.edges),
                nodes_expanded=run.expanded,
                work_admissions=run.admissions,
                nodes_returned=len(view.nodes),
                edges_returned=len(view.edges),
                frontier_nodes=len(view.frontier),
                max_depth_returned=view.max_depth_reached,
            ),
            interpretation=interpretation,
            warnings=progression_notices(
                package, (e.relationship for e in view.edges), [n.node_id for n in view.nodes], run.labels, coverage
            ),
            ceiling=ResultCeilingView(),
            package=GraphPackageRef.of(package, links="carried", **graph_fields(package, nodes)),
        )

    # -- find_learning_progression_paths -------------------------------------------------------

    def find_learning_progression_paths(self, request: FindLearningProgressionPathsRequest) -> PathsResult:
        """Shortest-first directed buildsTowards paths; a path that does not fit stops with ``byte_limit``."""
        package, source = self._standards.resolve_standard(request.from_)
        target_runtime, target = self._standards.resolve_standard(request.to)
        if target_runtime.graph_package_id != package.graph_package_id:
            raise InvalidProgressionRequestError(
                f"from is in {package.graph_package_id} and to is in {target_runtime.graph_package_id}: "
                "paths follow stored links inside one package and never cross packages.",
                hint="Select two standards of the same framework snapshot.",
            )
        if source.identifier == target.identifier:
            raise InvalidProgressionRequestError(
                "from and to select the same standard; a path joins two different standards.",
                hint="Use get_standard_progressions for one standard's links.",
            )
        store = package.store
        search = ProgressionPaths(store).find(
            source.identifier, target.identifier, request.max_depth, request.max_paths, MAX_QUEUE_ADMISSIONS
        )
        coverage = coverage_notices(package, (BUILDS_TOWARDS,))
        ends = (source.identifier, target.identifier)
        records: dict[str, StandardRecord] = {
            node: StandardRecord.of(package, self._item(store, node)) for node in ends
        }
        links: dict[str, ProgressionLinkView] = {}
        for path in search.paths:
            for node in path.node_ids:
                if node not in records:
                    records[node] = StandardRecord.of(package, self._item(store, node))
            for rel in path.relationships:
                if rel.identifier not in links:
                    links[rel.identifier] = self._link(package, rel)

        def build(count: int) -> PathsResult:
            return self._paths_result(package, request, search, count, ends, coverage, records, links)

        result, _ = fit_result(build, len(search.paths), "path")
        return result

    def _paths_result(
        self,
        package: ServedPackage,
        request: FindLearningProgressionPathsRequest,
        search: PathSearch,
        count: int,
        ends: tuple[str, str],
        coverage: list[ProgressionNotice],
        records: dict[str, StandardRecord],
        links: dict[str, ProgressionLinkView],
    ) -> PathsResult:
        shown = search.paths[:count]
        node_order: dict[str, None] = dict.fromkeys(ends)
        link_order: dict[str, RelationshipRecord] = {}
        for path in shown:
            node_order.update(dict.fromkeys(path.node_ids))
            link_order.update({rel.identifier: rel for rel in path.relationships})
        cut = count < len(search.paths)
        reasons: list[PathReason] = list(search.truncation_reasons)
        if cut:
            reasons.append("byte_limit")
        unreturned: ProgressionPath | None = search.paths[count] if cut else None
        if shown:
            interpretation = (
                "Each path chains stored buildsTowards links of this package, shortest first; the source asserts "
                "each link, not the path as a teaching sequence."
            )
        elif search.search_complete:
            interpretation = (
                f"No directed buildsTowards path of at most {request.max_depth} links joins these standards in "
                "this package. Longer paths were not searched and links in other packages are never followed, "
                "so this is not evidence that the standards are unrelated."
            )
        else:
            interpretation = (
                "The search stopped at a bound before finding a path; this is not evidence that no path exists."
            )
        notices = progression_notices(
            package,
            (rel for path in shown for rel in path.relationships),
            list(node_order),
            (BUILDS_TOWARDS,),
            coverage,
        )
        standards = [records[node] for node in node_order]
        next_path = self._path_view(package, unreturned) if unreturned is not None else None
        return PathsResult(
            from_node_id=ends[0],
            to_node_id=ends[1],
            limits=PathLimitsView(
                max_depth=request.max_depth, max_paths=request.max_paths, max_admissions=MAX_QUEUE_ADMISSIONS
            ),
            paths=[self._path_view(package, path) for path in shown],
            standards=standards,
            links=[links[rel_id] for rel_id in link_order],
            search_complete=search.search_complete,
            paths_complete=search.search_complete and not cut,
            more_paths_exist=search.more_paths_exist or cut,
            truncation_reasons=reasons,
            next_unreturned_path=next_path,
            counters=PathCounters(
                paths_returned=len(shown),
                path_admissions=search.admissions,
                nodes_examined=search.nodes_examined,
                links_examined=search.links_examined,
            ),
            interpretation=interpretation,
            warnings=notices,
            ceiling=ResultCeilingView(),
            package=GraphPackageRef.of(
                package, links="carried", **graph_fields(package, [*standards, *(next_path.steps if next_path else ())])
            ),
        )

    def _path_view(self, package: ServedPackage, path: ProgressionPath) -> PathView:
        """A path by its steps (node id, code and grade labels each) and its links' ids."""
        return PathView(
            steps=[StandardRef.of(package, self._item(package.store, node)) for node in path.node_ids],
            relationship_ids=[rel.identifier for rel in path.relationships],
        )


def link_judgement(package: ServedPackage, rel: RelationshipRecord) -> LinkJudgementView | None:
    """The judgement the package records for a link (a supplied package's model judgements), or ``None``."""
    judgement = package.runtime.link_judgements.get(rel.identifier)
    if judgement is None:
        return None
    return LinkJudgementView(
        confidence=judgement.confidence,
        rationale=judgement.rationale,
        rationale_excerpted=True if judgement.rationale_excerpted else None,
    )
