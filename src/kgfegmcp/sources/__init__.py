"""Build-time source adapters: real curriculum data in, pending graph packages out.

Adapters are looked up by name and imported lazily, so the server never imports them.
"""

from __future__ import annotations

import importlib

from kgfegmcp.errors import ConfigurationError
from kgfegmcp.sources.base import SourceAdapter

#: Source name → ``module:class`` of its adapter.
SOURCE_ADAPTERS: dict[str, str] = {
    "bncc": "kgfegmcp.sources.bncc:BnccSource",
    "ccss": "kgfegmcp.sources.ccss:CcssSource",
    "case": "kgfegmcp.sources.case:CaseSource",
}


def load_adapter(name: str) -> SourceAdapter:
    """Instantiate the adapter registered under ``name``."""
    target = SOURCE_ADAPTERS.get(name)
    if target is None:
        raise ConfigurationError(f"Unknown source {name!r}.", hint=f"Use one of: {', '.join(sorted(SOURCE_ADAPTERS))}.")
    module_name, _, class_name = target.partition(":")
    adapter: SourceAdapter = getattr(importlib.import_module(module_name), class_name)()
    return adapter
