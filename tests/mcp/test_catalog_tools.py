"""list_frameworks, get_framework, get_capabilities and get_framework_statistics through the in-memory client."""

from __future__ import annotations

from typing import Any

from fastmcp import Client
from mcp.types import ResourceLink

from default_catalog_ids import DEFAULT_FRAMEWORKS
from kgfegmcp.bootstrap import AppState
from kgfegmcp.resources import uris
from kgfegmcp.services.views import PackageRef
from package_factory import DAG, LC, TREE
from standards_worlds import NOCODE, NOTEXT, TWIN
from tool_calls import call, error, error_code, structured, texts

EF = "brazil-bncc-ensino-fundamental"
CCSS = "us-ccss-ela-literacy-grades-2-4"


def identity_of(state: AppState, framework_id: str, snapshot_id: str | None = None, number: int = 1) -> dict[str, Any]:
    """The compact identity block of the ``number``-th package of an answer describing packages whole (their
    links' label, not the link-provenance rule that answers carrying links give)."""
    package = state.catalog.resolve(framework_id, snapshot_id)
    counts = package.manifest.counts.relationships
    ref = PackageRef.of(package, number, links="held" if counts.builds_towards + counts.relates_to else None).to_wire()
    rights = package.manifest.rights
    assert ref["attribution"] == rights.attribution_statement and ref["manifestUri"] == ref["uri"] + "/manifest"
    return ref


IDENTITY = ("number", "graphPackageId", "uri", "manifestUri", "builtFrom", "license", "attribution")


def identity_in(entry: dict[str, Any]) -> dict[str, Any]:
    """The package identity fields of an entry that is a package itself (framework summary, capabilities)."""
    return {key: entry[key] for key in (*IDENTITY, "disclosureIds", "labels")}


def framework_of(entry: dict[str, Any]) -> str:
    """A graph-package id is '<frameworkId>@<snapshotId>'."""
    return str(entry["graphPackageId"]).split("@")[0]


def snapshot_of(entry: dict[str, Any]) -> str:
    return str(entry["graphPackageId"]).split("@")[1]


def profile_disclosures(state: AppState, framework_id: str, snapshot_id: str | None = None) -> list[dict[str, str]]:
    runtime = state.catalog.resolve(framework_id, snapshot_id)
    return [{"disclosureId": d.disclosure_id, "text": d.text} for d in runtime.profile.profile.disclosures]


def disclosure_ids(state: AppState, framework_id: str, snapshot_id: str | None = None) -> list[str]:
    return [d["disclosureId"] for d in profile_disclosures(state, framework_id, snapshot_id)]


# -- list_frameworks ---------------------------------------------------------------------------


async def test_list_frameworks_default_catalog(default_client: Client[Any], default_state: AppState) -> None:
    result = await call(default_client, "list_frameworks", {})
    body = structured(result)
    assert [framework_of(f) for f in body["frameworks"]] == list(DEFAULT_FRAMEWORKS)
    assert body["total"] == len(DEFAULT_FRAMEWORKS)
    assert body["page"] == {"hasMore": False, "nextCursor": None}
    assert body["catalogFingerprint"] == default_state.catalog.fingerprint
    for number, entry in enumerate(body["frameworks"], start=1):
        runtime = default_state.catalog.resolve(framework_of(entry))
        assert entry["graphPackageId"] == runtime.graph_package_id
        assert entry["manifestUri"] == uris.manifest_uri(runtime.framework_id, runtime.snapshot_id)
        assert entry["standardsItems"] == len(runtime.items)
        assert entry["learningComponents"] == len(runtime.components)
        # Each listed package names itself once: no separate packages or disclosures blocks.
        assert identity_in(entry) == identity_of(default_state, runtime.framework_id, number=number)
        assert entry["title"] == runtime.manifest.title and "name" not in entry  # name == title here
    assert set(body) == {"frameworks", "total", "page", "catalogFingerprint"}
    ef = next(f for f in body["frameworks"] if framework_of(f) == EF)
    assert ef["graphTypes"]["contains"] == ["AcademicStandards", "LearningComponents", "LearningProgressions"]
    (summary,) = texts(result)
    count = len(DEFAULT_FRAMEWORKS)
    assert summary.startswith(f"{count} of {count} accepted packages (more: no).")
    lines = summary.splitlines()
    for entry in body["frameworks"]:
        # One line per package: what it holds, its licence, link, manifest, files and disclosure ids; then its
        # attribution.
        ids = f"(frameworkId {entry['frameworkId']}, snapshotId {entry['snapshotId']})"
        head = f"Package {entry['number']}: {entry['graphPackageId']} {ids} — {entry['title']} ("
        at = next(index for index, line in enumerate(lines) if line.startswith(head))
        assert f"(licence {entry['license']}; standards " in lines[at]
        assert f" at {entry['uri']} (manifest: add /manifest); built from nodes " in lines[at]
        assert entry["manifestUri"] == entry["uri"] + "/manifest"
        assert lines[at].endswith(f"; disclosures {', '.join(entry['disclosureIds'])}.")
        assert lines[at + 1] == f"  Attribution: {entry['attribution']}"
    assert "Read a package's disclosures at its link (or get_framework) before citing it." in lines
    assert "Disclosure:" not in summary  # the full texts are in get_framework and the resources


