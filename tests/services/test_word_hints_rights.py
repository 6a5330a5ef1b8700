"""A package whose rights withhold statement text gives no hints for words not found: a hint is a word of that text."""

from __future__ import annotations

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.services.requests import SearchLearningComponentsRequest, SearchStandardsRequest
from package_factory import LC
from resource_worlds import VARIANTS, Variant


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.snapshot_id)
def test_hints_only_where_full_text_is_permitted(rights_state: AppState, variant: Variant) -> None:
    package = rights_state.catalog.by_snapshot(LC, variant.snapshot_id)
    assert package is not None
    permitted = package.manifest.rights.full_text_denial() is None
    selector = {"frameworkIds": [LC], "snapshotIds": [variant.snapshot_id]}
    standards = rights_state.standards.search_standards(
        SearchStandardsRequest.model_validate({"query": "fractons", **selector})
    )
    components = rights_state.components.search_learning_components(
        SearchLearningComponentsRequest.model_validate({"query": "partiton", **selector})
    )
    for result, expected in (
        (standards, {"fractons": ["fractions", "fracoes", "fraction"]}),
        (components, {"partiton": ["partition"]}),
    ):
        (reading,) = result.interpretation
        assert reading.unknown_terms == list(expected)
        assert reading.nearest_words == (expected if permitted else None)
