"""get_framework_statistics and ``kgfegmcp packages stats`` (and docs/frameworks.md) state one computation: the
same statement types in the same order, the same standards by grade in the profile's grade order.

The fixture profiles declare their statement types Domain, Cluster, Standard: not in name order, so an order
taken from the profile's list would differ from the answer's.
"""

from __future__ import annotations

import pytest

from kgfegmcp.bootstrap import AppState
from kgfegmcp.packages.stats import package_statistics
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.services.requests import GetFrameworkStatisticsRequest


@pytest.mark.parametrize("state_name", ["search_state", "evidence_state"])
def test_the_command_and_the_tool_count_alike(state_name: str, request: pytest.FixtureRequest) -> None:
    state: AppState = request.getfixturevalue(state_name)
    profiles = ProfileRepository(state.settings.profiles_dir)
    locations = discover_packages(state.settings.graph_packages_dir).packages
    assert locations
    for location in locations:
        command = package_statistics(location, profiles)
        fields = {"frameworkId": location.framework_id, "snapshotId": location.snapshot_id}
        answer = state.frameworks.get_framework_statistics(GetFrameworkStatisticsRequest.model_validate(fields))
        standards = answer.standards
        assert [(t.statement_type, t.normalized, t.role, t.items) for t in command.types] == [
            (t["sourceType"], t["normalized"], t["role"], t["items"]) for t in standards.by_statement_type
        ], location.graph_package_id
        assert [(g.label, g.facet, g.display, g.standards) for g in command.grades] == [
            (g["sourceLabel"], g["facet"], g["display"], g["standards"]) for g in standards.standards_by_grade_level
        ], location.graph_package_id
        assert (command.standards, command.groupings) == (standards.standards, standards.groupings)
