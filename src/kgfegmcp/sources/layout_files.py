"""Loading a source layout declared as data (a shipped one by id, or an operator's file), for every layout kind.

A layout tells an importer how a publisher lays out its documents (a PDF's table columns, a code table's
columns and code digits); the importer knows nothing else about the publisher. Each kind has its own model;
reading, the size cap and the messages are the same for all.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationError

from kgfegmcp.core.config import SHIPPED_DIR
from kgfegmcp.core.errors import ConfigurationError

LAYOUTS_DIR = SHIPPED_DIR / "layouts"
MAX_LAYOUT_BYTES = 256 * 1024
_Layout = TypeVar("_Layout", bound=BaseModel)


def _compiles(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return value


#: A regular expression, refused at load time when it does not compile.
Regex = Annotated[str, AfterValidator(_compiles)]


def load_layout_file(name_or_path: str | Path, model: type[_Layout]) -> _Layout:
    """A shipped layout by id or a layout file, as ``model``; ``configuration_error`` when unusable."""
    path = Path(name_or_path) if isinstance(name_or_path, Path) else LAYOUTS_DIR / f"{name_or_path}.json"
    try:
        data = path.read_bytes()
    except OSError:
        shipped = ", ".join(sorted(p.stem for p in LAYOUTS_DIR.glob("*.json")))
        raise ConfigurationError(
            f"Layout {path.name} cannot be read.", hint=f"Name a shipped layout ({shipped}) or a readable JSON file."
        ) from None
    if len(data) > MAX_LAYOUT_BYTES:
        raise ConfigurationError(f"Layout {path.name} exceeds {MAX_LAYOUT_BYTES // 1024} KiB.")
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(document)'}: {error['msg']}" for error in exc.errors()[:10]
        )
        raise ConfigurationError(f"Layout {path.name} is invalid: {problems}") from None
