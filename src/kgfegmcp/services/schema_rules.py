"""Publishing the rules a request must follow in its JSON Schema, written once beside each rule's check.

A rule on one field that pydantic's own constraints cannot state is a :class:`Published` marker on the
field (``uniqueItems``, ``pattern``); a rule across fields is a :class:`SchemaRule`, a sentence in the
fields' descriptions plus, where JSON Schema can say it simply, a schema the request object must also
satisfy. :func:`publish` is the request models' schema hook: it applies the rules and publishes
optional fields without ``null`` (a client leaves a field out to leave it unset), and no model docstring
(the tool's description says what the request is for; a model reads every published byte).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema


def _char_class(code_points: Iterable[int], negate: bool = False) -> str:
    """A regex character class of ``\\uXXXX`` ranges: the same set in ECMA-262, Python ``re`` and Rust."""
    points = sorted(set(code_points))
    ranges: list[tuple[int, int]] = []
    for point in points:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    body = "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    return f"[{'^' if negate else ''}{body}]"


#: What ``str.strip`` removes (``str.isspace``; every such code point is below U+3001).
SPACE_CODE_POINTS = frozenset(c for c in range(0x3001) if chr(c).isspace())
#: The controls workflow text may not hold: C0 other than tab, line feed and carriage return; DEL; C1.
WORKFLOW_CONTROL_CODE_POINTS = frozenset([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)])
#: Text with at least one character that is not whitespace (searched anywhere, as JSON Schema does).
NOT_BLANK_PATTERN = _char_class(SPACE_CODE_POINTS, negate=True)
#: Workflow text: no control characters and at least one character that is not whitespace. Written so
#: that no two parts can match the same character, so matching is linear.
WORKFLOW_TEXT_PATTERN = (
    f"^{_char_class(SPACE_CODE_POINTS - WORKFLOW_CONTROL_CODE_POINTS)}*"
    f"{_char_class(SPACE_CODE_POINTS | WORKFLOW_CONTROL_CODE_POINTS, negate=True)}"
    f"{_char_class(WORKFLOW_CONTROL_CODE_POINTS, negate=True)}*$"
)
_NOT_BLANK = re.compile(NOT_BLANK_PATTERN)


@dataclass(frozen=True, slots=True)
class Published:
    """A rule on one field that pydantic's own constraints cannot state, published as JSON Schema keywords.

    With ``check`` the rule is enforced here (``invalid_request``). Without it ``checked_by`` names the
    code that enforces it with its own error code, and the keywords tell clients about it.
    """

    keywords: tuple[tuple[str, object], ...]
    check: Callable[[Any], Any] | None = None
    checked_by: str | None = None

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        return schema if self.check is None else core_schema.no_info_after_validator_function(self.check, schema)

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema.update(self.keywords)
        return json_schema


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("values must be distinct")
    return values


def _not_blank(value: str) -> str:
    if _NOT_BLANK.search(value) is None:
        raise ValueError("must contain a character other than whitespace")
    return value


#: List items must differ (checked here).
DISTINCT = Published((("uniqueItems", True),), check=_distinct)
#: Text must hold a character other than whitespace (checked here).
NOT_BLANK = Published((("pattern", NOT_BLANK_PATTERN),), check=_not_blank)


def distinct_checked_by(checker: str) -> Published:
    """List items must differ; ``checker`` enforces it with its own error code."""
    return Published((("uniqueItems", True),), checked_by=checker)


@dataclass(frozen=True, slots=True)
class SchemaRule:
    """A rule across fields: a sentence in each named field's description and, where JSON Schema can
    state it simply, a schema the request object must also satisfy (``None``: described only).

    ``text`` is read by a model on every turn, so it is terse; ``refusal`` (default: ``text``) is the
    message of a request that breaks the rule, read once, so it names the fields in full.
    """

    fields: tuple[str, ...]
    text: str
    schema: Mapping[str, Any] | None = None
    refusal: str = ""

    @property
    def message(self) -> str:
        """What a request that breaks this rule is told."""
        return self.refusal or self.text


_NULL = {"type": "null"}


def _without_null(spec: dict[str, Any]) -> dict[str, Any]:
    """An optional field as published: its type without ``null`` (omit the field instead)."""
    options = spec.get("anyOf")
    if not isinstance(options, list) or _NULL not in options or spec.get("default") is not None:
        return spec
    kept = [option for option in options if option != _NULL]
    rest = {key: value for key, value in spec.items() if key not in ("anyOf", "default")}
    return {**kept[0], **rest} if len(kept) == 1 else {"anyOf": kept, **rest}


def publish(schema: dict[str, Any], model: type[Any]) -> None:
    """Model hook: optional fields without ``null``, no docstring, then every :class:`SchemaRule` of the model."""
    schema.pop("description", None)
    properties: dict[str, Any] = schema.get("properties", {})
    for name, spec in properties.items():
        properties[name] = _without_null(spec)
    rules = [rule for klass in reversed(model.__mro__) for rule in vars(klass).get("schema_rules", ())]
    constraints: list[dict[str, Any]] = []
    for rule in rules:
        for name in rule.fields:
            if name in properties:
                spec = properties[name]
                spec["description"] = f"{spec['description']} {rule.text}" if "description" in spec else rule.text
        if rule.schema is not None:
            constraints.append(copy.deepcopy(dict(rule.schema)))  # never share the rule's own dicts
    if len(constraints) == 1 and not set(constraints[0]) & set(schema):
        schema.update(constraints[0])
    elif constraints:
        schema["allOf"] = constraints
