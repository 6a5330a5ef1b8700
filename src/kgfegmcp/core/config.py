"""Process settings: environment variables with the ``KGFEGMCP_`` prefix.

Settings are resolved once, at bootstrap, and every bad value fails with
``configuration_error`` naming the variable, never silently replaced by a default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.host_patterns import (
    HOST_PATTERN_FORM,
    ORIGIN_PATTERN_FORM,
    host_pattern_problems,
    origin_pattern_problems,
)
from kgfegmcp.core.logging_setup import LogFormat

MIB = 1024 * 1024
APP_NAME = "kgfegmcp"

#: The interpretation profiles and prompt configurations ship inside the package (wheel, bundle and
#: checkout alike), so the server runs from any directory with no setting at all.
SHIPPED_DIR = Path(__file__).resolve().parents[1] / "shipped"
SHIPPED_PROFILES_DIR = SHIPPED_DIR / "profiles"
SHIPPED_PROMPTS_DIR = SHIPPED_DIR / "prompts"

#: What an installed server builds lives in the user's directories: the catalog (`kgfegmcp catalog
#: init` writes it) in the data directory, derived indexes in the cache directory.
USER_GRAPH_PACKAGES_DIR = platformdirs.user_data_path(APP_NAME) / "graph_packages"
USER_CACHE_DIR = platformdirs.user_cache_path(APP_NAME) / "derived"
#: Profiles a build derived from its source, when the profiles root is the shipped one: never inside the
#: installed package, which a reinstall replaces (and the packages bound to them would lose their profile).
USER_DERIVED_PROFILES_DIR = platformdirs.user_data_path(APP_NAME) / "profiles"
#: The operator's rights decisions (``kgfegmcp packages review`` writes them): configuration, kept apart from
#: every package and from the data a reinstall or a rebuild replaces.
USER_OPERATOR_RIGHTS_FILE = platformdirs.user_config_path(APP_NAME) / "operator_rights.json"
MIN_CURSOR_SECRET_CHARS = 32
MAX_CURSOR_SECRET_CHARS = 1024


class InvalidPackagePolicy(StrEnum):
    """What happens to a pending package that does not validate."""

    FAIL = "fail"
    QUARANTINE = "quarantine"


class BackendSettings(BaseSettings):
    """Every runtime knob, with its default and allowed range."""

    model_config = SettingsConfigDict(
        env_prefix="KGFEGMCP_",
        extra="forbid",
        frozen=True,
        validate_default=True,
    )

    graph_packages_dir: Path = Field(
        USER_GRAPH_PACKAGES_DIR, description="Root of <framework-id>/<snapshot-id>/ packages."
    )
    profiles_dir: Path = Field(SHIPPED_PROFILES_DIR, description="Interpretation profiles root.")
    derived_profiles_dir: Path | None = Field(
        None,
        description="Where a build stores the profile it derives from a CASE package (read after profiles_dir); "
        "unset: profiles_dir, or the user data directory's profiles when profiles_dir is the shipped one.",
    )
    prompts_dir: Path = Field(SHIPPED_PROMPTS_DIR, description="Prompt configurations root.")
    operator_rights_file: Path = Field(
        USER_OPERATOR_RIGHTS_FILE,
        description="The operator's rights decisions per package (`kgfegmcp packages review` writes it); a decision "
        "approves, widens or withholds a package's rights without a rebuild. Missing: none.",
    )
    invalid_package_policy: InvalidPackagePolicy = Field(
        InvalidPackagePolicy.FAIL,
        description="fail: an invalid pending package aborts start-up; quarantine: it is excluded.",
    )
    max_source_read_bytes: int = Field(
        32 * MIB, ge=1, le=4096 * MIB, description="Largest artifact read for one resource."
    )
    max_returned_resource_bytes: int = Field(
        8 * MIB, ge=1, le=1024 * MIB, description="Largest resource document returned."
    )
    cache_dir: Path | None = Field(
        USER_CACHE_DIR,
        description="Derived-index cache root (decoded records, text indexes); empty disables it.",
    )
    http_host: str = Field("127.0.0.1", min_length=1, description="HTTP bind address.")
    http_port: int = Field(8765, ge=1, le=65535, description="HTTP port.")
    http_path: str = Field("/mcp", pattern=r"^/[A-Za-z0-9._~/-]*$", description="MCP HTTP path.")
    http_header_timeout_seconds: float = Field(
        10.0, ge=0.1, le=3600, description="A connection's request head must arrive within this; else it is closed."
    )
    http_body_timeout_seconds: float = Field(
        30.0, ge=0.1, le=3600, description="A request body must arrive within this after its head; else closed."
    )
    http_write_timeout_seconds: float = Field(
        30.0,
        ge=0.1,
        le=3600,
        description="An answer the client leaves unread (the send buffer full) this long closes its connection.",
    )
    http_keepalive_timeout_seconds: float = Field(
        5.0, ge=0.1, le=3600, description="An idle connection between requests is closed after this."
    )
    http_max_connections: int = Field(
        512, ge=1, le=1_000_000, description="Connections held at once; beyond it the oldest idle one is closed."
    )
    http_max_body_bytes: int = Field(
        1 * MIB, ge=1024, le=64 * MIB, description="Largest request body accepted; a larger one is answered 413."
    )
    http_json_response: bool = Field(
        False,
        description="Answer each POST with one application/json body instead of a one-event text/event-stream "
        "(the same JSON-RPC message; every Streamable HTTP client accepts both). Cheaper per call.",
    )
    http_allowed_hosts: list[str] | None = Field(
        None,
        description="Host header values accepted besides the bind address (a proxy keeping Host): "
        + HOST_PATTERN_FORM
        + "; unset: loopback binds accept only loopback names (the DNS-rebinding guard).",
    )
    http_allowed_origins: list[str] | None = Field(
        None,
        description="Browser origins accepted besides the server's own (the DNS-rebinding guard): "
        + ORIGIN_PATTERN_FORM
        + ".",
    )
    auth_token_sha256: list[str] | None = Field(
        None,
        description="Static bearer tokens, as the SHA-256 hex of each token (never the token itself).",
    )
    auth_token_sha256_file: Path | None = Field(
        None, description="A file of token SHA-256 hex digests, one per line (# comments allowed)."
    )
    auth_jwt_jwks_uri: str | None = Field(None, description="JWT verification: the identity provider's JWKS URL.")
    auth_jwt_jwks_file: Path | None = Field(
        None, description="JWT verification: a JWKS document in a file, re-read when a token names an unknown key."
    )
    auth_jwt_public_key_file: Path | None = Field(
        None, description="JWT verification: a PEM public key file (instead of a JWKS)."
    )
    auth_jwt_algorithm: Literal["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"] = (
        Field("RS256", description="JWT verification: the signing algorithm tokens must use.")
    )
    auth_jwt_issuer: str | None = Field(None, description="JWT verification: the required issuer.")
    auth_jwt_audience: str | None = Field(None, description="JWT verification: the required audience.")
    auth_jwt_required_scopes: list[str] | None = Field(
        None, description="JWT verification: scopes every token must hold."
    )
    auth_jwt_allow_no_expiry: bool = Field(
        False, description="JWT verification: accept a token without an expiry (exp); refused unless set."
    )
    allow_unauthenticated_public_bind: bool = Field(
        False,
        description="Serve HTTP on a non-loopback address without authentication (logged as a warning at start).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO")
    log_format: LogFormat = Field(
        "text", description="text: time LEVEL logger: message; json: one JSON object per line. Always on stderr."
    )
    cursor_secret: SecretStr | None = Field(
        None,
        description="Keys pagination cursors (with the catalog fingerprint); replicas share it. Unset: a secret "
        "made once and kept owner-only in the cache directory (per process when there is none).",
    )

    @field_validator("http_allowed_hosts")
    @classmethod
    def _host_patterns_match_whole_labels(cls, value: list[str] | None) -> list[str] | None:
        """A shell-style pattern such as ``*example.org`` or ``api.*`` would accept names anyone can register."""
        problems = host_pattern_problems(value or [])
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @field_validator("http_allowed_origins")
    @classmethod
    def _origin_patterns_match_whole_labels(cls, value: list[str] | None) -> list[str] | None:
        """The same discipline as the host patterns: an origin's host matches whole labels only."""
        problems = origin_pattern_problems(value or [])
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @field_validator("cursor_secret")
    @classmethod
    def _secret_long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        """A short secret is guessable; the message never repeats it, nor its length."""
        if value is None:
            return None
        if not MIN_CURSOR_SECRET_CHARS <= len(value.get_secret_value()) <= MAX_CURSOR_SECRET_CHARS:
            raise ValueError(f"must be {MIN_CURSOR_SECRET_CHARS} to {MAX_CURSOR_SECRET_CHARS} characters when set")
        return value

    @field_validator("cache_dir", mode="before")
    @classmethod
    def _empty_disables_cache(cls, value: object) -> object:
        """``KGFEGMCP_CACHE_DIR=`` (empty) turns the cache off; it must not become the working directory."""
        return None if value == "" else value

    @field_validator("operator_rights_file")
    @classmethod
    def _decisions_outside_packages(cls, value: Path, info: ValidationInfo) -> Path:
        """Whoever writes a package must not be able to write the decisions that widen its rights."""
        packages = info.data.get("graph_packages_dir")
        if isinstance(packages, Path) and packages.resolve() in value.resolve().parents:
            raise ValueError("must not be inside KGFEGMCP_GRAPH_PACKAGES_DIR")
        return value

    @field_validator("cache_dir")
    @classmethod
    def _cache_outside_packages(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        """Cache entries under the package root would be discovered as (invalid) packages."""
        packages = info.data.get("graph_packages_dir")
        if value is not None and isinstance(packages, Path):
            root, cache = packages.resolve(), value.resolve()
            if cache == root or root in cache.parents:
                raise ValueError("must not be inside KGFEGMCP_GRAPH_PACKAGES_DIR")
        return value


def profile_roots(settings: BackendSettings) -> tuple[Path, Path | None]:
    """The profiles root and, when it is another directory, the root of derived profiles (read after it, and
    where a build stores what it derives)."""
    derived = settings.derived_profiles_dir
    if derived is None:
        derived = USER_DERIVED_PROFILES_DIR if settings.profiles_dir == SHIPPED_PROFILES_DIR else settings.profiles_dir
    return settings.profiles_dir, None if derived == settings.profiles_dir else derived


def load_settings(overrides: Mapping[str, object] | None = None) -> BackendSettings:
    """Resolve settings from the environment (and explicit overrides, for tests and the CLI).

    An unknown ``KGFEGMCP_*`` variable is an error too: a misspelt setting must not be ignored.
    """
    known = {f"KGFEGMCP_{name.upper()}" for name in BackendSettings.model_fields}
    unknown = sorted(k for k in os.environ if k.upper().startswith("KGFEGMCP_") and k.upper() not in known)
    if unknown:
        raise ConfigurationError(
            f"Unknown settings: {', '.join(unknown)}.", hint="See docs/configuration.md for every setting."
        )
    try:
        return BackendSettings.model_validate(dict(overrides or {}))
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "settings"
            variable = f"KGFEGMCP_{field.upper()}"
            problems.append(f"{variable}: {error['msg'].removeprefix('Value error, ')}")
        raise ConfigurationError(
            "Invalid settings: " + "; ".join(problems),
            hint="Fix the named environment variables; see docs/configuration.md.",
        ) from None
