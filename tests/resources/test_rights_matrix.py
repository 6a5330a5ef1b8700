"""The full rights matrix: every resource family x every review state x each permission flag.

The expected outcome is written here from the rights page's tables, independently of the server's
policy module: public metadata is always readable; the unresolved report needs reviewed rights and
allowFullText; the standard, relationship, component, progression and provenance families also need
allowStandardResources; the bulk artifacts also need allowBulkResource. Only ``approved`` and
``provisional_operator_approved`` count as reviewed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastmcp import Client
from resource_calls import evidence_outcome, outcome, read, read_error

from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.core.rights import REVIEW_STATUSES
from kgfegmcp.packages.artifact_roles import PROVENANCE_PARTS, provenance_part_name
from kgfegmcp.resources import uris
from package_factory import DAG, LC
from resource_worlds import DERIVATIVES_DENIED, VARIANTS, Variant, lc_ids

IDS = lc_ids()

PUBLIC, FULL_TEXT, STANDARD, BULK, ABSENT = "public", "full_text", "standard", "bulk", "absent"

#: family name → (URI for one snapshot, access rule from the spec tables).
FAMILIES: dict[str, tuple[Callable[[str], str], str]] = {
    "framework": (lambda sid: uris.framework_uri(LC), PUBLIC),
    "snapshot": (lambda sid: uris.snapshot_uri(LC, sid), PUBLIC),
    "manifest": (lambda sid: uris.manifest_uri(LC, sid), PUBLIC),
    "validation": (lambda sid: uris.validation_uri(LC, sid), PUBLIC),
    "profile": (lambda sid: uris.profile_uri(LC, sid), PUBLIC),
    "unresolved": (lambda sid: uris.unresolved_uri(LC, sid), FULL_TEXT),
    "standard": (lambda sid: uris.standard_uri(LC, sid, IDS.standard), STANDARD),
    "standard provenance": (lambda sid: uris.standard_provenance_uri(LC, sid, IDS.standard), STANDARD),
    "relationship hasChild": (lambda sid: uris.relationship_uri(LC, sid, IDS.has_child), STANDARD),
    "relationship supports": (lambda sid: uris.relationship_uri(LC, sid, IDS.supports), STANDARD),
    "learning component": (lambda sid: uris.learning_component_uri(LC, sid, IDS.component), STANDARD),
    "learning component provenance": (
        lambda sid: uris.learning_component_provenance_uri(LC, sid, IDS.component),
        STANDARD,
    ),
    "learning progression buildsTowards": (
        lambda sid: uris.learning_progression_uri(LC, sid, IDS.builds_towards),
        STANDARD,
    ),
    "learning progression relatesTo": (lambda sid: uris.learning_progression_uri(LC, sid, IDS.relates_to), STANDARD),
    # A part is part of entityProvenance and carries its class: the 64 parts together are the whole file.
    "provenance part": (lambda sid: uris.provenance_part_uri(LC, sid, 7), BULK),
}
#: The closed artifact table of the rights page, plus the fixture's additional artifacts by contract.
ARTIFACTS: dict[str, str] = {
    "validationReport": PUBLIC,
    "unresolvedItems": FULL_TEXT,
    "academicStandardsBundle": BULK,
    "entityProvenance": BULK,
    "nodes": BULK,
    "relationships": BULK,
    "relationshipsHasChild": BULK,
    "standardsFramework": BULK,
    "standardsFrameworkItems": BULK,
    "operatorNotes": PUBLIC,
    "binaryFigure": PUBLIC,
    "teacherNotes": FULL_TEXT,
    "sourceExtract": BULK,
    "operatorLog": ABSENT,  # declared without an exposure contract: fails closed
    "entityProvenancePart07": ABSENT,  # parts have their own family, not the generic artifact one
}
for _name, _rule in ARTIFACTS.items():
    FAMILIES[f"artifact {_name}"] = ((lambda name: lambda sid: uris.artifact_uri(LC, sid, name))(_name), _rule)


def expected(variant: Variant, rule: str) -> str:
    """The rights page's tables, restated."""
    if rule == ABSENT:
        return "resource_not_found"
    if rule == PUBLIC:
        return "ok"
    granted = variant.reviewed and variant.allow_full_text
    if rule in (STANDARD, BULK):
        granted = granted and variant.allow_standard_resources
    if rule == BULK:
        granted = granted and variant.allow_bulk_resource
    return "ok" if granted else "resource_access_denied"


def test_matrix_covers_every_review_state_and_flag() -> None:
    assert {v.review_status for v in VARIANTS} == set(REVIEW_STATUSES)
    for index in range(3):  # each flag is both granted and withheld among reviewed and unreviewed states
        assert {v.flags[index] for v in VARIANTS if v.reviewed} == {True, False}
        assert {v.flags[index] for v in VARIANTS if not v.reviewed} == {True, False}
    assert len(VARIANTS) == 25


@pytest.mark.slow  # an enumerated sweep: every family in every review state, under every flag
@pytest.mark.parametrize("family", sorted(FAMILIES))
async def test_family_by_review_state_and_flags(matrix_client: Client[Any], family: str) -> None:
    build, rule = FAMILIES[family]
    actual = {v.snapshot_id: await outcome(matrix_client, build(v.snapshot_id)) for v in VARIANTS}
    assert actual == {v.snapshot_id: expected(v, rule) for v in VARIANTS}


