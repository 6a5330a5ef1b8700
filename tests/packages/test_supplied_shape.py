"""A package in the supplied shape (manifest 1.1, delivery 1.2, progression shards) validates, is served by
every tool and resource family, and is refused when tampered with, as this server's own packages are."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from test_cli import kgfegmcp

from checkout import REPOSITORY_ROOT
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import CatalogError, ManifestBuildError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.mcp.tools import Specimens, example_calls
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import SuppliedCounts
from kgfegmcp.packages.manifest_reader import read_manifest
from kgfegmcp.packages.supplied_manifest import checksum_set_digest
from kgfegmcp.packages.supplied_provenance import index_problems, receipt_problems
from kgfegmcp.packages.tree import PackageLocation, discover_packages
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.resources import uris
from kgfegmcp.resources.policy import artifact_access
from mcp import MCPError
from package_factory import FixtureWorld, base_graph, lc_graph, state_for
from served_apps import SERVED
from supplied_package import SuppliedPackageWriter, shard_of
from tool_calls import call

LINKED = "fixture-supplied-lc"
PLAIN = "fixture-supplied-tree"
REFERENCE = REPOSITORY_ROOT.parent / "shared" / "data" / "supplied-package-shape"


def _world(base: Path) -> tuple[FixtureWorld, dict[str, PackageLocation]]:
    world = FixtureWorld(base)
    writer = SuppliedPackageWriter(world)
    lc = writer.write(lc_graph(LINKED), writer.profile(LINKED))
    tree = writer.write(base_graph(PLAIN), writer.profile(PLAIN))
    return world, {LINKED: lc, PLAIN: tree}


@pytest.fixture(scope="module")
def supplied(tmp_path_factory: pytest.TempPathFactory) -> tuple[FixtureWorld, dict[str, PackageLocation]]:
    return _world(tmp_path_factory.mktemp("supplied"))


@pytest.fixture(scope="module")
def supplied_state(supplied: tuple[FixtureWorld, dict[str, PackageLocation]]) -> AppState:
    return state_for(supplied[0])


@pytest.fixture
async def client(supplied_state: AppState) -> AsyncIterator[Client[Any]]:
    async with SERVED.client(supplied_state) as connected:
        yield connected


@pytest.fixture
def copy(tmp_path: Path, supplied: tuple[FixtureWorld, dict[str, PackageLocation]]) -> Iterator[PackageLocation]:
    """A private copy of the linked package (and its profile), to tamper with."""
    world, locations = supplied
    shutil.copytree(world.base, tmp_path / "world")
    source = locations[LINKED]
    yield PackageLocation(
        source.framework_id, source.snapshot_id, tmp_path / "world" / source.path.relative_to(world.base)
    )


def _validate(location: PackageLocation) -> set[str]:
    profiles = FixtureWorld(location.path.parents[2]).profiles()
    outcome = PackageValidator(profiles).validate(location)
    return {f.code for f in outcome.findings if f.severity == "error"} | set(outcome.omitted)


# -- the layout is the reference manifests' --------------------------------------------------------------


def test_the_fixture_is_laid_out_as_the_reference_manifests(supplied: tuple[FixtureWorld, dict[str, Any]]) -> None:
    location = supplied[1][LINKED]
    ours = json.loads((location.path / "package_manifest.json").read_text())
    assert location.snapshot_id.startswith(f"{LINKED}@2026+") and len(location.snapshot_id.rsplit("+")[1]) == 12
    if not REFERENCE.is_dir():
        pytest.skip("../shared/data/supplied-package-shape is not on this machine")
    reference = json.loads(
        next(REFERENCE.glob("ghana-nacca-primary-mathematics-basic-4-6/*/package_manifest.json")).read_text()
    )
    assert sorted(ours) == sorted(reference)
    for block in ("capabilities", "counts", "framework", "profile", "rights", "validation"):
        assert sorted(ours[block]) == sorted(reference[block]), block
    # The same roles, less the learning-component ones the tree fixture lacks none of here.
    assert sorted(ours["artifacts"]) == sorted(reference["artifacts"])
    assert sorted(ours["artifacts"]["additionalArtifacts"].items()) == sorted(
        reference["artifacts"]["additionalArtifacts"].items()
    )


REFERENCE_MANIFESTS = (
    sorted(REFERENCE.glob("*/*/package_manifest.json"))
    if REFERENCE.is_dir()
    else [
        pytest.param(
            None, marks=pytest.mark.skip(reason="../shared/data/supplied-package-shape is not on this machine")
        )
    ]
)


@pytest.mark.parametrize("package", REFERENCE_MANIFESTS)
def test_each_reference_manifest_is_read_by_the_one_manifest_model(package: Path) -> None:
    manifest, _ = read_manifest(package.parent)
    assert manifest.shape == "1.1" and manifest.graph_package_id.endswith("--academic-standards--p1")
    assert len(manifest.additional_artifacts) == 64
    assert all(a.exposure is not None for a in manifest.additional_artifacts)
    assert manifest.artifact("learningComponentBundle") is not None  # the pipeline's learningComponentsBundle
    # The snapshot id ends with the digest of the declared checksums: it pins the whole file set.
    assert checksum_set_digest(manifest).startswith(manifest.snapshot_id.rpartition("+")[2])
    found = discover_packages(package.parents[2])  # the reference folder also holds its README files
    assert package.parent.name in {p.snapshot_id for p in found.packages}
    assert not [f for f in found.root_findings if f.code == FindingCode.IDENTITY_MISMATCH]


# -- validation and tampering ------------------------------------------------------------------------------


def test_both_fixture_packages_pass_every_rule(supplied: tuple[FixtureWorld, dict[str, PackageLocation]]) -> None:
    world, locations = supplied
    for location in locations.values():
        outcome = PackageValidator(world.profiles()).validate(location)
        assert outcome.passed, [f"{f.code}: {f.message}" for f in outcome.findings]
        assert outcome.gate == "every_rule"


def _edit_manifest(location: PackageLocation, edit: Callable[[dict[str, Any]], None]) -> None:
    path = location.path / "package_manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def _shard_path(location: PackageLocation) -> Path:
    index = json.loads((location.path / "detailed/lp_relationship_provenance_index.json").read_text())
    filled = [p for p in index["partitions"].values() if p["entryCount"]]
    return location.path / filled[0]["artifactPath"]


def _reseal(location: PackageLocation, relative: str) -> None:
    """Make the manifest pin a file's new bytes (a consistent forgery, not a stray edit)."""
    digest = "sha256:" + hashlib.sha256((location.path / relative).read_bytes()).hexdigest()
    _edit_manifest(location, lambda m: m["checksums"].__setitem__(relative, digest))


