"""What a run sends: the sweep (every class against every tool, template and prompt), seeded random cases,
and the two ways a run is bounded (a clock budget, or a count of each class)."""

from __future__ import annotations

import collections
import itertools
import random
import time
from collections.abc import Iterator
from typing import Any

from kgfegmcp.prompts.workflows import WORKFLOWS

from .cases import (
    MIB,
    REFUSED,
    Case,
    address_values,
    base_request,
    fill,
    hostile_text,
    huge_length,
    prompt_base,
    prompt_values,
    typed_values,
)
from .classes import REQUEST_CLASSES
from .cursors import cursor_sweep, random_cursor
from .rpc import RAW, nested, prompt_get, resource_read, tool_call
from .surface import Surface


def sweep(surface: Surface, rng: random.Random) -> Iterator[Case]:
    """Every class against every tool, template and prompt, always in this order (``rng`` picks hostile values)."""
    tools = sorted(surface.tools)
    for tool in tools:
        name = "k" * MIB
        yield Case("huge-names", f"{tool}: 1 MiB field name", tool_call(tool, {"request": {name: 1}}), REFUSED)
        yield Case(
            "huge-names",
            f"{tool}: 1 MiB argument name",
            tool_call(tool, {"request": base_request(surface, tool), name: 1}),
            REFUSED,
        )
        many = {f"{i:04d}{hostile_text(rng, 40)}{'n' * 1000}": i for i in range(500)}
        yield Case("huge-names", f"{tool}: 500 long field names", tool_call(tool, {"request": many}), REFUSED)
    for name in ("no_such_tool", "t" * MIB, "list_frameworks\n", hostile_text(rng, 300), f"{tools[0]}{'x' * 5000}"):
        yield Case("unknown-names", f"tool name of {len(name)} chars", tool_call(name, {}), REFUSED)
    for name in ("no_such_prompt", "p" * MIB, "teacher_guide_draft\x00", hostile_text(rng, 300)):
        yield Case("unknown-names", f"prompt name of {len(name)} chars", prompt_get(name, {}), REFUSED)
    for bad in (12, None, ["x" * 1000], {"a": "b" * 1000}):
        yield Case("unknown-names", f"tool name {type(bad).__name__}", tool_call(bad, {}))
        yield Case("unknown-names", f"prompt name {type(bad).__name__}", prompt_get(bad, {}))
        yield Case("unknown-names", f"resource uri {type(bad).__name__}", resource_read(bad))
    for uri in ("kgfegmcp://" + "u" * MIB, "x" * MIB, "kgfegmcp://nothing", "file:///etc/passwd", "kgfegmcp:///tmp"):
        yield Case(
            "unknown-names", f"resource uri of {len(uri)} chars", resource_read(uri), frozenset({"resource_not_found"})
        )
    for prompt, arguments in sorted(surface.prompts.items()):
        for length in (40_000, MIB):
            yield Case(
                "argument-names",
                f"{prompt}: argument name of {length} chars",
                prompt_get(prompt, {"x" * length: "v"}),
                REFUSED,
            )
        many = {f"{i:04d}{'y' * 2000}{hostile_text(rng, 20)}": "v" for i in range(400)}
        yield Case("argument-names", f"{prompt}: 400 unknown names", prompt_get(prompt, many), REFUSED)
        camel = {"".join(w.capitalize() if i else w for i, w in enumerate(n.split("_"))): "x" for n, _ in arguments}
        yield Case("argument-names", f"{prompt}: camelCase names", prompt_get(prompt, camel), REFUSED)
    for tool in tools:
        request = base_request(surface, tool)
        first = next(iter(surface.tools[tool].get("properties", {}).get("request", {}).get("properties", {})), "x")
        # Up to ~200 levels the transport parses the body and validation sees it; beyond, the transport refuses.
        for depth, kind, where in ((150, "array", first), (150, "object", "zz"), (100_000, "array", first)):
            raw = {"0": nested(depth, kind)}
            yield Case(
                "deep-nesting",
                f"{tool}: {where} nested {depth} ({kind})",
                tool_call(tool, {"request": {**request, where: RAW.format(0)}}, raw),
            )
        yield Case(
            "deep-nesting",
            f"{tool}: request nested 190",
            tool_call(tool, {"request": RAW.format(0)}, {"0": nested(190, "object")}),
        )
    for prompt in sorted(surface.prompts):
        spec = WORKFLOWS.get(prompt)
        lists = [use.spec.name for use in spec.arguments if use.spec.is_list] if spec else []
        for name in lists:
            for depth in (2, 9, 100, 1000, 30_000):
                yield Case(
                    "deep-nesting",
                    f"{prompt}: {name} nested {depth}",
                    prompt_get(prompt, {**prompt_base(surface, prompt), name: nested(depth, leaf='"a"')}),
                    REFUSED,
                )
            yield Case(
                "deep-nesting",
                f"{prompt}: {name} nested objects",
                prompt_get(prompt, {**prompt_base(surface, prompt), name: nested(20_000, "object")}),
                REFUSED,
            )
    yield from cursor_sweep(surface)
    values = prompt_values(rng)
    for prompt, arguments in sorted(surface.prompts.items()):
        base = prompt_base(surface, prompt)
        for index, (name, _required) in enumerate(arguments):
            for step in range(4):  # four values per argument, rotating, so every prompt meets every value
                label, value = values[(4 * index + step) % len(values)]
                yield Case("prompt-arguments", f"{prompt}: {name} {label}", prompt_get(prompt, {**base, name: value}))
        yield Case("prompt-arguments", f"{prompt}: no arguments", prompt_get(prompt, {}), REFUSED)
        yield Case("prompt-arguments", f"{prompt}: arguments null", prompt_get(prompt, None))
        yield Case("prompt-arguments", f"{prompt}: non-string value", prompt_get(prompt, {**base, "topic": 5}))
        yield Case("prompt-arguments", f"{prompt}: valid", prompt_get(prompt, base), frozenset({"ok"}))
    for workflow in sorted(w for w, spec in WORKFLOWS.items() if spec.served_as_tool):
        for label, value, raw in typed_values(rng):
            request = {"workflow": workflow, "frameworkId": surface.framework_id, "topic": value}
            yield Case(
                "prompt-arguments",
                f"get_workflow_instructions {workflow}: topic {label}",
                tool_call("get_workflow_instructions", {"request": request}, raw),
            )
    addresses = address_values(rng)
    for index, template in enumerate(surface.templates):
        for step in range(4):
            label, value = addresses[(4 * index + step) % len(addresses)]
            uri = fill(template, surface, value)
            yield Case("resource-addresses", f"{template}: {label}", resource_read(uri))
            yield Case(
                "resource-addresses",
                f"read_evidence {template}: {label}",
                tool_call("read_evidence", {"request": {"uri": uri}}),
            )
    for tool in tools:
        for _ in range(4):
            yield value_abuse(surface, rng, tool)


