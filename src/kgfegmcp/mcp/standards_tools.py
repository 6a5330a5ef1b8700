"""Catalog and standards tool handlers: request model in, service call, result out. No domain logic."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp import text
from kgfegmcp.mcp.boundary import app_state, link_block, summary_result
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
    """Start here: the frameworks served (id, name, jurisdiction, subject, language, contents). Other
    tools take a frameworkId from it."""
    result = app_state(ctx).frameworks.list_frameworks(request)
    return summary_result(result.to_wire(), text.list_frameworks(result))


def get_framework(request: GetFrameworkRequest, ctx: Context) -> ToolResult:
    """One framework's source, licence, attribution, capabilities and disclosures, and the grade labels,
    statement types and subjects its filters accept."""
    result = app_state(ctx).frameworks.get_framework(request)
    manifest = link_block(result.framework.manifest_uri, "package manifest")
    return summary_result(result.to_wire(), text.get_framework(result), [manifest])


def get_capabilities(request: GetCapabilitiesRequest, ctx: Context) -> ToolResult:
    """What this server can and cannot do (search modes, limits), and what one framework supports."""
    result = app_state(ctx).frameworks.get_capabilities(request)
    return summary_result(result.to_wire(), text.get_capabilities(result))


def get_framework_statistics(request: GetFrameworkStatisticsRequest, ctx: Context) -> ToolResult:
    """Counts for one framework: standards by type and grade, learning components, progression links."""
    result = app_state(ctx).frameworks.get_framework_statistics(request)
    return summary_result(result.to_wire(), text.get_framework_statistics(result))


def search_standards(request: SearchStandardsRequest, ctx: Context) -> ToolResult:
    """Find standards by words or code in one or more frameworks: each hit's full statement, code, type,
    grades and nodeId. For a known code use get_standard."""
    result = app_state(ctx).standards.search_standards(request)
    # No link per hit: each would repeat its package link + /standard/<nodeId> (see the package line).
    return summary_result(result.to_wire(), text.search_standards(result))


def get_standard(request: GetStandardRequest, ctx: Context) -> ToolResult:
    """One standard by statement code or nodeId: its full statement, type, grades and parents."""
    result = app_state(ctx).standards.get_standard(request)
    standard = result.standard
    link = link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")
    return summary_result(result.to_wire(), text.get_standard(result), [link])


def get_standard_context(request: GetStandardContextRequest, ctx: Context) -> ToolResult:
    """Where a standard sits: its parents, children, ancestors, descendants and paths to the root, each
    with its statement."""
    result = app_state(ctx).standards.get_standard_context(request)
    standard = result.standard
    link = link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")
    return summary_result(result.to_wire(), text.get_standard_context(result), [link])
