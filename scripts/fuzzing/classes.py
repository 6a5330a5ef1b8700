"""The fuzz classes by name, in the order a run reports them: the request classes, then slow clients, package
tampering and hostile sources."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

_T = TypeVar("_T")

#: The classes that send requests to a running server (``strategies.py``).
REQUEST_CLASSES = (
    "huge-names",
    "unknown-names",
    "argument-names",
    "deep-nesting",
    "forged-cursors",
    "prompt-arguments",
    "resource-addresses",
    "value-abuse",
)
#: The class that holds connections instead of asking (``slow_clients.py``).
SLOW = "slow-clients"
#: The class that fuzzes packages instead of requests (``tampering.py``).
TAMPERING = "package-tampering"
#: The class that fuzzes what builds read instead of requests (``hostile_sources.py``).
SOURCES = "hostile-sources"
CLASSES = (*REQUEST_CLASSES, SLOW, TAMPERING, SOURCES)


def seeded_sample(named: Sequence[_T], count: int | None, salt: str) -> tuple[_T, ...]:
    """``count`` of the named cases (all when ``None``), chosen by ``salt`` (a class and a seed), in their order."""
    if count is None:
        return tuple(named)
    chosen = set(random.Random(salt).sample(range(len(named)), min(count, len(named))))
    return tuple(case for index, case in enumerate(named) if index in chosen)