TAMPERING: dict[str, tuple[Callable[[PackageLocation], None], str]] = {
    "changed delivery bytes": (
        lambda loc: (loc.path / "delivery" / f"as_lc_lp_nodes_{LINKED}.jsonl").write_bytes(
            (loc.path / "delivery" / f"as_lc_lp_nodes_{LINKED}.jsonl").read_bytes().replace(b"Partition", b"Partitio")
        ),
        FindingCode.CHECKSUM_MISMATCH,
    ),
    "undeclared file": (
        lambda loc: (loc.path / "detailed" / "notes.txt").write_text("x"),
        FindingCode.UNDECLARED_ENTRY,
    ),
    "deleted shard": (lambda loc: _shard_path(loc).unlink(), FindingCode.MISSING_ARTIFACT),
    "shard entry moved and resealed": (
        lambda loc: _move_entry(loc),
        FindingCode.DETAILED_ARTIFACT_MISMATCH,
    ),
    "wrong item count": (
        lambda loc: _edit_manifest(loc, lambda m: m["counts"].__setitem__("itemNodes", m["counts"]["itemNodes"] + 1)),
        FindingCode.COUNT_MISMATCH,
    ),
    "foreign profile digest": (
        lambda loc: _edit_manifest(loc, lambda m: m["profile"].__setitem__("sha256", "sha256:" + "0" * 64)),
        FindingCode.PROFILE_BINDING_MISMATCH,
    ),
    "checksum map misses a path": (
        lambda loc: _edit_manifest(loc, lambda m: m["checksums"].pop("detailed/lp_final_claims.json")),
        FindingCode.INVALID_MANIFEST,
    ),
    "escaping artifact path": (
        lambda loc: _edit_manifest(loc, lambda m: _repath(m, "unresolvedItems", "../outside.json")),
        FindingCode.UNSAFE_PATH,
    ),
    "progression role dropped": (
        lambda loc: _edit_manifest(loc, lambda m: _drop(m, "learningProgressionProvenanceIndex")),
        FindingCode.MISSING_ARTIFACT,
    ),
    "file changed and its checksum re-pinned": (
        lambda loc: _repin(loc, "detailed/lp_final_claims.json"),
        FindingCode.IDENTITY_MISMATCH,
    ),
    "receipt pins other bytes": (lambda loc: _forge_receipt(loc), FindingCode.DETAILED_ARTIFACT_MISMATCH),
    "false capability": (
        lambda loc: _edit_manifest(loc, lambda m: m["capabilities"].__setitem__("codeSearch", "none")),
        FindingCode.CAPABILITY_MISMATCH,
    ),
    "graph package id names another revision": (
        lambda loc: _edit_manifest(
            loc, lambda m: m.__setitem__("graphPackageId", m["snapshotId"] + "--academic-standards--p2")
        ),
        FindingCode.INVALID_MANIFEST,
    ),
}


