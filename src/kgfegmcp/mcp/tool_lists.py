"""The tool lists programs outside the server read, written from the tool rows: the MCPB manifest's ``tools``
(what a desktop host shows of the bundle before starting it) and the tools the curriculum map draws (which its
build reads, so the view knows them before any answer arrives).

``scripts/generate_tool_lists.py`` writes both into the checkout, and checks them for a test;
``scripts/build_bundle.py`` writes the manifest's into the bundle it builds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from kgfegmcp.mcp.tools import TOOLS, Tool

#: The manifest's top-level ``tools`` list as the repository writes it: one tool a line.
_MANIFEST_TOOLS = re.compile(r'^  "tools": \[\n.*?^  \](,?)\n', re.MULTILINE | re.DOTALL)


def first_sentence(description: str) -> str:
    """A description's first sentence: what the manifest says of a tool (a host shows it as one line)."""
    return re.split(r"(?<=[.!?])\s+", description.strip(), maxsplit=1)[0]


def manifest_tools(tools: Sequence[Tool[Any, Any]] = TOOLS) -> list[dict[str, str]]:
    """The manifest's ``tools``: each tool's name and the first sentence of its description, in listed order."""
    return [{"name": tool.name, "description": first_sentence(tool.description)} for tool in tools]


def manifest_with_tools(manifest: str, tools: Sequence[Tool[Any, Any]] = TOOLS) -> str:
    """``manifest`` (the text of a manifest.json) with its ``tools`` written from the rows, everything else as it
    is written; refuses a manifest without a top-level ``tools`` list laid out one tool a line."""
    listed = manifest_tools(tools)
    lines = ",\n".join(f"    {json.dumps(entry, ensure_ascii=False)}" for entry in listed)
    written, found = _MANIFEST_TOOLS.subn(lambda match: f'  "tools": [\n{lines}\n  ]{match.group(1)}\n', manifest)
    if found != 1 or json.loads(written)["tools"] != listed:
        raise ValueError('the manifest has no top-level "tools" list laid out one tool a line')
    return written


def drawn_tools(tools: Sequence[Tool[Any, Any]] = TOOLS) -> str:
    """The names of the tools the curriculum map draws, in listed order, as the JSON its build reads."""
    return json.dumps([tool.name for tool in tools if tool.draws_map], indent=2) + "\n"
