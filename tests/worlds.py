"""Every catalog the tests read, built once: on disk once per run, as an ``AppState`` once per process.

A run's worlds live in one directory, ``$KGFEG_TEST_RUN_DIR``: the run's first pytest process makes it (under its
TMPDIR) and everything the run starts inherits it: the xdist workers, a server process, a pytest started by a
test. The first process that needs a world builds it there while it holds that world's lock; the others wait for
the lock, then find it built. The run's derived-index cache lives there too, so the default catalog's indexes are
built once and every worker and server process starts warm.

Worlds are read-only. A test that changes packages copies them first, or writes a world of its own under its
``tmp_path`` with ``package_factory``.

The run's cursor secret is the regression corpus's pinned one (written into the run's cache before any state is
built), so the corpus replays against the same states every other test reads.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import SecretStr

from default_catalog_ids import DEFAULT_FRAMEWORKS
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.catalog.prepared import store_derived_indexes
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, BackendSettings, load_settings
from kgfegmcp.core.cursor_secret import SECRET_FILE_NAME
from kgfegmcp.core.cursors import CursorCodec
from kgfegmcp.derived.cache import DerivedIndexCache
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.default_catalog import build_default_catalog
from package_factory import FixtureWorld, state_for
from progression_worlds import progression_world
from resource_worlds import rights_world
from service_worlds import evidence_world
from standards_worlds import search_world, small_world

#: Where the run's worlds and cache are, for every process of the run (not a ``KGFEGMCP_`` name: the server
#: refuses settings it does not know).
RUN_DIRECTORY = "KGFEG_TEST_RUN_DIR"
#: The run's cursor secret: the one the regression corpus was recorded with.
CURSOR_SECRET = "regression-corpus-cursor-secret-not-for-deployment"

#: The fixture catalogs, by name, and what writes and validates each into a directory.
FIXTURE_WORLDS: dict[str, Callable[[Path], FixtureWorld]] = {
    "search": search_world,  # tests/mcp: every arrangement a search warning or error needs
    "small": small_world,  # tree + DAG: a second catalog, whose cursors the search world must refuse
    "progression": progression_world,  # components, progression links, results at the size ceiling
    "evidence": evidence_world,  # the progression world and two packages storing fewer link kinds
    "rights": rights_world,  # one learning-component snapshot per rights variant
}


def start_run() -> Path:
    """The run's directory: inherited, or made now (and removed when this process ends) by the run's first
    pytest process. Also points the derived-index cache of every state and server process at it."""
    inherited = os.environ.get(RUN_DIRECTORY)
    if inherited:
        run = Path(inherited)
    else:
        run = Path(tempfile.mkdtemp(prefix="kgfegmcp-test-run-"))
        atexit.register(shutil.rmtree, run, ignore_errors=True)
        (run / "cache").mkdir()
        # What a first start would make (one line, owner-only), with the corpus's secret in it.
        descriptor = os.open(run / "cache" / SECRET_FILE_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(CURSOR_SECRET + "\n")
        os.environ[RUN_DIRECTORY] = str(run)
    os.environ["KGFEGMCP_CACHE_DIR"] = str(run / "cache")
    # Hermetic operator rights: no decision of the developer's own (the user's configuration) reaches a test.
    os.environ["KGFEGMCP_OPERATOR_RIGHTS_FILE"] = str(run / "no-operator-rights.json")
    return run


def run_directory() -> Path:
    return Path(os.environ[RUN_DIRECTORY])


def once(name: str, action: Callable[[], object]) -> None:
    """Run ``action`` unless a process of the run has already run it to the end; others wait meanwhile."""
    with (run_directory() / f".{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when its process dies
        done = run_directory() / f".{name}.done"
        if not done.exists():
            action()
            done.touch()


def built_once(name: str, build: Callable[[Path], object]) -> Path:
    """``run/name``, written by ``build`` unless a process of the run already wrote it."""
    target = run_directory() / name

    def write() -> None:
        shutil.rmtree(target, ignore_errors=True)  # what a process that died while writing left
        target.mkdir()
        build(target)

    once(name, write)
    return target


@functools.cache
def fixture_world(name: str) -> FixtureWorld:
    """One of :data:`FIXTURE_WORLDS`, built and validated once per run."""
    return FixtureWorld(built_once(f"{name}-world", FIXTURE_WORLDS[name]))


@functools.cache
def fixture_state(name: str) -> AppState:
    """The state the server would build over that world, once per process."""
    return state_for(fixture_world(name))


def _write_default_catalog(base: Path) -> None:
    root = base / "graph_packages"
    profiles = ProfileRepository(SHIPPED_PROFILES_DIR)
    outcomes = build_default_catalog(root, profiles)
    problems = {
        o.outcome.graph_package_id: sorted({f.code for f in o.outcome.findings if f.severity == "error"})
        for o in outcomes
        if not o.accepted
    }
    assert not problems, f"default catalog packages failed validation: {problems}"
    # Its derived indexes, into the run's cache, before any other process (a server, a worker) reads it: from
    # the recording's own pass, as `kgfegmcp catalog init` stores them.
    cache_dir = _settings(root).cache_dir
    assert cache_dir is not None, "the test run's cache directory is unset"
    stored = store_derived_indexes(outcomes, profiles, DerivedIndexCache(cache_dir))
    assert len(stored) == len(outcomes), f"only {stored} got derived-index entries"


def _settings(root: Path) -> BackendSettings:
    return load_settings({"graph_packages_dir": root, "profiles_dir": SHIPPED_PROFILES_DIR})


@functools.cache
def default_catalog() -> Path:
    """The real default catalog, built from the pinned registry packages and validated as ``scripts/setup.sh``
    builds it, with its derived indexes, once per run."""
    return built_once("default-catalog", _write_default_catalog) / "graph_packages"


def default_settings() -> BackendSettings:
    return _settings(default_catalog())


@functools.cache
def default_state() -> AppState:
    """The state over the default catalog, once per process (its indexes read from the run's cache)."""
    return build_app_state(default_settings())


def default_catalog_indexes(cache: Path) -> Path:
    """``cache``, a cache directory of its own holding the default catalog's derived indexes (copied from the
    run's cache) and no cursor secret: a server started on it makes its own secret, but builds no index."""
    default_catalog()  # the run's cache holds its indexes once it is built
    for framework in DEFAULT_FRAMEWORKS:
        shutil.copytree(Path(os.environ["KGFEGMCP_CACHE_DIR"]) / framework, cache / framework)
    return cache


def keyed_by_the_corpus_secret(state: AppState) -> bool:
    """Whether ``state`` seals cursors with :data:`CURSOR_SECRET`."""
    pinned = CursorCodec(state.catalog.fingerprint, SecretStr(CURSOR_SECRET))
    return state.cursors.seal(b"probe") == pinned.seal(b"probe")
