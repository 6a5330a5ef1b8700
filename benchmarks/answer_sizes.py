"""Bytes per answer for every tool: what an AI host pays for each call, and where those bytes go.

Run (from the repository root):

    .venv/bin/python benchmarks/answer_sizes.py                   # writes benchmarks/results/answer_sizes.json
    .venv/bin/python benchmarks/answer_sizes.py --fields 5        # also the 5 largest fields of every answer
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/answer_sizes.py --out /tmp/sizes_before.json
    .venv/bin/python benchmarks/answer_sizes.py --compare /tmp/sizes_before.json   # before/after with ratios
    .venv/bin/python benchmarks/answer_sizes.py --compare A.json --current B.json  # two files, no run

Why: a host pays (in context tokens) for every byte of a tool answer, and most answers carry far more
than the evidence asked for. This benchmark measures each answer exactly as a client receives it, so
a change that compacts answers can be judged by before/after numbers instead of impressions.

How: the app state is built from ``--root`` (default data/graph_packages) the way tests/conftest.py
builds it (``load_settings`` + ``build_app_state``; the profiles and prompts of the checkout holding
this file unless ``--profiles``/``--prompts`` say otherwise; a temporary derived-index cache unless
``--cache-dir`` is given), and FastMCP's in-memory ``Client`` is
opened on ``create_app(state)``: a real client speaking MCP to the real server (it negotiates the
newest protocol version the SDK knows, so answers carry text, ``resource_link`` blocks and
``structuredContent``). Every entry of ``CALLS`` is sent with ``Client.call_tool_mcp(tool,
{"request": {...}})``. ``Ref`` values in a request (a node id, a resource URI, a learning-component id,
a progression id) are looked up first through the same client with other tool calls, which are not
measured. The same imports exist in older checkouts, so ``PYTHONPATH=OTHER/src`` measures another
commit's code on the same packages. A call that is refused (``isError`` or an exception) is recorded
with its error code and the run goes on.

What is measured, per call, on the ``mcp.types.CallToolResult`` the client returns:

* ``total``: ``len(json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True),
  ensure_ascii=False, separators=(",", ":")).encode("utf-8"))``, i.e. the JSON-RPC ``result`` as
  compact UTF-8 JSON (it includes ``_meta``, ``isError`` and ``resultType`` as the client model holds
  them, and the JSON escaping of the text blocks);
* ``text``: UTF-8 bytes of the ``text`` of every text content block (unescaped);
* ``structured``: the ``structuredContent`` as ``json.dumps(..., ensure_ascii=False,
  separators=(",", ":"))`` in UTF-8 (key order as sent);
* ``links``: each ``resource_link`` block as the compact JSON the client receives (same dump), summed;
* ``other``: ``total - text - structured - links``: block wrappers, escaping of text, ``_meta`` etc.

and, to show what to compact: the number of records in the answer (every top-level list of the
structured content, lists one level down summed as ``key[].sub``), the stop reason where there is one
(``truncationReasons``, ``page.stoppedBy``), the bytes of every field path of the structured content
(``"key":value`` compact, list positions folded into ``[]``), and what repeats: disclosure and
rights text (``disclosures``, ``license``, ``attribution*``, ``rights`` fields and ``Disclosure:`` text
lines), package identity (``package``/``packages`` blocks and ``graphPackageId`` values), ``kgfegmcp://``
addresses, strings repeated inside one answer, and whether the text block is the structured content
again as JSON. ``acrossCalls`` lists long strings that recur in many answers (the disclosures).

What a model pays for evidence (``views``, per answer; the measure tests/mcp/test_answer_leanness.py
bounds, from tests/host_views.py): ``statements`` is the number of statement records in the structured
content (any object with a ``description`` and a ``nodeId`` or ``statementCode``: hits, parents,
ancestors, headings, components, resource windows), ``statementBytes`` their texts in UTF-8; for each
view (``text``: the text blocks; ``structured``: the compact JSON above) ``overhead`` is the view's bytes
minus the statement texts and the attribution texts (``rights.attributionStatement`` of each cited
package's manifest under ``--root``) that the view holds verbatim, ``statementBytes`` and ``rightsBytes``
what was taken off (a view that clips or omits a
statement gets nothing taken off for it, so its overhead is not flattered).

What a model pays before any call (``toolDefinitions``, from ``tools/list`` at the protocol the client
negotiates, the newest): per tool, ``definition`` = UTF-8 bytes of ``{"name","description",
"inputSchema"}`` as compact JSON (what a host puts in the model's context), its ``description`` and
``inputSchema`` parts, and ``outputSchema`` (the declared result schema, reported separately: hosts
validate with it, most do not show it to the model); ``total`` and ``outputSchemaTotal`` sum them.

``--compare`` reads files written before these fields existed: a missing value prints as —.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import platform
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastmcp import Client

import kgfegmcp
from catalog_access import store_of
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, BackendSettings, load_settings

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
# The host-view test's own measure of what a view spends beyond its evidence: one definition for both.
sys.path.insert(0, str(REPOSITORY_ROOT / "tests"))
from host_views import PackageFacts, compact_json, overhead, package_facts  # noqa: E402

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"


@dataclass(frozen=True)
class Ref:
    """A value looked up through the client before the call (not measured).

    ``kind``: ``node`` (nodeId) or ``uri`` (resource address) of the standard with ``code``; ``component``
    (nodeId of the first learning component supporting it); ``progression`` (relationship id of its first
    stored progression link).
    """

    kind: str
    framework: str
    code: str


def ef(code: str) -> dict[str, str]:
    """A standard selector in Ensino Fundamental."""
    return {"frameworkId": EF, "statementCode": code}


#: (label, request): the tool is the label's first word; each request is sent as ``{"request": request}``.
#: Labels are unique and key --compare.
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_frameworks", {}),
    ("get_framework EF", {"frameworkId": EF}),
    ("get_capabilities", {}),
    ("get_framework_statistics EF", {"frameworkId": EF}),
    ("search_standards frações EF limit 10", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("search_standards 'main idea' CCSS limit 10", {"query": "main idea", "frameworkIds": [CCSS], "limit": 10}),
    ("search_standards frações every package", {"query": "frações"}),
    ("get_standard EF05MA03", {"frameworkId": EF, "nodeId": Ref("node", EF, "EF05MA03")}),
    ("get_standard_context EF05MA03", {"frameworkId": EF, "nodeId": Ref("node", EF, "EF05MA03")}),
    ("compare_framework_evidence EF+EM", {"query": "leitura texto", "frameworkIds": [EF, EM]}),
    ("search_learning_components frações", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("get_learning_component", {"frameworkId": EF, "nodeId": Ref("component", EF, "EF01CI01")}),
    ("get_learning_components_for_standard EF01CI01", {"frameworkId": EF, "statementCode": "EF01CI01"}),
    ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": Ref("component", EF, "EF01CI01")}),
    ("get_standard_progressions EF01CI03", {"frameworkId": EF, "statementCode": "EF01CI03"}),
    ("search_learning_progressions frações", {"frameworkId": EF, "query": "frações"}),
    ("get_learning_progression", {"frameworkId": EF, "progressionId": Ref("progression", EF, "EF01CI03")}),
    # At the defaults EF01CI03 is traversed completely; EF01MA05 stops at byte_limit (the size ceiling).
    ("traverse_learning_progressions EF01CI03", {"frameworkId": EF, "statementCode": "EF01CI03"}),
    ("traverse_learning_progressions EF01MA05", {"frameworkId": EF, "statementCode": "EF01MA05"}),
    ("find_learning_progression_paths EF01MA05>EF04MA03", {"from": ef("EF01MA05"), "to": ef("EF04MA03")}),
    ("read_evidence standard EF05MA03", {"uri": Ref("uri", EF, "EF05MA03")}),
    ("get_workflow_instructions practice", {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}),
)  # fmt: skip

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


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def size(value: Any) -> int:
    """UTF-8 bytes of ``value`` as canonical compact JSON."""
    return len(compact(value).encode("utf-8"))


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def is_leaf(value: Any) -> bool:
    return not isinstance(value, dict | list) or (
        isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)
    )


# -- analysis of one answer ----------------------------------------------------------------------


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


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


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


def clip(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


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
    total_json = compact(dumped)
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


# -- running the calls -----------------------------------------------------------------------------


class Resolver:
    """Looks ``Ref`` values up through the client (cached; these calls are not measured)."""

    def __init__(self, client: Client[Any]) -> None:
        self.client = client
        self.cache: dict[Ref, str] = {}

    async def structured(self, tool: str, request: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool_mcp(tool, {"request": request})
        data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        if data.get("isError") or not isinstance(data.get("structuredContent"), dict):
            texts = [b.get("text", "") for b in data.get("content") or [] if b.get("type") == "text"]
            raise LookupError(f"{tool}: {error_code(texts)}")
        return data["structuredContent"]

    async def standard(self, ref: Ref) -> dict[str, Any]:
        try:
            found = await self.structured(
                "search_standards",
                {"query": ref.code, "frameworkIds": [ref.framework], "searchMode": "code", "limit": 1},
            )
            hits = [
                h["standard"] for h in found.get("hits", []) if h.get("standard", {}).get("statementCode") == ref.code
            ]
            if hits:
                return hits[0]
        except (LookupError, KeyError, TypeError):
            pass
        return (await self.structured("get_standard", {"frameworkId": ref.framework, "statementCode": ref.code}))[
            "standard"
        ]

    async def resolve(self, ref: Ref) -> str:
        if ref not in self.cache:
            if ref.kind == "node":
                value = (await self.standard(ref))["nodeId"]
            elif ref.kind == "uri":  # get_standard names the standard's resource in every version
                found = await self.structured("get_standard", {"frameworkId": ref.framework, "statementCode": ref.code})
                value = found["standard"]["uri"]
            elif ref.kind == "component":
                found = await self.structured(
                    "get_learning_components_for_standard",
                    {"frameworkId": ref.framework, "statementCode": ref.code, "limit": 1},
                )
                value = found["supports"][0]["component"]["nodeId"]
            elif ref.kind == "progression":
                found = await self.structured(
                    "get_standard_progressions", {"frameworkId": ref.framework, "statementCode": ref.code, "limit": 1}
                )
                value = found["links"][0]["relationshipId"]
            else:
                raise LookupError(f"unknown reference kind {ref.kind!r}")
            self.cache[ref] = value
        return self.cache[ref]

    async def fill(self, value: Any) -> Any:
        if isinstance(value, Ref):
            return await self.resolve(value)
        if isinstance(value, dict):
            return {k: await self.fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [await self.fill(v) for v in value]
        return value


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


def settings_for(args: argparse.Namespace, cache_dir: Path) -> BackendSettings:
    overrides: dict[str, object] = {
        "graph_packages_dir": args.root,
        "profiles_dir": args.profiles,
        "prompts_dir": args.prompts,
        "cache_dir": cache_dir,
    }
    known = set(BackendSettings.model_fields)
    return load_settings({k: v for k, v in overrides.items() if k in known})


async def run_calls(args: argparse.Namespace, cache_dir: Path) -> dict[str, Any]:
    state = build_app_state(settings_for(args, cache_dir))
    entries: list[dict[str, Any]] = []
    async with Client(create_app(state)) as client:
        version = getattr(client, "protocol_version", None) or getattr(
            getattr(client, "session", None), "protocol_version", None
        )
        definitions = await tool_definitions(client)
        facts = package_facts(args.root)
        resolver = Resolver(client)
        for label, template in CALLS:
            tool = label.split()[0]
            try:
                request = await resolver.fill(template)
            except Exception as exc:  # record and go on: older shapes may refuse a lookup
                entries.append(failed(label, tool, template, f"unresolved ({exc})"))
                continue
            try:
                result = await client.call_tool_mcp(tool, {"request": request})
            except Exception as exc:  # record and go on
                entries.append(failed(label, tool, request, f"{type(exc).__name__}: {clip(str(exc), 80)}"))
                continue
            entries.append(measure(label, tool, request, result, facts))
        sweeps = (
            {"search": await sweep_search(client, facts), "traversal": await sweep_traversals(client, state)}
            if args.sweep
            else None
        )
    across: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        for text in entry.pop("_strings", []):
            across[text].append(entry["label"])
    recurring = sorted(
        ((len(calls), utf8(text), text, calls) for text, calls in across.items() if len(calls) >= 3),
        key=lambda t: (-t[0] * t[1], t[2]),
    )
    return {
        "benchmark": "answer_sizes",
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "code": str(Path(kgfegmcp.__file__).resolve().parent),
        "root": str(args.root),
        "protocolVersion": str(version) if version is not None else None,
        "toolDefinitions": definitions,
        "calls": entries,
        **({"sweeps": sweeps} if sweeps is not None else {}),
        "acrossCalls": [
            {"answers": n, "bytes": b, "bytesTimesAnswers": n * b, "string": clip(text, 120), "calls": calls}
            for n, b, text, calls in recurring[:12]
        ],
    }


# -- sweeps: the size bounds over many requests, not one ----------------------------------------------

TEACHER_QUERIES = REPOSITORY_ROOT / "benchmarks" / "queries" / "teacher_queries.json"
SEARCH_BOUND, SEARCH_TEXT_BOUND = 6_000, 2_500


def lean_bounds(view: str, statements: int) -> int:
    """The most a view may spend beyond its statements and attributions: 150 B a statement + 600 B in the
    text, 250 B + 1,200 B in the structured content."""
    return 150 * statements + 600 if view == "text" else 250 * statements + 1_200


def _quantiles(values: list[int]) -> dict[str, int]:
    ordered = sorted(values)
    return {
        "median": ordered[len(ordered) // 2],
        "p90": ordered[min(len(ordered) - 1, (len(ordered) * 9) // 10)],
        "max": ordered[-1],
    }


async def sweep_search(client: Client[Any], facts: dict[str, PackageFacts]) -> dict[str, Any]:
    """Every teacher query at ``limit`` 10, in its own framework and over every package: total and text
    bytes against the 6 KB / 2.5 KB bounds, and, for answers over 6 KB, the bytes of the statement texts
    alone (``description`` values as JSON strings) and of everything else; and each view's bytes beyond
    its statements and attributions against the leanness bounds (:func:`lean_bounds`)."""
    queries = json.loads(TEACHER_QUERIES.read_text(encoding="utf-8"))
    slices: dict[str, dict[str, Any]] = {}
    for slice_name, scoped in (("own framework", True), ("every package", False)):
        totals, texts, over = [], [], []
        beyond: dict[str, list[int]] = {"text": [], "structured": []}
        over_lean: dict[str, list[dict[str, Any]]] = {"text": [], "structured": []}
        ten_hit = 0
        for query in queries:
            request: dict[str, Any] = {"query": query["query"], "limit": 10}
            if scoped:
                request["frameworkIds"] = [query["frameworkId"]]
            result = await client.call_tool_mcp("search_standards", {"request": request})
            entry = measure("sweep", "search_standards", request, result, facts)
            structured = result.model_dump(mode="json", by_alias=True, exclude_none=True).get("structuredContent")
            statements = sum(size(hit["description"]) for hit in (structured or {}).get("hits", []))
            views = entry.get("views") or {}
            if views and views["statements"] == 10:  # the bound is stated for a 10-hit search
                ten_hit += 1
            for view in ("text", "structured"):
                if views:
                    spent, bound = views[view]["overhead"], lean_bounds(view, views["statements"])
                    beyond[view].append(spent)
                    if spent > bound and views["statements"] == 10:
                        packages = len((structured or {}).get("packages", []))
                        over_lean[view].append(
                            {"query": query["query"], "beyond": spent, "bound": bound, "packages": packages}
                        )
            totals.append(entry["bytes"]["total"])
            texts.append(entry["bytes"]["text"])
            if entry["bytes"]["total"] > SEARCH_BOUND:
                over.append(
                    {
                        "query": query["query"],
                        "total": entry["bytes"]["total"],
                        "statementTexts": statements,
                        "rest": entry["bytes"]["total"] - statements,
                    }
                )
        slices[slice_name] = {
            "answers": len(totals),
            "total": _quantiles(totals),
            "text": _quantiles(texts),
            "over6KB": len(over),
            "textOver2500": sum(1 for t in texts if t > SEARCH_TEXT_BOUND),
            "overAnswers": sorted(over, key=lambda o: -o["total"]),
            "beyond": {view: _quantiles(values) for view, values in beyond.items() if values},
            "tenHitAnswers": ten_hit,
            "overLeanBound": {view: sorted(o, key=lambda e: -e["beyond"]) for view, o in over_lean.items()},
        }
    return slices


async def sweep_traversals(client: Client[Any], state: Any) -> dict[str, Any]:
    """A traversal at the default caps from every Ensino Fundamental standard, each direction: how many
    stop at ``byte_limit`` and with how many links, against the goal of 100 links under the ceiling."""
    package = state.catalog.resolve(EF)
    store = store_of(state, package)
    report: dict[str, Any] = {}
    for direction in ("out", "in", "both"):
        stops: Counter[str] = Counter()
        cut: list[int] = []
        for item in store.items:
            request = {"frameworkId": EF, "nodeId": item.identifier, "direction": direction}
            result = await client.call_tool_mcp("traverse_learning_progressions", {"request": request})
            structured = result.model_dump(mode="json", by_alias=True, exclude_none=True).get("structuredContent") or {}
            reasons = structured.get("truncationReasons", [])
            stops[",".join(reasons) or "complete"] += 1
            if "byte_limit" in reasons:
                cut.append(structured["counters"]["edgesReturned"])
        report[direction] = {
            "starts": len(store.items),
            "stops": dict(sorted(stops.items())),
            "byteLimitLinksReturned": sorted(cut),
        }
    return report


def failed(label: str, tool: str, request: Any, error: str) -> dict[str, Any]:
    def plain(value: Any) -> Any:
        if isinstance(value, Ref):
            return f"<{value.kind} of {value.code}>"
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return {"label": label, "tool": tool, "request": plain(request), "ok": False, "error": error, "bytes": None}


# -- printing ----------------------------------------------------------------------------------------


def num(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else ("—" if value is None else str(value))


def table(rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def print_sizes(report: dict[str, Any], fields: int) -> None:
    print(f"code {report['code']}  root {report['root']}  protocol {report['protocolVersion']}")
    rows = [["call", "n", "text", "struct", "links", "other", "total", "note"]]
    for e in report["calls"]:
        b = e.get("bytes") or {}
        note = e["error"] if not e["ok"] else (e.get("stop") or "")
        if e["ok"] and e.get("repeated", {}).get("textIsStructuredJson"):
            note = (note + "; text = structured JSON").lstrip("; ")
        rows.append(
            [e["label"], num(e.get("n")), num(b.get("text")), num(b.get("structured")), num(b.get("links")),
             num(b.get("other")), num(b.get("total")), note]
        )  # fmt: skip
    print(table(rows, {1, 2, 3, 4, 5, 6}))
    print_views(report)
    print_definitions(report)
    print("\nrepeated per answer (bytes): disclosure/rights in structured + Disclosure: text lines; package")
    print("identity blocks + Package text lines; graphPackageId fields; snapshot URI prefixes; duplicate strings")
    rows = [["call", "discl+rights", "package", "graphPkgId", "snapshot prefix", "dup strings"]]
    for e in report["calls"]:
        if not e["ok"]:
            continue
        r = e["repeated"]
        rows.append(
            [e["label"],
             f"{num(r['disclosureRightsStructured'])} + {num(r['disclosureTextLines'])}",
             f"{num(r['packageIdentityStructured'])} + {num(r['packageTextLines'])}",
             f"{r['graphPackageIdFields']}x {num(r['graphPackageIdBytes'])}",
             f"{r['snapshotPrefixOccurrences']}x {num(r['snapshotPrefixBytes'])}",
             num(r["duplicateStringBytes"])]
        )  # fmt: skip
    print(table(rows, {1, 2, 3, 4, 5}))
    if report.get("acrossCalls"):
        print("\nlong strings recurring across answers (answers x bytes):")
        for item in report["acrossCalls"][:6]:
            print(f"  {item['answers']:>2} x {item['bytes']:>4}  {clip(item['string'], 88)}")
    if fields:
        print(f'\nlargest fields of the structured content (top {fields}; bytes of "key":value, lists folded):')
        for e in report["calls"]:
            if not e["ok"]:
                continue
            top = list(e["fields"]["topLevel"].items())[:fields]
            leaves = list(e["fields"]["leaves"].items())[:fields]
            print(f"  {e['label']}")
            print("    top-level: " + ", ".join(f"{k} {v:,}" for k, v in top))
            print("    leaves:    " + ", ".join(f"{k} {v:,}" for k, v in leaves))
    sweeps = report.get("sweeps")
    if sweeps:
        print("\nsearch_standards, every teacher query at limit 10 (bytes: median / p90 / max):")
        for name, row in sweeps["search"].items():
            total, text = row["total"], row["text"]
            print(
                f"  {name:<14} total {total['median']:,} / {total['p90']:,} / {total['max']:,}; "
                f"text {text['median']:,} / {text['p90']:,} / {text['max']:,}; "
                f"over 6 KB {row['over6KB']} of {row['answers']}, text over 2.5 KB {row['textOver2500']}"
            )
            for over in row["overAnswers"][:5]:
                print(
                    f"    {over['total']:>6,} B = statement texts {over['statementTexts']:,} + rest {over['rest']:,}"
                    f"  {over['query']!r}"
                )
            for view, spent in row.get("beyond", {}).items():
                outside = row["overLeanBound"][view]
                print(
                    f"    {view} view beyond statements and attributions {spent['median']:,} / {spent['p90']:,} / "
                    f"{spent['max']:,}; 10-hit answers over the leanness bound: {len(outside)} of "
                    f"{row['tenHitAnswers']}"
                )
                for o in outside[:5]:
                    print(f"      {o['beyond']:,} > {o['bound']:,} B ({o['packages']} packages)  {o['query']!r}")
        print("\ntraverse_learning_progressions at its defaults from every EF standard:")
        for direction, row in sweeps["traversal"].items():
            cut = row["byteLimitLinksReturned"]
            print(
                f"  {direction:<5} {row['starts']} starts; stops {row['stops']}; "
                + (f"byte_limit after {min(cut)}-{max(cut)} links" if cut else "never byte_limit")
            )


def view_cell(entry: dict[str, Any] | None, view: str, key: str = "overhead") -> Any:
    """One view-cost value of an answer, ``None`` when the file or answer has none (older files)."""
    views = (entry or {}).get("views") or {}
    return (views.get(view) or {}).get(key)


def view_count(entry: dict[str, Any] | None) -> Any:
    """The statements an answer returns, ``None`` when the file or answer has no count (older files)."""
    return ((entry or {}).get("views") or {}).get("statements")


def print_views(report: dict[str, Any]) -> None:
    print("\nevidence and overhead per answer (bytes; overhead = view - statement texts - licence and attribution")
    print("texts the view holds verbatim; the leanness bounds for 10 statements: text 2,100, structured 3,700):")
    rows = [["call", "stmts", "stmt text", "text", "text beyond", "(rights)", "struct", "struct beyond", "(rights)"]]
    for e in report["calls"]:
        if not e["ok"]:
            continue
        v, b = e.get("views") or {}, e.get("bytes") or {}
        rows.append(
            [e["label"], num(v.get("statements")), num(v.get("statementBytes")), num(b.get("text")),
             num(view_cell(e, "text")), num(view_cell(e, "text", "rightsBytes")), num(b.get("structured")),
             num(view_cell(e, "structured")), num(view_cell(e, "structured", "rightsBytes"))]
        )  # fmt: skip
    print(table(rows, {1, 2, 3, 4, 5, 6, 7, 8}))


def print_definitions(report: dict[str, Any]) -> None:
    definitions = report.get("toolDefinitions")
    if not definitions:
        return
    print("\ntool definitions a model reads (name + description + inputSchema, compact JSON) and outputSchema:")
    rows = [["tool", "definition", "description", "inputSchema", "outputSchema"]]
    for t in definitions["tools"]:
        rows.append(
            [t["name"], num(t["definition"]), num(t["description"]), num(t["inputSchema"]), num(t["outputSchema"])]
        )
    rows.append(["all tools", num(definitions["total"]), "", "", num(definitions["outputSchemaTotal"])])
    print(table(rows, {1, 2, 3, 4}))


def ratio(after: Any, before: Any) -> str:
    if not isinstance(after, int) or not isinstance(before, int) or before == 0:
        return "—"
    return f"{after / before:.2f}x"


def print_compare(before: dict[str, Any], after: dict[str, Any]) -> None:
    print(f"before: {before.get('code')}\nafter:  {after.get('code')}")
    old = {e["label"]: e for e in before["calls"]}
    new = {e["label"]: e for e in after["calls"]}
    labels = [e["label"] for e in after["calls"]] + [k for k in old if k not in new]
    rows = [["call", "text before→after", "struct before→after", "links before→after", "total before", "total after",
             "ratio", "note"]]  # fmt: skip
    sums = [0, 0]
    for label in labels:
        b, a = old.get(label), new.get(label)
        bb, ab = (b or {}).get("bytes") or {}, (a or {}).get("bytes") or {}
        notes = [f"{side}: {e['error']}" for side, e in (("before", b), ("after", a)) if e and not e["ok"]]
        notes += [f"missing {side}" for side, e in (("before", b), ("after", a)) if e is None]
        if isinstance(bb.get("total"), int) and isinstance(ab.get("total"), int):
            sums[0] += bb["total"]
            sums[1] += ab["total"]
        rows.append(
            [label,
             f"{num(bb.get('text'))}→{num(ab.get('text'))}",
             f"{num(bb.get('structured'))}→{num(ab.get('structured'))}",
             f"{num(bb.get('links'))}→{num(ab.get('links'))}",
             num(bb.get("total")), num(ab.get("total")), ratio(ab.get("total"), bb.get("total")), "; ".join(notes)]
        )  # fmt: skip
    rows.append(
        ["all calls measured on both sides", "", "", "", num(sums[0]), num(sums[1]), ratio(sums[1], sums[0]), ""]
    )
    print(table(rows, {1, 2, 3, 4, 5, 6}))
    print("\nbeyond statement, licence and attribution texts (bytes, before→after; — where a file has no value):")
    rows = [["call", "stmts before→after", "text beyond", "struct beyond"]]
    for label in labels:
        b, a = old.get(label), new.get(label)
        rows.append(
            [label,
             f"{num(view_count(b))}→{num(view_count(a))}",
             f"{num(view_cell(b, 'text'))}→{num(view_cell(a, 'text'))}",
             f"{num(view_cell(b, 'structured'))}→{num(view_cell(a, 'structured'))}"]
        )  # fmt: skip
    print(table(rows, {1, 2, 3}))
    before_defs = {t["name"]: t for t in (before.get("toolDefinitions") or {}).get("tools", [])}
    after_defs = {t["name"]: t for t in (after.get("toolDefinitions") or {}).get("tools", [])}
    print("\ntool definitions (bytes, before→after; — where a file has no value):")
    rows = [["tool", "definition", "outputSchema"]]
    for name in list(after_defs) + [n for n in before_defs if n not in after_defs]:
        bd, ad = before_defs.get(name, {}), after_defs.get(name, {})
        rows.append(
            [name, f"{num(bd.get('definition'))}→{num(ad.get('definition'))}",
             f"{num(bd.get('outputSchema'))}→{num(ad.get('outputSchema'))}"]
        )  # fmt: skip
    bt, at = before.get("toolDefinitions") or {}, after.get("toolDefinitions") or {}
    rows.append(
        ["all tools", f"{num(bt.get('total'))}→{num(at.get('total'))}",
         f"{num(bt.get('outputSchemaTotal'))}→{num(at.get('outputSchemaTotal'))}"]
    )  # fmt: skip
    print(table(rows, {1, 2}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("data/graph_packages"), help="graph-package root")
    parser.add_argument("--profiles", type=Path, default=SHIPPED_PROFILES_DIR)
    parser.add_argument("--prompts", type=Path, default=SHIPPED_PROMPTS_DIR)
    parser.add_argument("--cache-dir", type=Path, default=None, help="derived-index cache (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/answer_sizes.json"))
    parser.add_argument("--compare", type=Path, default=None, help="an earlier result file: print before/after")
    parser.add_argument("--current", type=Path, default=None, help="with --compare: compare to this file, no run")
    parser.add_argument("--fields", type=int, default=0, help="print the N largest fields of every answer")
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="also every teacher query at limit 10 and a default traversal from every EF standard (minutes)",
    )
    args = parser.parse_args()

    if args.current is not None:
        if args.compare is None:
            parser.error("--current needs --compare")
        report = json.loads(args.current.read_text(encoding="utf-8"))
    else:
        if not args.root.is_dir():
            sys.exit(f"no graph-package root at {args.root} (build it with scripts/setup.sh --no-serve)")
        with tempfile.TemporaryDirectory(prefix="answer-sizes-cache-") as scratch:
            report = asyncio.run(run_calls(args, args.cache_dir or Path(scratch)))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print_sizes(report, args.fields)
    if args.compare is not None:
        print()
        print_compare(json.loads(args.compare.read_text(encoding="utf-8")), report)
    if args.current is None:
        print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
