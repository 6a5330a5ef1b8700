"""Package-local graph runtimes: one store per accepted package, never merged."""

from kgfegmcp.graph.store import GraphStore

__all__ = ["GraphStore"]
