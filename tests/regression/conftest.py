"""States for the client-visible regression corpus: three fixture worlds and the default catalog.

They are the run's own states (``worlds``): every path differs from the recording's, and the cursor key is the
one the corpus was recorded with (the run's secret), so the answers depend on the packages and the server code
only, never on the environment or the temp folder.
"""

from __future__ import annotations

import os

import pytest
from regression_calls import DEFAULT
from regression_corpus import CORPUS_WORLDS, environment_problems

import worlds
from checkout import REPOSITORY_ROOT
from kgfegmcp.bootstrap import AppState


@pytest.fixture(scope="session")
def corpus_states() -> dict[str, AppState]:
    """catalog → AppState, for every catalog of the call table."""
    problems = environment_problems()
    if problems:
        pytest.fail(f"the corpus is recorded with default settings: unset {', '.join(problems)}")
    states = {catalog: worlds.fixture_state(world) for catalog, world in CORPUS_WORLDS.items()}
    states[DEFAULT] = worlds.default_state()
    unpinned = [catalog for catalog, state in states.items() if not worlds.keyed_by_the_corpus_secret(state)]
    assert unpinned == [], f"cursors of {unpinned} are not keyed by the corpus's secret"
    return states


@pytest.fixture(scope="session")
def local_paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Paths of this machine that no answer may contain (temp folders, the run's worlds and cache, checkout)."""
    return [
        str(tmp_path_factory.getbasetemp()),
        str(worlds.run_directory()),
        os.environ.get("KGFEGMCP_CACHE_DIR", ""),
        str(REPOSITORY_ROOT),
    ]