def _forge_receipt(location: PackageLocation) -> None:
    relative = "detailed/lp_normalization_receipt.json"
    receipt = json.loads((location.path / relative).read_text())
    receipt["outputSha256"]["detailed/as_kg_bundle.json"] = "sha256:" + "0" * 64
    (location.path / relative).write_text(json.dumps(receipt, sort_keys=True) + "\n")
    _reseal(location, relative)


def _repin(location: PackageLocation, relative: str) -> None:
    """Change a file and pin its new bytes in the manifest: only the snapshot id still names the old set."""
    path = location.path / relative
    path.write_bytes(path.read_bytes().replace(b"Fixture rationale", b"Forged rationale"))
    _reseal(location, relative)


def _repath(manifest: dict[str, Any], role: str, path: str) -> None:
    old = manifest["artifacts"][role]
    manifest["artifacts"][role] = path
    manifest["checksums"][path] = manifest["checksums"].pop(old)


def _drop(manifest: dict[str, Any], role: str) -> None:
    manifest["checksums"].pop(manifest["artifacts"].pop(role))


def _move_entry(location: PackageLocation) -> None:
    """Move one link's provenance into the next shard and pin both shards anew: every byte is as declared,
    but the link's evidence is no longer where its id says (nor where the index counts it)."""
    index = json.loads((location.path / "detailed/lp_relationship_provenance_index.json").read_text())
    source = _shard_path(location)
    entries = json.loads(source.read_text())
    rid = next(iter(entries))
    target_name = f"additional/lp_relationship_provenance_shard_{(shard_of(rid) + 1) % 64:02d}.json"
    target = location.path / target_name
    moved = json.loads(target.read_text())
    moved[rid] = entries.pop(rid)
    source.write_text(json.dumps(entries, sort_keys=True) + "\n")
    target.write_text(json.dumps(moved, sort_keys=True) + "\n")
    for path in (source, target):
        _reseal(location, str(path.relative_to(location.path)))
    assert index["partitionCount"] == 64


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_tampering_is_refused(copy: PackageLocation, case: str) -> None:
    tamper, expected = TAMPERING[case]
    tamper(copy)
    assert expected in _validate(copy)


# -- served by every tool and resource family --------------------------------------------------------------


