"""Targeted corruptions of fixture packages that keep every other artifact consistent."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.tree import PackageLocation


def read_manifest(location: PackageLocation) -> dict[str, Any]:
    return json.loads((location.path / MANIFEST_FILENAME).read_text(encoding="utf-8"))


def write_manifest(location: PackageLocation, manifest: dict[str, Any]) -> None:
    (location.path / MANIFEST_FILENAME).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def edit_manifest(location: PackageLocation, edit: Callable[[dict[str, Any]], None]) -> None:
    manifest = read_manifest(location)
    edit(manifest)
    write_manifest(location, manifest)


def artifact_path(location: PackageLocation, logical_name: str) -> Path:
    for entry in read_manifest(location)["artifacts"]:
        if entry["logicalName"] == logical_name:
            return location.path / entry["path"]
    raise KeyError(logical_name)


def rewrite_bytes(location: PackageLocation, logical_name: str, transform: Callable[[bytes], bytes]) -> None:
    """Change one artifact and refresh its declared checksum and size, so only the change shows."""
    path = artifact_path(location, logical_name)
    data = transform(path.read_bytes())
    path.write_bytes(data)

    def refresh(manifest: dict[str, Any]) -> None:
        for entry in manifest["artifacts"]:
            if entry["logicalName"] == logical_name:
                entry["sha256"] = hashlib.sha256(data).hexdigest()
                entry["bytes"] = len(data)

    edit_manifest(location, refresh)


def edit_lines(location: PackageLocation, logical_name: str, edit: Callable[[list[bytes]], list[bytes]]) -> None:
    """Edit the physical lines of a JSONL artifact (checksums refreshed)."""

    def transform(data: bytes) -> bytes:
        lines = data.split(b"\n")
        assert lines[-1] == b""
        return b"\n".join([*edit(lines[:-1]), b""])

    rewrite_bytes(location, logical_name, transform)


def edit_records(
    location: PackageLocation, logical_name: str, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
) -> None:
    """Edit parsed JSONL records and write them back in the writer's canonical form."""

    def transform(lines: list[bytes]) -> list[bytes]:
        records = edit([json.loads(line) for line in lines])
        return [json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode() for r in records]

    edit_lines(location, logical_name, transform)


def edit_document(location: PackageLocation, logical_name: str, edit: Callable[[Any], None]) -> None:
    """Edit a JSON document artifact (checksums refreshed)."""

    def transform(data: bytes) -> bytes:
        document = json.loads(data)
        edit(document)
        return (json.dumps(document, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()

    rewrite_bytes(location, logical_name, transform)


def find_record(records: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    for record in records:
        properties = record.get("properties", {})
        if all(record.get(k) == v or properties.get(k) == v for k, v in match.items()):
            return record
    raise LookupError(match)


def error_codes(findings: list[Finding]) -> set[str]:
    return {f.code for f in findings if f.severity == "error"}


SPECIAL_KINDS = ("fifo", "socket", "directory", "symlink")


def make_special(path: Path, kind: str, aside: Path) -> None:
    """Replace the regular file ``path`` by a ``kind`` from :data:`SPECIAL_KINDS`.

    Its bytes move into the directory ``aside`` (outside any package), and a ``symlink`` points at
    them, so only what the entry is changes. A socket is bound under a short path (AF_UNIX paths are
    limited to about 108 bytes) on the same file system as the temporary directories (a rename cannot
    cross file systems), then moved into place.
    """
    aside.mkdir(parents=True, exist_ok=True)
    moved = aside / f"{len(list(aside.iterdir()))}-{path.name}"
    shutil.move(path, moved)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink":
        path.symlink_to(moved)
    elif kind == "socket":
        short = Path(tempfile.mkdtemp(prefix="s-", dir=tempfile.gettempdir()))
        try:
            with socket.socket(socket.AF_UNIX) as server:
                server.bind(str(short / "s"))
            os.rename(short / "s", path)
        finally:
            shutil.rmtree(short)
    else:
        raise ValueError(kind)
