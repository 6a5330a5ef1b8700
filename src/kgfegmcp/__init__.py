"""KGForEdGlobalMCP: a read-only MCP server over validated curriculum graph packages."""

__version__ = "0.1.0"