async def _snapshot(client: Client[Any]) -> str:
    """The linked package's snapshot id, read from its resource URI as a client would."""
    result = await call(client, "get_framework", {"frameworkId": LINKED})
    uri: str = result.structured_content["framework"]["uri"]  # type: ignore[index]
    return uri.rsplit("/snapshot/", 1)[1]


async def _node(client: Client[Any], code: str) -> str:
    result = await call(client, "get_standard", {"frameworkId": LINKED, "statementCode": code})
    node: str = result.structured_content["standard"]["nodeId"]  # type: ignore[index]
    return node


async def test_every_tool_serves_the_supplied_packages(client: Client[Any]) -> None:
    listed = {tool.name for tool in await client.list_tools()}
    frameworks = (await call(client, "list_frameworks", {})).structured_content
    ids = {f["graphPackageId"] for f in frameworks["frameworks"]}  # type: ignore[index]
    assert {i.split("@")[0] for i in ids} == {LINKED, PLAIN}
    assert all(i.endswith("--academic-standards--p1") for i in ids)
    component = (
        await call(client, "get_learning_components_for_standard", {"frameworkId": LINKED, "statementCode": "NBT.A.1"})
    ).structured_content
    component_id = component["supports"][0]["component"]["nodeId"]  # type: ignore[index]
    links = (
        await call(client, "get_standard_progressions", {"frameworkId": LINKED, "statementCode": "NBT.A.1"})
    ).structured_content
    link_id = links["links"][0]["relationshipId"]  # type: ignore[index]
    snapshot = await _snapshot(client)
    node = await _node(client, "NBT.A.1")
    specimens = Specimens(
        framework=LINKED,
        other_framework=PLAIN,
        standard={"frameworkId": LINKED, "statementCode": "NBT.A.1"},
        earlier_standard={"frameworkId": LINKED, "statementCode": "NBT.1"},
        component=component_id,
        progression=link_id,
        query="number",
        uri=uris.standard_uri(LINKED, snapshot, node),
    )
    calls = example_calls(specimens)
    assert {tool for tool, _ in calls} == listed
    for tool, request in calls:
        await call(client, tool, request)


async def test_every_resource_family_reads_a_supplied_package(client: Client[Any]) -> None:
    links = (
        await call(client, "get_standard_progressions", {"frameworkId": LINKED, "statementCode": "NBT.A.1"})
    ).structured_content
    snapshot = await _snapshot(client)
    link_id = links["links"][0]["relationshipId"]  # type: ignore[index]
    node = await _node(client, "NBT.A.1")
    component = (
        await call(client, "get_learning_components_for_standard", {"frameworkId": LINKED, "statementCode": "NBT.A.1"})
    ).structured_content
    component_id = component["supports"][0]["component"]["nodeId"]  # type: ignore[index]
    addresses = [
        uris.CATALOG_URI,
        uris.learning_component_uri(LINKED, snapshot, component_id),
        uris.learning_component_provenance_uri(LINKED, snapshot, component_id),
        uris.framework_uri(LINKED),
        uris.snapshot_uri(LINKED, snapshot),
        uris.manifest_uri(LINKED, snapshot),
        uris.standard_uri(LINKED, snapshot, node),
        uris.standard_provenance_uri(LINKED, snapshot, node),
        uris.relationship_uri(LINKED, snapshot, link_id),
        uris.learning_progression_uri(LINKED, snapshot, link_id),
        uris.validation_uri(LINKED, snapshot),
        uris.profile_uri(LINKED, snapshot),
        uris.unresolved_uri(LINKED, snapshot),
        uris.artifact_uri(LINKED, snapshot, "learningProgressionProvenanceIndex"),
        uris.artifact_uri(LINKED, snapshot, f"learningProgressionProvenanceShard{shard_of(link_id):02d}"),
    ]
    for address in addresses:
        contents = await client.read_resource(address)
        assert contents, address
    manifest = await client.read_resource(uris.manifest_uri(LINKED, snapshot))
    assert "--academic-standards--p1" in manifest[0].text  # type: ignore[union-attr]
    # A supplied package has no provenance parts (its shards take their place): that family serves nothing
    # (refused by the rights gate first here, as for any package whose rights withhold bulk content).
    with pytest.raises(MCPError, match=r"resource_access_denied|resource_not_found"):
        await client.read_resource(uris.provenance_part_uri(LINKED, snapshot, 0))


