"""The fuzz classes by name, in the order a run reports them: the request classes, then slow clients, package
tampering and hostile sources."""

from __future__ import annotations

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
