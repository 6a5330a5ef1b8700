"""The operator's rights decisions, kept outside every package (``KGFEGMCP_OPERATOR_RIGHTS_FILE``).

A manifest's rights are written by whoever can write its package, and its seal is an unkeyed SHA-256 that
anyone can recompute, so a manifest never widens the rights its bound profile grants (the validator refuses
it: ``rights_exceed_profile``). What widens them (approving a package, opening bulk access) or narrows them
after a build (withholding text) is the operator's decision, held here, one per package: what a decision
states replaces the manifest's value when the package is served; what it leaves unstated stays as the
manifest has it. The licence, licence URI and attribution are never the operator's to change: they stay the
profile's, as the manifest carries them.

``kgfegmcp packages review`` writes the file (``packages build --review-status`` through it too); an operator
may also edit it by hand. It is read once when the server starts: a file that is not valid refuses the start
(``configuration_error``) rather than serving without the decisions it holds.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from kgfegmcp.core.errors import ConfigurationError, echo, filesystem_error, problem_list
from kgfegmcp.core.identifiers import InvalidIdentifier, graph_package_id, split_graph_package_id
from kgfegmcp.core.models import ContractModel, pretty_json_bytes
from kgfegmcp.core.package_files import PackageJsonError, parse_package_json
from kgfegmcp.core.rights import GeneratedDerivatives, ReviewStatus, RightsPolicy
from kgfegmcp.core.staged_files import staged_beside

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: The largest operator rights file read (a decision is a few hundred bytes).
MAX_OPERATOR_RIGHTS_BYTES = 4 * 1024 * 1024
#: The rights a decision may state, by attribute: every field of the rights but the profile's own words.
DECIDED_FIELDS: tuple[str, ...] = (
    "review_status",
    "allow_standard_resources",
    "allow_full_text",
    "allow_bulk_resource",
    "allow_generated_derivatives",
)
_DECIDED_WIRE = frozenset(to_camel(name) for name in DECIDED_FIELDS)
_UTC_SECOND = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
_FIX = "Correct it (docs/configuration.md#operator-rights-decisions), or rewrite it with `kgfegmcp packages review`."


class OperatorDecision(ContractModel):
    """One operator's rights decision for one package, with who made it and when."""

    review_status: ReviewStatus | None = None
    allow_standard_resources: bool | None = None
    allow_full_text: bool | None = None
    allow_bulk_resource: bool | None = None
    allow_generated_derivatives: GeneratedDerivatives | None = None
    decided_by: str = Field(min_length=1, max_length=256)
    decided_at: str = Field(pattern=_UTC_SECOND)
    note: str | None = Field(None, max_length=2000)

    @model_validator(mode="after")
    def _decides_something(self) -> OperatorDecision:
        if all(getattr(self, name) is None for name in DECIDED_FIELDS):
            raise ValueError(f"a decision states at least one of {', '.join(map(to_camel, DECIDED_FIELDS))}")
        return self

    def summary(self) -> str:
        """What it decides, as ``reviewStatus=approved, allowFullText=false`` (wire names and values)."""
        wire = self.to_wire()
        decided = ", ".join(f"{name}={str(value).lower()}" for name, value in wire.items() if name in _DECIDED_WIRE)
        return f"{decided} (by {self.decided_by}, {self.decided_at})"

    def apply(self, rights: RightsPolicy) -> RightsPolicy:
        """``rights`` with what this decision states in place of the manifest's values.

        Withholding text or standard resources withholds bulk access too (bulk needs both), so the result is
        always a valid policy and never wider than the decision allows.
        """
        values = rights.model_dump()
        values.update({name: value for name in DECIDED_FIELDS if (value := getattr(self, name)) is not None})
        if values["allow_bulk_resource"] and not (values["allow_full_text"] and values["allow_standard_resources"]):
            values["allow_bulk_resource"] = False
        return RightsPolicy.model_validate(values)