async def test_list_frameworks_filters_default_catalog(default_client: Client[Any]) -> None:
    async def ids(request: dict[str, Any]) -> list[str]:
        return [
            framework_of(f) for f in structured(await call(default_client, "list_frameworks", request))["frameworks"]
        ]

    assert await ids({"graphTypes": ["LearningComponents"]}) == [EF]
    assert await ids({"graphTypes": ["AcademicStandards", "LearningProgressions"]}) == [
        "brazil-bncc-educacao-infantil",
        EF,
    ]
    assert await ids({"inLanguage": "en"}) == [CCSS]
    assert await ids({"jurisdiction": "Brasil", "academicSubject": "Computação"}) == ["brazil-bncc-computacao"]
    assert await ids({"frameworkIds": [CCSS, EF]}) == [EF, CCSS]
    # A filter value no accepted package has is refused with the values that exist, never an empty page.
    unknown = await error(default_client, "list_frameworks", {"frameworkIds": ["no-such-framework"]})
    assert unknown.startswith("framework_not_found: frameworkIds: 'no-such-framework'") and EF in unknown
    for field, value, known in (("academicSubject", "Math", "Computação"), ("inLanguage", "pt", "pt-BR")):
        refused = await error(default_client, "list_frameworks", {field: value})
        assert refused.startswith(f"invalid_request: {field}: {value!r}") and known in refused


async def test_list_frameworks_non_current_and_graph_types_on_fixtures(fixture_client: Client[Any]) -> None:
    current = structured(await call(fixture_client, "list_frameworks", {"frameworkIds": [TREE]}))
    assert [snapshot_of(f) for f in current["frameworks"]] == ["2026-01"]
    every = structured(
        await call(fixture_client, "list_frameworks", {"frameworkIds": [TREE], "includeNonCurrent": True})
    )
    assert [(snapshot_of(f), f["isCurrent"]) for f in every["frameworks"]] == [("2025-01", False), ("2026-01", True)]
    lc_only = structured(await call(fixture_client, "list_frameworks", {"graphTypes": ["LearningProgressions"]}))
    assert [framework_of(f) for f in lc_only["frameworks"]] == [LC]
    twins = structured(await call(fixture_client, "list_frameworks", {"frameworkIds": [TWIN]}))
    assert [f["graphPackageId"] for f in twins["frameworks"]] == [f"{TWIN}@2026-01", f"{TWIN}@2026-02"]
    page = structured(await call(fixture_client, "list_frameworks", {"frameworkIds": [TWIN], "limit": 1}))
    assert [p["graphPackageId"] for p in page["frameworks"]] == [f"{TWIN}@2026-01"]


# -- get_framework -----------------------------------------------------------------------------


async def test_get_framework_default_catalog(default_client: Client[Any], default_state: AppState) -> None:
    result = await call(default_client, "get_framework", {"frameworkId": EF})
    body = structured(result)
    runtime = default_state.catalog.resolve(EF)
    assert body["framework"]["graphPackageId"] == runtime.graph_package_id
    assert identity_in(body["framework"]) == identity_of(default_state, EF)
    assert "package" not in body  # the framework entry is the package's identity
    assert body["disclosures"] == profile_disclosures(default_state, EF)  # in full here, and only here
    assert body["validation"]["status"] == "passed"
    assert body["rights"]["sourceLicense"] == runtime.manifest.rights.source_license
    assert body["capabilities"]["learningComponents"] is True
    links = [block for block in result.content if isinstance(block, ResourceLink)]
    assert [str(link.uri) for link in links] == [uris.manifest_uri(runtime.framework_id, runtime.snapshot_id)]
    summary = texts(result)[0]
    assert runtime.graph_package_id in summary and "Validation: passed" in summary
    for disclosure in body["disclosures"]:
        assert disclosure["text"] in summary


