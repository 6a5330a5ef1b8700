"""Strict parsing and validation of workflow arguments.

MCP prompt arguments arrive as strings: collections as JSON arrays inside the string (decoded
within size and nesting bounds) and integers as canonical decimal strings. Nothing is coerced: a
non-array, a non-string element, a duplicate, a value outside its bound or an unknown argument
name is rejected with ``invalid_request``; names are repeated only clipped, values never. The
``get_workflow_instructions`` tool receives typed JSON instead and goes through the same
:func:`validate_arguments`, so both paths accept exactly the same values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from kgfegmcp.core.bounded_json import ClientJsonError, bounded_json_loads
from kgfegmcp.core.errors import InvalidRequestError, echo, problem_list
from kgfegmcp.core.identifiers import identifier_problem, snapshot_problem
from kgfegmcp.prompts.workflows import ArgumentSpec, WorkflowSpec

ArgumentValue = str | int | tuple[str, ...]
ArgumentValues = dict[str, ArgumentValue]

#: No single raw prompt argument may be longer than this before it is even parsed.
MAX_RAW_ARGUMENT_CHARS = 65_536
#: A collection is a flat array of strings; nesting beyond this is refused before it is decoded.
MAX_LIST_ARGUMENT_DEPTH = 8
_INTEGER = re.compile(r"(0|[1-9][0-9]{0,8})", re.ASCII)
# C0 controls other than tab, line feed and carriage return; DEL and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_HINT = "Send the prompt's declared arguments only, within their documented bounds."


def _reject(problems: list[str]) -> InvalidRequestError:
    return InvalidRequestError(problem_list(problems) + ".", hint=_HINT)


def parse_prompt_arguments(spec: WorkflowSpec, raw: Mapping[str, object] | None) -> ArgumentValues:
    """Turn MCP prompt arguments (all strings) into typed values, then validate them."""
    problems: list[str] = []
    values: ArgumentValues = {}
    unparsed: set[str] = set()
    for name in sorted(raw or {}):
        value = (raw or {})[name]
        use = spec.argument(name)
        if use is None:
            problems.append(f"{echo(name)}: is not an argument of {spec.name}")
            continue
        unparsed.add(name)
        if not isinstance(value, str):
            problems.append(f"{name}: must be a string")
            continue
        if value == "" and not use.required:
            unparsed.discard(name)
            continue  # form-based clients send "" for a blank optional field: it means "not given"
        if len(value) > MAX_RAW_ARGUMENT_CHARS:
            problems.append(f"{name}: is longer than {MAX_RAW_ARGUMENT_CHARS} characters")
            continue
        parsed = _parse_string(use.spec, value, problems)
        if parsed is not None:
            values[name] = parsed
            unparsed.discard(name)
    result = _validate(spec, values, problems, skip=frozenset(unparsed))
    if problems:
        raise _reject(problems)
    return result


def _parse_string(spec: ArgumentSpec, value: str, problems: list[str]) -> ArgumentValue | None:
    if spec.kind == "integer":
        if _INTEGER.fullmatch(value) is None:
            problems.append(f'{spec.name}: must be a decimal integer string such as "{spec.default or spec.minimum}"')
            return None
        return int(value)
    if spec.is_list:
        try:
            decoded = bounded_json_loads(value, max_bytes=4 * MAX_RAW_ARGUMENT_CHARS, max_depth=MAX_LIST_ARGUMENT_DEPTH)
        except ClientJsonError as exc:
            problems.append(f"{spec.name}: must be a JSON array of strings (the text {exc})")
            return None
        if not isinstance(decoded, list):
            problems.append(f"{spec.name}: must be a JSON array of strings")
            return None
        if not all(isinstance(item, str) for item in decoded):
            problems.append(f"{spec.name}: every element must be a string")
            return None
        return tuple(decoded)
    return value


def validate_arguments(spec: WorkflowSpec, values: Mapping[str, ArgumentValue]) -> ArgumentValues:
    """Check names, required arguments, bounds and uniqueness; return values in declaration order.

    Defaults are filled in for integer arguments, so the rendered instructions always state them.
    """
    problems: list[str] = []
    result = _validate(spec, values, problems, skip=frozenset())
    if problems:
        raise _reject(problems)
    return result


def _validate(
    spec: WorkflowSpec, values: Mapping[str, ArgumentValue], problems: list[str], skip: frozenset[str]
) -> ArgumentValues:
    """Append every problem to ``problems``; ``skip`` names arguments already reported as malformed."""
    for name in sorted(values):
        if spec.argument(name) is None:
            problems.append(f"{echo(name)}: is not an argument of {spec.name}")
    result: ArgumentValues = {}
    for use in spec.arguments:
        arg = use.spec
        value = values.get(arg.name)
        if value is None:
            if use.required and arg.name not in skip:
                problems.append(f"{arg.name}: is required")
            elif arg.default is not None:
                result[arg.name] = arg.default
            continue
        checked = _check(arg, value, problems)
        if checked is not None:
            result[arg.name] = checked
    for group in spec.at_least_one:
        if not any(values.get(name) is not None or name in skip for name in group):
            problems.append(f"{' or '.join(group)}: give at least one")
    return result


#: How an id argument is checked, by its kind.
_ID_PROBLEM: dict[str, Callable[[object, str], str | None]] = {
    "identifier": identifier_problem,
    "identifier_list": identifier_problem,
    "snapshot": snapshot_problem,
    "snapshot_list": snapshot_problem,
}


def _check(arg: ArgumentSpec, value: ArgumentValue, problems: list[str]) -> ArgumentValue | None:
    if arg.kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int) or not arg.minimum <= value <= arg.maximum:
            problems.append(f"{arg.name}: must be an integer from {arg.minimum} to {arg.maximum}")
            return None
        return value
    if arg.kind in ("identifier", "snapshot"):
        problem = _ID_PROBLEM[arg.kind](value, arg.name)
        if problem is not None:
            problems.append(problem)
            return None
        return value
    if arg.kind == "text":
        if not isinstance(value, str):
            problems.append(f"{arg.name}: must be a string")
            return None
        return _check_text(arg.name, value, arg.maximum, problems)
    if not isinstance(value, tuple | list) or not all(isinstance(item, str) for item in value):
        problems.append(f"{arg.name}: must be an array of strings")
        return None
    items = tuple(value)
    if not arg.minimum <= len(items) <= arg.maximum:
        problems.append(f"{arg.name}: must hold {arg.minimum} to {arg.maximum} values (got {len(items)})")
        return None
    if len(set(items)) != len(items):
        problems.append(f"{arg.name}: values must be unique")
        return None
    checked: list[str] = []
    for index, item in enumerate(items):
        label = f"{arg.name}[{index}]"
        if arg.kind in ("identifier_list", "snapshot_list"):
            problem = _ID_PROBLEM[arg.kind](item, label)
            if problem is not None:
                problems.append(problem)
                return None
            checked.append(item)
            continue
        text = _check_text(label, item, arg.item_max_chars, problems)
        if text is None:
            return None
        checked.append(text)
    return tuple(checked)


def _check_text(label: str, value: str, maximum: int, problems: list[str]) -> str | None:
    if not 1 <= len(value) <= maximum:
        problems.append(f"{label}: must be 1 to {maximum} characters (got {len(value)})")
        return None
    if not value.strip():
        problems.append(f"{label}: must contain non-space characters")
        return None
    if _CONTROL.search(value):
        problems.append(f"{label}: must not contain control characters")
        return None
    return value.replace("\r\n", "\n").replace("\r", "\n")
