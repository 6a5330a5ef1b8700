"""A package's rights are witnessed outside it: by the profile it binds by SHA-256, and by the operator.

The seal of a manifest is an unkeyed SHA-256 anyone who writes the package can recompute. So each forgery
here edits only the manifest's ``rights`` of a genuine, validated package and re-seals it (a supplied
manifest has no seal to recompute: its snapshot id digests its files' checksums only), and every gate must
refuse it with ``rights_exceed_profile`` naming the field: ``packages validate``, ``doctor`` and start-up,
under either invalid-package policy. What widens a package is the operator's decision, held in the
operator rights file: approved, the package serves its text (a real MCP client reads it); withheld, it does
not; narrower than its profile, a manifest needs no step at all.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from resource_calls import read, read_code
from typer.testing import CliRunner

from checkout import REPOSITORY_ROOT
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.cli import app
from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR, InvalidPackagePolicy, load_settings
from kgfegmcp.core.errors import CatalogError, ConfigurationError
from kgfegmcp.core.operator_rights import read_operator_rights
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.doctor import CheckStatus, run_checks
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, seal_of
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.prompts.repository import copy_generic_configs
from kgfegmcp.resources import uris
from package_factory import LC, RIGHTS, TREE, FixtureWorld, base_graph, lc_graph, standard_world
from supplied_package import PROFILE_VERSION, SuppliedPackageWriter, pipeline_profile_document
from tool_calls import call, structured, texts

SNAPSHOT = "2026-01"
CODE = "NBT.1"
TEXT = "Count to 120, starting at any number."
#: The profile of ``fixture-tree`` grants less than the fixtures' default: review required, derivatives denied.
GUARDED = {**RIGHTS, "reviewStatus": "review_required", "allowGeneratedDerivatives": "denied"}

Forgery = Callable[[dict[str, Any]], None]
#: Each forgery widens one thing of the genuine rights, as an attacker with write access to the package would.
FORGERIES: dict[str, tuple[Forgery, str]] = {
    "bulk-access-on": (lambda r: r.update(allowBulkResource=True), "allowBulkResource"),
    "review-raised-to-approved": (lambda r: r.update(reviewStatus="approved"), "reviewStatus"),
    "licence-replaced": (lambda r: r.update(sourceLicense="Public domain, no rights reserved"), "sourceLicense"),
    "licence-uri-replaced": (
        lambda r: r.update(licenseUri="https://creativecommons.org/publicdomain/zero/1.0/"),
        "licenseUri",
    ),
    "attribution-replaced": (lambda r: r.update(attributionStatement="No attribution needed."), "attributionStatement"),
    "derivatives-allowed-where-denied": (
        lambda r: r.update(allowGeneratedDerivatives="allowed"),
        "allowGeneratedDerivatives",
    ),
}


def _manifest(location: PackageLocation) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((location.path / MANIFEST_FILENAME).read_text(encoding="utf-8"))
    return document


def forge(location: PackageLocation, forgery: Forgery) -> None:
    """Edit the manifest's rights and, for this server's manifest, recompute its seal."""
    manifest = _manifest(location)
    forgery(manifest["rights"])
    if "sealSha256" in manifest["validation"]:
        manifest["validation"]["sealSha256"] = seal_of(PackageManifest.model_validate_json(json.dumps(manifest)))
    (location.path / MANIFEST_FILENAME).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def validate(world: FixtureWorld, *locations: PackageLocation) -> None:
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in locations:
        assert lifecycle.validate(location).result == "passed", location


def guarded_world(base: Path) -> tuple[FixtureWorld, PackageLocation, PackageLocation]:
    """``fixture-tree`` with its guarded profile's rights (text withheld until reviewed), ``fixture-lc`` with the
    fixtures' rights (text served), both validated."""
    world = standard_world(base)
    world.add_profile(TREE, defaultRights=GUARDED)
    guarded = world.write(base_graph(TREE), rights=RightsPolicy.model_validate(GUARDED))
    served = world.write(lc_graph(LC))
    validate(world, guarded, served)
    return world, guarded, served