async def test_get_framework_fixture_snapshots(fixture_client: Client[Any], fixture_state: AppState) -> None:
    old = structured(await call(fixture_client, "get_framework", {"frameworkId": TREE, "snapshotId": "2025-01"}))
    assert old["framework"]["isCurrent"] is False
    assert identity_in(old["framework"]) == identity_of(fixture_state, TREE, "2025-01")
    current = structured(await call(fixture_client, "get_framework", {"frameworkId": TREE}))
    assert snapshot_of(current["framework"]) == "2026-01"
    assert current["disclosures"] == [{"disclosureId": "fixture", "text": "Fixture data written by tests."}]
    notext = structured(await call(fixture_client, "get_framework", {"frameworkId": NOTEXT}))
    assert notext["capabilities"]["textSearch"] is False


async def test_framework_errors(fixture_client: Client[Any], default_client: Client[Any]) -> None:
    for tool in ("get_framework", "get_framework_statistics", "get_capabilities"):
        assert await error_code(default_client, tool, {"frameworkId": "no-such-framework"}) == "framework_not_found"
        assert (
            await error_code(fixture_client, tool, {"frameworkId": TREE, "snapshotId": "1999-01"})
            == "framework_not_found"
        )
        message = await error(fixture_client, tool, {"frameworkId": TWIN})
        assert message.startswith("ambiguous_framework: ")
        assert "2026-01" in message and "2026-02" in message
        chosen = structured(await call(fixture_client, tool, {"frameworkId": TWIN, "snapshotId": "2026-02"}))
        assert f"{TWIN}@2026-02" in str(chosen)
    message = await error(default_client, "get_framework", {"frameworkId": "no-such-framework"})
    assert "Next action:" in message


# -- get_capabilities --------------------------------------------------------------------------


async def test_get_capabilities_server_and_every_package(default_client: Client[Any], default_state: AppState) -> None:
    result = await call(default_client, "get_capabilities", {})
    body = structured(result)
    server = body["server"]
    assert server["readOnly"] is True and server["callsModels"] is False
    assert server["semanticSearch"] is False and server["embeddings"] is False
    assert server["acceptedPackages"] == len(DEFAULT_FRAMEWORKS)
    assert server["catalogFingerprint"] == default_state.catalog.fingerprint
    assert server["limits"]["searchStandardsLimit"] == {"min": 1, "max": 100, "default": 25}
    assert server["limits"]["listFrameworksLimit"] == {"min": 1, "max": 100, "default": 25}
    assert server["limits"]["textQueryTokens"] == {"max": 32}
    assert server["limits"]["cursorCharacters"] == {"max": 4096}
    assert [p["graphPackageId"] for p in body["packages"]] == [
        p.graph_package_id for p in default_state.catalog.packages
    ]
    for number, package in enumerate(body["packages"], start=1):
        runtime = default_state.catalog.by_graph_package_id(package["graphPackageId"])
        assert runtime is not None
        assert package["capabilities"] == runtime.manifest.capabilities.to_wire()
        assert package["hierarchyRule"] == runtime.profile.profile.hierarchy.rule
        assert identity_in(package) == identity_of(default_state, runtime.framework_id, number=number)
        assert package["disclosureIds"] == disclosure_ids(default_state, runtime.framework_id)
    ccss = next(p for p in body["packages"] if p["graphPackageId"].startswith(CCSS))
    assert ccss["codePolicy"]["unique"] is False and ccss["codePolicy"]["derivedParentSeparator"] == "."
    assert f"{len(DEFAULT_FRAMEWORKS)} accepted packages" in texts(result)[0]


async def test_get_capabilities_is_truthful_per_fixture_package(fixture_client: Client[Any]) -> None:
    async def package(framework_id: str) -> dict[str, Any]:
        (only,) = structured(await call(fixture_client, "get_capabilities", {"frameworkId": framework_id}))["packages"]
        return only

    assert (await package(NOTEXT))["capabilities"]["textSearch"] is False
    nocode = await package(NOCODE)
    assert nocode["capabilities"]["exactCodeSearch"] is False
    assert "exactSearch" not in nocode["codePolicy"]  # said once, in capabilities
    dag = await package(DAG)
    assert dag["hierarchyRule"] == "multiParentDag"
    assert dag["graphTypes"]["contains"] == ["AcademicStandards"]
    lc = await package(LC)
    assert lc["capabilities"]["learningComponents"] is True
    assert lc["capabilities"]["learningProgressions"] is True
    assert await error_code(fixture_client, "get_capabilities", {"snapshotId": "2026-01"}) == "invalid_request"