@pytest.mark.slow  # the same sweep through read_evidence
@pytest.mark.parametrize("family", sorted(FAMILIES))
async def test_read_evidence_applies_the_same_gates(matrix_client: Client[Any], family: str) -> None:
    """read_evidence is a second route to every resource's bytes: it must refuse exactly what a read refuses."""
    build, rule = FAMILIES[family]
    actual = {v.snapshot_id: await evidence_outcome(matrix_client, build(v.snapshot_id)) for v in VARIANTS}
    allowed = "unsupported_evidence_format" if family == "artifact binaryFigure" else "ok"  # text windows only
    want = {v.snapshot_id: expected(v, rule) for v in VARIANTS}
    assert actual == {sid: allowed if code == "ok" else code for sid, code in want.items()}


async def test_every_route_to_provenance_bytes_is_gated_as_bulk(matrix_client: Client[Any]) -> None:
    """The whole provenance file, its parts one by one, and the parts by artifact name: bulk, or nothing.

    One entity's provenance stays readable wherever standard resources are.
    """
    for variant in VARIANTS:
        sid = variant.snapshot_id
        bulk, standard = expected(variant, BULK), expected(variant, STANDARD)
        routes = [uris.provenance_part_uri(LC, sid, part) for part in range(PROVENANCE_PARTS)]
        routes.append(uris.artifact_uri(LC, sid, "entityProvenance"))
        for uri in routes:
            assert await outcome(matrix_client, uri) == bulk, (sid, uri)
        for part in (0, 63):
            artifact = uris.artifact_uri(LC, sid, provenance_part_name(part))
            assert await outcome(matrix_client, artifact) == "resource_not_found", (sid, artifact)
        assert await outcome(matrix_client, uris.standard_provenance_uri(LC, sid, IDS.standard)) == standard


async def test_documents_cite_a_provenance_part_only_where_it_can_be_read(matrix_client: Client[Any]) -> None:
    for variant in VARIANTS:
        if expected(variant, STANDARD) != "ok":
            continue
        sid = variant.snapshot_id
        document = json.loads((await read(matrix_client, uris.standard_provenance_uri(LC, sid, IDS.standard)))[0])
        cited = document["provenancePartUri"]
        if expected(variant, BULK) == "ok":
            assert cited is not None and await outcome(matrix_client, cited) == "ok"
        else:
            assert cited is None, sid


async def test_catalog_is_public_metadata(matrix_client: Client[Any]) -> None:
    data, meta = await read(matrix_client, uris.CATALOG_URI)
    assert meta["accessClass"] == "public_metadata"
    assert meta["family"] == "catalog"
    assert {v.snapshot_id for v in VARIANTS} <= {p["snapshotId"] for p in json.loads(data)["packages"]}


async def test_allowed_reads_name_their_access_class(matrix_client: Client[Any]) -> None:
    """Every allowed document names the class that authorised it, matching the spec table."""
    variant = next(v for v in VARIANTS if v.review_status == "approved" and all(v.flags))
    classes = {PUBLIC: "public_metadata", FULL_TEXT: "full_text", STANDARD: "standard_resource", BULK: "bulk_content"}
    for family, (build, rule) in FAMILIES.items():
        if rule == ABSENT:
            continue
        _, meta = await read(matrix_client, build(variant.snapshot_id))
        assert meta["accessClass"] == classes[rule], family


async def test_denials_name_the_failing_gate(matrix_client: Client[Any]) -> None:
    def sid(review: str, flags: tuple[bool, bool, bool]) -> str:
        return next(v.snapshot_id for v in VARIANTS if v.review_status == review and v.flags == flags)

    unreviewed = await read_error(matrix_client, uris.unresolved_uri(LC, sid("review_required", (True, True, True))))
    assert unreviewed.startswith("resource_access_denied: ")
    assert "'review_required', not approved" in unreviewed
    no_text = await read_error(matrix_client, uris.unresolved_uri(LC, sid("approved", (False, True, False))))
    assert "allowFullText is false" in no_text
    no_standard = await read_error(
        matrix_client, uris.standard_uri(LC, sid("approved", (True, False, False)), IDS.standard)
    )
    assert "allowStandardResources is false" in no_standard
    no_bulk = await read_error(matrix_client, uris.artifact_uri(LC, sid("approved", (True, True, False)), "nodes"))
    assert "allowBulkResource is false" in no_bulk
    unexposed = await read_error(
        matrix_client, uris.artifact_uri(LC, sid("approved", (True, True, True)), "operatorLog")
    )
    assert unexposed.startswith("resource_not_found: ")


async def test_denied_standard_is_denied_before_existence_is_checked(matrix_client: Client[Any]) -> None:
    """A package whose rights withhold a family does not reveal which ids exist in it."""
    denied = next(v for v in VARIANTS if v.review_status == "restricted").snapshot_id
    for node_id in (IDS.standard, "no-such-node"):
        assert await outcome(matrix_client, uris.standard_uri(LC, denied, node_id)) == "resource_access_denied"


async def test_generated_derivatives_policy_does_not_gate_resources(matrix_client: Client[Any]) -> None:
    """allowGeneratedDerivatives is independent of resource exposure (rights page)."""
    standard = stable_uuid(DAG, "item", "NBT.1")
    for uri in (
        uris.standard_uri(DAG, DERIVATIVES_DENIED, standard),
        uris.standard_provenance_uri(DAG, DERIVATIVES_DENIED, standard),
        uris.artifact_uri(DAG, DERIVATIVES_DENIED, "nodes"),
        uris.unresolved_uri(DAG, DERIVATIVES_DENIED),
    ):
        assert await outcome(matrix_client, uri) == "ok", uri