def settings(world: FixtureWorld, rights_file: Path, **more: Any) -> dict[str, Any]:
    prompts = world.base / "prompts"
    if not prompts.exists():  # the generic prompts: the shipped overlays name the default catalog's frameworks
        copy_generic_configs(SHIPPED_PROMPTS_DIR, prompts)
    return {
        "graph_packages_dir": world.packages,
        "profiles_dir": world.profiles_root,
        "prompts_dir": prompts,
        "operator_rights_file": rights_file,
        "cache_dir": world.base / "cache",
        **more,
    }


def review(rights_file: Path, package: str, *options: str) -> str:
    """``kgfegmcp packages review`` as an operator runs it; its output."""
    result = CliRunner().invoke(app, ["packages", "review", package, *options, "--rights-file", str(rights_file)])
    assert result.exit_code == 0, result.output
    return result.output


def validate_json(world: FixtureWorld, location: PackageLocation) -> tuple[int, list[dict[str, Any]]]:
    """``kgfegmcp packages validate --json`` on one package: its exit code and findings."""
    arguments = ["packages", "validate", str(location.path), "--json", "--profiles-dir", str(world.profiles_root)]
    result = CliRunner().invoke(app, arguments)
    findings: list[dict[str, Any]] = json.loads(result.stdout.splitlines()[-1])["findings"]
    return result.exit_code, findings


def doctor_check(world: FixtureWorld, rights_file: Path, location: PackageLocation, **more: Any) -> Any:
    checks = {check.area: check for check in run_checks(settings(world, rights_file, **more))}
    # A supplied package is named by its manifest's id: its snapshot id and a --<type>--p<n> suffix.
    (area,) = [area for area in checks if area.startswith(f"package {location.graph_package_id}")]
    return checks[area], checks


# -- every forgery, re-sealed, is refused by every gate -----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_rights_block_is_refused_by_validate_doctor_and_serve(name: str, tmp_path: Path) -> None:
    world, guarded, _ = guarded_world(tmp_path)
    rights_file = tmp_path / "operator_rights.json"
    build_app_state(load_settings(settings(world, rights_file)))  # the genuine package serves (and is cached)
    forgery, field = FORGERIES[name]
    forge(guarded, forgery)

    code, findings = validate_json(world, guarded)
    assert code == 1
    (finding,) = [
        f for f in findings if f["severity"] == "error"
    ]  # re-sealed: the seal does not tell, the witness does
    assert finding["code"] == "rights_exceed_profile" and f"rights.{field} " in finding["message"]

    check, checks = doctor_check(world, rights_file, guarded)
    assert check.status is CheckStatus.FAIL and "rights_exceed_profile" in check.detail
    assert "packages review" in (check.fix or "") and checks["catalog"].status is CheckStatus.FAIL

    for policy in InvalidPackagePolicy:  # a passed package so edited stops the start under either policy
        with pytest.raises(CatalogError, match=r"no longer validates \(rights_exceed_profile\)"):
            build_app_state(load_settings(settings(world, rights_file, invalid_package_policy=policy)))


def test_an_operator_decision_does_not_make_a_forged_manifest_acceptable(tmp_path: Path) -> None:
    """The witness of the manifest is its profile alone: even an approval on file does not let it widen."""
    world, guarded, _ = guarded_world(tmp_path)
    rights_file = tmp_path / "operator_rights.json"
    review(rights_file, guarded.graph_package_id, "--status", "approved", "--bulk")
    forge(guarded, lambda r: r.update(reviewStatus="approved", allowBulkResource=True))
    with pytest.raises(CatalogError, match="rights_exceed_profile"):
        build_app_state(load_settings(settings(world, rights_file)))


