"""A request's query is split into words once, and read once per way of reading it, however many packages
it searches: the request's bounds split it, and every package's reading starts from those words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.search import normalize
from kgfegmcp.search.query import QueryInterpreter
from kgfegmcp.services.requests import (
    CompareFrameworkEvidenceRequest,
    SearchLearningComponentsRequest,
    SearchStandardsRequest,
)

QUERY = "frações equivalentes 5º ano"


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Counter[int]]:
    """Calls of ``word_forms`` by text, and of ``QueryInterpreter.interpret`` by interpreter."""
    split: Counter[str] = Counter()
    read: Counter[int] = Counter()
    word_forms: Callable[[str], Any] = normalize.word_forms
    interpret = QueryInterpreter.interpret

    def counted_forms(text: str) -> Any:
        split[text] += 1
        return word_forms(text)

    def counted_interpret(self: QueryInterpreter, *args: Any, **kwargs: Any) -> Any:
        read[id(self)] += 1
        return interpret(self, *args, **kwargs)

    monkeypatch.setattr(normalize, "word_forms", counted_forms)
    monkeypatch.setattr(QueryInterpreter, "interpret", counted_interpret)
    return split, read


def test_a_search_across_every_framework_splits_its_query_once(
    default_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    split, read = _counting(monkeypatch)
    request = SearchStandardsRequest.model_validate({"query": QUERY, "limit": 5})
    result = default_state.standards.search_standards(request)
    assert result.hits
    assert split[QUERY] == 1
    # Each interpreter (one per profile) reads the query once per list of subject names it is given.
    packages = [p for p in default_state.catalog.select(None, None) if p.standards_index.text is not None]
    ways = {(id(p.standards_index.interpreter), tuple(p.standards_index.vocabulary.subjects)) for p in packages}
    assert sum(read.values()) == len(ways)


def test_component_search_and_comparison_split_each_query_once(
    default_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    split, _ = _counting(monkeypatch)
    components = SearchLearningComponentsRequest.model_validate({"query": "frações equivalentes"})
    default_state.components.search_learning_components(components)
    assert split["frações equivalentes"] == 1
    frameworks = [p.framework_id for p in default_state.catalog.select(None, None)][:3]
    comparison = CompareFrameworkEvidenceRequest.model_validate({"frameworkIds": frameworks, "query": "fractions"})
    default_state.comparison.compare_framework_evidence(comparison)
    assert split["fractions"] == 1
