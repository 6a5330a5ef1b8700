"""Access tool handlers: request model in, service call, canonical JSON result out. No domain logic."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp.boundary import app_state, canonical_result
from kgfegmcp.services.requests import ReadEvidenceRequest


def read_evidence(request: ReadEvidenceRequest, ctx: Context) -> ToolResult:
    """Read a kgfegmcp:// link from an answer (rights, manifest, provenance, source record), to check
    where a statement comes from."""
    result = app_state(ctx).evidence.read_evidence(request)
    return canonical_result(result.to_wire())
