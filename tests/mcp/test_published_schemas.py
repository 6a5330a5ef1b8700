"""Published schemas say what the server enforces.

Each tool has a full schema (every bound and rule; docs/tools.md shows it) and lists a compact one in
tools/list (kgfegmcp.mcp.listing: no string bounds, array sizes or JSON Schema forms of cross-field rules,
each of those rules stated in a description instead). A request drawn from the full schema is valid for the
listed one too, and is accepted, or refused only for
what no schema can know: an id, code or address not in this catalog, a made-up cursor, what a selected
package can do, or a rule JSON Schema cannot state and the field's description does. Requests are
generated from the schema exactly as a client sees it, with real catalog values mixed in so that the
checks behind the lookups are reached too, and each is confirmed valid against the published schema
(ECMA-262 ``pattern`` semantics) before it is sent.

The second test inventories every place that refuses a request field (model validators, service
checks, workflow argument rules) and requires each to be published: a new rule without a schema
keyword or a description fails here.
"""

from __future__ import annotations

import ast
import copy
import functools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from fastmcp import Client
from fastmcp.client.client import CallToolResult
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import TextContent

import kgfegmcp
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.limits import MAX_QUERY_TOKENS
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.mcp.listing import listed_input_schema
from kgfegmcp.mcp.register import full_input_schema
from kgfegmcp.search.normalize import query_tokens
from served_apps import SERVED

#: Every tool's name, in the order clients list them.
TOOLS = tuple(str(name) for name in ToolName)

#: Refusals a schema can never rule out, whatever the message. Each needs knowledge of the catalog.
TOLERATED_CODES: dict[str, str] = {
    # An id the pattern allows but no accepted package, standard, component or link has.
    "framework_not_found": "framework or snapshot id not in this catalog",
    "standard_not_found": "nodeId / caseIdentifierUUID / statementCode not in the package",
    "graph_node_not_found": "learning-component nodeId not in the package",
    "learning_progression_not_found": "progressionId not a stored link of the package",
    # A catalog where one id names several things: the data decides, not the request's shape.
    "ambiguous_framework": "several current snapshots of one framework",
    "ambiguous_graph_node": "a statement code several items share",
    # A cursor is opaque and sealed by the server; a made-up one is refused by design.
    "invalid_cursor": "made-up or replayed-with-changes cursor",
    # What a selected package supports (get_capabilities) is catalog data.
    "capability_unavailable": "selected package lacks the capability (code lookup, text search, components)",
    "unsupported_search_mode": "no selected package supports the searchMode / codeMatch",
    # A made-up kgfegmcp:// address, or one the rights policy or encoding rules out.
    "invalid_evidence_uri": "text that is not one exact resource address (parsed, not pattern-matched)",
    "resource_not_found": "an address that resolves to nothing in this catalog",
    "resource_access_denied": "the package's rights block that resource",
    "unsupported_evidence_format": "resource bytes that are not UTF-8 text",
    # Result ceilings depend on the size of the stored evidence, not on the request's shape.
    "progression_result_too_large": "one stored link or path larger than the result ceiling",
    "evidence_result_too_large": "resource metadata leaves no room for content",
    "workflow_instructions_too_large": "rendered instructions above 64 KiB for this package",
    # The package's rights deny generated-derivative workflows.
    "prompt_access_denied": "package rights deny workflows",
}


@dataclass(frozen=True)
class DescribedRule:
    """A refusal JSON Schema cannot state; the request's description states it instead."""

    code: str
    message: str
    why: str
    applies: Callable[[dict[str, Any]], bool] = lambda request: True


def _too_many_tokens(request: dict[str, Any]) -> bool:
    return len(query_tokens(str(request.get("query", "")))) > MAX_QUERY_TOKENS


def _ends_in_two_packages(request: dict[str, Any]) -> bool:
    ends = [(end["frameworkId"], end.get("snapshotId")) for end in (request["from"], request["to"])]
    return ends[0] != ends[1]


#: The per-framework filters of compare_framework_evidence.
PER_FRAMEWORK_FILTERS = ("frameworkGradeLevels", "frameworkAcademicSubjects")


def _per_framework_filter_outside_selection(request: dict[str, Any]) -> bool:
    return any(
        entry["frameworkId"] not in request["frameworkIds"]
        for field in PER_FRAMEWORK_FILTERS
        for entry in request.get(field) or []
    )


