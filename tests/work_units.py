"""What one pytest-xdist worker runs whole (``tests/conftest.py`` schedules by it)."""

from __future__ import annotations


def work_unit(nodeid: str) -> str:
    """A module, so that its fixtures are built once; the install tests all together, since they share the
    wheel and the bundle the README's commands build."""
    return "tests/install" if nodeid.startswith("tests/install/") else nodeid.split("::")[0]
