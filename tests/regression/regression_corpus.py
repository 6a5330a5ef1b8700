"""Replaying the call table against served catalogs and turning each answer into one corpus line.

Shared by ``record_corpus.py`` (writes ``corpus/<catalog>.jsonl``) and ``test_client_visible_corpus.py``
(replays and compares), so both see exactly the same calls, serialisation and checks.

Every answer is serialised canonically (``model_dump(mode="json", by_alias=True, exclude_none=True)``,
then sorted-key compact JSON). A line of the default catalog holds only the call, the SHA-256 and byte
length of that text and non-curriculum facts (``isError``, the error code): the repository never holds
third-party curriculum text. A line of a fixture catalog (our own synthetic data) also holds the result.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastmcp import Client
from pydantic import BaseModel
from regression_calls import CALLS, FULL_RESULT_CATALOGS, Call, Ref

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, load_settings
from mcp import MCPError
from package_factory import state_for
from worlds import CURSOR_SECRET, FIXTURE_WORLDS

REGRESSION_ROOT = Path(__file__).resolve().parent
CORPUS_DIR = REGRESSION_ROOT / "corpus"
#: The fixture world (``worlds.FIXTURE_WORLDS``) behind each fixture catalog of the corpus.
CORPUS_WORLDS = {"search": "search", "evidence": "progression", "rights": "rights"}
#: Settings that change answers; the corpus is recorded with their defaults, so they must not be set.
ANSWER_SETTINGS = (
    "KGFEGMCP_MAX_SOURCE_READ_BYTES",
    "KGFEGMCP_MAX_RETURNED_RESOURCE_BYTES",
    "KGFEGMCP_INVALID_PACKAGE_POLICY",
    "KGFEGMCP_GRAPH_PACKAGES_DIR",
    "KGFEGMCP_PROFILES_DIR",
    "KGFEGMCP_PROMPTS_DIR",
)
CONTINUE_PREFIX = "Continue with:\n"
ERROR_CODE = re.compile(r"^([a-z_]+): ")


def environment_problems() -> list[str]:
    """Environment settings that would make the replay differ from the recording for reasons of setup."""
    return [f"{name} is set" for name in ANSWER_SETTINGS if name in os.environ]


def build_default_catalog_root(root: Path) -> Path:
    """Build and validate the default catalog under ``root`` exactly as tests/conftest.py does."""
    from kgfegmcp.profiles.repository import ProfileRepository
    from kgfegmcp.sources.default_catalog import build_default_catalog

    outcomes = build_default_catalog(root, ProfileRepository(SHIPPED_PROFILES_DIR))
    rejected = sorted(o.outcome.graph_package_id for o in outcomes if not o.accepted)
    assert not rejected, f"default catalog packages failed validation: {rejected}"
    return root


def default_state(catalog_root: Path) -> AppState:
    """The default catalog with every path and the cursor key pinned (not read from the environment)."""
    return build_app_state(
        load_settings(
            {
                "graph_packages_dir": catalog_root,
                "profiles_dir": SHIPPED_PROFILES_DIR,
                "prompts_dir": SHIPPED_PROMPTS_DIR,
                "cursor_secret": CURSOR_SECRET,
            }
        )
    )


def fixture_states(base: Path) -> dict[str, AppState]:
    """The three fixture worlds of tests/mcp, tests/progressions and tests/resources, built under ``base``
    (the recorder's; the test replays against the run's own, ``worlds``)."""
    states = {}
    for catalog, world in CORPUS_WORLDS.items():
        folder = base / catalog
        folder.mkdir(parents=True)
        states[catalog] = state_for(FIXTURE_WORLDS[world](folder), cursor_secret=CURSOR_SECRET)
    return states


# -- replay ------------------------------------------------------------------------------------------


class UnresolvedReference(Exception):
    """A Ref names a result or a field that is not there (the earlier answer changed)."""


@dataclass(frozen=True)
class Outcome:
    """One replayed call: its description, the canonical text of its answer, and the facts kept about it."""

    call: Call
    #: The arguments as sent (references resolved); not stored, the corpus describes the call instead.
    sent: Any
    payload: dict[str, Any]
    text: str
    is_error: bool
    error_code: str | None

    def entry(self) -> dict[str, Any]:
        """The corpus line: full result for fixture catalogs, digest only for the default catalog."""
        data = self.text.encode("utf-8")
        line: dict[str, Any] = {
            "key": self.call.key,
            "kind": self.call.kind,
            "call": describe(self.call),
            "isError": self.is_error,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
        }
        if self.error_code is not None:
            line["errorCode"] = self.error_code
        if self.call.catalog in FULL_RESULT_CATALOGS:
            line["result"] = self.payload
        return line


def canonical(value: Any) -> str:
    """The one serialisation of the corpus: sorted keys, no spaces, UTF-8 text as is."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def dump(model: BaseModel) -> dict[str, Any]:
    """An MCP result as the wire carries it."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def describe(value: Any) -> Any:
    """A call (or argument) as JSON; a reference is shown as where it reads from, never as the value it read."""
    if isinstance(value, Call):
        described: dict[str, Any] = {
            "list": {"list": value.name},
            "tool": {"tool": value.name, "arguments": describe(value.arguments)},
            "resource": {"uri": describe(value.arguments)},
            "prompt": {"prompt": value.name, "arguments": describe(value.arguments)},
        }[value.kind]
        if value.raw:
            described["raw"] = True
        if value.legacy:
            described["legacy"] = True
        return described
    if isinstance(value, Ref):
        return {"$ref": value.describe()}
    if isinstance(value, Mapping):
        return {key: describe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [describe(item) for item in value]
    return value


def _step(value: Any, part: str | int) -> Any:
    if part == "$continue":  # the parsed "Continue with:" block of a tool result
        blocks = [b["text"] for b in value["content"] if b.get("type") == "text"]
        found = [b for b in blocks if b.startswith(CONTINUE_PREFIX)]
        if len(found) != 1:
            raise KeyError("no continuation block")
        return json.loads(found[0][len(CONTINUE_PREFIX) :])
    if part == "$json":
        return json.loads(value)
    return value[part]


def resolve(value: Any, results: Mapping[tuple[str, str], dict[str, Any]], catalog: str) -> Any:
    """Arguments with every Ref replaced by the value it reads from an earlier answer."""
    if isinstance(value, Ref):
        source = (value.catalog or catalog, value.key)
        if source not in results:
            raise UnresolvedReference(f"{value.describe()}: no earlier answer {source}")
        found: Any = results[source]
        try:
            for part in value.path:
                found = _step(found, part)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise UnresolvedReference(f"{value.describe()}: {exc!r}") from None
        return value.apply(found)
    if isinstance(value, Mapping):
        return {key: resolve(item, results, catalog) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [resolve(item, results, catalog) for item in value]
    return value


def _tool_code(payload: dict[str, Any]) -> str | None:
    if not payload.get("isError"):
        return None
    texts = [b.get("text", "") for b in payload.get("content", [])]
    match = ERROR_CODE.match(texts[0]) if texts else None
    return match.group(1) if match else "(uncoded)"


async def _send(client: Client[Any], legacy: Client[Any], call: Call, arguments: Any) -> dict[str, Any]:
    """The answer to one call, as a JSON object (protocol errors become ``{"error": ...}``)."""
    session = legacy if call.legacy else client
    try:
        if call.kind == "tool":
            return dump(await session.call_tool_mcp(call.name, arguments))
        if call.kind == "resource":
            if call.raw:  # exactly as written: the server's own URI parser is what answers
                return dump(await session.session.read_resource(arguments))
            return dump(await session.read_resource_mcp(arguments))
        if call.kind == "prompt":
            return dump(await session.get_prompt_mcp(call.name, arguments))
        if call.kind == "list":
            listing = {
                "tools": session.list_tools_mcp,
                "resources": session.list_resources_mcp,
                "resource_templates": session.list_resource_templates_mcp,
                "prompts": session.list_prompts_mcp,
            }[call.name]
            return dump(await listing(cache_mode="bypass"))
    except MCPError as exc:
        return {"error": dump(exc.error)}
    raise AssertionError(f"unknown call kind {call.kind}")


async def replay_catalog(
    state: AppState, calls: Iterable[Call], results: dict[tuple[str, str], dict[str, Any]]
) -> list[Outcome]:
    """Every call of one catalog, in table order, over one modern and one handshake-era in-memory session."""
    outcomes = []
    app = create_app(state)
    async with Client(app) as client, Client(app, mode="legacy") as legacy:
        for call in calls:
            arguments: Any = None
            try:
                arguments = resolve(call.arguments, results, call.catalog)
                payload = await _send(client, legacy, call, arguments)
            except UnresolvedReference as exc:
                payload = {"unresolvedReference": str(exc)}
            results[(call.catalog, call.key)] = payload
            if call.kind == "tool" and "error" not in payload:
                code = _tool_code(payload)
            elif "error" in payload:  # a refused resource or prompt, or a tool name the server lacks
                error = payload["error"]
                code = (error.get("data") or {}).get("errorCode") or f"(jsonrpc {error.get('code')})"
            else:
                code = "(unresolved reference)" if "unresolvedReference" in payload else None
            outcomes.append(Outcome(call, arguments, payload, canonical(payload), code is not None, code))
    return outcomes


async def replay(states: Mapping[str, AppState]) -> dict[str, list[Outcome]]:
    """Every catalog of the table, in table order (later catalogs may read earlier answers)."""
    results: dict[tuple[str, str], dict[str, Any]] = {}
    return {catalog: await replay_catalog(states[catalog], calls, results) for catalog, calls in CALLS.items()}


# -- checks, files and differences ----------------------------------------------------------------------


def problems(outcomes: Mapping[str, list[Outcome]], forbidden: Iterable[str]) -> list[str]:
    """What must never be recorded: masked internal errors, broken references, temporary paths."""
    found = []
    needles = [n for n in forbidden if n]
    for catalog, items in outcomes.items():
        for outcome in items:
            where = f"{catalog}/{outcome.call.key}"
            if outcome.error_code == "internal_error":
                found.append(f"{where}: masked internal error")
            if outcome.error_code == "(unresolved reference)":
                found.append(f"{where}: {outcome.payload['unresolvedReference']}")
            for needle in needles:
                if needle in outcome.text or needle in _decoded_blobs(outcome.payload):
                    found.append(f"{where}: answer contains the local path {needle!r}")
    return found


def _decoded_blobs(payload: dict[str, Any]) -> str:
    """Binary resource contents, decoded, so a path inside a blob is found too."""
    blobs = [c["blob"] for c in payload.get("contents", []) if isinstance(c, dict) and "blob" in c]
    return "".join(base64.b64decode(blob).decode("utf-8", "replace") for blob in blobs)


def corpus_path(catalog: str, directory: Path = CORPUS_DIR) -> Path:
    """One file per catalog, so a change shows in the catalog it concerns."""
    return directory / f"{catalog}.jsonl"


def render(outcomes: list[Outcome]) -> str:
    """One catalog's corpus file: one canonical line per call, sorted by key."""
    ordered = sorted(outcomes, key=lambda outcome: outcome.call.key)
    return "".join(f"{canonical(outcome.entry())}\n" for outcome in ordered)