async def test_a_link_is_served_with_the_judgement_its_shard_records(client: Client[Any]) -> None:
    snapshot = await _snapshot(client)
    links = (
        await call(client, "get_standard_progressions", {"frameworkId": LINKED, "statementCode": "NBT.A.1"})
    ).structured_content
    link_id = links["links"][0]["relationshipId"]  # type: ignore[index]
    (content,) = await client.read_resource(uris.learning_progression_uri(LINKED, snapshot, link_id))
    document = json.loads(content.text)  # type: ignore[union-attr]
    judgement = document["provenance"]["record"]["claim"]["judgment"]
    assert 0 <= judgement["confidence"] <= 1 and judgement["rationale"].startswith("Fixture rationale")
    assert content.meta is not None and "llm_inferred" in json.dumps(content.meta)


def test_entity_provenance_must_cover_every_standard(copy: PackageLocation) -> None:
    path = copy.path / "detailed/as_entity_provenance.json"
    document = json.loads(path.read_text())
    document["items"].pop(next(iter(document["items"])))
    path.write_text(json.dumps(document, sort_keys=True) + "\n")
    _reseal(copy, "detailed/as_entity_provenance.json")
    assert FindingCode.PROVENANCE_MISMATCH in _validate(copy)


# -- progression evidence as supplied, in both host views --------------------------------------------------

PROGRESSION_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("get_standard_progressions", {"frameworkId": LINKED, "statementCode": "NBT.A.1"}),
    ("search_learning_progressions", {"frameworkId": LINKED, "query": "number"}),
    ("traverse_learning_progressions", {"frameworkId": LINKED, "statementCode": "NBT.1"}),
    (
        "find_learning_progression_paths",
        {
            "from": {"frameworkId": LINKED, "statementCode": "NBT.1"},
            "to": {"frameworkId": LINKED, "statementCode": "NBT.A.2"},
        },
    ),
)


def _recorded_judgements(location: PackageLocation) -> dict[str, dict[str, Any]]:
    """Each link's judgement as the package on disk records it (never read from an answer)."""
    provenance = json.loads((location.path / "detailed/lp_relationship_provenance.json").read_text())
    return {rid: entry["claim"]["judgment"] for rid, entry in provenance.items()}


@pytest.mark.parametrize(("tool", "request_"), PROGRESSION_CALLS, ids=[c[0] for c in PROGRESSION_CALLS])
async def test_links_are_llm_inferred_with_their_judgement_in_each_view_alone(
    client: Client[Any], supplied: tuple[FixtureWorld, dict[str, PackageLocation]], tool: str, request_: dict[str, Any]
) -> None:
    recorded = _recorded_judgements(supplied[1][LINKED])
    result = await client.call_tool_mcp(tool, {"request": request_})
    structured = result.structured_content
    text = "\n".join(block.text for block in result.content if block.type == "text")
    assert structured is not None and not result.is_error
    judged = [(rid, j) for rid, j in recorded.items() if rid in json.dumps(structured)]
    assert judged, "the answer carries no link of the package"
    for view in (json.dumps(structured, ensure_ascii=False), text):
        assert '"llm_inferred"' in view or "llm_inferred" in view
        assert "model_link_judgement" in view
        for rid, judgement in judged:
            assert rid in view
            assert judgement["rationale"] in view and str(judgement["confidence"]) in view


# -- the profile in the pipeline's own format ---------------------------------------------------------------


def _profile_file(world: FixtureWorld, framework_id: str) -> Path:
    return world.profiles_root / framework_id / "2.0" / "profile.json"


