"""Argument sets for the prompt tests: minimal, every bound at its lower edge, every bound at its upper edge.

Values come from the served packages themselves (real statement codes and grade labels), so the
rendered instructions are the ones a host would receive for that framework.
"""

from __future__ import annotations

import json
import re
from typing import Any

from default_catalog_ids import DEFAULT_FRAMEWORKS
from kgfegmcp.bootstrap import AppState
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.prompts.workflows import WORKFLOWS, ArgumentSpec

PROMPTS: tuple[str, ...] = tuple(WORKFLOWS)
TOOL_WORKFLOWS: tuple[str, ...] = tuple(name for name, spec in WORKFLOWS.items() if spec.served_as_tool)
MAX_RENDERED_BYTES = 64 * 1024
#: Default-catalog frameworks the upper-edge argument sets select.
MAX_REAL = 5

#: One tool call shape per line in the rendered text: four spaces, then {"request": …}.
SHAPE_LINE = re.compile(r'^    (\{"request": .*\})$', re.MULTILINE)
TOOL_LINE = re.compile(r"^- Call `([a-z_]+)`", re.MULTILINE)


def runtime(state: AppState, framework_id: str) -> PackageRuntime:
    return state.catalog.resolve(framework_id)


def codes(state: AppState, framework_id: str, count: int) -> list[str]:
    """The first ``count`` distinct statement codes of a package, in file order."""
    seen: list[str] = []
    for item in runtime(state, framework_id).items:
        if item.statement_code and item.statement_code not in seen:
            seen.append(item.statement_code)
        if len(seen) == count:
            break
    return seen


def grade_labels(state: AppState, framework_id: str, count: int) -> list[str]:
    """``count`` distinct grade labels used by the package, padded with labels it does not use."""
    labels: list[str] = []
    for item in runtime(state, framework_id).items:
        for label in item.grade_level:
            if label not in labels:
                labels.append(label)
    labels = labels[:count]
    index = 0
    while len(labels) < count:
        index += 1
        labels.append(f"extra grade {index}")
    return labels


def other_framework(framework_id: str) -> str:
    return next(f for f in DEFAULT_FRAMEWORKS if f != framework_id)


def minimal_arguments(state: AppState, workflow: str, framework_id: str) -> dict[str, str]:
    """Only the required arguments (and one of an at-least-one group); everything else defaults."""
    spec = WORKFLOWS[workflow]
    args: dict[str, str] = {}
    for use in spec.arguments:
        if use.required:
            args[use.spec.name] = _realistic(state, use.spec, framework_id)
    for group in spec.at_least_one:
        if not any(name in args for name in group):
            args[group[0]] = _realistic(state, WORKFLOWS[workflow].argument(group[0]).spec, framework_id)  # type: ignore[union-attr]
    return args


def _realistic(state: AppState, spec: ArgumentSpec, framework_id: str) -> str:
    name = spec.name
    if name == "framework_id":
        return framework_id
    if name == "framework_ids":
        return json.dumps([framework_id, other_framework(framework_id)])
    if name in ("standard", "target_standard"):
        return codes(state, framework_id, 1)[0]
    if name == "standards":
        return json.dumps(codes(state, framework_id, 2), ensure_ascii=False)
    if name == "grade_levels":
        return json.dumps(grade_labels(state, framework_id, max(spec.minimum, 1)), ensure_ascii=False)
    if name == "topic":
        return "frações" if framework_id.startswith("brazil") else "main idea of a text"
    raise AssertionError(f"no realistic value for required {name}")


def _text(length: int, seed: str) -> str:
    """Text of exactly ``length`` characters with at most 16 words (so search shapes stay valid)."""
    words = max(1, min(16, length // 8))
    base = (seed * ((length // max(1, len(seed))) + 2)).replace(" ", "")
    chunk = max(1, (length - (words - 1)) // words)
    parts = [base[i * chunk : (i + 1) * chunk] for i in range(words)]
    text = " ".join(parts)
    return (text + base)[:length] if len(text) < length else text[:length]


def edge_arguments(state: AppState, workflow: str, framework_id: str, edge: str) -> dict[str, str]:
    """Every argument of the workflow given, each at its lower (``min``) or upper (``max``) bound."""
    assert edge in ("min", "max")
    spec = WORKFLOWS[workflow]
    args: dict[str, str] = {}
    for use in spec.arguments:
        arg = use.spec
        name = arg.name
        if name == "framework_id":
            args[name] = framework_id
        elif name == "snapshot_id":
            args[name] = runtime(state, framework_id).snapshot_id
        elif name == "framework_ids":
            # Five real frameworks with every text argument at its maximum stay under the rendering cap; the
            # upper edge of 8 is exercised with fixture packages (test_prompt_fixture_catalog.py), and 8 real
            # ones with short arguments by test_prompt_rendering.py.
            others = [f for f in DEFAULT_FRAMEWORKS if f != framework_id]
            chosen = (
                [framework_id, other_framework(framework_id)] if edge == "min" else [framework_id, *others][:MAX_REAL]
            )
            args[name] = json.dumps(chosen)
        elif name == "snapshot_ids":
            args[name] = json.dumps([runtime(state, framework_id).snapshot_id])
        elif arg.kind == "integer":
            args[name] = str(arg.minimum if edge == "min" else arg.maximum)
        elif arg.kind == "text":
            args[name] = "x" if edge == "min" else _text(arg.maximum, f"{name}ção ")
        elif arg.kind == "text_list":
            if edge == "min":
                items = [chr(ord("a") + i) for i in range(arg.minimum)]
            else:
                items = [f"{i:02d}" + _text(arg.item_max_chars - 2, f"{name} valor ") for i in range(arg.maximum)]
            args[name] = json.dumps(items, ensure_ascii=False)
        else:
            raise AssertionError(f"unhandled argument {name}")
    return args


def shapes(text: str) -> list[dict[str, Any]]:
    """Every tool-call argument shape in rendered instructions, parsed."""
    return [json.loads(match) for match in SHAPE_LINE.findall(text)]


def tools_called(text: str) -> list[str]:
    """Tool names of every call, in order."""
    return TOOL_LINE.findall(text)
