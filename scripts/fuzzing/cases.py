"""One hostile request (a ``Case``) and the outcomes it allows, and what cases are made of: hostile text and
values, and requests, prompt arguments and resource addresses that are real on the default catalog."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from kgfegmcp.mcp.tools import TOOL_BY_NAME, Specimens

from .rpc import RAW
from .surface import Surface

MIB = 1024 * 1024


@dataclass
class Case:
    """One hostile request and what it may legitimately get back."""

    cls: str
    label: str
    body: bytes
    #: Outcomes a correct server may give; ``None`` allows any outcome but the forbidden ones.
    allowed: frozenset[str] | None = None


OK = frozenset({"ok"})
REFUSED = frozenset({"invalid_request"})
INVALID_CURSOR = frozenset({"invalid_cursor"})
OK_OR_INVALID_CURSOR = frozenset({"ok", "invalid_cursor"})
ALPHABET = "abcXYZ019_-./\\%~\"'` \t\n\r\x00\x1b\x7f\x85\u2028\u00e7\u00e3\u0661\U0001f600{}[]:,"


def hostile_text(rng: random.Random, length: int) -> str:
    """``length`` characters mixing letters, separators, quotes, controls and non-ASCII."""
    if length > 4096:  # long runs of one character, with a little variety at the ends
        return hostile_text(rng, 32) + rng.choice("kx\u00e7") * (length - 64) + hostile_text(rng, 32)
    return "".join(rng.choice(ALPHABET) for _ in range(length))


def huge_length(rng: random.Random) -> int:
    return rng.choice([65, 1000, 40_000, 100_000, MIB])


def specimens(surface: Surface) -> Specimens:
    """What the tools' example requests name, real on the default catalog (fallbacks elsewhere)."""
    standard = {"frameworkId": surface.framework_id, "nodeId": surface.node_id}
    return Specimens(
        framework=surface.framework_id,
        other_framework="brazil-bncc-ensino-medio",
        standard=standard,
        earlier_standard=standard,
        component=surface.component_id,
        progression=surface.relationship_id,
        query="de",
        uri="kgfegmcp://catalog",
    )


def base_request(surface: Surface, tool: str) -> dict[str, Any]:
    """A request each tool can accept on the default catalog (or refuse cleanly on another): its example."""
    row = TOOL_BY_NAME.get(tool)
    return row.example_request(specimens(surface)) if row else {}


def prompt_base(surface: Surface, prompt: str) -> dict[str, str]:
    """Arguments that render ``prompt`` on the default catalog (refused cleanly elsewhere)."""
    framework = surface.framework_id
    if prompt == "cross_framework_comparison":
        return {"framework_ids": json.dumps(sorted({framework, "brazil-bncc-computacao"})), "topic": "algoritmos"}
    base = {"framework_id": framework, "topic": "frações"}
    if prompt == "multigrade_lesson_plan":
        base["grade_levels"] = '["4º ano", "5º ano"]'
    if prompt == "learning_progression_curriculum_review":
        base = {"framework_id": framework, "standards": json.dumps([surface.statement_code])}
    if prompt == "administrator_alignment_review":
        base = {"framework_id": framework}
    return base


def fill(template: str, surface: Surface, hostile: str) -> str:
    """The template with one hostile parameter (the last) and real values for the others."""
    names = re.findall(r"\{([a-z_]+)\}", template)
    real = {
        "framework_id": surface.framework_id,
        "snapshot_id": surface.snapshot_id,
        "node_id": surface.node_id,
        "relationship_id": surface.relationship_id,
        "part": "00",
        "logical_name": "packageManifest",
    }
    uri = template
    for index, name in enumerate(names):
        uri = uri.replace("{" + name + "}", hostile if index == len(names) - 1 else real.get(name, "x"))
    return uri


def prompt_values(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("70,000 chars", "v" * 70_000),
        ("65,536 chars", "w" * 65_536),
        ("controls", "ok\x00\x07\x1b[31m\u2028x"),
        ("lone-surrogate escape in an array", '["\\ud800"]'),
        ("lone-surrogate escape pair", '["\\udfff\\ud800"]'),
        ("exponent", "1e999"),
        ("eleven digits", "99999999999"),
        ("negative", "-1"),
        ("arabic digit", "\u0663"),
        ("empty", ""),
        ("blank", " \t\n"),
        ("empty array", "[]"),
        ("duplicates", '["a", "a"]'),
        ("10,000 elements", json.dumps(["e"] * 10_000)),
        ("mixed element types", '["a", 1, null, {"x": []}]'),
        ("path traversal", "../../../etc/passwd"),
        ("percent-encoded", "%2e%2e%2f%00"),
        ("NaN", "[NaN]"),
        ("random", hostile_text(rng, rng.randrange(1, 600))),
    ]


def typed_values(rng: random.Random) -> list[tuple[str, Any, dict[str, str] | None]]:
    """Typed JSON values for a text field of get_workflow_instructions (label, value, raw splices)."""
    return [
        ("1 MiB", "q" * MIB, None),
        ("int", 5, None),
        ("huge int", RAW.format(0), {"0": "9" * 5000}),
        ("float", 1.5, None),
        ("list", ["a"] * 1000, None),
        ("object", {"a": "b"}, None),
        ("null", None, None),
        ("random", hostile_text(rng, 200), None),
    ]


def address_values(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("1 MiB segment", "s" * MIB),
        ("300 chars", "a" * 300),
        ("dot-dot", ".."),
        ("encoded dot-dot", "%2e%2e"),
        ("slash traversal", "a/../../etc"),
        ("absolute", "/etc/passwd"),
        ("controls", "a\x00b\n"),
        ("unicode", "fra\u00e7\u00e3o"),
        ("uppercase", "ABC"),
        ("dots inside", "a..b"),
        ("random", hostile_text(rng, 80)),
    ]
