"""What one answer is made of, in UTF-8 bytes: the JSON-RPC result and its text, structured and link parts,
records and stop reason, the bytes of each field, what repeats, and each view's bytes beyond its evidence;
and the bytes of the tool definitions a model reads before any call."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from fastmcp import Client

# The host-view test's own measure of what a view spends beyond its evidence: one definition for both.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from host_views import PackageFacts, compact_json, overhead, strings

#: The list counted in the table's ``n`` column: the first of these the answer has.
PRIMARY_COUNTS = (
    "hits",
    "edges",
    "nodes[].followed",
    "supports",
    "standards",
    "links",
    "paths",
    "frameworks[].candidates",
    "frameworks",
)
RIGHTS_KEY = re.compile(r"disclosure|licen[cs]e|attribution|rights|copyright", re.IGNORECASE)
SNAPSHOT_PREFIX = re.compile(r"kgfegmcp://framework/[^/\"\\\s]+/snapshot/[^/\"\\\s]+/?")
ADDRESS = re.compile(r"kgfegmcp://[^\s\"\\)>,;]+")
MIN_REPEATED = 16  # shortest string counted as repeated within one answer (UTF-8 bytes)
MIN_ACROSS = 64  # shortest string reported as recurring across answers


def size(value: Any) -> int:
    """UTF-8 bytes of ``value`` as canonical compact JSON."""
    return len(compact_json(value).encode("utf-8"))


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def clip(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def is_leaf(value: Any) -> bool:
    return not isinstance(value, dict | list) or (
        isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)
    )


def field_bytes(structured: Any) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """(every field path, leaf field paths, leaf bytes by key name): bytes of ``"key":value`` summed."""
    paths: dict[str, int] = defaultdict(int)
    leaves: dict[str, int] = defaultdict(int)
    keys: dict[str, int] = defaultdict(int)

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                here = f"{path}.{key}" if path else key
                pair = size(key) + 1 + size(item)
                paths[here] += pair
                if is_leaf(item):
                    leaves[here] += pair
                    keys[key] += pair
                else:
                    walk(item, here)
        elif isinstance(value, list):
            for item in value:
                walk(item, f"{path}[]")

    walk(structured, "")
    return dict(paths), dict(leaves), dict(keys)


def keyed_bytes(value: Any, wanted: re.Pattern[str] | set[str]) -> int:
    """Bytes of every ``"key":value`` pair whose key matches (outermost match only: no double count)."""
    total = 0
    if isinstance(value, dict):
        for key, item in value.items():
            hit = wanted.search(key) if isinstance(wanted, re.Pattern) else key in wanted
            if hit:
                total += size(key) + 1 + size(item)
            else:
                total += keyed_bytes(item, wanted)
    elif isinstance(value, list):
        total += sum(keyed_bytes(item, wanted) for item in value)
    return total


def key_occurrences(value: Any, key_name: str) -> int:
    if isinstance(value, dict):
        return sum((k == key_name) + key_occurrences(v, key_name) for k, v in value.items())
    if isinstance(value, list):
        return sum(key_occurrences(v, key_name) for v in value)
    return 0


def record_counts(structured: Any) -> dict[str, int]:
    """Length of every top-level list, and of lists one level down summed over the items (``key[].sub``)."""
    counts: dict[str, int] = {}
    if not isinstance(structured, dict):
        return counts
    for key, value in structured.items():
        if isinstance(value, list):
            counts[key] = len(value)
            for item in value:
                if isinstance(item, dict):
                    for sub, inner in item.items():
                        if isinstance(inner, list) and inner and isinstance(inner[0], dict):
                            counts[f"{key}[].{sub}"] = counts.get(f"{key}[].{sub}", 0) + len(inner)
    return counts


def stop_reason(structured: Any) -> str | None:
    if not isinstance(structured, dict):
        return None
    if isinstance(structured.get("truncationReasons"), list):
        return ",".join(structured["truncationReasons"]) or "complete"
    page = structured.get("page")
    if isinstance(page, dict):
        if "stoppedBy" in page:
            return str(page["stoppedBy"])
        if page.get("hasMore"):
            return "more pages"
    return None


def repeated(texts: list[str], structured: Any, links: list[dict[str, Any]], total_json: str) -> dict[str, Any]:
    """What repeats inside one answer, in bytes."""
    disclosure_lines = [line for t in texts for line in t.splitlines() if line.startswith("Disclosure:")]
    package_lines = [line for t in texts for line in t.splitlines() if line.startswith("Package ")]
    text_addresses = [a for t in texts for a in ADDRESS.findall(t)]
    struct_addresses = [s for s in strings(structured) if s.startswith("kgfegmcp://")]
    prefixes = SNAPSHOT_PREFIX.findall(total_json)
    counted = Counter(s for s in strings(structured) if utf8(s) >= MIN_REPEATED)
    duplicates = sorted(((utf8(s) * (n - 1), n, s) for s, n in counted.items() if n > 1), key=lambda t: (-t[0], t[2]))
    text_is_json = False
    for text in texts:
        with contextlib.suppress(ValueError):
            text_is_json = text_is_json or (structured is not None and json.loads(text) == structured)
    graph_package_ids = key_occurrences(structured, "graphPackageId")
    return {
        "disclosureRightsStructured": keyed_bytes(structured, RIGHTS_KEY),
        "disclosureTextLines": sum(utf8(line) + 1 for line in disclosure_lines),
        "packageIdentityStructured": keyed_bytes(structured, {"package", "packages"}),
        "packageTextLines": sum(utf8(line) + 1 for line in package_lines),
        "graphPackageIdFields": graph_package_ids,
        "graphPackageIdBytes": keyed_bytes(structured, {"graphPackageId"}),
        "addressesStructured": len(struct_addresses),
        "addressBytesStructured": sum(utf8(a) for a in struct_addresses),
        "addressesText": len(text_addresses),
        "addressBytesText": sum(utf8(a) for a in text_addresses),
        "resourceLinkBlocks": len(links),
        "snapshotPrefixOccurrences": len(prefixes),
        "snapshotPrefixBytes": sum(utf8(p) for p in prefixes),
        "duplicateStringBytes": sum(d[0] for d in duplicates),
        "topDuplicates": [{"bytesRepeated": b, "count": n, "string": clip(s)} for b, n, s in duplicates[:8]],
        "textIsStructuredJson": text_is_json,
    }


def error_code(texts: list[str]) -> str:
    first = texts[0] if texts else ""
    match = re.match(r"\s*([a-z][a-z0-9_]*):", first)
    return match.group(1) if match else clip(first, 60) or "error"


def view_costs(texts: list[str], structured: Any, facts: dict[str, PackageFacts]) -> dict[str, Any]:
    """Statements, and each view's bytes beyond statement and attribution texts."""
    if not isinstance(structured, dict):
        return {}
    text = overhead("".join(texts), structured, facts)
    data = overhead(compact_json(structured), structured, facts)
    return {
        "statements": text.statements,
        "statementBytes": text.statement_bytes_total,
        "text": {"overhead": text.overhead, "statementBytes": text.statement_bytes, "rightsBytes": text.rights_bytes},
        "structured": {
            "overhead": data.overhead,
            "statementBytes": data.statement_bytes,
            "rightsBytes": data.rights_bytes,
        },
    }


