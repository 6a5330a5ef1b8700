"""Identifiers, errors, settings and interpretation profiles."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.config import (
    SHIPPED_PROFILES_DIR,
    SHIPPED_PROMPTS_DIR,
    USER_GRAPH_PACKAGES_DIR,
    BackendSettings,
    InvalidPackagePolicy,
    load_settings,
)
from kgfegmcp.core.errors import (
    ERROR_CLASSES,
    AmbiguousFrameworkError,
    ConfigurationError,
    KgfegmcpError,
    ProfileValidationError,
)
from kgfegmcp.core.identifiers import (
    InvalidIdentifier,
    check_identifier,
    graph_package_id,
    split_graph_package_id,
    stable_uuid,
)
from kgfegmcp.profiles.repository import ProfileRepository
from package_factory import profile_document, write_profile

SPEC = REPOSITORY_ROOT.parent / "shared" / "spec" / "errors-cursors-limits.md"


@pytest.mark.parametrize("value", ["abc", "brazil-bncc-ensino-fundamental", "a1-b2-c3", "x" * 96, "2026-07-1"])
def test_valid_identifiers(value: str) -> None:
    assert check_identifier(value) == value


@pytest.mark.parametrize(
    "value", ["ab", "x" * 97, "Brazil", "a--b", "-ab", "ab-", "a_b", "a b", "a.b", "ação", "a/b", "..", ""]
)
def test_invalid_identifiers_are_rejected_with_a_reason(value: str) -> None:
    with pytest.raises(InvalidIdentifier, match="framework id"):
        check_identifier(value, "framework id")


def test_graph_package_id_round_trip() -> None:
    assert graph_package_id("us-ccss", "v1-0") == "us-ccss@v1-0"
    assert split_graph_package_id("us-ccss@v1-0") == ("us-ccss", "v1-0")
    for bad in ("us-ccss", "us-ccss@V1", "@v1-0"):
        with pytest.raises(InvalidIdentifier):
            split_graph_package_id(bad)


def test_stable_uuid_is_deterministic() -> None:
    assert stable_uuid("a", "b") == stable_uuid("a", "b") != stable_uuid("ab")


LISTED_CODES = {
    "alignment_not_found", "ambiguous_framework", "ambiguous_graph_node", "capability_unavailable",
    "catalog_error", "configuration_error", "delivery_property_decoding_error", "framework_not_found",
    "graph_node_not_found", "invalid_comparison_selection", "learning_progression_not_found",
    "invalid_progression_request", "progression_result_too_large", "invalid_evidence_uri",
    "unsupported_evidence_format", "evidence_result_too_large", "workflow_instructions_too_large",
    "invalid_cursor", "jsonl_parsing_error", "manifest_build_error", "package_validation_error",
    "profile_validation_error", "prompt_access_denied", "prompt_configuration_error", "prompt_rendering_error",
    "resource_access_denied", "resource_not_found", "standard_not_found", "unsupported_search_mode",
}  # fmt: skip


def test_every_spec_error_code_has_a_class() -> None:
    # the spec's list, plus invalid_request for arguments the MCP boundary rejects, source_fetch_error
    # for `packages fetch` (a build-time download from a CASE provider; never reaches an MCP client) and
    # filesystem_error for a file a command or start-up could not read or write (never reaches a client either)
    assert set(ERROR_CLASSES) == LISTED_CODES | {"invalid_request", "source_fetch_error", "filesystem_error"}
    if SPEC.exists():  # the shared spec sits beside the repository in development and CI
        text = SPEC.read_text()
        table = text[text.index("Error code\tTypical domain") : text.index("Some build-time errors")]
        assert set(re.findall(r"^`([a-z_]+)`\t", table, flags=re.MULTILINE)) == LISTED_CODES


def test_public_message_format_keeps_details_private() -> None:
    error = AmbiguousFrameworkError("Framework 'x' has two current snapshots.", details={"path": "/secret/dir"})
    assert error.public_message == (
        "ambiguous_framework: Framework 'x' has two current snapshots. Next action: Pass snapshotId to select one snapshot."
    )
    assert "/secret" not in error.public_message and "/secret" not in str(error)
    assert KgfegmcpError("plain").public_message == "internal_error: plain"


def test_settings_defaults() -> None:
    settings = BackendSettings()
    assert settings.invalid_package_policy is InvalidPackagePolicy.FAIL
    assert settings.max_source_read_bytes == 32 * 1024 * 1024
    assert settings.max_returned_resource_bytes == 8 * 1024 * 1024
    assert settings.graph_packages_dir == USER_GRAPH_PACKAGES_DIR
    assert settings.profiles_dir == SHIPPED_PROFILES_DIR and settings.prompts_dir == SHIPPED_PROMPTS_DIR


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("KGFEGMCP_INVALID_PACKAGE_POLICY", "ignore"),
        ("KGFEGMCP_MAX_SOURCE_READ_BYTES", "0"),
        ("KGFEGMCP_MAX_SOURCE_READ_BYTES", "lots"),
        ("KGFEGMCP_MAX_RETURNED_RESOURCE_BYTES", "-1"),
        ("KGFEGMCP_HTTP_PORT", "70000"),
        ("KGFEGMCP_HTTP_PATH", "mcp"),
        ("KGFEGMCP_LOG_LEVEL", "LOUD"),
    ],
)
def test_bad_settings_are_configuration_errors(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert caught.value.public_message.startswith("configuration_error: ")
    assert variable in caught.value.public_message


def test_unknown_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGFEGMCP_GRAPH_PACKAGE_DIR", "typo")
    with pytest.raises(ConfigurationError, match="KGFEGMCP_GRAPH_PACKAGE_DIR"):
        load_settings()


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGFEGMCP_INVALID_PACKAGE_POLICY", "quarantine")
    monkeypatch.setenv("KGFEGMCP_MAX_SOURCE_READ_BYTES", "1024")
    settings = load_settings()
    assert settings.invalid_package_policy is InvalidPackagePolicy.QUARANTINE
    assert settings.max_source_read_bytes == 1024


def test_profile_loads_and_hashes_exact_bytes(tmp_path: Path) -> None:
    path = write_profile(tmp_path, profile_document("fixture-tree"))
    loaded = ProfileRepository(tmp_path).load("fixture-tree", "1.0")
    import hashlib

    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert loaded.ref.profile_id == "fixture-tree"
    assert ProfileRepository(tmp_path).list_refs() == [("fixture-tree", "1.0")]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"surprise": True}, "surprise"),
        ({"hierarchy": {"rule": "tree", "maxDepth": 3, "maxParents": 2}}, "hierarchy"),
        ({"hierarchy": {"rule": "forest", "maxDepth": 3, "maxParents": 1}}, "hierarchy.rule"),
        (
            {
                "codePolicy": {
                    "codesPresent": "none",
                    "unique": True,
                    "normalization": "exact",
                    "exactSearch": True,
                    "prefixSearch": False,
                }
            },
            "codePolicy",
        ),
        (
            {
                "codePolicy": {
                    "codesPresent": "some",
                    "unique": True,
                    "normalization": "exact",
                    "exactSearch": True,
                    "prefixSearch": True,
                    "pattern": "([",
                }
            },
            "codePolicy.pattern",
        ),
        (
            {"gradeLabels": [{"sourceLabel": "1", "facet": "Grade One", "display": "1", "order": 1}]},
            "gradeLabels.0.facet",
        ),
        ({"statementTypes": []}, "statementTypes"),
        ({"defaultRights": {"sourceLicense": "x"}}, "defaultRights.attributionStatement"),
        ({"version": "one"}, "version"),
    ],
)
def test_invalid_profile_names_the_field(tmp_path: Path, change: dict[str, object], field: str) -> None:
    document = profile_document("fixture-tree", **change)
    path = tmp_path / "fixture-tree" / "1.0.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    with pytest.raises(ProfileValidationError) as caught:
        ProfileRepository(tmp_path).load("fixture-tree", "1.0")
    assert caught.value.code == "profile_validation_error"
    assert field in caught.value.message


def test_profile_identity_must_match_its_location(tmp_path: Path) -> None:
    document = profile_document("fixture-other")
    path = tmp_path / "fixture-tree" / "1.0.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    with pytest.raises(ProfileValidationError, match="declares"):
        ProfileRepository(tmp_path).load("fixture-tree", "1.0")
    with pytest.raises(ProfileValidationError, match="does not exist"):
        ProfileRepository(tmp_path).load("fixture-none", "1.0")
