"""Every limit ``get_capabilities`` states is the bound the server enforces, so the answer cannot drift from it.

A bound a request model enforces is read from the model (its published JSON Schema, or, where JSON Schema cannot
state it, the largest value the model accepts); a bound only a service applies (candidates examined, queue
admissions, the result ceiling) is read from a real answer, which reports the bound it ran under. Every stated
limit must have a check here, so a new one cannot be stated unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from kgfegmcp.bootstrap import AppState
from kgfegmcp.services import requests as r
from package_factory import LC

Path = tuple[str | int, ...]
Enforced = Callable[[AppState], int]


def _field(model: type[BaseModel], name: str) -> dict[str, Any]:
    """One request field's published schema (its non-null branch)."""
    spec: dict[str, Any] = model.model_json_schema(by_alias=True)["properties"][name]
    return next((branch for branch in spec.get("anyOf", []) if branch.get("type") != "null"), spec)


def schema(keyword: str, *fields: tuple[type[BaseModel], str]) -> Enforced:
    """``keyword`` of each named field's schema, which must agree across them."""

    def enforced(_state: AppState) -> int:
        values = {(model.__name__, name): _field(model, name)[keyword] for model, name in fields}
        assert len(set(values.values())) == 1, f"{keyword} differs across the requests: {values}"
        return int(next(iter(values.values())))

    return enforced


def largest_accepted(build: Callable[[int], object], ceiling: int = 10_000) -> Enforced:
    """The largest ``n`` for which ``build(n)`` validates (the rule is monotonic; ``build(1)`` must validate)."""

    def accepts(n: int) -> bool:
        try:
            build(n)
        except ValidationError:
            return False
        return True

    def enforced(_state: AppState) -> int:
        low, high = 1, ceiling
        assert accepts(low) and not accepts(high)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if accepts(middle) else (low, middle)
        return low

    return enforced


def agreed(*checks: Enforced) -> Enforced:
    """One bound enforced in several ways, which must agree."""

    def enforced(state: AppState) -> int:
        values = [check(state) for check in checks]
        assert len(set(values)) == 1, values
        return values[0]

    return enforced


def ranged(name: str, *fields: tuple[type[BaseModel], str]) -> dict[Path, Enforced]:
    """``{min, max, default}`` stated under ``name``: the fields' minimum, maximum and default."""
    keywords = {"min": "minimum", "max": "maximum", "default": "default"}
    return {(name, key): schema(keyword, *fields) for key, keyword in keywords.items()}


def _words(n: int) -> str:
    return " ".join(f"x{i}" for i in range(n))


def _standard(code: str) -> dict[str, str]:
    return {"frameworkId": LC, "statementCode": code}


def _traversal(state: AppState) -> Any:
    request = r.TraverseLearningProgressionsRequest.model_validate(_standard("NBT.1"))
    return state.progressions.traverse_learning_progressions(request)


def _paths(state: AppState) -> Any:
    request = r.FindLearningProgressionPathsRequest.model_validate(
        {"from": _standard("NBT.1"), "to": _standard("NF.2")}
    )
    return state.progressions.find_learning_progression_paths(request)


def _progression_page(state: AppState) -> Any:
    request = r.GetStandardProgressionsRequest.model_validate(_standard("NBT.A.1"))
    return state.progressions.get_standard_progressions(request)


LIST, SEARCH, COMPONENTS = r.ListFrameworksRequest, r.SearchStandardsRequest, r.SearchLearningComponentsRequest
PROGRESSIONS, DISCOVERY = r.GetStandardProgressionsRequest, r.SearchLearningProgressionsRequest
TRAVERSE, PATHS = r.TraverseLearningProgressionsRequest, r.FindLearningProgressionPathsRequest
COMPARE = r.CompareFrameworkEvidenceRequest
TEXT_QUERIES = ((SEARCH, "query"), (COMPONENTS, "query"), (DISCOVERY, "query"), (COMPARE, "query"))
CURSORS = ((LIST, "cursor"), (SEARCH, "cursor"), (COMPONENTS, "cursor"), (PROGRESSIONS, "cursor"))
CURSORS += ((DISCOVERY, "cursor"), (r.ReadEvidenceRequest, "cursor"))

