"""Record the answers of the tools the map draws from the real server on the default catalog, as the view's test
fixtures (each tool's example request on each focus standard).

Run: .venv/bin/python apps/curriculum-map/record_fixtures.py [--catalog DIR]
(builds the default catalog into DIR when it is not there yet; writes apps/curriculum-map/fixtures/*.json).

The repository holds no third-party curriculum text, so each statement, name and description is replaced by a
stand-in naming its record (``text of EF05MA03``); everything else (ids, codes, grades, links, paths, package
blocks) is the server's answer as a host receives it in ``structuredContent``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "regression")]

from fastmcp import Client  # noqa: E402
from regression_corpus import build_default_catalog_root, default_state  # noqa: E402

from kgfegmcp.app import create_app  # noqa: E402
from kgfegmcp.mcp.tools import PLACEHOLDERS, TOOLS  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: The tools the map draws, as their rows say.
DRAWN = [tool for tool in TOOLS if tool.draws_map]
#: (fixture prefix, framework, focus code, path start code or None)
FOCI = (
    ("ef", "brazil-bncc-ensino-fundamental", "EF05MA03", "EF02MA01"),
    ("ei", "brazil-bncc-educacao-infantil", "EI02CG01", "EI01CG01"),
    ("em", "brazil-bncc-ensino-medio", "EM13CHS102", "EM13CHS101"),
    ("ccss", "us-ccss-ela-literacy-grades-2-4", "RI.3.3", "RI.2.6"),
)
#: (fixture prefix, framework, code): standards whose siblings the view asks for, as it asks (its first parent's
#: context, children only); written as ``<prefix>-siblings-<code>.json``.
SIBLINGS = (
    ("ef", "brazil-bncc-ensino-fundamental", "EF05MA03"),
    ("ef", "brazil-bncc-ensino-fundamental", "EF05MA04"),
    ("ccss", "us-ccss-ela-literacy-grades-2-4", "RL.3.1"),
)
TEXT_KEYS = frozenset({"description", "name", "text", "statement", "fullStatement", "humanCodingScheme"})


def scrubbed(value: Any, owner: str = "") -> Any:
    """``value`` with every curriculum text replaced by a stand-in naming its record."""
    if isinstance(value, dict):
        label = value.get("statementCode") or value.get("nodeId", owner)
        return {
            key: (f"text of {label}" if key in TEXT_KEYS and isinstance(item, str) else scrubbed(item, label))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [scrubbed(item, owner) for item in value]
    return value


async def record(catalog: Path) -> list[str]:
    app = create_app(default_state(catalog))
    written = []
    async with Client(app) as client:
        for prefix, framework, code, start in FOCI:
            # The map's tools name standards only: the focus, and for a path its start.
            specimens = replace(
                PLACEHOLDERS,
                framework=framework,
                standard={"frameworkId": framework, "statementCode": code},
                earlier_standard={"frameworkId": framework, "statementCode": start},
            )
            for row in DRAWN:
                tool, request = row.name, row.example_request(specimens)
                if tool == "traverse_learning_progressions":  # both ways: what the focus builds on, and what on it
                    request = {**request, "direction": "both"}
                result = await client.call_tool_mcp(tool, {"request": request})
                answer = {
                    "tool": tool,
                    "request": request,
                    "isError": bool(result.is_error),
                    "structuredContent": scrubbed(result.structured_content),
                }
                if result.is_error:
                    answer["error"] = " ".join(getattr(block, "text", "") for block in result.content)
                path = FIXTURES / f"{prefix}-{tool}.json"
                path.write_text(json.dumps(answer, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
                written.append(path.name)
        for prefix, framework, code in SIBLINGS:
            written.append(await record_siblings(client, prefix, framework, code))
    return written


async def record_siblings(client: Client[Any], prefix: str, framework: str, code: str) -> str:
    """The follow-up the view makes for ``code``'s siblings: its first parent's context, children only."""
    context = await client.call_tool_mcp(
        "get_standard_context", {"request": {"frameworkId": framework, "statementCode": code}}
    )
    focus = context.structured_content
    package_id = focus["package"]["graphPackageId"]
    request = {
        "frameworkId": framework,
        "snapshotId": package_id[package_id.rindex("@") + 1 :],
        "nodeId": focus["parents"][0]["nodeId"],
        "ancestorDepth": 0,
        "childDepth": 1,
        "maxPaths": 1,
    }
    result = await client.call_tool_mcp("get_standard_context", {"request": request})
    answer = {
        "tool": "get_standard_context",
        "request": request,
        "focus": {"nodeId": focus["standard"]["nodeId"], "statementCode": code},
        "isError": bool(result.is_error),
        "structuredContent": scrubbed(result.structured_content),
    }
    path = FIXTURES / f"{prefix}-siblings-{code}.json"
    path.write_text(json.dumps(answer, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=Path("/tmp/kgfegmcp-map-fixtures/graph_packages"))
    args = parser.parse_args()
    if not args.catalog.is_dir():
        build_default_catalog_root(args.catalog)
    FIXTURES.mkdir(exist_ok=True)
    for name in asyncio.run(record(args.catalog)):
        print(name)


if __name__ == "__main__":
    main()