def test_a_forged_pending_package_is_refused_or_left_out_by_the_policy(tmp_path: Path) -> None:
    world, _, served = guarded_world(tmp_path)
    rights_file = tmp_path / "operator_rights.json"
    pending = world.write(base_graph(TREE), snapshot_id="2026-02", is_current=False)
    forge(pending, lambda r: r.update(allowBulkResource=True))
    with pytest.raises(CatalogError, match=r"Pending package .* does not validate \(rights_exceed_profile\)"):
        build_app_state(load_settings(settings(world, rights_file)))
    state = build_app_state(load_settings(settings(world, rights_file, invalid_package_policy="quarantine")))
    assert [e.graph_package_id for e in state.catalog.excluded] == [pending.graph_package_id]
    assert state.catalog.by_snapshot(TREE, "2026-02") is None
    assert state.catalog.by_snapshot(LC, SNAPSHOT) is not None and served.path.is_dir()


# -- the genuine package, narrowing, and the operator's decisions -----------------------------------------------


@pytest.fixture
def world_and_file(tmp_path: Path) -> tuple[FixtureWorld, PackageLocation, Path]:
    world, guarded, _ = guarded_world(tmp_path)
    return world, guarded, tmp_path / "config" / "operator_rights.json"


def _path_of(world: FixtureWorld, logical_name: str) -> str:
    manifest = _manifest(PackageLocation(LC, SNAPSHOT, world.packages / LC / SNAPSHOT))
    return str(next(a["path"] for a in manifest["artifacts"] if a["logicalName"] == logical_name))


async def _standard(state: AppState, framework_id: str) -> tuple[dict[str, Any], str]:
    async with Client(create_app(state)) as client:
        result = await call(client, "get_standard", {"frameworkId": framework_id, "statementCode": CODE})
    return structured(result), texts(result)[0]


async def test_the_genuine_package_is_served_with_its_profiles_rights(
    world_and_file: tuple[FixtureWorld, PackageLocation, Path],
) -> None:
    world, _, rights_file = world_and_file
    state = build_app_state(load_settings(settings(world, rights_file)))
    guarded, text = await _standard(state, TREE)
    assert (
        "description" not in guarded["standard"] and "review_required" in guarded["package"]["textWithheld"]["reason"]
    )
    assert "operatorReview" not in guarded["package"] and "Rights:" not in text
    served, _ = await _standard(state, LC)
    assert served["standard"]["description"] == TEXT and "textWithheld" not in served["package"]
    async with Client(create_app(state)) as client:  # bulk content: denied by the genuine rights
        assert await read_code(client, uris.artifact_uri(LC, SNAPSHOT, "nodes")) == "resource_access_denied"


async def test_the_operators_approval_serves_the_text_without_a_rebuild(
    world_and_file: tuple[FixtureWorld, PackageLocation, Path],
) -> None:
    world, guarded, rights_file = world_and_file
    manifest_before = (guarded.path / MANIFEST_FILENAME).read_bytes()
    output = review(rights_file, guarded.graph_package_id, "--status", "approved", "--by", "ops@example.org")
    assert "reviewStatus=approved" in output and "ops@example.org" in output
    decision = read_operator_rights(rights_file).decision(TREE, SNAPSHOT)
    assert decision is not None and decision.decided_by == "ops@example.org" and decision.decided_at
    assert (guarded.path / MANIFEST_FILENAME).read_bytes() == manifest_before  # the package is never written

    state = build_app_state(load_settings(settings(world, rights_file)))
    answer, text = await _standard(state, TREE)
    assert answer["standard"]["description"] == TEXT and "textWithheld" not in answer["package"]
    assert answer["package"]["operatorReview"] == f"approved ({decision.decided_at})"
    assert f"  Rights: the operator's decision, review state approved ({decision.decided_at})." in text
    assert (
        answer["package"]["license"] == "CC BY 4.0"
        and answer["package"]["attribution"] == RIGHTS["attributionStatement"]
    )  # the profile's words, whatever the decision
    framework = state.catalog.by_snapshot(TREE, SNAPSHOT)
    assert framework is not None and framework.manifest.rights.review_status == "review_required"
    check, _ = doctor_check(world, rights_file, guarded)
    assert check.status is CheckStatus.OK and "under the operator's decision reviewStatus=approved" in check.detail