def _per_framework_filter_repeated(request: dict[str, Any]) -> bool:
    for field in PER_FRAMEWORK_FILTERS:
        named = [entry["frameworkId"] for entry in request.get(field) or []]
        if len(set(named)) < len(named):
            return True
    return False


#: Refusals tolerated only with these messages: each is in the published description, and no JSON
#: Schema keyword can express it.
DESCRIBED_RULES = (
    DescribedRule(
        "invalid_request",
        "normalised tokens",
        "counting distinct accent- and case-folded word tokens is beyond JSON Schema",
        _too_many_tokens,
    ),
    DescribedRule(
        "invalid_progression_request",
        "not a grade label or facet of this package",
        "a package's own grade vocabulary is catalog data",
    ),
    DescribedRule(
        "invalid_progression_request",
        "not a academic subject of this package",
        "a package's own subject vocabulary is catalog data",
    ),
    DescribedRule(
        "invalid_progression_request",
        "never cross packages",
        "from and to in one package: JSON Schema cannot compare values across fields",
        _ends_in_two_packages,
    ),
    DescribedRule(
        "invalid_progression_request",
        "select the same standard",
        "from and to differ: JSON Schema cannot compare values across fields (and two selectors may name one item)",
    ),
    DescribedRule(
        "invalid_comparison_selection",
        "is not an accepted snapshot of any selected framework",
        "which snapshots a framework has is catalog data",
    ),
    DescribedRule(
        "invalid_comparison_selection",
        "twice; compare one snapshot per framework",
        "which framework a snapshot id pins is catalog data",
    ),
    DescribedRule(
        "invalid_comparison_selection",
        "which is not in frameworkIds",
        "membership of one field's value in another field is beyond JSON Schema",
        _per_framework_filter_outside_selection,
    ),
    DescribedRule(
        "invalid_request",
        "Filters take each package's own values",
        "the grade labels, statement types and subjects a package uses are catalog data",
    ),
    DescribedRule(
        "invalid_request",
        "of no accepted package",
        "the jurisdictions, subjects and languages of the accepted packages are catalog data",
    ),
    DescribedRule(
        "invalid_request",
        "queries names a framework that is not in frameworkIds",
        "membership of one field's keys in another field is beyond JSON Schema",
        lambda request: any(key not in request["frameworkIds"] for key in request["queries"]),
    ),
    DescribedRule(
        "invalid_request",
        "Give query, or an entry in queries for every framework",
        "which frameworks queries covers compares keys with another field, beyond JSON Schema",
        lambda request: "query" not in request,
    ),
    DescribedRule(
        "invalid_request",
        "query is unused when queries names every framework",
        "which frameworks queries covers compares keys with another field, beyond JSON Schema",
        lambda request: "query" in request and "queries" in request,
    ),
    DescribedRule(
        "invalid_comparison_selection",
        "' twice.",
        "one entry per framework is uniqueness by a key, beyond uniqueItems",
        _per_framework_filter_repeated,
    ),
)


def tolerated(code: str, message: str, request: dict[str, Any]) -> bool:
    """Whether a refusal is one no published schema could have prevented."""
    if code in TOLERATED_CODES:
        return True
    return any(r.code == code and r.message in message and r.applies(request) for r in DESCRIBED_RULES)


# -- JSON Schema as the published text means it ---------------------------------------------------


def python_pattern(pattern: str) -> str:
    """An ECMA-262 ``pattern`` for Python ``re``: a final ``$`` is the end of input, never before a newline."""
    assert "$" not in pattern[:-1].replace("\\$", ""), f"translate this pattern first: {pattern}"
    return pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "string") and re.search(python_pattern(pattern), instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


#: Draft 2020-12 (the dialect MCP and pydantic use) with ECMA-262 ``pattern`` semantics.
PublishedValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma_pattern})


# -- generating requests from a schema ------------------------------------------------------------
# hypothesis-jsonschema 0.23.1, the latest release, drives private Hypothesis internals that Hypothesis
# 6.170 no longer has (``many.more``), so this is a small generator for the subset the published
# schemas use. It proposes candidates; the published schema (PublishedValidator) decides which are valid.


