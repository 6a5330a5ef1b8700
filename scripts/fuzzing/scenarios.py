"""The ways the package-tampering class damages or forges a package: edits as a forger makes them (an artifact
changed and its checksum refreshed, the manifest resealed), the named scenarios, and seeded random edits."""

from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.validator import seal_of

GIB = 1 << 30
#: A package without learning components (small, fast) and one with them.
SMALL = "brazil-bncc-computacao"
COMPONENTS = "brazil-bncc-ensino-fundamental"

Tamper = Callable[[Path, random.Random], None]


# -- editing a package the way a forger would ------------------------------------------------------


def _manifest(package: Path) -> dict[str, Any]:
    return json.loads((package / MANIFEST_FILENAME).read_bytes())


def _write_manifest(package: Path, manifest: dict[str, Any], *, reseal: bool = True) -> None:
    if reseal:
        manifest["validation"]["sealSha256"] = seal_of(PackageManifest.model_validate_json(json.dumps(manifest)))
    (package / MANIFEST_FILENAME).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _entry(manifest: dict[str, Any], logical_name: str) -> dict[str, Any]:
    return next(e for e in manifest["artifacts"] if e["logicalName"] == logical_name)


def _path(package: Path, logical_name: str) -> Path:
    return package / _entry(_manifest(package), logical_name)["path"]


def _rewrite(package: Path, logical_name: str, data: bytes, *, refresh: bool = True, reseal: bool = True) -> None:
    """Replace an artifact's bytes; a forger also refreshes its checksum and size, and reseals."""
    _path(package, logical_name).write_bytes(data)
    if refresh:
        manifest = _manifest(package)
        entry = _entry(manifest, logical_name)
        entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
        _write_manifest(package, manifest, reseal=reseal)


def _text_change(logical_name: str, key: str, kind: str) -> Tamper:
    """Change the first ``key`` text of a record of ``kind`` in one artifact alone (checksum and seal refreshed)."""

    def tamper(package: Path, rng: random.Random) -> None:
        data = _path(package, logical_name).read_bytes()
        marker = kind.encode()
        start = data.index(marker) if marker else 0
        needle = f'"{key}":"'.encode()
        at = data.index(needle, start) + len(needle)
        _rewrite(package, logical_name, data[:at] + b"(altered) " + data[at:])

    return tamper


def _duplicate_key_manifest(package: Path, rng: random.Random) -> None:
    """A second ``rights`` object that turns bulk access on; the seal is what a last-key-wins parser sees."""
    manifest = _manifest(package)
    original = manifest["rights"]
    granted = {**original, "allowBulkResource": True}
    manifest["rights"] = granted
    manifest["validation"]["sealSha256"] = seal_of(PackageManifest.model_validate_json(json.dumps(manifest)))
    members = [(k, v) for k, v in sorted(manifest.items()) if k != "rights"]
    members += [("rights", original), ("rights", granted)]
    text = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v, sort_keys=True)}" for k, v in members) + "}\n"
    (package / MANIFEST_FILENAME).write_text(text, encoding="utf-8")


def _duplicate_key_document(logical_name: str) -> Tamper:
    """Repeat the first member of a JSON document with another value (checksum and seal refreshed)."""

    def tamper(package: Path, rng: random.Random) -> None:
        data = _path(package, logical_name).read_bytes()
        document = json.loads(data)
        first = next(iter(document))
        head = json.dumps({first: document[first]}, ensure_ascii=False, separators=(",", ":"))[1:-1]
        rest = json.dumps(document, ensure_ascii=False, separators=(",", ":"))[1:-1]
        _rewrite(package, logical_name, ("{" + head + "," + rest + "}").encode())

    return tamper


def _duplicate_key_line(logical_name: str) -> Tamper:
    """Repeat the ``type`` member of the first JSONL record (checksum and seal refreshed)."""

    def tamper(package: Path, rng: random.Random) -> None:
        data = _path(package, logical_name).read_bytes()
        _rewrite(package, logical_name, data.replace(b"{", b'{"type":"node",', 1))

    return tamper


def _replace_with(kind: str, target: str) -> Tamper:
    """Put a non-regular file (or a symlink) where the manifest or an artifact should be."""

    def tamper(package: Path, rng: random.Random) -> None:
        path = package / MANIFEST_FILENAME if target == "manifest" else _path(package, target)
        keep = path.read_bytes()
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "socket":
            server = socket.socket(socket.AF_UNIX)
            here = Path.cwd()
            os.chdir(path.parent)  # a socket's path is limited to 108 bytes; its name alone is short
            try:
                server.bind(path.name)
            finally:
                os.chdir(here)
                server.close()  # the socket file stays; nobody listens
        elif kind == "device":
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero: endless bytes
        elif kind == "directory":
            path.mkdir()
        elif kind == "symlink":
            outside = package.parent.parent / f".outside-{path.name}"
            outside.write_bytes(keep)
            path.symlink_to(outside)

    return tamper


