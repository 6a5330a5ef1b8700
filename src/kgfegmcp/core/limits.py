"""The public limits of requests: one table the request models and ``get_capabilities`` both read."""

from __future__ import annotations

#: The longest statement code a request may name (also the longest code a CASE import keeps).
MAX_CODE_QUERY_CHARS = 256