def test_the_pipeline_profile_is_read_in_this_servers_terms(
    supplied: tuple[FixtureWorld, dict[str, PackageLocation]],
) -> None:
    world, locations = supplied
    loaded = world.profiles().load(LINKED, "2.0")
    manifest, _ = read_manifest(locations[LINKED].path)
    assert (
        loaded.sha256
        == manifest.profile.sha256
        == hashlib.sha256(_profile_file(world, LINKED).read_bytes()).hexdigest()
    )
    profile = loaded.profile
    assert [(g.source_label, g.display) for g in profile.grade_labels] == [
        ("1", "YEAR 1"),
        ("2", "YEAR 2"),
        ("3", "YEAR 3"),
    ]
    assert "Grade 2" in profile.grade_labels[1].aliases
    assert {(r.source_type, r.role) for r in profile.statement_types} == {
        ("Domain", "grouping"),
        ("Cluster", "grouping"),
        ("Standard", "standard"),
    }
    hierarchy = profile.hierarchy
    assert (hierarchy.rule, hierarchy.max_depth) == ("multiParentDag", 3)
    assert {(e.parent_type, e.child_type) for e in hierarchy.allowed_edges or ()} == {
        ("StandardsFramework", "Domain"),
        ("Domain", "Cluster"),
        ("Domain", "Standard"),
        ("Cluster", "Standard"),
    }
    assert (profile.code_policy.codes_present, profile.code_policy.prefix_search) == ("allStandards", True)
    assert profile.framework_ids == (LINKED,)
    assert [d.disclosure_id for d in profile.disclosures] == ["required-1", "fixture-anomaly"]


async def test_the_profile_resource_serves_the_pipeline_file_byte_for_byte(
    client: Client[Any], supplied: tuple[FixtureWorld, dict[str, PackageLocation]]
) -> None:
    snapshot = await _snapshot(client)
    (content,) = await client.read_resource(uris.profile_uri(LINKED, snapshot))
    assert content.text.encode() == _profile_file(supplied[0], LINKED).read_bytes()  # type: ignore[union-attr]


def _edit_profile(location: PackageLocation, edit: Callable[[dict[str, Any]], None]) -> None:
    """Change the copied world's profile file and bind the manifest to its new bytes (a consistent forgery)."""
    path = location.path.parents[2] / "profiles" / LINKED / "2.0" / "profile.json"
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document, indent="\t", sort_keys=True) + "\n")
    digest = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    _edit_manifest(location, lambda m: m["profile"].__setitem__("sha256", digest))


def test_a_changed_profile_file_is_refused(copy: PackageLocation) -> None:
    path = copy.path.parents[2] / "profiles" / LINKED / "2.0" / "profile.json"
    path.write_bytes(path.read_bytes().replace(b"YEAR 1", b"YEAR 9"))
    assert FindingCode.PROFILE_BINDING_MISMATCH in _validate(copy)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(
            lambda d: d.__setitem__("frameworkIds", ["another-framework"]), id="profile for another framework"
        ),
        pytest.param(lambda d: d.__setitem__("profileSchemaVersion", "1.0"), id="another profile schema"),
        pytest.param(
            lambda d: d["statementTypes"][0]["allowedParents"].append(
                {"maxCount": 1, "minCount": 0, "parentStatementType": "Cluster"}
            ),
            id="a root with a parent",
        ),
        pytest.param(lambda d: d.__setitem__("unknownKey", True), id="a key the pipeline's model does not have"),
    ],
)
def test_a_profile_the_pipeline_would_refuse_is_refused(
    copy: PackageLocation, edit: Callable[[dict[str, Any]], None]
) -> None:
    _edit_profile(copy, edit)
    assert FindingCode.PROFILE_BINDING_MISMATCH in _validate(copy)


