"""The text index never asks tantivy for more rows than it has documents, however large the limit asked.

tantivy sizes its top-k collector by the limit before it searches; a limit of 2**31 aborts the whole
process in the Rust allocator. The calls run in a child process, so such an abort is this test failing
rather than the test run ending.
"""

from __future__ import annotations

import subprocess
import sys

_CHILD = """
import json
from kgfegmcp.search.analysis import Analyzer, Term
from kgfegmcp.search.text_index import TextIndex

analyzer = Analyzer("en")
documents = [(3 + i, f"Standard {i}: fractions and number lines", "", []) for i in range(40)]
index = TextIndex.build(documents, analyzer)
terms = [Term("fractions", analyzer.stem("fractions")), Term("lines", analyzer.stem("lines"))]
whole = index.ranked(terms, None)
for limit in (2**31 - 1, 2**31, 2**40, 2**63 - 1):
    page = index.ranked(terms, limit)
    assert page == whole, limit
empty = TextIndex.build([], analyzer)
assert empty.ranked(terms, 2**31 - 1).rows == []
print(json.dumps([len(whole.rows), whole.all_terms, whole.some_terms]))
"""


def test_a_huge_limit_returns_every_row_and_allocates_for_the_documents_only() -> None:
    completed = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, (completed.returncode, completed.stderr[-2000:])
    assert completed.stdout.strip() == "[40, 40, 0]"
