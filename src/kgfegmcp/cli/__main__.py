"""``python -m kgfegmcp.cli``."""

from kgfegmcp.cli import main

main()
