"""Regenerate docs/frameworks.md from the default catalog (never edit that page by hand).

Run: .venv/bin/python scripts/generate_frameworks_doc.py [--root data/graph_packages] [--check]

Without --root it builds and validates the default catalog into a temporary directory first, so
the page depends only on the pinned registry packages, the shipped source files and the profiles. The
page is the output of `kgfegmcp packages stats --markdown` (same code: kgfegmcp.packages.stats.render_markdown).
--check exits 1 when the committed page differs instead of writing it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR
from kgfegmcp.packages.stats import package_statistics, render_markdown
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.default_catalog import build_default_catalog

REPOSITORY = Path(__file__).resolve().parents[1]
DOC = REPOSITORY / "docs" / "frameworks.md"


def render(root: Path, profiles: ProfileRepository) -> str:
    """The page for every package under ``root``."""
    locations = discover_packages(root).packages
    if not locations:
        raise SystemExit(f"No graph packages under {root}; run scripts/setup.sh or omit --root.")
    return render_markdown([package_statistics(location, profiles) for location in locations])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, help="Use an existing graph-package root instead of a fresh build.")
    parser.add_argument("--profiles", type=Path, default=SHIPPED_PROFILES_DIR)
    parser.add_argument("--check", action="store_true", help="Fail if docs/frameworks.md is stale.")
    args = parser.parse_args()
    profiles = ProfileRepository(args.profiles)
    if args.root is not None:
        text = render(args.root, profiles)
    else:
        with tempfile.TemporaryDirectory(prefix="kgfegmcp-frameworks-") as temporary:
            root = Path(temporary) / "graph_packages"
            outcomes = build_default_catalog(root, profiles)
            failed = [o.outcome.graph_package_id for o in outcomes if not o.accepted]
            if failed:
                print(f"default catalog packages failed validation: {failed}", file=sys.stderr)
                return 1
            text = render(root, profiles)
    if args.check:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print("docs/frameworks.md is stale; run scripts/generate_frameworks_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(REPOSITORY)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