def _huge_nuls(package: Path, rng: random.Random) -> None:
    """A 1 GiB sparse file of NULs without a newline where the nodes are; the manifest is left as it was."""
    with _path(package, "nodes").open("wb") as handle:
        handle.truncate(GIB)


def _long_line(package: Path, rng: random.Random) -> None:
    """The nodes artifact as one 64 MiB line without a newline, declared size and checksum refreshed."""
    _rewrite(package, "nodes", b"[" + b" " * (64 << 20) + b"]")


def _blank_lines(package: Path, rng: random.Random) -> None:
    """The nodes followed by 1 GiB of empty lines, checksum and size refreshed, resealed: a finding per line
    would be a billion findings."""
    path = _path(package, "nodes")
    digest = hashlib.sha256(path.read_bytes())
    block = b"\n" * (1 << 20)
    with path.open("ab") as handle:
        for _ in range(GIB // len(block)):
            handle.write(block)
            digest.update(block)
    manifest = _manifest(package)
    entry = _entry(manifest, "nodes")
    entry["sha256"], entry["bytes"] = digest.hexdigest(), path.stat().st_size
    _write_manifest(package, manifest)


def _deep_manifest(package: Path, rng: random.Random) -> None:
    depth = 100_000
    (package / MANIFEST_FILENAME).write_text('{"a":' * depth + "1" + "}" * depth, encoding="utf-8")


def _unreadable(package: Path, rng: random.Random) -> None:
    """No read permission on the relationships (the gates run as an unprivileged user: root reads anything)."""
    _path(package, "relationships").chmod(0)


def _byte_flip(package: Path, rng: random.Random) -> None:
    """One byte of a random artifact changed, the manifest untouched."""
    manifest = _manifest(package)
    entry = rng.choice([e for e in manifest["artifacts"] if e["bytes"] > 0])
    path = package / entry["path"]
    data = bytearray(path.read_bytes())
    at = rng.randrange(len(data))
    data[at] = (data[at] + 1 + rng.randrange(255)) % 256
    path.write_bytes(bytes(data))


def _truncate(package: Path, rng: random.Random) -> None:
    """The bundle cut in half, checksum and size refreshed, resealed."""
    data = _path(package, "academicStandardsBundle").read_bytes()
    _rewrite(package, "academicStandardsBundle", data[: len(data) // 2])


def _swap(package: Path, rng: random.Random) -> None:
    """Two artifacts' bytes exchanged, each declared with the other's checksum: a resealed swap."""
    nodes, items = _path(package, "nodes"), _path(package, "standardsFrameworkItems")
    a, b = nodes.read_bytes(), items.read_bytes()
    _rewrite(package, "nodes", b)
    _rewrite(package, "standardsFrameworkItems", a)


def _undeclared(package: Path, rng: random.Random) -> None:
    (package / "detailed" / "extra.json").write_text("{}\n", encoding="utf-8")


def _missing(package: Path, rng: random.Random) -> None:
    _path(package, "unresolvedItems").unlink()


# -- the named scenarios ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One named way to damage or forge a package; every one must be refused by every gate."""

    name: str
    what: str
    package: str
    tamper: Tamper
    #: Run the gates as an unprivileged user (root reads files whatever their permissions).
    unprivileged: bool = False


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("byte-flip", "one byte of a random artifact changed, manifest untouched", SMALL, _byte_flip),
    Scenario("truncated-resealed", "the bundle cut in half, checksum refreshed, resealed", SMALL, _truncate),
    Scenario("swapped-resealed", "nodes and items exchanged, checksums refreshed, resealed", SMALL, _swap),
    Scenario(
        "text-nodes-resealed",
        "one statement's description changed in nodes alone, checksum refreshed, resealed",
        SMALL,
        _text_change("nodes", "description", '"StandardsFrameworkItem"'),
    ),
    Scenario(
        "text-items-resealed",
        "one statement's description changed in items alone, resealed",
        SMALL,
        _text_change("standardsFrameworkItems", "description", ""),
    ),
    Scenario(
        "text-bundle-resealed",
        "one statement's description changed in the bundle alone, resealed",
        SMALL,
        _text_change("academicStandardsBundle", "description", '"items"'),
    ),
    Scenario(
        "framework-name-resealed",
        "the framework's name changed in standardsFramework alone, resealed",
        SMALL,
        _text_change("standardsFramework", "name", ""),
    ),
    Scenario(
        "component-text-resealed",
        "one learning component's description changed in nodes alone, resealed",
        COMPONENTS,
        _text_change("nodes", "description", '"LearningComponent"'),
    ),
    Scenario(
        "manifest-duplicate-rights",
        "a second rights object turning bulk access on, sealed as last-key-wins reads it",
        SMALL,
        _duplicate_key_manifest,
    ),
    Scenario(
        "report-duplicate-key",
        "the validation report repeats a member, resealed",
        SMALL,
        _duplicate_key_document("validationReport"),
    ),
    Scenario(
        "bundle-duplicate-key",
        "the bundle repeats a member, resealed",
        SMALL,
        _duplicate_key_document("academicStandardsBundle"),
    ),
    Scenario(
        "record-duplicate-key",
        "the first nodes record repeats a member, resealed",
        SMALL,
        _duplicate_key_line("nodes"),
    ),
    Scenario("manifest-fifo", "a FIFO where the manifest should be", SMALL, _replace_with("fifo", "manifest")),
    Scenario("artifact-fifo", "a FIFO where the nodes should be", SMALL, _replace_with("fifo", "nodes")),
    Scenario("artifact-socket", "a socket where the nodes should be", SMALL, _replace_with("socket", "nodes")),
    Scenario(
        "artifact-device", "/dev/zero's device where the nodes should be", SMALL, _replace_with("device", "nodes")
    ),
    Scenario("artifact-directory", "a directory where the nodes should be", SMALL, _replace_with("directory", "nodes")),
    Scenario(
        "manifest-symlink", "the manifest a symlink to its own bytes", SMALL, _replace_with("symlink", "manifest")
    ),
    Scenario("artifact-huge", "the nodes replaced by 1 GiB of NULs, no newline", SMALL, _huge_nuls),
    Scenario("artifact-long-line", "the nodes one 64 MiB line, checksum refreshed, resealed", SMALL, _long_line),
    Scenario(
        "artifact-blank-lines",
        "the nodes followed by 1 GiB of empty lines, checksum refreshed, resealed",
        SMALL,
        _blank_lines,
    ),
    Scenario("manifest-deep", "a manifest nested 100,000 deep", SMALL, _deep_manifest),
    Scenario("artifact-unreadable", "the relationships not readable", SMALL, _unreadable, unprivileged=True),
    Scenario("artifact-missing", "a declared artifact removed", SMALL, _missing),
    Scenario("undeclared-file", "a file the manifest does not declare", SMALL, _undeclared),
)


# -- random tampering ------------------------------------------------------------------------------


def _mutate(data: bytearray, rng: random.Random) -> str:
    """One random edit of ``data`` in place; returns what it did."""
    action = rng.choice(("flip", "insert", "delete", "duplicate-span", "truncate"))
    at = rng.randrange(len(data))
    if action == "flip":
        data[at] = rng.randrange(256)
    elif action == "insert":
        data[at:at] = rng.choice((b"{", b"}", b'"', b"\\", b"\n", b"\x00", b",", "é".encode(), b'"x":1,'))
    elif action == "delete":
        del data[at : at + rng.randint(1, 64)]
    elif action == "duplicate-span":
        data[at:at] = bytes(data[at : at + rng.randint(1, 256)])
    else:
        del data[at:]
    return f"{action} at {at}"


def random_tamper(package: Path, rng: random.Random) -> str:
    """A seeded random edit of the manifest or of one artifact (mostly the core ones, not the 64 parts)."""
    if rng.random() < 0.15:
        path = package / MANIFEST_FILENAME
        data = bytearray(path.read_bytes())
        what = _mutate(data, rng)
        path.write_bytes(bytes(data))
        return f"manifest ({what})"
    entries = [e for e in _manifest(package)["artifacts"] if e["bytes"] > 0]
    parts = [e for e in entries if e["logicalName"].startswith("entityProvenancePart")]
    core = [e for e in entries if e not in parts]
    entry = rng.choice(core if rng.random() < 0.8 or not parts else parts)
    data = bytearray((package / entry["path"]).read_bytes())
    what = _mutate(data, rng)
    refresh = rng.random() < 0.8
    _rewrite(package, entry["logicalName"], bytes(data), refresh=refresh, reseal=refresh)
    return f"{entry['logicalName']} ({what}{', checksum refreshed, resealed' if refresh else ''})"