class OperatorRights(ContractModel):
    """The operator rights file: one decision per package, keyed by its ``<framework-id>@<snapshot-id>``."""

    operator_rights_version: Literal["1.0"] = "1.0"
    decisions: dict[str, OperatorDecision] = Field(default_factory=dict)

    @field_validator("decisions")
    @classmethod
    def _keys_are_package_ids(cls, decisions: dict[str, OperatorDecision]) -> dict[str, OperatorDecision]:
        for key in decisions:
            try:
                canonical = package_key(key)
            except InvalidIdentifier as exc:
                raise ValueError(f"{echo(key)} is not a package id: {exc}") from None
            if canonical != key:
                raise ValueError(f"{echo(key)} is filed under {canonical} (its framework and snapshot)")
        return decisions

    def decision(self, framework_id: str, snapshot_id: str) -> OperatorDecision | None:
        """The decision for one package, or ``None`` (its manifest's rights then stand)."""
        return self.decisions.get(graph_package_id(framework_id, snapshot_id))


def package_key(value: str) -> str:
    """The key a package's decision is filed under: ``<framework-id>@<snapshot-id>`` (a supplied package's
    snapshot id, which names its framework; its graph-package id's ``--<type>--p<n>`` suffix is dropped).

    Raises :class:`~kgfegmcp.core.identifiers.InvalidIdentifier` for anything else.
    """
    return graph_package_id(*split_graph_package_id(value))


def read_operator_rights(path: Path) -> OperatorRights:
    """The decisions in ``path``; none when there is no file. ``configuration_error`` naming the file when it
    cannot be read or is not valid: the server never starts without the decisions an operator recorded."""
    try:
        # The operator's own file, opened as any setting's file is: a symlink to it (a mounted secret) is fine.
        with open(path, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ConfigurationError(f"KGFEGMCP_OPERATOR_RIGHTS_FILE {path} is not a regular file.", hint=_FIX)
            data = stream.read(MAX_OPERATOR_RIGHTS_BYTES + 1)
    except FileNotFoundError:
        return OperatorRights()
    except OSError as exc:
        raise filesystem_error(exc, "Could not read the operator rights file (KGFEGMCP_OPERATOR_RIGHTS_FILE)") from None
    if len(data) > MAX_OPERATOR_RIGHTS_BYTES:
        raise ConfigurationError(f"The operator rights file {path} is larger than 4 MiB.", hint=_FIX)
    return parse_operator_rights(data, path)


def parse_operator_rights(data: bytes, path: Path) -> OperatorRights:
    """The file's decisions, or ``configuration_error`` naming each problem (a repeated key is one)."""
    try:
        parse_package_json(data)
        return OperatorRights.model_validate_json(data)
    except PackageJsonError as exc:
        problems = [f"the document {exc}"]
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in error['loc']) or '(document)'}: {error['msg'].removeprefix('Value error, ')}"
            for error in exc.errors()
        ]
    raise ConfigurationError(f"The operator rights file {path} is not valid: {problem_list(problems)}.", hint=_FIX)


def record_decision(path: Path, key: str, decision: OperatorDecision | None) -> OperatorRights:
    """File ``decision`` for the package ``key`` in ``path`` (``None`` withdraws the package's decision); the
    file as written. Other decisions are kept as they are; the file is replaced whole, never half-written, and
    two writers at once take turns."""
    action = f"Could not write the operator rights file {path}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _directory_lock(path.parent):
            current = read_operator_rights(path)
            decisions = dict(current.decisions)
            if decision is None:
                decisions.pop(key, None)
            else:
                decisions[key] = decision
            written = OperatorRights(decisions=dict(sorted(decisions.items())))
            with staged_beside(path, pretty_json_bytes(written.to_wire()), f".{path.name}.") as staging:
                os.replace(staging, path)
    except OSError as exc:
        raise filesystem_error(exc, action) from None
    return written


def decision_now(decided_by: str | None = None, note: str | None = None, **rights: object) -> OperatorDecision:
    """A decision made now by ``decided_by`` (default: the logged-in user) stating ``rights`` (attribute names)."""
    if decided_by is None:
        try:
            decided_by = getpass.getuser()
        except (KeyError, OSError):  # no login name (a container without a user entry)
            decided_by = "unknown operator"
    decided_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    stated = {name: value for name, value in rights.items() if value is not None}
    return OperatorDecision.model_validate({**stated, "decided_by": decided_by, "decided_at": decided_at, "note": note})


@contextlib.contextmanager
def _directory_lock(directory: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``directory`` while the file in it is read and replaced (none on Windows)."""
    if fcntl is None:
        yield
        return
    descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