def load(catalog: str, directory: Path = CORPUS_DIR) -> dict[str, dict[str, Any]]:
    """A recorded catalog, by call key."""
    entries = [json.loads(line) for line in corpus_path(catalog, directory).read_text("utf-8").splitlines()]
    return {entry["key"]: entry for entry in entries}


def differences(catalog: str, recorded: Mapping[str, dict[str, Any]], outcomes: list[Outcome]) -> list[str]:
    """Readable differences between a recording and a replay (empty when every answer is identical)."""
    replayed = {outcome.call.key: outcome.entry() for outcome in outcomes}
    report = [f"{catalog}: call {key} is recorded but no longer in the table" for key in recorded.keys() - replayed]
    report += [f"{catalog}: call {key} is in the table but not recorded" for key in replayed.keys() - recorded]
    for key in sorted(recorded.keys() & replayed.keys()):
        old, new = recorded[key], replayed[key]
        if canonical(old) == canonical(new):
            continue
        if "result" in old or "result" in new:
            before = json.dumps(_readable(old), ensure_ascii=False, sort_keys=True, indent=1).splitlines()
            after = json.dumps(_readable(new), ensure_ascii=False, sort_keys=True, indent=1).splitlines()
            diff = list(difflib.unified_diff(before, after, "recorded", "replayed", n=2, lineterm=""))
            shown = diff[:60] + ([f"... {len(diff) - 60} more diff lines"] if len(diff) > 60 else [])
            report.append(f"{catalog}: {key} changed:\n" + "\n".join(shown))
        else:
            facts = ("isError", "errorCode", "bytes", "sha256")
            changed = ", ".join(f"{f}: {old.get(f)!r} -> {new.get(f)!r}" for f in facts if old.get(f) != new.get(f))
            report.append(f"{catalog}: {key} changed ({canonical(new['call'])}): {changed or 'call description'}")
    return report


def _readable(value: Any) -> Any:
    """For diffs only: JSON held in strings (tool texts, resource documents) parsed, long texts split in lines,
    so a one-field change shows as one changed line rather than as one changed megabyte-long string."""
    if isinstance(value, dict):
        return {key: _readable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_readable(item) for item in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return {"(json text)": _readable(json.loads(value))}
        except ValueError:
            pass
    if isinstance(value, str) and "\n" in value:
        return {"(text lines)": value.split("\n")}
    return value