async def test_the_operator_opens_bulk_access_and_withholds_text_and_withdraws(
    world_and_file: tuple[FixtureWorld, PackageLocation, Path],
) -> None:
    world, _, rights_file = world_and_file
    lc = f"{LC}@{SNAPSHOT}"
    nodes = uris.artifact_uri(LC, SNAPSHOT, "nodes")
    review(rights_file, lc, "--status", "approved", "--bulk")
    state = build_app_state(load_settings(settings(world, rights_file)))
    async with Client(create_app(state)) as client:
        data, meta = await read(client, nodes)
    assert data == (world.packages / LC / SNAPSHOT / _path_of(world, "nodes")).read_bytes()
    assert meta["accessClass"] == "bulk_content"

    # A new review replaces the decision; withholding text withholds bulk access too, whatever it says of bulk.
    review(rights_file, lc, "--status", "approved", "--bulk", "--no-full-text")
    state = build_app_state(load_settings(settings(world, rights_file)))
    answer, _ = await _standard(state, LC)
    assert "description" not in answer["standard"] and "allowFullText" in answer["package"]["textWithheld"]["reason"]
    async with Client(create_app(state)) as client:
        assert await read_code(client, nodes) == "resource_access_denied"
    served = state.catalog.by_snapshot(LC, SNAPSHOT)
    assert served is not None and not served.rights.allow_bulk_resource

    review(rights_file, lc, "--withdraw")
    assert read_operator_rights(rights_file).decisions == {}
    answer, _ = await _standard(build_app_state(load_settings(settings(world, rights_file))), LC)
    assert answer["standard"]["description"] == TEXT and "operatorReview" not in answer["package"]


def test_a_manifest_narrower_than_its_profile_needs_no_step(tmp_path: Path) -> None:
    world = standard_world(tmp_path)
    narrower = {**RIGHTS, "reviewStatus": "restricted", "allowFullText": False, "allowGeneratedDerivatives": "denied"}
    location = world.write(base_graph(TREE), rights=RightsPolicy.model_validate(narrower))
    validate(world, location)
    state = build_app_state(load_settings(settings(world, tmp_path / "operator_rights.json")))
    served = state.catalog.by_snapshot(TREE, SNAPSHOT)
    assert served is not None and served.rights == RightsPolicy.model_validate(narrower)


def test_an_invalid_operator_rights_file_stops_every_start(
    world_and_file: tuple[FixtureWorld, PackageLocation, Path],
) -> None:
    world, guarded, rights_file = world_and_file
    rights_file.parent.mkdir(parents=True)
    rights_file.write_text(
        '{"decisions": {"fixture-tree@2026-01": {"reviewStatus": "approved", "reviewStatus": "approved", '
        '"decidedBy": "x", "decidedAt": "2026-01-01T00:00:00Z"}}}'
    )
    with pytest.raises(ConfigurationError, match='repeats the key "reviewStatus"'):
        build_app_state(load_settings(settings(world, rights_file)))
    rights_file.write_text(
        '{"decisions": {"fixture-tree@2026-01": {"decidedBy": "x", "decidedAt": "2026-01-01T00:00:00Z"}}}'
    )
    with pytest.raises(ConfigurationError, match="states at least one of reviewStatus"):
        build_app_state(load_settings(settings(world, rights_file)))
    _, checks = doctor_check(world, rights_file, guarded)
    assert checks["operator rights"].status is CheckStatus.FAIL
    with pytest.raises(ConfigurationError, match="must not be inside KGFEGMCP_GRAPH_PACKAGES_DIR"):
        load_settings(settings(world, world.packages / "operator_rights.json"))


