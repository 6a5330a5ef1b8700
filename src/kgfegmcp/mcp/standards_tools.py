"""Catalog and standards tool handlers: request model in, service call, result out. No domain logic."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp import text
from kgfegmcp.mcp.boundary import app_state, continuation_block, link_block, summary_result
from kgfegmcp.services.requests import (
    GetCapabilitiesRequest,
    GetFrameworkRequest,
    GetFrameworkStatisticsRequest,
    GetStandardContextRequest,
    GetStandardRequest,
    ListFrameworksRequest,
    SearchStandardsRequest,
)


def list_frameworks(request: ListFrameworksRequest, ctx: Context) -> ToolResult:
    """List accepted curriculum packages (frameworks and snapshots), paged with a cursor."""
    result = app_state(ctx).frameworks.list_frameworks(request)
    continuation = continuation_block("list_frameworks", request, result.page.next_cursor)
    return summary_result(result.to_wire(), text.list_frameworks(result), [continuation])


def get_framework(request: GetFrameworkRequest, ctx: Context) -> ToolResult:
    """One package's metadata: identity, source, rights, capabilities, validation and disclosures."""
    result = app_state(ctx).frameworks.get_framework(request)
    manifest = link_block(result.framework.manifest_uri, "package manifest")
    return summary_result(result.to_wire(), text.get_framework(result), [manifest])


def get_capabilities(request: GetCapabilitiesRequest, ctx: Context) -> ToolResult:
    """What the server does (and does not do), and what each selected package supports."""
    result = app_state(ctx).frameworks.get_capabilities(request)
    return summary_result(result.to_wire(), text.get_capabilities(result))


def get_framework_statistics(request: GetFrameworkStatisticsRequest, ctx: Context) -> ToolResult:
    """Counts for one package: standards and learning components as separate blocks."""
    result = app_state(ctx).frameworks.get_framework_statistics(request)
    return summary_result(result.to_wire(), text.get_framework_statistics(result))


def search_standards(request: SearchStandardsRequest, ctx: Context) -> ToolResult:
    """Deterministic lexical or code search over standards (never learning components), paged."""
    result = app_state(ctx).standards.search_standards(request)
    continuation = continuation_block("search_standards", request, result.page.next_cursor)
    # No link per hit: each would repeat its package link + /standard/<nodeId> (see the package line).
    return summary_result(result.to_wire(), text.search_standards(result), [continuation])


def get_standard(request: GetStandardRequest, ctx: Context) -> ToolResult:
    """One exact standard by nodeId, caseIdentifierUUID or statementCode within a framework."""
    result = app_state(ctx).standards.get_standard(request)
    standard = result.standard
    link = link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")
    return summary_result(result.to_wire(), text.get_standard(result), [link])


def get_standard_context(request: GetStandardContextRequest, ctx: Context) -> ToolResult:
    """Parents, children, bounded ancestors/descendants and complete root paths, with explicit truncation."""
    result = app_state(ctx).standards.get_standard_context(request)
    standard = result.standard
    link = link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")
    return summary_result(result.to_wire(), text.get_standard_context(result), [link])
