"""Curriculum code tables (MEXT's 学習指導要領コード表): rows with positional codes, read through a layout."""

from kgfegmcp.sources.code_table.importer import CodeTableSource, MextCodeTableSource

__all__ = ["CodeTableSource", "MextCodeTableSource"]