#: A generation-only keyword: real catalog values a field may take (three times as often as drawn ones).
CATALOG_VALUES = "x-catalogValues"


def schema_strategy(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values for one schema of the published subset (``const``, ``enum``, ``anyOf`` and six types)."""
    if CATALOG_VALUES in schema:
        rest = {key: value for key, value in schema.items() if key != CATALOG_VALUES}
        real = st.sampled_from(schema[CATALOG_VALUES])
        return st.sampled_from([real, real, real, schema_strategy(rest)]).flatmap(lambda values: values)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        rest = {key: value for key, value in schema.items() if key != "anyOf"}
        return st.one_of([schema_strategy({**rest, **option}) for option in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "object":
        return object_strategy(schema)
    if kind == "array":
        return st.lists(
            schema_strategy(schema.get("items", {})),
            min_size=schema.get("minItems", 0),
            max_size=schema.get("maxItems"),
            unique=bool(schema.get("uniqueItems")),
        )
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    assert kind == "string", f"extend the generator for {schema}"
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    if "pattern" not in schema:
        return st.text(min_size=low, max_size=high)
    return st.from_regex(python_pattern(schema["pattern"])).filter(lambda s: low <= len(s) <= (high or len(s)))


_LOWER = ("minimum", "minLength", "minItems")
_UPPER = ("maximum", "maxLength", "maxItems")


def _narrowed(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with the keywords of ``extra`` (a oneOf branch's view of the same property) applied."""
    if "anyOf" in base and extra:
        return {**base, "anyOf": [_narrowed(option, extra) for option in base["anyOf"]]}
    out = dict(base)
    for key, value in extra.items():
        if key in _LOWER and key in out:
            out[key] = max(out[key], value)
        elif key in _UPPER and key in out:
            out[key] = min(out[key], value)
        elif key == "items" and isinstance(out.get(key), dict):
            out[key] = _narrowed(out[key], value)
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class ObjectShape:
    """One way to fill an object: fields that must be there, and a strategy per field that may be."""

    required: frozenset[str]
    fields: tuple[tuple[str, st.SearchStrategy[Any]], ...]


def object_strategy(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects: required fields and a random choice of the others, one shape per ``oneOf`` branch."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    shapes = []
    for chosen, branch in enumerate(schema.get("oneOf", [{}])):
        needed = required | set(branch.get("required", []))
        allowed = set(properties)
        if branch.get("additionalProperties") is False:
            allowed &= set(branch.get("properties", {}))
        else:
            others = schema.get("oneOf", [])
            allowed -= {key for i, other in enumerate(others) if i != chosen for key in other.get("required", [])}
            allowed |= needed
        extras = branch.get("properties", {})
        fields = tuple(
            (name, schema_strategy(_narrowed(spec, extras.get(name, {}))))
            for name, spec in properties.items()
            if name in allowed
        )
        shapes.append(ObjectShape(frozenset(needed), fields))
    return _objects(st.sampled_from(shapes))


@st.composite
def _objects(draw: st.DrawFn, shapes: st.SearchStrategy[ObjectShape]) -> dict[str, Any]:
    shape = draw(shapes)
    return {name: draw(values) for name, values in shape.fields if name in shape.required or draw(st.booleans())}


def with_catalog_values(schema: Any, samples: dict[str, list[Any]]) -> Any:
    """``schema`` where a field the catalog can fill may also take real values (those valid for it)."""
    if isinstance(schema, list):
        return [with_catalog_values(item, samples) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: with_catalog_values(value, samples) for key, value in schema.items() if key != "properties"}
    if "properties" in schema:
        out["properties"] = {}
        for name, spec in schema["properties"].items():
            spec = with_catalog_values(spec, samples)
            values = samples.get(name, [])
            if spec.get("type") == "array" and isinstance(spec.get("items"), dict):
                spec = {**spec, "items": _or_values(spec["items"], values)}
            elif "type" in spec and values:
                spec = _or_values(spec, values)
            out["properties"][name] = spec
    return out


def _or_values(spec: dict[str, Any], values: list[Any]) -> dict[str, Any]:
    valid = [value for value in values if PublishedValidator(spec).is_valid(value)]
    return {**spec, CATALOG_VALUES: valid} if valid else spec


# -- the server, one client for every example -----------------------------------------------------


class Harness:
    """The served default catalog behind one in-memory client, and a request strategy per tool."""

    def __init__(self, portal: BlockingPortal, client: Client[Any], state: AppState) -> None:
        self._portal = portal
        self._client = client
        tools = portal.call(client.list_tools)
        #: Each tool's listed ``request`` schema, as tools/list gives it.
        self.listed = {tool.name: tool.input_schema["properties"]["request"] for tool in tools}
        #: Each tool's full ``request`` schema: every bound and rule (docs/tools.md).
        self.published = {name: full_input_schema(name)["properties"]["request"] for name in self.listed}
        self._samples = catalog_samples(state)
        self._strategies: dict[str, st.SearchStrategy[Any]] = {}

    def __repr__(self) -> str:
        return "Harness(default catalog)"

    def strategy(self, tool: str) -> st.SearchStrategy[Any]:
        """Candidate requests for ``tool``, kept only when valid for its full schema."""
        if tool not in self._strategies:
            schema = self.published[tool]
            proposals = object_strategy(with_catalog_values(copy.deepcopy(schema), self._samples))
            self._strategies[tool] = proposals.filter(PublishedValidator(schema).is_valid)
        return self._strategies[tool]

    def call(self, tool: str, request: dict[str, Any]) -> CallToolResult:
        call = functools.partial(self._client.call_tool, tool, {"request": request}, raise_on_error=False)
        return self._portal.call(call)


@pytest.fixture(scope="module")
def harness(default_state: AppState) -> Iterator[Harness]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(SERVED.client(default_state)) as c:
        yield Harness(portal, c, default_state)


#: Packages whose standards, components and links the generator uses: progressions and components
#: (BNCC EF), and another code policy and language (CCSS). Fewer packages, more ids that resolve.
FOCUS = ("brazil-bncc-ensino-fundamental", "us-ccss-ela-literacy-grades-2-4")


def catalog_samples(state: AppState) -> dict[str, list[Any]]:
    """Real values per field name: every package's ids in lists, a few of each kind from the focus packages."""
    samples: dict[str, list[Any]] = {}

    def add(name: str, *values: Any) -> None:
        for value in values:
            if value is not None and value not in samples.setdefault(name, []):
                samples[name].append(value)

    for runtime in state.catalog.packages:
        fid, sid = runtime.framework_id, runtime.snapshot_id
        add("frameworkIds", fid)
        add("snapshotIds", sid)
        framework = runtime.framework
        add("jurisdiction", framework.jurisdiction)
        add("academicSubject", framework.academic_subject)
        add("inLanguage", framework.in_language)
        add("uri", f"kgfegmcp://framework/{fid}", f"kgfegmcp://framework/{fid}/snapshot/{sid}/manifest")
        if fid not in FOCUS:
            continue
        add("frameworkId", fid)
        add("snapshotId", sid)
        linked = {rel.source_identifier for rel in runtime.relationships if rel.label == "buildsTowards"}
        items = [i for i in runtime.items if i.identifier in linked][:3] + list(runtime.items[:2])
        for item in items:
            add("nodeId", item.identifier)
            add("caseIdentifierUUID", item.case_identifier_uuid)
            add("statementCode", item.statement_code)
            add("standard", item.statement_code)
            add("targetStandard", item.statement_code)
            add("standards", item.statement_code, item.identifier)
            add("gradeLevel", *item.grade_level)
            add("gradeLevels", *item.grade_level)
            add("statementTypes", item.statement_type)
            add("academicSubjects", item.academic_subject)
            add("uri", f"kgfegmcp://framework/{fid}/snapshot/{sid}/standard/{item.identifier}")
        for component in runtime.components[:2]:
            add("nodeId", component.identifier)
        for rel in [r for r in runtime.relationships if r.label in ("buildsTowards", "relatesTo")][:2]:
            add("progressionId", rel.identifier)
    add("uri", "kgfegmcp://catalog")
    add("query", "frações", "fracoes equivalentes", "EF06MA07", "EF05MA", "reading", "leitura e escrita")
    add("topic", "frações", "reading")
    return samples


def _refusal(result: CallToolResult) -> tuple[str, str] | None:
    if not result.is_error:
        return None
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    code, _, message = text.partition(": ")
    return code, message


def test_every_tool_is_checked_and_its_schema_is_valid_json_schema(harness: Harness) -> None:
    assert tuple(harness.published) == TOOLS
    for schema in [*harness.published.values(), *harness.listed.values()]:
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["properties"], "hosts that read only properties need them"
    for tool in TOOLS:  # the listing only leaves keywords out, so it allows whatever the full schema allows
        assert harness.listed[tool] == listed_input_schema(full_input_schema(tool))["properties"]["request"], tool


@pytest.mark.slow  # a property sweep: sixty generated requests for each tool
@pytest.mark.parametrize("tool", TOOLS)
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_schema_valid_requests_are_never_refused_for_their_shape(
    tool: str, data: st.DataObject, harness: Harness
) -> None:
    request = data.draw(harness.strategy(tool), label="request")
    listed = PublishedValidator(harness.listed[tool])
    assert listed.is_valid(request), f"the listed schema of {tool} refuses what its full schema allows: {request}"
    refusal = _refusal(harness.call(tool, request))
    if refusal is not None:
        code, message = refusal
        assert tolerated(code, message, request), (
            f"{tool} refused a request its published schema allows: {code}: {message}\n"
            f"request: {json.dumps(request, ensure_ascii=False)[:2000]}"
        )


# -- every refusal rule is published ----------------------------------------------------------------

SOURCE = Path(kgfegmcp.__file__).resolve().parent
#: Where request fields are refused: model validators (``ValueError`` in the request models), the
#: services' own selection checks, and the workflow argument rules shared by prompts and the tool.
SCANNED: dict[str, frozenset[str]] = {
    "services/requests.py": frozenset({"ValueError"}),
    "services/workflow_request.py": frozenset({"ValueError"}),
    "services/schema_rules.py": frozenset({"ValueError"}),
    **{
        f"services/{path.name}": frozenset(
            {"InvalidRequestError", "InvalidProgressionRequestError", "InvalidComparisonSelectionError"}
        )
        for path in sorted((SOURCE / "services").glob("*.py"))
        if path.name not in ("requests.py", "workflow_request.py", "schema_rules.py")
    },
    "prompts/arguments.py": frozenset({"problems.append"}),
}


def _message(node: ast.expr, namespace: dict[str, Any]) -> str:
    """The literal text of a refusal message; ``{}`` where it formats a value, constants resolved."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(_message(part, namespace) if isinstance(part, ast.Constant) else "{}" for part in node.values)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in namespace:
        return str(getattr(namespace[node.value.id], node.attr))
    return f"<{ast.unparse(node)}>"


def refusal_sites() -> list[tuple[str, int, str]]:
    """(module, line, message) of every place that refuses a request field."""
    sites = []
    for module, callees in SCANNED.items():
        path = SOURCE / module
        namespace = vars(__import__(f"kgfegmcp.{module[:-3].replace('/', '.')}", fromlist=["_"]))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and ast.unparse(node.func) in callees:
                sites.append((module, node.lineno, _message(node.args[0], namespace)))
    return sorted(sites)


Check = Callable[[dict[str, dict[str, Any]]], bool]


def field(schema: dict[str, Any], path: str) -> dict[str, Any]:
    """A field of a request schema by dotted path; ``[]`` steps into array items."""
    for part in path.split("."):
        items = part.endswith("[]")
        schema = schema["properties"][part.removesuffix("[]")]
        if items:
            schema = schema["items"]
    return schema


def unique(tool: str, *paths: str) -> Check:
    return lambda published: all(field(published[tool], p).get("uniqueItems") is True for p in paths)


def says(tool: str, path: str, phrase: str) -> Check:
    return lambda published: phrase in field(published[tool], path).get("description", "")


def constrains(tool: str, path: str, keyword: dict[str, Any]) -> Check:
    """The object at ``path`` ('' for the request) carries ``keyword``, itself or in its ``allOf``."""

    def check(published: dict[str, dict[str, Any]]) -> bool:
        target = field(published[tool], path) if path else published[tool]
        return any(keyword.items() <= part.items() for part in [target, *target.get("allOf", [])])

    return check


def every_workflow_branch(predicate: Callable[[dict[str, Any]], bool]) -> Check:
    return lambda published: all(predicate(branch) for branch in published["get_workflow_instructions"]["oneOf"])


def branch(workflow: str, predicate: Callable[[dict[str, Any]], bool]) -> Check:
    def check(published: dict[str, dict[str, Any]]) -> bool:
        branches = published["get_workflow_instructions"]["oneOf"]
        return any(b["properties"]["workflow"] == {"const": workflow} and predicate(b) for b in branches)

    return check


STANDARD_KEYS = ("nodeId", "caseIdentifierUUID", "statementCode")
ONE_OF_KEYS = {"oneOf": [{"required": [key]} for key in STANDARD_KEYS]}
STANDARD_TOOLS = (
    "get_standard",
    "get_standard_context",
    "get_learning_components_for_standard",
    "get_standard_progressions",
    "traverse_learning_progressions",
)
QUERY_TOOLS = (
    "search_standards",
    "compare_framework_evidence",
    "search_learning_components",
    "search_learning_progressions",
)
CODE_QUERY = {
    "if": {"properties": {"searchMode": {"const": "code"}}, "required": ["searchMode"]},
    "then": {"properties": {"query": {"maxLength": 256}}},
}
WORKFLOW_LISTS = ("frameworkIds", "snapshotIds", "standards", "gradeLevels", "academicSubjects")
WORKFLOW_TEXTS = ("topic", "standard", "targetStandard", "gradeLevel", "localContext", "availableMaterials")


@dataclass(frozen=True)
class Publication:
    """How one refusal (found by a fragment of its message) is told to clients."""

    fragment: str
    checks: tuple[Check, ...] = ()
    #: Set instead of checks for a refusal of MCP prompt strings only: the tool's arguments are typed JSON.
    prompt_strings_only: str = ""


def _workflow_text(published: dict[str, dict[str, Any]]) -> bool:
    tool = published["get_workflow_instructions"]
    patterns = {field(tool, name).get("pattern") for name in WORKFLOW_TEXTS}
    patterns |= {field(tool, f"{name}[]").get("pattern") for name in ("standards", "gradeLevels", "academicSubjects")}
    return len(patterns) == 1 and None not in patterns


PUBLICATIONS = (
    # -- request models (invalid_request) --
    Publication(
        "Give exactly one of nodeId, caseIdentifierUUID or statementCode",
        tuple(constrains(tool, "", ONE_OF_KEYS) for tool in STANDARD_TOOLS)
        + tuple(says(tool, "nodeId", "Or caseIdentifierUUID or statementCode.") for tool in STANDARD_TOOLS)
        + tuple(constrains("find_learning_progression_paths", end, ONE_OF_KEYS) for end in ("from", "to"))
        + tuple(
            says("find_learning_progression_paths", f"{end}.nodeId", "Or caseIdentifierUUID or statementCode.")
            for end in ("from", "to")
        ),
    ),
    Publication(
        "snapshotId requires frameworkId",
        (
            constrains("get_capabilities", "", {"dependentRequired": {"snapshotId": ["frameworkId"]}}),
            says("get_capabilities", "snapshotId", "Requires frameworkId"),
        ),
    ),
    Publication(
        "With searchMode 'code' the query has at most 256 characters",
        tuple(constrains(tool, "", CODE_QUERY) for tool in ("search_standards", "compare_framework_evidence"))
        + tuple(
            says(tool, "query", "Code: ≤256 characters") for tool in ("search_standards", "compare_framework_evidence")
        ),
    ),
    Publication("32 normalised tokens", tuple(says(tool, "query", "32 distinct") for tool in QUERY_TOOLS)),
    Publication(
        "codeMatch 'prefix' requires searchMode 'code'",
        (
            constrains(
                "search_standards",
                "",
                {
                    "if": {"properties": {"codeMatch": {"const": "prefix"}}, "required": ["codeMatch"]},
                    "then": {"properties": {"searchMode": {"const": "code"}}, "required": ["searchMode"]},
                },
            ),
            says("search_standards", "codeMatch", "'prefix' needs searchMode 'code'"),
        ),
    ),
    Publication(
        "values must be distinct",
        (
            unique("list_frameworks", "frameworkIds", "graphTypes"),
            unique(
                "search_standards", "frameworkIds", "snapshotIds", "gradeLevels", "statementTypes", "academicSubjects"
            ),
            unique("search_learning_components", "frameworkIds", "snapshotIds", "academicSubjects"),
        ),
    ),
    Publication(
        "must contain a character other than whitespace",
        tuple(lambda p, tool=tool: "pattern" in field(p[tool], "query") for tool in QUERY_TOOLS),
    ),
    # -- services: progressions (invalid_progression_request) --
    Publication(
        "linkTypes repeats a value",
        tuple(
            unique(tool, "linkTypes")
            for tool in ("get_standard_progressions", "search_learning_progressions", "traverse_learning_progressions")
        ),
    ),
    Publication("{} repeats a value.", (unique("search_learning_progressions", "gradeLevels", "academicSubjects"),)),
    Publication(
        "of this package.",
        tuple(
            says("search_learning_progressions", name, "This package's values (get_framework)")
            for name in ("gradeLevels", "academicSubjects")
        ),
    ),
    Publication(
        "never cross packages",
        (says("find_learning_progression_paths", "to", "from's framework snapshot"),),
    ),
    Publication(
        "select the same standard",
        (says("find_learning_progression_paths", "to", "Another standard"),),
    ),
    # -- services: comparison, and the workflow tool's cross_framework_comparison (invalid_comparison_selection) --
    Publication("frameworkIds repeats a framework", (unique("compare_framework_evidence", "frameworkIds"),)),
    Publication("snapshotIds repeats a snapshot", (unique("compare_framework_evidence", "snapshotIds"),)),
    Publication(
        "is not an accepted snapshot of any selected framework",
        (says("compare_framework_evidence", "snapshotIds", "Snapshots of frameworkIds"),),
    ),
    Publication(
        "compare one snapshot per framework",
        (says("compare_framework_evidence", "snapshotIds", "at most one each"),),
    ),
    Publication(
        "which is not in frameworkIds",
        tuple(
            says("compare_framework_evidence", field, "per framework of frameworkIds")
            for field in PER_FRAMEWORK_FILTERS
        ),
    ),
    Publication(
        "{} names {} twice",
        tuple(
            says("compare_framework_evidence", field, "One entry at most per framework")
            for field in PER_FRAMEWORK_FILTERS
        ),
    ),
    Publication(
        "{} for {} repeats a {}",
        (
            unique("compare_framework_evidence", "frameworkGradeLevels[].gradeLevels"),
            unique("compare_framework_evidence", "frameworkAcademicSubjects[].academicSubjects"),
        ),
    ),
    Publication("gradeLevels repeats a grade", (unique("compare_framework_evidence", "gradeLevels"),)),
    # -- filter values a package does not use (invalid_request) --
    Publication(
        "Filters take each package's own values",
        (
            *(
                says("search_standards", name, "Only get_framework filterValues.")
                for name in ("gradeLevels", "statementTypes", "academicSubjects")
            ),
            says("search_learning_components", "academicSubjects", "filterValues.componentSubjects"),
            says("compare_framework_evidence", "gradeLevels", "at least one of each framework's"),
            says("compare_framework_evidence", "frameworkGradeLevels", "replaces gradeLevels there, same rules"),
            says(
                "compare_framework_evidence",
                "frameworkAcademicSubjects",
                "its subjects from get_framework filterValues",
            ),
        ),
    ),
    Publication(
        "of no accepted package",
        tuple(
            says("list_frameworks", name, "Exact catalog values")
            for name in ("jurisdiction", "academicSubject", "inLanguage")
        ),
    ),
    Publication(
        "queries names a framework that is not in frameworkIds",
        (says("compare_framework_evidence", "queries", "Per framework of frameworkIds"),),
    ),
    Publication(
        "Give query, or an entry in queries for every framework",
        (
            constrains(
                "compare_framework_evidence", "", {"anyOf": [{"required": ["query"]}, {"required": ["queries"]}]}
            ),
            says("compare_framework_evidence", "queries", "query: required if a framework lacks a key"),
        ),
    ),
    Publication(
        "query is unused when queries names every framework",
        (says("compare_framework_evidence", "queries", "else refused"),),
    ),
    # -- workflow arguments (invalid_request), for get_workflow_instructions --
    # The tool's own check names the workflow's fields; the listing says what each workflow requires.
    Publication(
        " takes {}: {}",
        (
            every_workflow_branch(lambda b: b["additionalProperties"] is False),
            says("get_workflow_instructions", "workflow", "Needs frameworkId; also"),
        ),
    ),
    Publication("is not an argument of", (every_workflow_branch(lambda b: b["additionalProperties"] is False),)),
    Publication(
        "is required",
        (
            branch("practice_item_set", lambda b: {"frameworkId", "topic"} <= set(b["required"])),
            says("get_workflow_instructions", "workflow", "practice_item_set: topic"),
        ),
    ),
    Publication(
        "give at least one",
        (
            branch(
                "learning_progression_support_plan",
                lambda b: b["anyOf"] == [{"required": ["standard"]}, {"required": ["topic"]}],
            ),
            says("get_workflow_instructions", "workflow", "learning_progression_support_plan: standard or topic"),
        ),
    ),
    Publication(
        "must be an integer from",
        (
            lambda p: (
                field(p["get_workflow_instructions"], "practiceCount").items() >= {"minimum": 1, "maximum": 10}.items()
            ),
        ),
    ),
    Publication(
        "<problem>",  # identifier_problem: an identifier's length and pattern
        tuple(
            lambda p, path=path: (
                field(p["get_workflow_instructions"], path).keys() >= {"pattern", "minLength", "maxLength"}
            )
            for path in ("frameworkId", "snapshotId", "frameworkIds[]", "snapshotIds[]")
        ),
    ),
    Publication("must be a string", (lambda p: field(p["get_workflow_instructions"], "topic")["type"] == "string",)),
    Publication(
        "must be an array of strings",
        (lambda p: field(p["get_workflow_instructions"], "standards[]")["type"] == "string",),
    ),
    Publication(
        "must hold {} to {} values",
        (
            lambda p: (
                field(p["get_workflow_instructions"], "frameworkIds").items() >= {"minItems": 2, "maxItems": 8}.items()
            ),
            branch(
                "multigrade_lesson_plan",
                lambda b: b["properties"]["gradeLevels"].items() >= {"minItems": 2, "maxItems": 8}.items(),
            ),
            says("get_workflow_instructions", "workflow", "multigrade_lesson_plan: topic, gradeLevels (2-8)"),
        ),
    ),
    Publication("values must be unique", (unique("get_workflow_instructions", *WORKFLOW_LISTS),)),
    Publication(
        "must be 1 to {} characters",
        (
            lambda p: (
                field(p["get_workflow_instructions"], "localContext").items()
                >= {"minLength": 1, "maxLength": 4000}.items()
            ),
        ),
    ),
    Publication("must contain non-space characters", (_workflow_text,)),
    Publication("must not contain control characters", (_workflow_text,)),
    Publication("is longer than", prompt_strings_only="a raw prompt string before parsing"),
    Publication("must be a decimal integer string", prompt_strings_only="an integer sent as a prompt string"),
    Publication("must be a JSON array of strings", prompt_strings_only="a list sent as a prompt string"),
    Publication("every element must be a string", prompt_strings_only="a list decoded from a prompt string"),
)


def _holds(check: Check, harness: Harness) -> bool:
    try:
        return check(harness.published)
    except (KeyError, TypeError):  # the keyword or field the check looks at is not published at all
        return False


def test_every_refusal_rule_is_published(harness: Harness) -> None:
    unpublished, failing = [], []
    for module, line, message in refusal_sites():
        found = [p for p in PUBLICATIONS if p.fragment in message]
        if not found:
            unpublished.append(f"{module}:{line}: {message!r}")
        for publication in found:
            failing += [f"{module}:{line}: {message!r}" for check in publication.checks if not _holds(check, harness)]
    assert not unpublished and not failing, (
        "refusals not published in any tool's inputSchema (add a schema keyword or a field description in "
        "services/requests.py, then a Publication here): "
        + "; ".join(unpublished)
        + "\npublished schemas that do not state their refusal: "
        + "; ".join(failing)
    )


def test_every_publication_names_a_refusal_that_exists() -> None:
    messages = [message for _, _, message in refusal_sites()]
    stale = [p.fragment for p in PUBLICATIONS if not any(p.fragment in message for message in messages)]
    assert not stale, f"no refusal carries these messages any more: {stale}"
    assert all(bool(p.checks) != bool(p.prompt_strings_only) for p in PUBLICATIONS)
