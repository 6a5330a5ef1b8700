"""The record families build each record once, straight from its source: a subclass's record is its base's
record, field for field, plus the subclass's own fields (nothing is dumped and rebuilt on the way)."""

from __future__ import annotations

from typing import Any

from kgfegmcp.bootstrap import AppState
from kgfegmcp.services.components import (
    ComponentHitView,
    LearningComponentDetailView,
    LearningComponentRecord,
    _Attributions,
)
from kgfegmcp.services.frameworks import FrameworkSummary, framework_summary
from kgfegmcp.services.standards import ContextStandard, SearchHitView
from kgfegmcp.services.views import (
    ComponentPackageRef,
    LinkedStandardRecord,
    PackageRef,
    StandardDetailView,
    StandardRecord,
)
from package_factory import LC


def extends(record: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """The fields ``record`` adds to ``base``, once every base field is checked to be there unchanged."""
    assert {key: record[key] for key in base} == base
    return {key: value for key, value in record.items() if key not in base}


def test_a_standard_record_is_extended_never_rebuilt(search_state: AppState) -> None:
    package = search_state.catalog.resolve(LC)
    item = package.store.items[0]
    record = StandardRecord.of(package, item).to_wire()
    linked = LinkedStandardRecord.of(package, item).to_wire()
    assert set(extends(linked, record)) == {"uri"}
    assert {"inLanguage"} <= set(extends(StandardDetailView.of(package, item).to_wire(), linked))
    assert extends(ContextStandard.of(package, item, depth=2).to_wire(), record) == {"depth": 2}
    hit = SearchHitView.of(package, item, rank=3, score=1.5, match_type="code_exact").to_wire()
    assert extends(hit, record) == {"rank": 3, "score": 1.5, "matchType": "code_exact"}
    assert list(hit)[:2] == ["rank", "matchType"]  # a hit's rank and match come before its record


def test_a_component_record_is_extended_never_rebuilt(search_state: AppState) -> None:
    package = search_state.catalog.resolve(LC)
    component = package.store.components[0]
    # Each answer lists its own attributions, so each record here starts a list of its own.
    record = LearningComponentRecord.of(package, component, _Attributions()).to_wire()
    detail = LearningComponentDetailView.of(package, component, _Attributions()).to_wire()
    assert set(extends(detail, record)) == {"inLanguage", "tags", "uri"}
    hit = ComponentHitView.of(package, component, _Attributions(), rank=1, score=2.0, supported_standards=[]).to_wire()
    assert extends(hit, record) == {"rank": 1, "score": 2.0, "supportedStandards": []}
    assert next(iter(hit)) == "rank"  # a hit's rank comes before its record


def test_a_package_ref_is_extended_never_rebuilt(search_state: AppState) -> None:
    package = search_state.catalog.resolve(LC)
    ref = PackageRef.of(package, 2).to_wire()
    cited = PackageRef.of(package, 2, cites_components=True).to_wire()
    assert set(extends(ComponentPackageRef.of(package, 2).to_wire(), cited)) == {"components"}
    assert cited["builtFrom"] == {**ref["builtFrom"], "lcEntityProvenance": cited["builtFrom"]["lcEntityProvenance"]}
    carried = PackageRef.of(package, links="carried").to_wire()
    held = PackageRef.of(package, links="held").to_wire()
    assert extends(carried, held) == {"linkProvenance": carried["uri"] + "/learning-progression/{relationshipId}"}
    summary: FrameworkSummary = framework_summary(package, 2)
    assert "title" in extends(summary.to_wire(), PackageRef.of(package, 2, links="held").to_wire())