# -- get_framework_statistics ------------------------------------------------------------------


async def test_statistics_keep_standards_and_components_apart(
    default_client: Client[Any], default_state: AppState
) -> None:
    result = await call(default_client, "get_framework_statistics", {"frameworkId": EF})
    body = structured(result)
    runtime = default_state.catalog.resolve(EF)
    assert body["package"] == identity_of(default_state, EF)
    assert body["package"]["disclosureIds"] == disclosure_ids(default_state, EF)
    standards, components = body["standards"], body["learningComponents"]
    assert standards["items"] == len(runtime.items)
    assert components["components"] == len(runtime.components) > 0
    assert standards["multiParentItems"] == 259
    assert standards["hierarchyRule"] == "multiParentDag"
    assert "components" not in standards and "items" not in components
    assert not any(key.startswith("total") for key in body)
    grades = standards["standardsByGradeLevel"]
    assert [g["sourceLabel"] for g in grades][:2] == ["1º ano", "2º ano"]
    assert grades[0]["facet"] == "ef-ano-01"
    by_type = {t["sourceType"]: t for t in standards["byStatementType"]}
    assert by_type["Habilidade"] == {
        "sourceType": "Habilidade",
        "normalized": "habilidade",
        "role": "standard",
        "items": 1304,
    }
    summary = texts(result)[0]
    assert "Learning components (separate from standards)" in summary
    assert "1º ano" in summary


async def test_statistics_of_fixture_packages(fixture_client: Client[Any]) -> None:
    lc = structured(await call(fixture_client, "get_framework_statistics", {"frameworkId": LC}))
    assert lc["standards"]["multiParentItems"] == 1
    assert lc["learningComponents"] == {"components": 2, "supportsRelationships": 3, "standardsWithComponents": 3}
    assert lc["learningProgressions"] == {"buildsTowards": 3, "relatesTo": 1}
    assert lc["unresolvedItems"] == 1
    tree = structured(await call(fixture_client, "get_framework_statistics", {"frameworkId": TREE}))
    assert tree["standards"]["multiParentItems"] == 0
    assert tree["learningComponents"]["components"] == 0
    assert [(g["sourceLabel"], g["facet"], g["standards"]) for g in tree["standards"]["standardsByGradeLevel"]] == [
        ("1", "grade-1", 1),
        ("2", "grade-2", 2),
        ("3", "grade-3", 1),
    ]


async def test_list_frameworks_names_the_ids_other_tools_take(fixture_client: Client[Any]) -> None:
    """Issue 44: each listed package gives the frameworkId (and snapshotId) the other tools accept, in both views,
    and get_standard takes them as listed (a graph-package id is refused by their pattern)."""
    result = await call(fixture_client, "list_frameworks", {"frameworkIds": [TWIN], "includeNonCurrent": True})
    body = structured(result)
    (summary,) = texts(result)
    for entry in body["frameworks"]:
        assert (entry["frameworkId"], entry["snapshotId"]) == (framework_of(entry), snapshot_of(entry))
        head = f"Package {entry['number']}: {entry['graphPackageId']} (frameworkId {entry['frameworkId']}, "
        assert f"{head}snapshotId {entry['snapshotId']}) — {entry['title']} (" in summary
        framework = await call(
            fixture_client, "get_framework", {"frameworkId": entry["frameworkId"], "snapshotId": entry["snapshotId"]}
        )
        assert structured(framework)["framework"]["frameworkId"] == entry["frameworkId"]


async def test_get_capabilities_names_the_ids_other_tools_take(fixture_client: Client[Any]) -> None:
    """Every package get_capabilities lists gives the frameworkId and snapshotId the other tools accept, in both
    views, and the other tools take them as listed."""
    result = await call(fixture_client, "get_capabilities", {})
    body = structured(result)
    (summary,) = texts(result)
    assert body["packages"]
    for entry in body["packages"]:
        assert (entry["frameworkId"], entry["snapshotId"]) == (framework_of(entry), snapshot_of(entry))
        ids = f"(frameworkId {entry['frameworkId']}, snapshotId {entry['snapshotId']})"
        assert f"Package {entry['number']}: {entry['graphPackageId']} {ids}: " in summary
        request = {"frameworkId": entry["frameworkId"], "snapshotId": entry["snapshotId"]}
        again = structured(await call(fixture_client, "get_capabilities", request))
        assert [p["graphPackageId"] for p in again["packages"]] == [entry["graphPackageId"]]
