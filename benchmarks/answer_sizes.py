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
import json
import platform
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from fastmcp import Client

import kgfegmcp
from answer_sizes_calls import CALLS, Resolver, failed
from answer_sizes_measure import clip, measure, tool_definitions, utf8
from answer_sizes_sweeps import sweep_search, sweep_traversals
from answer_sizes_tables import print_compare, print_sizes
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR, BackendSettings, load_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from host_views import package_facts


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
