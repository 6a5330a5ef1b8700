"""What travels with progression evidence: judgement warnings for the link kinds returned, and coverage
notices for what the package cannot hold or could not resolve (with total and omitted counts)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.epistemic import UNRESOLVED_REFERENCE
from kgfegmcp.core.notice_codes import NoticeCode
from kgfegmcp.packages.records import RELATES_TO, RelationshipLabel, RelationshipRecord
from kgfegmcp.packages.unresolved import UnresolvedReference
from kgfegmcp.services.progression_views import MAX_COVERAGE_NOTICES, NoticeSummary, ProgressionNotice
from kgfegmcp.services.views import link_label


def progression_notices(
    package: ServedPackage,
    links: Iterable[RelationshipRecord],
    node_ids: Iterable[str],
    requested: tuple[RelationshipLabel, ...],
    extra: Sequence[ProgressionNotice] = (),
) -> NoticeSummary:
    """Judgement warnings for the link kinds present; coverage notices about the returned standards."""
    present = {rel.label for rel in links}
    judgements: list[ProgressionNotice] = []
    if present and link_label(package) == "llm_inferred":
        judgements.append(
            ProgressionNotice(
                code=NoticeCode.MODEL_LINK_JUDGEMENT,
                category="judgement_warning",
                message=(
                    "Each link was made by a language model in the pipeline that built this package, not by the "
                    "curriculum's publisher: a hypothesis to check, not the source's judgement. Its confidence is "
                    "the model's, not a calibrated probability; buildsTowards is support for success, not a "
                    "mandatory prerequisite. The server infers no link itself and never links standards across "
                    "packages; each link's provenance resource holds the model's whole record."
                ),
            )
        )
    elif present:
        judgements.append(
            ProgressionNotice(
                code=NoticeCode.STORED_LINK_JUDGEMENT,
                category="judgement_warning",
                message=(
                    "Each link is the source's own pedagogical judgement, returned exactly as the package "
                    "stores it (see the disclosures and each link's provenance). The server infers no "
                    "prerequisite, sequence or equivalence, and never links standards across packages."
                ),
            )
        )
    if RELATES_TO in present:
        judgements.append(
            ProgressionNotice(
                code=NoticeCode.RELATES_TO_UNORDERED,
                category="judgement_warning",
                message=(
                    "relatesTo links record that two standards are related, not an order of learning; "
                    "do not read them as a sequence."
                ),
            )
        )
    coverage: list[ProgressionNotice] = list(extra)
    references = package.unresolved.concerning(node_ids, requested)
    coverage.extend(_unresolved_notice(reference) for reference in references)
    shown = judgements + coverage[:MAX_COVERAGE_NOTICES]
    total = len(judgements) + len(coverage)
    return NoticeSummary(items=shown, total=total, omitted=total - len(shown))


def _unresolved_notice(reference: UnresolvedReference) -> ProgressionNotice:
    """The reference, its status and label are fields of the notice; the message says only what it means."""
    reason = reference.reason or "the package could not resolve it to a standard of this package"
    return ProgressionNotice(
        code=NoticeCode.UNRESOLVED_REFERENCE,
        category="coverage_notice",
        message=f"Cited by the source, kept as unresolved evidence, not as a link: {reason}.",
        node_id=reference.source_entity_id,
        reference=reference.reference,
        status=reference.status,
        relationship_label=reference.relationship_label,
        unresolved_id=reference.unresolved_id,
        epistemic_status=UNRESOLVED_REFERENCE,
    )


def coverage_notices(package: ServedPackage, kinds: tuple[RelationshipLabel, ...]) -> list[ProgressionNotice]:
    """Notices for requested link kinds this package cannot hold (its profile does not declare them)."""
    declared = set(package.profile.profile.progression_labels)
    notices: list[ProgressionNotice] = []
    if not declared:
        notices.append(
            ProgressionNotice(
                code=NoticeCode.NO_PROGRESSION_LINKS,
                category="coverage_notice",
                message=(
                    f"{package.graph_package_id} stores no learning-progression links: an empty result "
                    "here says nothing about how its standards relate."
                ),
            )
        )
        return notices
    for kind in kinds:
        if kind not in declared:
            notices.append(
                ProgressionNotice(
                    code=NoticeCode.LINK_TYPE_NOT_STORED,
                    category="coverage_notice",
                    message=(
                        f"{package.graph_package_id} does not store {kind} links (it stores "
                        f"{', '.join(sorted(declared))}); none can appear in this result."
                    ),
                    relationship_label=kind,
                )
            )
    return notices
