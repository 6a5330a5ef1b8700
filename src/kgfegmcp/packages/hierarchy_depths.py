"""How deep each item sits below the root of a hasChild hierarchy, read once for the validator and the
build that derives a profile from what it built (the two must agree on a package's depth)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence


def depths_from_root(
    root: str, children: Mapping[str, Sequence[str]], parent_counts: Mapping[str, int]
) -> tuple[dict[str, int], list[str]]:
    """The longest path from ``root`` to each item it reaches, and, sorted, the items never released.

    Kahn's algorithm from the root: an item is released once every parent is, so whatever is never
    released sits on or below a cycle (or under a parent the root does not reach).
    """
    indegree = dict(parent_counts)
    depth: dict[str, int] = {root: 0}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for child in children.get(node, ()):
            depth[child] = max(depth.get(child, 0), depth[node] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                queue.append(child)
    return depth, sorted(node for node, count in indegree.items() if count > 0)