def test_the_review_command_refuses_what_it_cannot_record(tmp_path: Path) -> None:
    rights_file = tmp_path / "operator_rights.json"
    runner = CliRunner()
    for arguments in (
        ["not a package id", "--status", "approved"],
        [f"{TREE}@{SNAPSHOT}"],  # no decision
        [f"{TREE}@{SNAPSHOT}", "--withdraw", "--status", "approved"],
        [f"{TREE}@{SNAPSHOT}", "--status", "fine-by-me"],
    ):
        result = runner.invoke(app, ["packages", "review", *arguments, "--rights-file", str(rights_file)])
        assert result.exit_code == 2, (arguments, result.output)
    assert not rights_file.exists()


# -- supplied packages follow the same rule -----------------------------------------------------------------------


def supplied_world(base: Path) -> tuple[FixtureWorld, PackageLocation]:
    """A supplied package whose pipeline profile grants review-required rights with derivatives denied, and whose
    manifest carries them, as the pipeline writes a package bound to that profile."""
    world = FixtureWorld(base)
    framework = "fixture-supplied-tree"
    document = pipeline_profile_document(framework)
    document["rights"] = dict(GUARDED)
    path = world.profiles_root / framework / PROFILE_VERSION / "profile.json"
    path.parent.mkdir(parents=True)
    path.write_bytes((json.dumps(document, indent="\t", sort_keys=True) + "\n").encode())
    location = SuppliedPackageWriter(world).write(base_graph(framework), hashlib.sha256(path.read_bytes()).hexdigest())
    forge(location, lambda r: r.update(GUARDED))  # the genuine manifest states its profile's rights
    return world, location


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_supplied_package_with_forged_rights_is_refused_by_every_gate(name: str, tmp_path: Path) -> None:
    world, location = supplied_world(tmp_path)
    rights_file = tmp_path / "operator_rights.json"
    assert isinstance(build_app_state(load_settings(settings(world, rights_file))).catalog, AcceptedCatalog)
    forgery, field = FORGERIES[name]
    forge(location, forgery)
    code, findings = validate_json(world, location)
    (finding,) = [f for f in findings if f["severity"] == "error"]
    assert code == 1 and finding["code"] == "rights_exceed_profile" and f"rights.{field} " in finding["message"]
    check, _ = doctor_check(world, rights_file, location)
    assert check.status is CheckStatus.FAIL and "rights_exceed_profile" in check.detail
    for policy in InvalidPackagePolicy:
        with pytest.raises(CatalogError, match="rights_exceed_profile"):
            build_app_state(load_settings(settings(world, rights_file, invalid_package_policy=policy)))


async def test_a_supplied_package_is_approved_by_the_operator(tmp_path: Path) -> None:
    world, location = supplied_world(tmp_path)
    rights_file = tmp_path / "operator_rights.json"
    framework = location.framework_id
    withheld, _ = await _standard(build_app_state(load_settings(settings(world, rights_file))), framework)
    assert "description" not in withheld["standard"]
    review(rights_file, withheld["package"]["graphPackageId"], "--status", "provisional_operator_approved")
    assert list(read_operator_rights(rights_file).decisions) == [location.snapshot_id]  # filed by its snapshot
    answer, _ = await _standard(build_app_state(load_settings(settings(world, rights_file))), framework)
    assert answer["standard"]["description"] == TEXT
    assert answer["package"]["operatorReview"].startswith("provisional_operator_approved (")


# -- every gate reads the rights a package is served under --------------------------------------------------------


