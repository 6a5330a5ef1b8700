"""What the fuzzed server offers: the tools, templates and prompts it lists, real identifiers, and the paged
requests whose cursors the forged-cursors class aims at."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from kgfegmcp.core.cursors import CursorCodec

from .rpc import post, rpc_body


@dataclass
class CursorTarget:
    """One paged request (a tool, or one search mode of it) whose first page the server answered."""

    tool: str
    request: dict[str, Any]
    #: The first page's cursor to its second, when it has one.
    genuine: str | None
    #: The first offset no cursor of this request may carry (results, links scanned or bytes), when known.
    reach: int | None


@dataclass
class Surface:
    """What the server lists, and real identifiers and cursors to aim at."""

    tools: dict[str, dict[str, Any]]
    templates: list[str]
    prompts: dict[str, list[tuple[str, bool]]]
    catalog_fingerprint: str
    framework_id: str
    snapshot_id: str
    node_id: str
    statement_code: str
    component_id: str
    relationship_id: str
    #: The key the fuzzer's server seals cursors with (from the secret the fuzzer gave it).
    codec: CursorCodec
    cursor_targets: dict[str, CursorTarget] = field(default_factory=dict)
    evidence_sha256: str = ""


def call(url: str, method: str, params: Any) -> dict[str, Any]:
    reply = post(url, rpc_body(method, params), 60)
    if reply.message is None or "result" not in reply.message:
        raise SystemExit(f"fuzz: {method} failed: {reply.text[:500]}")
    result = reply.message["result"]
    assert isinstance(result, dict)
    return result


def structured(url: str, tool: str, request: dict[str, Any]) -> dict[str, Any]:
    result = call(url, "tools/call", {"name": tool, "arguments": {"request": request}})
    content = result.get("structuredContent")
    return content if isinstance(content, dict) and not result.get("isError") else {}


def discover(url: str, cursor_secret: str) -> Surface:
    """What the server lists, plus real ids and genuine cursors (fallback ids where none exist)."""
    tools = {t["name"]: t.get("inputSchema", {}) for t in call(url, "tools/list", {})["tools"]}
    templates = [t["uriTemplate"] for t in call(url, "resources/templates/list", {})["resourceTemplates"]]
    prompts = {
        p["name"]: [(a["name"], bool(a.get("required"))) for a in p.get("arguments", [])]
        for p in call(url, "prompts/list", {})["prompts"]
    }
    catalog = json.loads(call(url, "resources/read", {"uri": "kgfegmcp://catalog"})["contents"][0]["text"])
    frameworks = structured(url, "list_frameworks", {"limit": 100}).get("frameworks", [])
    # A listed package names itself once, as '<frameworkId>@<snapshotId>'.
    packages = [str(f.get("graphPackageId", "")).partition("@")[::2] for f in frameworks]
    preferred = [p for p in packages if p[0] == "brazil-bncc-ensino-fundamental"] or packages
    framework_id, snapshot_id = preferred[0] if preferred else ("no-framework", "no-snapshot")
    hits = structured(url, "search_standards", {"query": "de", "frameworkIds": [framework_id], "limit": 1}).get(
        "hits", []
    )
    standard = hits[0] if hits else {"nodeId": "no-node", "statementCode": "NO1"}
    components = structured(url, "search_learning_components", {"query": "de", "limit": 1}).get("hits", [])
    links = structured(url, "search_learning_progressions", {"frameworkId": framework_id, "limit": 1}).get("links", [])
    surface = Surface(
        tools=tools,
        templates=templates,
        prompts=prompts,
        catalog_fingerprint=str(catalog.get("catalogFingerprint", "")),
        framework_id=framework_id,
        snapshot_id=snapshot_id,
        node_id=standard["nodeId"],
        statement_code=standard.get("statementCode") or "NO1",
        component_id=components[0]["nodeId"] if components else "no-component",
        relationship_id=links[0]["relationshipId"] if links else "no-link",
        codec=CursorCodec(str(catalog.get("catalogFingerprint", "")), SecretStr(cursor_secret)),
    )
    # EF05MA03 has several progression links in the default catalog; elsewhere any standard will do.
    progressing = {"statementCode": "EF05MA03"} if framework_id == "brazil-bncc-ensino-fundamental" else {}
    requests: dict[str, tuple[str, dict[str, Any]]] = {
        "list_frameworks": ("list_frameworks", {"limit": 1}),
        "search_standards auto": ("search_standards", {"query": "de", "limit": 1}),
        "search_standards text": ("search_standards", {"query": "de", "searchMode": "text", "limit": 1}),
        "search_standards code": (
            "search_standards",
            {"query": surface.statement_code[:3], "searchMode": "code", "codeMatch": "prefix", "limit": 1},
        ),
        "search_learning_components": ("search_learning_components", {"query": "de", "limit": 1}),
        "get_standard_progressions": (
            "get_standard_progressions",
            {"frameworkId": framework_id, **(progressing or {"nodeId": surface.node_id}), "limit": 1},
        ),
        "search_learning_progressions": ("search_learning_progressions", {"frameworkId": framework_id, "limit": 1}),
        "read_evidence": ("read_evidence", {"uri": "kgfegmcp://catalog", "windowBytes": 64}),
    }
    links_of = {str(f.get("graphPackageId")): f.get("learningProgressionLinks") for f in frameworks}
    for label, (tool, request) in requests.items():
        page = structured(url, tool, request)
        if not page:  # this catalog cannot answer the request: no cursor of it to forge
            continue
        cursor = (page.get("page") or {}).get("nextCursor")
        reach = page.get("total", page.get("totalLinks"))
        if tool == "search_learning_progressions":  # the links scanned, of every kind
            reach = links_of.get(f"{framework_id}@{snapshot_id}")
        if tool == "read_evidence":
            surface.evidence_sha256 = str((page.get("resource") or {}).get("sha256", ""))
            reach = (page.get("resource") or {}).get("byteLength")
        surface.cursor_targets[label] = CursorTarget(
            tool, request, cursor if isinstance(cursor, str) else None, reach if isinstance(reach, int) else None
        )
    return surface
