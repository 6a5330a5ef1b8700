"""Result models of the five learning-progression tools (what their canonical JSON contains).

Each result names every standard once (``standards``, or ``nodes`` in a traversal) and its package
once (``package``); links and path steps refer to standards by node id, each with its code, so a model
follows them without matching ids. A link's resources follow the package's URI rule:
``<package uri>/learning-progression/<relationshipId>`` and ``…/relationship/<relationshipId>``
(see :class:`~kgfegmcp.services.views.PackageRef`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from kgfegmcp.core.epistemic import UNRESOLVED_REFERENCE
from kgfegmcp.core.limits import MAX_PROGRESSION_CANDIDATES
from kgfegmcp.core.notice_codes import NoticeCode
from kgfegmcp.core.rendering import RESULT_MAX_BYTES, RESULT_MAX_CHARS
from kgfegmcp.graph.progressions import (
    LinkDirection,
    PathReason,
    TraversalReason,
)
from kgfegmcp.services.graph_packages import GraphPackageRef
from kgfegmcp.services.paging import PageInfo
from kgfegmcp.services.views import (
    PackageRef,
    ResultModel,
    StandardRecord,
    StandardRef,
)

#: Coverage notices listed per result; the rest are counted as omitted.
MAX_COVERAGE_NOTICES = 20

PageStop = Literal["limit", "exhausted", "byte_limit", "candidate_limit"]
NoticeCategory = Literal["judgement_warning", "coverage_notice"]


class LinkJudgementView(ResultModel):
    """What the model that made a link said of it, as its package records it (``llm_inferred`` links only)."""

    confidence: float | None = Field(
        None, description="The model's confidence, 0..1: a judgement, not a calibrated probability."
    )
    rationale: str | None = Field(None, description="The model's reason (its first 512 characters).")
    rationale_excerpted: bool | None = Field(
        None, description="True when the reason is longer; the link's provenance resource holds it whole."
    )


class _LabelledLink(ResultModel):
    """A link is labelled as its package declares (``package.labels.links``) unless it is unresolved."""

    unresolved_status: str | None = None
    epistemic_status: Literal["unresolved"] | None = None
    judgement: LinkJudgementView | None = None

    @model_validator(mode="before")
    @classmethod
    def _unresolved_is_labelled(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("unresolved_status", data.get("unresolvedStatus")) is not None:
            return {**data, "epistemic_status": UNRESOLVED_REFERENCE}
        return data


class ProgressionLinkView(_LabelledLink):
    """One stored link, by its relationship id and its two standards' node ids, each with its code."""

    relationship_id: str
    link_type: str
    source_node_id: str
    source_statement_code: str | None = Field(None, description="Left out when the source standard has no code.")
    target_node_id: str
    target_statement_code: str | None = Field(None, description="Left out when the target standard has no code.")


class ProgressionNotice(ResultModel):
    """A judgement warning or a coverage notice: keep it with the evidence it qualifies.

    An unresolved reference is described in the package's unresolved report (``<package uri>/unresolved``).
    """

    code: NoticeCode
    category: NoticeCategory
    message: str
    node_id: str | None = None
    reference: str | None = None
    status: str | None = None
    relationship_label: str | None = None
    unresolved_id: str | None = None
    epistemic_status: Literal["unresolved"] | None = None


class NoticeSummary(ResultModel):
    """Warnings and notices listed, with how many exist and how many were left out."""

    items: list[ProgressionNotice]
    total: int
    omitted: int


class ProgressionPage(PageInfo):
    """Where a progression page stands, and why it stopped."""

    stopped_by: PageStop
    candidates_examined: int
    max_candidates: int = MAX_PROGRESSION_CANDIDATES


class ResultCeilingView(ResultModel):
    """The ceiling every progression result is held to (text block plus structured content)."""

    max_chars: int = RESULT_MAX_CHARS
    max_bytes: int = RESULT_MAX_BYTES


class LearningProgressionResult(ResultModel):
    """One exact stored link with both of its standards."""

    link: ProgressionLinkView
    provenance_part_uri: str | None = Field(
        None, description="Left out where the rights do not let a client read the part."
    )
    standards: list[StandardRecord] = Field(description="The link's source, then its target.")
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageRef


class StandardProgressionsResult(ResultModel):
    """One page of a standard's direct links, buildsTowards before relatesTo.

    A link is outgoing when its source is the selected standard, incoming when its target is.
    """

    standard_node_id: str = Field(description="The selected standard (first in standards).")
    direction: str
    link_types: list[str]
    links: list[ProgressionLinkView]
    total_links: int
    page: ProgressionPage
    standards: list[StandardRecord] = Field(description="The selected standard, then every counterpart once.")
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: GraphPackageRef


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
    links: list[ProgressionLinkView]
    page: ProgressionPage
    standards: list[StandardRecord] = Field(description="Every standard the links join, once, in link order.")
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: PackageRef


class FollowedLinkView(_LabelledLink):
    """A stored link the traversal followed from the standard it is listed under, to the standard ``to``."""

    relationship_id: str
    link_type: str
    to: str = Field(description="Node id of the other end: the link's target when followed out, else its source.")
    to_statement_code: str | None = Field(None, description="The other end's code; left out when it has none.")
    direction: LinkDirection | None = Field(
        None, description="Given only when the traversal ran both ways; otherwise it is the traversal's direction."
    )


class TraversalNodeView(StandardRecord):
    """A reached standard, its shortest distance from the start and the links followed from it.

    Nodes are in the order reached (the start first, at depth 0) and the links in the order followed,
    so reading every node's ``followed`` in turn gives the traversal's links in order.
    """

    depth: int
    followed: list[FollowedLinkView] | None = Field(None, description="Left out when no link was followed from here.")


class FrontierView(ResultModel):
    """The returned standards whose stored links of the requested kinds are not all in the result.

    Keyed by why (not expanded before a bound stopped the traversal, or at ``maxDepth``), each maps a
    node id (its record and depth are in ``nodes``) to the number of its links not returned; a reason
    with no node is left out, so an empty frontier is ``{}``.
    """

    not_expanded: dict[str, int] | None = None
    max_depth: dict[str, int] | None = None


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

    direction: str
    link_types: list[str]
    limits: TraversalLimitsView
    nodes: list[TraversalNodeView]
    frontier: FrontierView
    scope_complete: bool
    graph_exhausted: bool
    truncation_reasons: list[TraversalReason]
    counters: TraversalCounters
    interpretation: str
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: GraphPackageRef


class PathView(ResultModel):
    """One directed path, shortest first: its standards from start to end (each by node id, code and grade
    labels) and the relationship id of each link between them."""

    steps: list[StandardRef]
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

    from_node_id: str
    to_node_id: str
    limits: PathLimitsView
    paths: list[PathView]
    standards: list[StandardRecord] = Field(description="The two ends, then every other standard a path names, once.")
    links: list[ProgressionLinkView]
    search_complete: bool
    paths_complete: bool
    more_paths_exist: bool
    truncation_reasons: list[PathReason]
    next_unreturned_path: PathView | None = Field(None, description="The next path found that did not fit.")
    counters: PathCounters
    interpretation: str
    warnings: NoticeSummary
    ceiling: ResultCeilingView
    package: GraphPackageRef
