"""Process logging: stderr only (STDIO transport owns stdout), level from settings."""

from __future__ import annotations

import logging
import sys


def configure_logging(level: str) -> None:
    """Plain, timestamped records on stderr; idempotent."""
    root = logging.getLogger()
    if not any(getattr(h, "_kgfegmcp", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._kgfegmcp = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
