"""Base for every pydantic model that crosses a boundary (files, CLI, MCP)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ContractModel(BaseModel):
    """Strict, immutable, lower-camel-case on the wire; unknown fields are errors."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        strict=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready camelCase form, without unset optional fields."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


#: One encoder for every call: ``json.dumps`` with these options would build a new one each time.
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    """Deterministic JSON text: sorted keys, no insignificant whitespace, UTF-8 kept."""
    return _CANONICAL.encode(value)


def canonical_bytes(value: Any) -> bytes:
    """Canonical JSON encoded as UTF-8."""
    return canonical_json(value).encode("utf-8")


def pretty_json_bytes(value: Any) -> bytes:
    """Deterministic, human-readable JSON document bytes ending in a newline."""
    return (json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> tuple[int, str]:
    """Size and hex SHA-256 of a file, streamed so a large artifact is never held in memory."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()
