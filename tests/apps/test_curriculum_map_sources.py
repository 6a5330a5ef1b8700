"""The curriculum map's sources (apps/curriculum-map): its node unit tests, run here so the suite runs them.

They test the view's pure functions (adapters per tool, layout, bridge, words) on answers recorded from the real
server, and that the shipped document (``kgfegmcp/shipped/apps/curriculum-map.html``) is exactly a fresh build
of the sources. Node is required (scripts/install_dev.sh needs npm, hence Node, anyway).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from checkout import REPOSITORY_ROOT

pytestmark = pytest.mark.slow  # starts node

SOURCES = REPOSITORY_ROOT / "apps" / "curriculum-map"


def _node() -> str:
    found = shutil.which("node")
    assert found is not None, "node is missing: the curriculum map's sources are built and tested with Node"
    return found


def test_the_shipped_document_is_a_fresh_build() -> None:
    done = subprocess.run(
        [_node(), str(SOURCES / "build.mjs"), "--check"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


def test_the_view_s_unit_tests_pass() -> None:
    tests = sorted(str(path) for path in (SOURCES / "test").glob("*.test.mjs"))
    assert len(tests) >= 5
    done = subprocess.run([_node(), "--test", *tests], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
