"""ResourceService.read_uri and the rights policy, without transport.

The rights world (tests/resources/resource_worlds.py) holds one ``fixture-lc`` snapshot per rights variant,
each with six additional artifacts under different exposure contracts. The MCP suite reads every family of
every variant over the wire; here the policy functions are checked gate by gate, and each document's
metadata is checked against the bytes it describes and the files on disk they came from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.errors import ResourceAccessDeniedError, ResourceNotFoundError
from kgfegmcp.core.models import canonical_bytes
from kgfegmcp.core.rights import REVIEW_STATUSES
from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLES, PROVENANCE_PARTS, AccessClass, provenance_part_name
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.resources import uris
from kgfegmcp.resources.families import Family
from kgfegmcp.resources.policy import (
    FAMILY_ACCESS,
    SizePolicy,
    artifact_access,
    denial_reason,
    provenance_part_uri,
    require_access,
)
from kgfegmcp.services.resources import ResourceDocument, ResourceService, SourceArtifactEvidence
from package_factory import LC, TREE
from resource_worlds import EXTRAS, VARIANTS, Variant, lc_ids

IDS = lc_ids()
ACCESS_CLASSES: tuple[AccessClass, ...] = ("public_metadata", "full_text", "standard_resource", "bulk_content")


def variant(review: str, flags: tuple[bool, bool, bool]) -> Variant:
    """The variant with this review status and (allowFullText, allowStandardResources, allowBulkResource)."""
    return next(v for v in VARIANTS if v.review_status == review and v.flags == flags)


OPEN = variant("approved", (True, True, True))
SID = OPEN.snapshot_id


def served(state: AppState, snapshot_id: str = SID, framework_id: str = LC) -> ServedPackage:
    package = state.catalog.by_snapshot(framework_id, snapshot_id)
    assert package is not None
    return package


# -- the policy table and its gates ----------------------------------------------------------------------


def test_every_dedicated_family_has_one_access_class() -> None:
    assert set(FAMILY_ACCESS) == set(Family) - {Family.ARTIFACT}  # artifacts are decided per logical name
    by_class = {access: {f.value for f, a in FAMILY_ACCESS.items() if a == access} for access in ACCESS_CLASSES}
    assert by_class == {
        "public_metadata": {"catalog", "framework", "snapshot", "manifest", "validation", "profile"},
        "full_text": {"unresolved"},
        "standard_resource": {
            "standard",
            "standard_provenance",
            "relationship",
            "learning_component",
            "learning_component_provenance",
            "learning_progression",
        },
        # A part is a piece of the bulk provenance file: all 64 parts are the whole file.
        "bulk_content": {"provenance_part"},
    }


def expected_reason(v: Variant, access: AccessClass) -> str | None:
    """The gates in order: review, then full text, then standard resources, then bulk."""
    if access == "public_metadata":
        return None
    if not v.reviewed:
        return f"the package's rights review status is {v.review_status!r}, not approved"
    if not v.allow_full_text:
        return "the package's rights do not allow full text (allowFullText is false)"
    if access != "full_text" and not v.allow_standard_resources:
        return "the package's rights do not allow standard resources (allowStandardResources is false)"
    if access == "bulk_content" and not v.allow_bulk_resource:
        return "the package's rights do not allow bulk content (allowBulkResource is false)"
    return None


@pytest.mark.parametrize("access", ACCESS_CLASSES)
@pytest.mark.parametrize("v", VARIANTS, ids=[v.snapshot_id for v in VARIANTS])
def test_denial_reason_names_the_first_failing_gate(v: Variant, access: AccessClass) -> None:
    rights = v.rights()
    assert denial_reason(rights, access) == expected_reason(v, access)
    reason = expected_reason(v, access)
    if reason is None:
        require_access(rights, access, "It")
        return
    with pytest.raises(ResourceAccessDeniedError) as denied:
        require_access(rights, access, "It")
    assert denied.value.code == "resource_access_denied"
    assert denied.value.message == f"It is not exposed: {reason}."


def test_only_approved_states_count_as_reviewed() -> None:
    reviewed = {status for status in REVIEW_STATUSES if variant(status, (True, True, True)).rights().is_reviewed}
    assert reviewed == {"approved", "provisional_operator_approved"}


def test_artifact_exposure_comes_from_the_closed_table_or_an_explicit_contract(rights_state: AppState) -> None:
    manifest = served(rights_state).manifest
    for role in ARTIFACT_ROLES:
        # A role of the manifest's shape is served by its class; a role only the other shape has is not served.
        expected = role.access_class if role.by_logical_name and manifest.shape in role.shapes else None
        assert artifact_access(manifest, role.logical_name) == expected
    assert {e.logical_name: artifact_access(manifest, e.logical_name) for e in EXTRAS} == {
        "operatorNotes": "public_metadata",
        "teacherNotes": "full_text",
        "sourceExtract": "bulk_content",
        "operatorLog": None,  # declared without an exposure contract: fails closed
        "binaryFigure": "public_metadata",
        "controlNotes": "public_metadata",
    }
    # Parts have their own family; an undeclared name has no class at all.
    assert artifact_access(manifest, provenance_part_name(7)) is None
    assert artifact_access(manifest, "secrets") is None


@pytest.mark.parametrize("v", VARIANTS, ids=[v.snapshot_id for v in VARIANTS])
def test_a_provenance_part_is_cited_only_where_it_can_be_read(rights_state: AppState, v: Variant) -> None:
    runtime = served(rights_state, v.snapshot_id).runtime
    readable = expected_reason(v, "bulk_content") is None
    assert provenance_part_uri(runtime, 7) == (uris.provenance_part_uri(LC, v.snapshot_id, 7) if readable else None)


# -- read_uri: denials ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("review", "flags", "uri", "what", "reason"),
    [
        (
            "review_required",
            (True, True, True),
            lambda sid: uris.unresolved_uri(LC, sid),
            "The unresolved resource family",
            "the package's rights review status is 'review_required', not approved",
        ),
        (
            "approved",
            (False, True, False),
            lambda sid: uris.unresolved_uri(LC, sid),
            "The unresolved resource family",
            "the package's rights do not allow full text (allowFullText is false)",
        ),
        (
            "approved",
            (True, False, False),
            lambda sid: uris.standard_provenance_uri(LC, sid, IDS.standard),
            "The standard provenance resource family",
            "the package's rights do not allow standard resources (allowStandardResources is false)",
        ),
        (
            "approved",
            (True, True, False),
            lambda sid: uris.artifact_uri(LC, sid, "nodes"),
            "Artifact 'nodes'",
            "the package's rights do not allow bulk content (allowBulkResource is false)",
        ),
        (
            "provisional_operator_approved",
            (True, True, False),
            lambda sid: uris.provenance_part_uri(LC, sid, 7),
            "The provenance part resource family",
            "the package's rights do not allow bulk content (allowBulkResource is false)",
        ),
        (
            "restricted",
            (True, True, True),
            lambda sid: uris.standard_uri(LC, sid, "no-such-node"),  # denied before existence is looked up
            "The standard resource family",
            "the package's rights review status is 'restricted', not approved",
        ),
    ],
    ids=["unreviewed", "no-full-text", "no-standard-resources", "no-bulk-artifact", "no-bulk-part", "before-existence"],
)
def test_a_denied_read_names_the_resource_and_its_gate(
    rights_state: AppState,
    review: str,
    flags: tuple[bool, bool, bool],
    uri: Callable[[str], str],
    what: str,
    reason: str,
) -> None:
    sid = variant(review, flags).snapshot_id
    with pytest.raises(ResourceAccessDeniedError) as denied:
        rights_state.resources.read_uri(uri(sid))
    assert denied.value.code == "resource_access_denied"
    assert denied.value.message == f"{what} of {LC}@{sid} is not exposed: {reason}."
    assert denied.value.hint is not None and "review the package's rights" in denied.value.hint


@pytest.mark.parametrize("v", VARIANTS, ids=[v.snapshot_id for v in VARIANTS])
def test_public_metadata_is_readable_under_any_rights(rights_state: AppState, v: Variant) -> None:
    for uri in (
        uris.framework_uri(LC),
        uris.snapshot_uri(LC, v.snapshot_id),
        uris.manifest_uri(LC, v.snapshot_id),
        uris.validation_uri(LC, v.snapshot_id),
        uris.profile_uri(LC, v.snapshot_id),
        uris.artifact_uri(LC, v.snapshot_id, "operatorNotes"),
    ):
        assert rights_state.resources.read_uri(uri).metadata.access_class == "public_metadata"


# -- read_uri: what does not exist -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        (uris.manifest_uri(LC, "2099-01"), f"No accepted package {LC}@2099-01."),
        (uris.framework_uri("no-such-framework"), "No accepted framework 'no-such-framework'."),
        (uris.standard_uri(LC, SID, "no-such-node"), f"No standard 'no-such-node' in {LC}@{SID}."),
        (uris.standard_uri(LC, SID, IDS.component), f"No standard '{IDS.component}' in {LC}@{SID}."),
        (uris.standard_uri(LC, SID, IDS.tree_standard), f"No standard '{IDS.tree_standard}' in {LC}@{SID}."),
        (
            uris.learning_component_provenance_uri(LC, SID, IDS.standard),
            f"No learning component '{IDS.standard}' in {LC}@{SID}.",
        ),
        (
            uris.learning_progression_uri(LC, SID, IDS.has_child),
            f"No learning-progression link '{IDS.has_child}' in {LC}@{SID}.",
        ),
        (uris.relationship_uri(LC, SID, IDS.standard), f"No relationship '{IDS.standard}' in {LC}@{SID}."),
        (uris.artifact_uri(LC, SID, "operatorLog"), f"Package {LC}@{SID} exposes no artifact 'operatorLog'."),
        (
            uris.artifact_uri(LC, SID, provenance_part_name(7)),
            f"Package {LC}@{SID} exposes no artifact 'entityProvenancePart07'.",
        ),
    ],
)
def test_an_address_that_names_nothing_is_not_found(rights_state: AppState, uri: str, message: str) -> None:
    with pytest.raises(ResourceNotFoundError) as missing:
        rights_state.resources.read_uri(uri)
    assert missing.value.code == "resource_not_found" and missing.value.message == message


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("/etc/passwd", "the URI does not start with kgfegmcp://"),
        ("file:///etc/passwd", "the URI does not start with kgfegmcp://"),
        (f"{uris.snapshot_uri(LC, SID)}/../../../../etc/passwd", "the URI has an empty, '.' or '..' segment"),
        (f"{uris.snapshot_uri(LC, SID)}/standard/%2e%2e", "the URI contains a character outside the canonical form"),
        (f"{uris.snapshot_uri(LC, SID)}/artifact/nodes.jsonl", "an artifact logical name is a lower-camel-case word"),
        (f"{uris.snapshot_uri(LC, SID)}/provenance-part/{PROVENANCE_PARTS}", "a provenance part is two digits, 00-63"),
        ("kgfegmcp://Catalog", "the URI names no supported resource family"),
        (f"kgfegmcp://framework/{LC.upper()}", "the framework id is not a lowercase identifier"),
    ],
)
def test_a_hostile_uri_is_not_found_and_never_repeated(rights_state: AppState, uri: str, reason: str) -> None:
    with pytest.raises(ResourceNotFoundError) as missing:
        rights_state.resources.read_uri(uri)
    message = missing.value.message
    assert message.startswith(f"The URI is not a supported kgfegmcp:// resource address: {reason}")
    assert "passwd" not in message and uri not in message


# -- read_uri: the returned-size limit ----------------------------------------------------------------------


def test_the_returned_size_limit_denies_and_never_truncates(rights_state: AppState) -> None:
    """The same catalog under a tighter limit: a document of exactly the limit is served whole, one byte more is not."""
    catalog = rights_state.catalog
    source_limit = rights_state.settings.max_source_read_bytes
    for uri in (
        uris.standard_uri(LC, SID, IDS.standard),  # derived: measured once built
        uris.artifact_uri(LC, SID, "teacherNotes"),  # raw: measured from the manifest before it is read
        uris.CATALOG_URI,
    ):
        document = rights_state.resources.read_uri(uri)
        size = len(document.data)
        exact = ResourceService(catalog, SizePolicy(source_limit, size)).read_uri(uri)
        assert exact.data == document.data and exact.metadata == document.metadata
        with pytest.raises(ResourceAccessDeniedError) as denied:
            ResourceService(catalog, SizePolicy(source_limit, size - 1)).read_uri(uri)
        what = f"Artifact 'teacherNotes' of {LC}@{SID}" if "/artifact/" in uri else f"The resource document {uri}"
        assert denied.value.message == f"{what} is {size} bytes; the returned-resource limit is {size - 1} bytes."


def test_the_default_limits_are_the_configured_ones(rights_state: AppState) -> None:
    assert SizePolicy.from_settings(rights_state.settings) == SizePolicy.defaults()
    assert SizePolicy.defaults() == SizePolicy(32 * 1024 * 1024, 8 * 1024 * 1024)


# -- metadata describes the bytes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """What one document must say about itself."""

    uri: str
    family: str
    access: AccessClass
    representation: str
    labels: list[str]
    sources: list[str]
    mime: str | None = "application/json"  # None: the mediaType the manifest declares for the artifact


PART = provenance_part_name(provenance_part_of(IDS.standard))
COMPONENT_PART = provenance_part_name(provenance_part_of(IDS.component))
LINK_PART = provenance_part_name(provenance_part_of(IDS.builds_towards))
HAS_CHILD_PART = provenance_part_name(provenance_part_of(IDS.has_child))
DERIVED, RAW = "deterministic_derived", "raw_source"

DOCUMENTS = [
    Expected(uris.snapshot_uri(LC, SID), "snapshot", "public_metadata", DERIVED, [DERIVED], ["packageManifest"]),
    Expected(uris.manifest_uri(LC, SID), "manifest", "public_metadata", RAW, [DERIVED], ["packageManifest"]),
    Expected(uris.validation_uri(LC, SID), "validation", "public_metadata", RAW, [DERIVED], ["validationReport"], None),
    Expected(uris.profile_uri(LC, SID), "profile", "public_metadata", RAW, ["accepted_derived"], ["profile"]),
    Expected(
        uris.unresolved_uri(LC, SID),
        "unresolved",
        "full_text",
        RAW,
        ["source_extracted", "unresolved"],
        ["unresolvedItems"],
        None,
    ),
    Expected(
        uris.standard_uri(LC, SID, IDS.standard),
        "standard",
        "standard_resource",
        DERIVED,
        [DERIVED, "source_asserted"],
        ["nodes", "relationships"],
    ),
    Expected(
        uris.standard_provenance_uri(LC, SID, IDS.standard),
        "standard_provenance",
        "standard_resource",
        DERIVED,
        [DERIVED, "source_asserted"],
        [PART],
    ),
    Expected(
        uris.relationship_uri(LC, SID, IDS.has_child),
        "relationship",
        "standard_resource",
        DERIVED,
        [DERIVED, "source_asserted"],
        ["relationships", HAS_CHILD_PART],
    ),
    Expected(
        uris.learning_component_uri(LC, SID, IDS.component),
        "learning_component",
        "standard_resource",
        DERIVED,
        [DERIVED, "llm_inferred"],  # the fixture's generation summary: model-generated, not reviewed
        ["nodes", "relationships"],
    ),
    Expected(
        uris.learning_component_provenance_uri(LC, SID, IDS.component),
        "learning_component_provenance",
        "standard_resource",
        DERIVED,
        [DERIVED, "llm_inferred"],  # as the component's provenance states it
        [COMPONENT_PART],
    ),
    Expected(
        uris.learning_progression_uri(LC, SID, IDS.builds_towards),
        "learning_progression",
        "standard_resource",
        DERIVED,
        [DERIVED, "source_asserted"],
        ["relationships", LINK_PART],
    ),
    Expected(
        uris.provenance_part_uri(LC, SID, 7),
        "provenance_part",
        "bulk_content",
        RAW,
        ["source_extracted"],
        [provenance_part_name(7)],
        None,
    ),
    Expected(
        uris.artifact_uri(LC, SID, "nodes"),
        "artifact",
        "bulk_content",
        RAW,
        ["llm_inferred", "source_extracted"],  # the nodes carry the model-generated components too
        ["nodes"],
        None,
    ),
    Expected(
        uris.artifact_uri(LC, SID, "operatorNotes"),
        "artifact",
        "public_metadata",
        RAW,
        [],
        ["operatorNotes"],
        "text/plain",
    ),
    Expected(
        uris.artifact_uri(LC, SID, "teacherNotes"), "artifact", "full_text", RAW, [], ["teacherNotes"], "text/plain"
    ),
    Expected(
        uris.artifact_uri(LC, SID, "binaryFigure"),
        "artifact",
        "public_metadata",
        RAW,
        [],
        ["binaryFigure"],
        "application/octet-stream",
    ),
]


def on_disk(state: AppState, package: ServedPackage, source: SourceArtifactEvidence) -> bytes:
    """The file a source-artifact entry names, read straight from the package (or profile) folder."""
    if source.logical_artifact == "packageManifest":
        return (package.runtime.path / MANIFEST_FILENAME).read_bytes()
    if source.logical_artifact == "profile":
        binding = package.manifest.profile
        return (state.settings.profiles_dir / binding.profile_id / f"{binding.version}.json").read_bytes()
    entry = package.manifest.artifact(source.logical_artifact)
    assert entry is not None
    return (package.runtime.path / entry.path).read_bytes()


@pytest.mark.parametrize(
    "expected", DOCUMENTS, ids=[d.uri.removeprefix(uris.snapshot_uri(LC, SID)) or "/" for d in DOCUMENTS]
)
def test_a_documents_metadata_describes_its_bytes(rights_state: AppState, expected: Expected) -> None:
    document: ResourceDocument = rights_state.resources.read_uri(expected.uri)
    meta, data = document.metadata, document.data
    package = served(rights_state)
    assert (meta.uri, meta.family, meta.access_class) == (expected.uri, expected.family, expected.access)
    assert meta.representation == expected.representation
    if expected.mime is None:
        entry = package.manifest.artifact(expected.sources[0])
        assert entry is not None and meta.mime_type == entry.media_type
    else:
        assert meta.mime_type == expected.mime
    assert meta.byte_length == len(data) and meta.sha256 == hashlib.sha256(data).hexdigest()
    assert meta.epistemic_status == expected.labels
    assert [s.logical_artifact for s in meta.source_artifacts] == expected.sources
    for source in meta.source_artifacts:
        retained = on_disk(rights_state, package, source)
        assert source.graph_package_id == package.graph_package_id
        assert (source.sha256, source.bytes) == (hashlib.sha256(retained).hexdigest(), len(retained))
    if expected.representation == RAW:
        # The document is its one source artifact, byte for byte.
        (source,) = meta.source_artifacts
        assert data == on_disk(rights_state, package, source)
        assert (meta.sha256, meta.byte_length) == (source.sha256, source.bytes)
    else:
        assert data == canonical_bytes(json.loads(data))  # canonical JSON
    rights = package.manifest.rights
    assert meta.attribution is not None
    assert (meta.graph_package_id, meta.attribution.source_license, meta.attribution.attribution_statement) == (
        package.graph_package_id,
        rights.source_license,
        rights.attribution_statement,
    )


def test_catalog_wide_documents_cite_every_manifest_they_summarise(rights_state: AppState) -> None:
    for uri, packages in (
        (uris.CATALOG_URI, rights_state.catalog.packages),
        (uris.framework_uri(LC), [p for p in rights_state.catalog.packages if p.framework_id == LC]),
    ):
        document = rights_state.resources.read_uri(uri)
        meta = document.metadata
        assert (meta.access_class, meta.representation, meta.epistemic_status) == (
            "public_metadata",
            DERIVED,
            [DERIVED],
        )
        assert meta.graph_package_id is None and meta.attribution is None  # no one package's rights
        assert [s.graph_package_id for s in meta.source_artifacts] == [p.graph_package_id for p in packages]
        for source, package in zip(meta.source_artifacts, packages, strict=True):
            manifest = on_disk(rights_state, package, source)
            assert (source.logical_artifact, source.sha256) == ("packageManifest", hashlib.sha256(manifest).hexdigest())
        assert meta.sha256 == hashlib.sha256(document.data).hexdigest()
    listed = json.loads(rights_state.resources.read_uri(uris.CATALOG_URI).data)["packages"]
    assert len(listed) == len(VARIANTS) + 2  # every variant, fixture-tree and fixture-dag


def test_the_same_address_reads_the_same_bytes(rights_state: AppState) -> None:
    for expected in DOCUMENTS:
        first, second = rights_state.resources.read_uri(expected.uri), rights_state.resources.read_uri(expected.uri)
        assert first == second, expected.uri
    other = rights_state.resources.read_uri(uris.standard_uri(TREE, "2026-01", IDS.tree_standard))
    assert other.metadata.graph_package_id == f"{TREE}@2026-01"
