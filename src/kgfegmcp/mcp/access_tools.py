"""Access tool handlers: request model in, service call, canonical JSON result out. No domain logic."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp.boundary import app_state, canonical_result
from kgfegmcp.services.requests import ReadEvidenceRequest


def read_evidence(request: ReadEvidenceRequest, ctx: Context) -> ToolResult:
    """Read any kgfegmcp:// resource link as UTF-8 text in windows (default 16,384 bytes, at most 32,768),
    under the same rights and size checks as a resource read. Replay page.nextCursor with the same uri and
    windowBytes to continue; windows never split a character and reassemble byte-exactly."""
    result = app_state(ctx).evidence.read_evidence(request)
    return canonical_result(result.to_wire())
