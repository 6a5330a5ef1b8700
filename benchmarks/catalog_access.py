"""What the benchmarks read from a built app state, in a form that also runs against older checkouts
(``PYTHONPATH=OTHER/src``), where graph stores sat in a map beside the catalog instead of on each package."""

from __future__ import annotations

from typing import Any


def store_of(state: Any, package: Any) -> Any:
    """A package's graph store: on the served package, or (older code) in the state's store map."""
    store = getattr(package, "store", None)
    return store if store is not None else state.stores[package.graph_package_id]