def test_no_gate_reads_a_manifests_rights_directly() -> None:
    """``manifest.rights`` is what the package claims; what it is served under is ``rights`` (the operator's
    decision applied). Only the validator (which holds the claim to the profile) and the runtime read the claim."""
    source = REPOSITORY_ROOT / "src" / "kgfegmcp"

    def reads_the_claim(node: ast.AST) -> bool:
        if not isinstance(node, ast.Attribute) or node.attr != "rights":
            return False
        owner = node.value
        return (isinstance(owner, ast.Name) and owner.id == "manifest") or (
            isinstance(owner, ast.Attribute) and owner.attr == "manifest"
        )

    readers = sorted(
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if any(reads_the_claim(node) for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
    )
    # packages/stats.py: offline statistics name the licence and attribution, which no decision changes.
    assert readers == ["packages/runtime.py", "packages/stats.py", "packages/validator.py"]


def test_a_copied_package_keeps_no_decision_of_another_catalog(tmp_path: Path) -> None:
    """A decision is the operator's, in the operator's file: copying a package elsewhere copies none of it."""
    world, guarded, _ = guarded_world(tmp_path / "one")
    rights_file = tmp_path / "operator_rights.json"
    review(rights_file, guarded.graph_package_id, "--status", "approved")
    copy = FixtureWorld(tmp_path / "two")
    shutil.copytree(world.profiles_root, copy.profiles_root)
    shutil.copytree(guarded.path, copy.packages / TREE / SNAPSHOT)
    state = build_app_state(load_settings(settings(copy, tmp_path / "other_operator_rights.json")))
    served = state.catalog.by_snapshot(TREE, SNAPSHOT)
    assert served is not None and served.operator_decision is None and not served.rights.is_reviewed


def test_the_documented_operator_rights_file_is_read_as_documented(tmp_path: Path) -> None:
    """docs/configuration.md's example is a valid operator rights file, filed by the id it names."""
    page = (REPOSITORY_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    (example,) = [block for block in re.findall(r"```json\n(.*?)```", page, re.DOTALL) if '"decisions"' in block]
    (tmp_path / "operator_rights.json").write_text(example, encoding="utf-8")
    decisions = read_operator_rights(tmp_path / "operator_rights.json")
    decision = decisions.decision("ghana-nacca-primary-english-language-basic-1-3", "2019-e49a79263701")
    assert decision is not None and decision.review_status == "provisional_operator_approved"


async def test_the_default_catalogs_bulk_artifacts_open_only_by_the_operators_decision(
    default_catalog_root: Path, tmp_path: Path
) -> None:
    """A real package: its nodes are bulk content its rights deny. Forged open and re-sealed, it is refused at
    start; the operator's decision opens them, and only that."""
    framework = "brazil-bncc-computacao"
    (source,) = (default_catalog_root / framework).iterdir()
    location = PackageLocation(framework, source.name, tmp_path / "graph_packages" / framework / source.name)
    shutil.copytree(source, location.path)
    rights_file = tmp_path / "operator_rights.json"
    prompts = copy_generic_configs(SHIPPED_PROMPTS_DIR, tmp_path / "prompts")
    real = {"graph_packages_dir": tmp_path / "graph_packages", "prompts_dir": prompts}
    real |= {"operator_rights_file": rights_file, "cache_dir": tmp_path / "cache"}
    nodes = uris.artifact_uri(framework, source.name, "nodes")
    async with Client(create_app(build_app_state(load_settings(real)))) as client:
        assert await read_code(client, nodes) == "resource_access_denied"

    genuine = (location.path / MANIFEST_FILENAME).read_bytes()
    forge(location, lambda r: r.update(allowBulkResource=True))
    with pytest.raises(CatalogError, match=r"no longer validates \(rights_exceed_profile\)"):
        build_app_state(load_settings(real))

    (location.path / MANIFEST_FILENAME).write_bytes(genuine)
    review(rights_file, location.graph_package_id, "--status", "approved", "--bulk")
    async with Client(create_app(build_app_state(load_settings(real)))) as client:
        data, meta = await read(client, nodes)
    path = next(a["path"] for a in _manifest(location)["artifacts"] if a["logicalName"] == "nodes")
    assert data == (location.path / path).read_bytes() and meta["accessClass"] == "bulk_content"