def test_an_additional_artifact_without_an_exposure_contract_is_checked_and_never_served(tmp_path: Path) -> None:
    _, locations = _world(tmp_path)
    location = locations[LINKED]
    notes = location.path / "additional" / "operator_notes.json"
    notes.write_text('{"note": "kept by the operator"}\n')

    def declare(manifest: dict[str, Any]) -> None:
        manifest["artifacts"]["additionalArtifacts"]["operatorNotes"] = "additional/operator_notes.json"
        manifest["checksums"]["additional/operator_notes.json"] = (
            "sha256:" + hashlib.sha256(notes.read_bytes()).hexdigest()
        )

    _edit_manifest(location, declare)
    manifest, _ = read_manifest(location.path)
    (entry,) = [a for a in manifest.additional_artifacts if a.logical_name == "operatorNotes"]
    assert entry.exposure is None
    # Declared and pinned, so the closed tree holds (the snapshot id then names another file set).
    codes = _validate(location)
    assert FindingCode.UNDECLARED_ENTRY not in codes and FindingCode.CHECKSUM_MISMATCH not in codes
    assert artifact_access(manifest, "operatorNotes") is None


def test_validate_judges_a_supplied_package_and_never_writes_to_it(copy: PackageLocation) -> None:
    _edit_manifest(copy, lambda m: m.__setitem__("validation", {"status": "pending"}))
    before = {p: p.read_bytes() for p in copy.path.rglob("*") if p.is_file()}
    profiles = FixtureWorld(copy.path.parents[2]).profiles()
    lifecycle = PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL)
    result = lifecycle.validate(copy)
    assert (result.result, result.recorded) == ("passed", False)
    assert {p: p.read_bytes() for p in copy.path.rglob("*") if p.is_file()} == before
    with pytest.raises(ManifestBuildError):
        PackageWriter().record_validation(result.outcome, "passed")


def test_the_operator_commands_read_a_supplied_package(
    supplied: tuple[FixtureWorld, dict[str, PackageLocation]],
) -> None:
    world, locations = supplied
    snapshot = locations[LINKED].snapshot_id
    validate = kgfegmcp("packages", "validate", str(world.packages), "--json", world=world)
    assert validate.returncode == 0, validate.stderr
    reports = {r["graphPackageId"]: r for r in map(json.loads, validate.stdout.splitlines())}
    assert reports[f"{snapshot}--academic-standards--p1"]["status"] == "passed"
    listing = kgfegmcp("packages", "list", world=world)
    assert "unreadable" not in listing.stdout and snapshot in listing.stdout
    doctor = kgfegmcp("doctor", world=world)
    assert "supplied package" in doctor.stdout and "Rebuild it" not in doctor.stdout
    assert "no profile under" not in doctor.stdout


