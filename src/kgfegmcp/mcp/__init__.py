"""Thin MCP adapters. ``register.py`` is the only place the public surface is declared."""
