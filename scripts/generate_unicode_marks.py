"""Write src/kgfegmcp/search/unicode_marks.py from the running Python's Unicode data (a test compares them)."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from kgfegmcp.search.normalize import mark_ranges

TARGET = Path(__file__).resolve().parents[1] / "src" / "kgfegmcp" / "search" / "unicode_marks.py"
HEADER = '''"""Every combining mark (Unicode categories Mn, Mc, Me) as code point ranges, for Unicode {version}.

Generated from :mod:`unicodedata` (``search.normalize.mark_ranges``, by ``scripts/generate_unicode_marks.py``)
so that starting the server does not classify 130,000 code points (tens of milliseconds); ``normalize`` uses
it only when the running Python's Unicode data is this version and computes the ranges itself otherwise.
``tests/search/test_scripts.py`` compares it with the running data.
"""

UNIDATA_VERSION = "{version}"

MARK_RANGES: tuple[tuple[int, int], ...] = (
'''


def render() -> str:
    """The module's text for the running Unicode data, one range per line (as ruff formats it)."""
    rows = [f"    (0x{low:05X}, 0x{high:05X})," for low, high in mark_ranges()]
    return HEADER.format(version=unicodedata.unidata_version) + "\n".join(rows) + "\n)\n"


def main() -> int:
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(TARGET.parents[3])} (Unicode {unicodedata.unidata_version})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