def measure(
    label: str, tool: str, request: dict[str, Any], result: Any, facts: dict[str, PackageFacts] | None = None
) -> dict[str, Any]:
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    total_json = compact_json(dumped)
    blocks = dumped.get("content") or []
    texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
    links = [b for b in blocks if b.get("type") == "resource_link"]
    structured = dumped.get("structuredContent")
    entry: dict[str, Any] = {
        "label": label,
        "tool": tool,
        "request": request,
        "ok": not dumped.get("isError", False),
        "error": None,
        "blocks": dict(Counter(b.get("type", "?") for b in blocks)),
    }
    text_bytes = sum(utf8(t) for t in texts)
    structured_bytes = size(structured) if structured is not None else 0
    link_bytes = sum(size(b) for b in links)
    total = utf8(total_json)
    entry["bytes"] = {
        "text": text_bytes,
        "structured": structured_bytes,
        "links": link_bytes,
        "other": total - text_bytes - structured_bytes - link_bytes,
        "total": total,
    }
    if not entry["ok"]:
        entry["error"] = error_code(texts)
        return entry
    counts = record_counts(structured)
    entry["counts"] = counts
    entry["n"] = next((counts[k] for k in PRIMARY_COUNTS if k in counts), None)
    entry["stop"] = stop_reason(structured)
    if isinstance(structured, dict) and isinstance(structured.get("counters"), dict):
        entry["counters"] = structured["counters"]
    paths, leaves, keys = field_bytes(structured)
    top = sorted(((b, k) for k, b in paths.items() if "." not in k and "[" not in k), reverse=True)
    entry["fields"] = {
        "topLevel": {k: b for b, k in top},
        "leaves": dict(sorted(leaves.items(), key=lambda kv: (-kv[1], kv[0]))[:15]),
        "byKey": dict(sorted(keys.items(), key=lambda kv: (-kv[1], kv[0]))[:15]),
    }
    entry["repeated"] = repeated(texts, structured, links, total_json)
    if facts is not None:
        with contextlib.suppress(KeyError):  # a package missing from --root: no view costs for this answer
            entry["views"] = view_costs(texts, structured, facts)
    entry["_strings"] = sorted({s for s in strings(structured) + texts if utf8(s) >= MIN_ACROSS})
    return entry


async def tool_definitions(client: Client[Any]) -> dict[str, Any]:
    """Bytes of each tool definition a model reads (name, description, input schema) and of its output schema."""
    tools = []
    for tool in (await client.list_tools_mcp()).tools:
        declared = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        read = {
            "name": declared["name"],
            "description": declared.get("description", ""),
            "inputSchema": declared["inputSchema"],
        }
        tools.append(
            {
                "name": declared["name"],
                "definition": size(read),
                "description": utf8(read["description"]),
                "inputSchema": size(read["inputSchema"]),
                "outputSchema": size(declared["outputSchema"]) if "outputSchema" in declared else None,
            }
        )
    return {
        "tools": tools,
        "total": sum(t["definition"] for t in tools),
        "largest": max((t["definition"] for t in tools), default=0),
        "outputSchemaTotal": sum(t["outputSchema"] or 0 for t in tools),
    }