def test_a_judgement_confidence_outside_0_to_1_is_refused_even_when_every_file_agrees(copy: PackageLocation) -> None:
    root = copy.path
    provenance_path = root / "detailed/lp_relationship_provenance.json"
    provenance = json.loads(provenance_path.read_text())
    rid = next(iter(provenance))
    provenance[rid]["claim"]["judgment"]["confidence"] = 1.5
    shard_relative = f"additional/lp_relationship_provenance_shard_{shard_of(rid):02d}.json"
    shard = json.loads((root / shard_relative).read_text())
    shard[rid] = provenance[rid]
    provenance_path.write_text(json.dumps(provenance, sort_keys=True) + "\n")
    (root / shard_relative).write_text(json.dumps(shard, sort_keys=True) + "\n")
    index_path = root / "detailed/lp_relationship_provenance_index.json"
    index = json.loads(index_path.read_text())
    digest = lambda relative: "sha256:" + hashlib.sha256((root / relative).read_bytes()).hexdigest()  # noqa: E731
    index["originalProvenanceSha256"] = digest("detailed/lp_relationship_provenance.json")
    index["partitions"][f"learningProgressionProvenanceShard{shard_of(rid):02d}"]["sha256"] = digest(shard_relative)
    index_path.write_text(json.dumps(index, sort_keys=True) + "\n")
    changed = (
        "detailed/lp_relationship_provenance.json",
        shard_relative,
        "detailed/lp_relationship_provenance_index.json",
    )
    receipt_path = root / "detailed/lp_normalization_receipt.json"
    receipt = json.loads(receipt_path.read_text())
    receipt["outputSha256"].update({relative: digest(relative) for relative in changed})
    receipt_path.write_text(json.dumps(receipt, sort_keys=True) + "\n")
    for relative in (*changed, "detailed/lp_normalization_receipt.json"):
        _reseal(copy, relative)
    outcome = PackageValidator(FixtureWorld(root.parents[2]).profiles()).validate(copy)
    mismatches = [f.message for f in outcome.findings if f.code == FindingCode.DETAILED_ARTIFACT_MISMATCH]
    assert mismatches == ["claim.judgment.confidence must be a number from 0 to 1"]


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/data/supplied-package-shape is not on this machine")
def test_the_real_normalization_receipt_pins_its_packages_other_files() -> None:
    """Rwanda's real receipt against its real manifest: what the receipt rule holds every supplied package to."""
    (directory,) = REFERENCE.glob("rwanda-reb-mathematics-lower-primary-1-3/*/")
    manifest, _ = read_manifest(directory)
    receipt = json.loads((directory / "detailed/lp_normalization_receipt.json").read_text())
    assert isinstance(manifest.counts, SuppliedCounts)
    links = {
        "buildsTowards": manifest.counts.builds_towards_relationships,
        "relatesTo": manifest.counts.relates_to_relationships,
    }
    assert receipt_problems(receipt, manifest, links) == []
    receipt["outputSha256"]["detailed/as_kg_bundle.json"] = "sha256:" + "0" * 64
    assert receipt_problems(receipt, manifest, links) != []


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/data/supplied-package-shape is not on this machine")
def test_the_real_provenance_index_pins_its_packages_shards() -> None:
    """Ghana English's real index against its real manifest: what the index rule holds every supplied package to."""
    (directory,) = REFERENCE.glob("ghana-nacca-primary-english-language-basic-1-3/*/")
    manifest, _ = read_manifest(directory)
    index = json.loads((directory / "detailed/lp_relationship_provenance_index.json").read_text())
    counts = {name: part["entryCount"] for name, part in index["partitions"].items()}
    assert index_problems(index, manifest, counts) == []
    assert sum(counts.values()) == 250 + 801  # its buildsTowards and relatesTo links, one entry each
    index["partitions"]["learningProgressionProvenanceShard07"]["sha256"] = "sha256:" + "0" * 64
    assert [where for _, where in index_problems(index, manifest, counts)] == ["learningProgressionProvenanceShard07"]


def test_a_supplied_package_starts_from_the_cache_once_every_rule_passed_it(
    tmp_path: Path, validator_gates: list[str]
) -> None:
    world, locations = _world(tmp_path / "world")
    cache = tmp_path / "cache"
    state_for(world, cache_dir=cache)  # cold: every rule, then entries are stored
    assert validator_gates == ["every_rule"] * 2
    validator_gates.clear()
    state_for(world, cache_dir=cache)  # warm: the entries' verdicts, bytes still verified
    assert validator_gates == ["cached_verdict"] * 2
    validator_gates.clear()
    _repin(locations[LINKED], "detailed/lp_final_claims.json")  # another manifest: no entry, every rule refuses it
    with pytest.raises(CatalogError, match="no longer validates"):
        state_for(world, cache_dir=cache)


async def test_get_framework_says_who_validated_a_supplied_package_in_each_view(client: Client[Any]) -> None:
    result = await client.call_tool_mcp("get_framework", {"request": {"frameworkId": LINKED}})
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    assert "validator None" not in text
    assert "Validation: passed (by its supplying pipeline, 2026-10-01T23:43:34Z" in text
    assert result.structured_content["validation"]["validatedAt"] == "2026-10-01T23:43:34Z"  # type: ignore[index]
