"""Result models of the five learning-progression tools (what their canonical JSON contains)."""

from __future__ import annotations

from typing import Literal

from kgfegmcp.graph.progressions import (
    PathReason,
    TraversalReason,
)
from kgfegmcp.services.ceiling import RESULT_MAX_BYTES, RESULT_MAX_CHARS
from kgfegmcp.services.views import (
    DisclosureView,
    PackageIdentity,
    ResultModel,
    StandardView,
)

#: Candidates examined per page of the two paged tools.
MAX_CANDIDATES = 5_000
#: Coverage notices listed per result; the rest are counted as omitted.
MAX_COVERAGE_NOTICES = 20

PageStop = Literal["limit", "exhausted", "byte_limit", "candidate_limit"]
NoticeCategory = Literal["judgement_warning", "coverage_notice"]


class ProgressionEndpoint(ResultModel):
    """A standard at one end of a link: enough to read it, with its resource link."""

    node_id: str
    statement_code: str | None = None
    description: str
    statement_type: str
    grade_levels: list[str]
    uri: str


class ProgressionLinkView(ResultModel):
    """One stored link with the links needed to cite it and open its evidence."""

    relationship_id: str
    link_type: str
    source_node_id: str
    target_node_id: str
    unresolved_status: str | None = None
    uri: str
    relationship_uri: str


class DirectLinkView(ProgressionLinkView):
    """A link of the selected standard, seen from it, with the standard at its other end."""

    direction: Literal["outgoing", "incoming"]
    counterpart: ProgressionEndpoint


class DiscoveredLinkView(ProgressionLinkView):
    """A link found by discovery, with both of its standards."""

    source: ProgressionEndpoint
    target: ProgressionEndpoint


class ProgressionNotice(ResultModel):
    """A judgement warning or a coverage notice: keep it with the evidence it qualifies."""

    code: str
    category: NoticeCategory
    message: str
    node_id: str | None = None
    reference: str | None = None
    status: str | None = None
    relationship_label: str | None = None
    unresolved_id: str | None = None
    uri: str | None = None


class NoticeSummary(ResultModel):
    """Warnings and notices listed, with how many exist and how many were left out."""

    items: list[ProgressionNotice]
    total: int
    omitted: int


class ProgressionPage(ResultModel):
    """Where a progression page stands, and why it stopped."""

    limit: int
    returned: int
    has_more: bool
    next_cursor: str | None = None
    stopped_by: PageStop
    candidates_examined: int
    max_candidates: int = MAX_CANDIDATES


class ResultCeilingView(ResultModel):
    """The ceiling every progression result is held to (text block plus structured content)."""

    max_chars: int = RESULT_MAX_CHARS
    max_bytes: int = RESULT_MAX_BYTES


class LearningProgressionResult(ResultModel):
    """One exact stored link with both standards in full."""

    link: ProgressionLinkView
    provenance_part_uri: str | None
    source: StandardView
    target: StandardView
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageIdentity
    disclosures: list[DisclosureView]


class StandardProgressionsResult(ResultModel):
    """One page of a standard's direct links, buildsTowards before relatesTo."""

    standard: StandardView
    direction: str
    link_types: list[str]
    links: list[DirectLinkView]
    total_links: int
    page: ProgressionPage
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageIdentity
    disclosures: list[DisclosureView]


class ProgressionFilters(ResultModel):
    """The discovery filters as applied."""

    query: str | None = None
    grade_levels: list[str] | None = None
    academic_subjects: list[str] | None = None
    link_types: list[str]


class SearchProgressionsResult(ResultModel):
    """One page of links discovered inside one package."""

    filters: ProgressionFilters
    match_rule: str
    links: list[DiscoveredLinkView]
    page: ProgressionPage
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageIdentity
    disclosures: list[DisclosureView]


class TraversalNodeView(ProgressionEndpoint):
    """A reached standard and its shortest distance from the start."""

    depth: int


class TraversalEdgeView(ProgressionLinkView):
    """A followed link, seen from the node it was followed from."""

    from_node_id: str
    direction: Literal["outgoing", "incoming"]


class FrontierView(ResultModel):
    """A returned standard whose stored links of the requested kinds are not all in the result."""

    node_id: str
    depth: int
    unreturned_links: int
    reason: Literal["max_depth", "not_expanded"]


class TraversalLimitsView(ResultModel):
    """The bounds this traversal ran under."""

    max_depth: int
    max_nodes: int
    max_edges: int
    max_admissions: int


class TraversalCounters(ResultModel):
    """What the traversal did (``…Reached``/``…Followed``/``…Expanded``/admissions) and what the result holds."""

    nodes_reached: int
    edges_followed: int
    nodes_expanded: int
    work_admissions: int
    nodes_returned: int
    edges_returned: int
    frontier_nodes: int
    max_depth_returned: int


class TraversalResult(ResultModel):
    """Bounded traversal evidence; completeness is stated, never implied."""

    start: StandardView
    direction: str
    link_types: list[str]
    limits: TraversalLimitsView
    nodes: list[TraversalNodeView]
    edges: list[TraversalEdgeView]
    frontier: list[FrontierView]
    scope_complete: bool
    graph_exhausted: bool
    truncation_reasons: list[TraversalReason]
    counters: TraversalCounters
    interpretation: str
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageIdentity
    disclosures: list[DisclosureView]


class PathView(ResultModel):
    """One directed path: node ids from start to end, and the relationship id of each link."""

    rank: int
    length: int
    node_ids: list[str]
    relationship_ids: list[str]


class UnreturnedPathView(ResultModel):
    """The next path found that did not fit in this result."""

    length: int
    node_ids: list[str]
    relationship_ids: list[str]


class PathLimitsView(ResultModel):
    """The bounds this path search ran under."""

    max_depth: int
    max_paths: int
    max_admissions: int


class PathCounters(ResultModel):
    """What the path search did."""

    paths_returned: int
    path_admissions: int
    nodes_examined: int
    links_examined: int


class PathsResult(ResultModel):
    """Bounded directed buildsTowards paths between two standards of one package."""

    from_standard: StandardView
    to_standard: StandardView
    limits: PathLimitsView
    paths: list[PathView]
    nodes: list[ProgressionEndpoint]
    links: list[ProgressionLinkView]
    search_complete: bool
    paths_complete: bool
    more_paths_exist: bool
    truncation_reasons: list[PathReason]
    next_unreturned_path: UnreturnedPathView | None = None
    counters: PathCounters
    interpretation: str
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageIdentity
    disclosures: list[DisclosureView]


# -- shared helpers ----------------------------------------------------------------------------
