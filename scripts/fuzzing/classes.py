"""The fuzz classes by name, in the order a run reports them: the request classes, then package tampering."""

from __future__ import annotations

#: The class that fuzzes packages instead of requests (``tampering.py``).
TAMPERING = "package-tampering"
CLASSES = (
    "huge-names",
    "unknown-names",
    "argument-names",
    "deep-nesting",
    "forged-cursors",
    "prompt-arguments",
    "resource-addresses",
    "value-abuse",
    TAMPERING,
)