def value_abuse(surface: Surface, rng: random.Random, tool: str) -> Case:
    """The tool's base request with one field set to a hostile JSON value."""
    request = base_request(surface, tool)
    schema = surface.tools[tool].get("properties", {}).get("request", {}).get("properties", {})
    fields = sorted(schema) or ["query"]
    target = rng.choice(fields)
    choices: list[tuple[str, Any, dict[str, str] | None]] = [
        ("1 MiB string", hostile_text(rng, MIB), None),
        ("long random string", hostile_text(rng, rng.randrange(200, 5000)), None),
        ("huge integer", RAW.format(0), {"0": "9" * rng.choice([20, 400, 5000])}),
        ("negative", -rng.randrange(1, 10**12), None),
        ("float", rng.random() * 1e308, None),
        ("bool", True, None),
        ("null", None, None),
        ("100,000 items", ["x"] * 100_000, None),
        ("object", {"a": [1, {"b": None}]}, None),
        ("control string", "\x00\x01\u2028", None),
    ]
    label, value, raw = rng.choice(choices)
    return Case(
        "value-abuse", f"{tool}: {target} {label}", tool_call(tool, {"request": {**request, target: value}}, raw)
    )


def random_case(surface: Surface, rng: random.Random, cls: str | None = None) -> Case:
    """One seeded random case of ``cls``, or of any class."""
    cls = cls or rng.choice(REQUEST_CLASSES)
    tool = rng.choice(sorted(surface.tools))
    prompt = rng.choice(sorted(surface.prompts))
    if cls == "huge-names":
        name = hostile_text(rng, huge_length(rng))
        return Case(cls, f"{tool}: random field name", tool_call(tool, {"request": {name: 1}}), REFUSED)
    if cls == "unknown-names":
        name = hostile_text(rng, huge_length(rng))
        kind = rng.choice(["tool", "prompt", "resource"])
        if kind == "tool":
            return Case(cls, "random tool name", tool_call(name, {}), REFUSED)
        if kind == "prompt":
            return Case(cls, "random prompt name", prompt_get(name, {}), REFUSED)
        return Case(cls, "random resource uri", resource_read("kgfegmcp://" + name), frozenset({"resource_not_found"}))
    if cls == "argument-names":
        names = {hostile_text(rng, huge_length(rng) // 10 + 1): "v" for _ in range(rng.randrange(1, 20))}
        return Case(
            cls, f"{prompt}: random argument names", prompt_get(prompt, {**prompt_base(surface, prompt), **names})
        )
    if cls == "deep-nesting":
        depth = rng.choice([10, 100, 190, 300, 3000, 200_000])
        raw = {"0": nested(depth, rng.choice(["array", "object"]))}
        return Case(cls, f"{tool}: random nesting {depth}", tool_call(tool, {"request": RAW.format(0)}, raw))
    if cls == "forged-cursors" and surface.cursor_targets:
        return random_cursor(surface, rng)
    if cls == "prompt-arguments":
        spec = rng.choice(sorted(surface.prompts[prompt]))[0]
        label, value = rng.choice(prompt_values(rng))
        return Case(cls, f"{prompt}: {spec} {label}", prompt_get(prompt, {**prompt_base(surface, prompt), spec: value}))
    if cls == "resource-addresses":
        template = rng.choice(surface.templates)
        label, value = rng.choice(address_values(rng))
        return Case(cls, f"{template}: {label}", resource_read(fill(template, surface, value)))
    return value_abuse(surface, rng, tool)


def budgeted(surface: Surface, rng: random.Random, budget_seconds: float, started: float) -> Iterator[Case]:
    """The whole sweep, then seeded random cases of any class until ``budget_seconds`` have passed."""
    yield from sweep(surface, rng)
    while time.monotonic() - started <= budget_seconds:
        yield random_case(surface, rng)


def counted(surface: Surface, rng: random.Random, classes: set[str], per_class: int, seed: int) -> list[Case]:
    """Exactly ``per_class`` cases of each class in ``classes``, whatever the time they take.

    The sweep is built in full, so each case kept is byte for byte the one a full run sends; a seeded
    reservoir keeps ``per_class`` of each class's cases (spread over its tools, templates and prompts),
    in sweep order. A class whose sweep is shorter is topped up with seeded random cases of that class.
    """
    picker = random.Random(f"sample-{seed}")
    kept: dict[str, list[tuple[int, Case]]] = {cls: [] for cls in REQUEST_CLASSES if cls in classes}
    seen: collections.Counter[str] = collections.Counter()
    for index, case in enumerate(sweep(surface, rng)):
        if case.cls not in kept:
            continue
        seen[case.cls] += 1
        reservoir = kept[case.cls]
        if len(reservoir) < per_class:
            reservoir.append((index, case))
        elif (slot := picker.randrange(seen[case.cls])) < per_class:
            reservoir[slot] = (index, case)
    cases = [case for _, case in sorted((pair for pair in itertools.chain(*kept.values())), key=lambda p: p[0])]
    for cls, reservoir in kept.items():
        for _ in range(per_class - len(reservoir)):
            case = random_case(surface, rng, cls)
            if case.cls != cls:  # no random case of this class on this catalog (no cursor to forge)
                break
            cases.append(case)
    return cases