#: Each stated limit (its path in ``server.limits``; a pair's members by index) and how the server enforces it.
CHECKS: dict[Path, Enforced] = {
    **ranged("listFrameworksLimit", (LIST, "limit")),
    **ranged("searchStandardsLimit", (SEARCH, "limit")),
    ("textQueryCharacters", "min"): schema("minLength", *TEXT_QUERIES),
    ("textQueryCharacters", "max"): schema("maxLength", *TEXT_QUERIES),
    ("textQueryTokens", "max"): largest_accepted(lambda n: SEARCH.model_validate({"query": _words(n)}), 200),
    ("codeQueryCharacters", "min"): schema("minLength", (r.GetStandardRequest, "statementCode")),
    ("codeQueryCharacters", "max"): agreed(
        schema("maxLength", (r.GetStandardRequest, "statementCode")),
        largest_accepted(lambda n: SEARCH.model_validate({"query": "A" * n, "searchMode": "code"}), 500),
    ),
    ("selectorArrays", "max"): schema(
        "maxItems",
        (LIST, "frameworkIds"),
        (SEARCH, "frameworkIds"),
        (SEARCH, "snapshotIds"),
        (COMPONENTS, "frameworkIds"),
        (COMPONENTS, "snapshotIds"),
    ),
    ("facetArrays", "max"): schema(
        "maxItems",
        (SEARCH, "gradeLevels"),
        (SEARCH, "statementTypes"),
        (SEARCH, "academicSubjects"),
        (COMPONENTS, "academicSubjects"),
        (DISCOVERY, "gradeLevels"),
        (DISCOVERY, "academicSubjects"),
        (COMPARE, "gradeLevels"),
    ),
    ("cursorCharacters", "max"): schema("maxLength", *CURSORS),
    **ranged("progressionPage", (PROGRESSIONS, "limit"), (DISCOVERY, "limit")),
    ("progressionCandidatesExamined", "max"): lambda s: _progression_page(s).page.max_candidates,
    ("traversal", "depth", 0): schema("default", (TRAVERSE, "maxDepth")),
    ("traversal", "depth", 1): schema("maximum", (TRAVERSE, "maxDepth")),
    ("traversal", "nodes", 0): schema("default", (TRAVERSE, "maxNodes")),
    ("traversal", "nodes", 1): schema("maximum", (TRAVERSE, "maxNodes")),
    ("traversal", "edges", 0): schema("default", (TRAVERSE, "maxEdges")),
    ("traversal", "edges", 1): schema("maximum", (TRAVERSE, "maxEdges")),
    ("traversal", "queueAdmissions"): lambda s: _traversal(s).limits.max_admissions,
    ("paths", "depth", 0): schema("default", (PATHS, "maxDepth")),
    ("paths", "depth", 1): schema("maximum", (PATHS, "maxDepth")),
    ("paths", "paths", 0): schema("default", (PATHS, "maxPaths")),
    ("paths", "paths", 1): schema("maximum", (PATHS, "maxPaths")),
    ("paths", "queueAdmissions"): lambda s: _paths(s).limits.max_admissions,
    ("comparison", "frameworks", 0): schema("minItems", (COMPARE, "frameworkIds")),
    ("comparison", "frameworks", 1): schema("maxItems", (COMPARE, "frameworkIds")),
    ("comparison", "snapshots"): schema("maxItems", (COMPARE, "snapshotIds")),
    ("comparison", "matchesPerFramework", 0): schema("minimum", (COMPARE, "maxMatchesPerFramework")),
    ("comparison", "matchesPerFramework", 1): schema("maximum", (COMPARE, "maxMatchesPerFramework")),
    ("evidenceWindowBytes", "min"): schema("minimum", (r.ReadEvidenceRequest, "windowBytes")),
    ("evidenceWindowBytes", "default"): schema("default", (r.ReadEvidenceRequest, "windowBytes")),
    ("evidenceWindowBytes", "max"): schema("maximum", (r.ReadEvidenceRequest, "windowBytes")),
    ("toolResult", "maxBytes"): lambda s: _traversal(s).ceiling.max_bytes,
    ("toolResult", "maxCharacters"): lambda s: _traversal(s).ceiling.max_chars,
}


def stated(state: AppState) -> dict[Path, int]:
    """Every number ``get_capabilities`` states under ``server.limits``, by path."""
    found: dict[Path, int] = {}

    def walk(value: object, path: Path) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, (*path, key))
        elif isinstance(value, list):
            for index, inner in enumerate(value):
                walk(inner, (*path, index))
        else:
            assert isinstance(value, int), path
            found[path] = value

    walk(state.frameworks.get_capabilities(r.GetCapabilitiesRequest()).server.limits, ())
    return found


def test_every_stated_limit_is_checked(evidence_state: AppState) -> None:
    assert set(stated(evidence_state)) == set(CHECKS)


@pytest.mark.parametrize("path", list(CHECKS), ids=lambda path: ".".join(map(str, path)))
def test_a_stated_limit_is_the_enforced_bound(evidence_state: AppState, path: Path) -> None:
    assert stated(evidence_state)[path] == CHECKS[path](evidence_state)
