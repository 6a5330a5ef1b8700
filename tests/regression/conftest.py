"""States for the client-visible regression corpus: three fixture worlds and the default catalog.

Built once per session, with every path and the cursor key pinned (see ``regression_corpus``), so the
answers depend on the packages and the server code only, never on the environment or the temp folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from regression_calls import DEFAULT
from regression_corpus import REPOSITORY_ROOT, default_state, environment_problems, fixture_states

from kgfegmcp.bootstrap import AppState


@pytest.fixture(scope="session")
def corpus_states(default_catalog_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, AppState]:
    """catalog → AppState, for every catalog of the call table."""
    problems = environment_problems()
    if problems:
        pytest.fail(f"the corpus is recorded with default settings: unset {', '.join(problems)}")
    states = fixture_states(tmp_path_factory.mktemp("regression-worlds"))
    states[DEFAULT] = default_state(default_catalog_root)
    return states


@pytest.fixture(scope="session")
def local_paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Paths of this machine that no answer may contain (temp folders, cache, checkout)."""
    return [str(tmp_path_factory.getbasetemp()), os.environ.get("KGFEGMCP_CACHE_DIR", ""), str(REPOSITORY_ROOT)]
