"""Independent readers of the registry data files, so tests never trust the importers' parsing."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from importlib import resources
from pathlib import Path
from typing import Any


def bncc_json(name: str) -> Any:
    return json.loads((resources.files("bncc") / "dados" / name).read_text(encoding="utf-8"))


def mapa_rows() -> list[dict[str, str]]:
    text = (resources.files("bncc_mcp") / "data" / "bncc_habilidades.csv").read_text(encoding="utf-8-sig")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def ccss_database() -> Path:
    return Path(str(resources.files("chiron_standards") / "data" / "standards.db"))


def ccss_rows() -> list[dict[str, Any]]:
    connection = sqlite3.connect(ccss_database().as_uri() + "?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in connection.execute("SELECT * FROM standards")]
    finally:
        connection.close()
