"""The derived-index cache: decoded records and text indexes of passed packages.

An entry is keyed by the SHA-256 of a package's manifest, which pins the SHA-256 of every artifact
and of the bound profile, together with a fingerprint of the code that derives it. An entry is thus
only ever reused for the same bytes, profile and code. Start-up still verifies every package byte
against its manifest; the cache spares re-decoding and re-indexing them, nothing else.

Entries are written into a staging directory and renamed into place whole. Every file is checked
against the entry's ledger (size and SHA-256) before it is used, so a torn or edited entry is
discarded and rebuilt, never served. Losing the cache costs one cold start; it never stops the server.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import marshal
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import tantivy
from pydantic import BaseModel, ConfigDict, Field

import kgfegmcp
from kgfegmcp.core.identifiers import split_graph_package_id
from kgfegmcp.core.models import file_digest, sha256_hex
from kgfegmcp.derived.content_codec import decode_content, encode_content
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import DecodedPackage
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.packages.validator import VALIDATOR_VERSION
from kgfegmcp.search.package_indexes import PackageTextIndexes

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
LEDGER = "ledger.json"
CONTENT = "content.marshal"
STAGING_PREFIX = ".staging-"
ABANDONED_STAGING_SECONDS = 3600
_UNLEDGERED = frozenset({LEDGER, ".tantivy-meta.lock", ".tantivy-writer.lock"})


def _module_digest(name: str) -> str:
    """SHA-256 of an installed package's ``__init__.py`` (which states its version), read without importing
    it: simplemma's import costs a start about 100 ms, and the search imports it only when it is used."""
    spec = importlib.util.find_spec(name)
    origin = Path(spec.origin) if spec is not None and spec.origin else None
    return hashlib.sha256(origin.read_bytes()).hexdigest() if origin is not None else "absent"


@functools.cache
def derivation_fingerprint() -> str:
    """SHA-256 of everything that shapes an entry: formats, interpreter, tantivy, and this code."""
    digest = hashlib.sha256()
    for part in (
        f"cache={CACHE_FORMAT}",
        f"python={sys.version_info[0]}.{sys.version_info[1]}",
        f"marshal={marshal.version}",
        "tantivy=" + str(getattr(tantivy, "__version__", "unknown")),
        f"validator={VALIDATOR_VERSION}",
        f"simplemma={_module_digest('simplemma')}",  # its dictionaries give the lemmas indexed
    ):
        digest.update(part.encode() + b"\0")
    source_root = Path(kgfegmcp.__file__).parent
    code = [*source_root.rglob("*.py"), *(source_root / "shipped" / "languages").glob("*.toml")]
    for path in sorted(code, key=lambda p: p.relative_to(source_root).as_posix()):
        digest.update(path.relative_to(source_root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def cacheable(runtime: PackageRuntime) -> bool:
    """Only packages this validator version sealed (or a supplied package its pipeline passed), and this process
    passed through every rule, get entries.

    An entry is the verdict a later start trusts instead of re-deriving the rules, so it is written
    only from a full gate, never from records that themselves came from an entry. Its key is the exact
    manifest bytes and this code (``derivation_fingerprint``, which holds the validator version): a supplied
    manifest pins every file's checksum as this server's does, so the same bytes name the same package.
    """
    return _sealed(runtime) and runtime.gate == "every_rule"


def _sealed(runtime: PackageRuntime) -> bool:
    manifest = runtime.manifest
    ours = manifest.validation.validator_version == VALIDATOR_VERSION
    return runtime.accepted_from == "passed" and (ours or manifest.shape != "1.0")


class _LedgeredFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    path: str
    bytes: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class CacheLedger(BaseModel):
    """What an entry holds and for which bytes and code; read strictly, anything else is damage."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)

    format: int
    graph_package_id: str = Field(alias="graphPackageId")
    manifest_sha256: str = Field(alias="manifestSha256")
    derivation: str
    files: tuple[_LedgeredFile, ...]


def _ledgered_files(directory: Path) -> list[Path]:
    return sorted(
        (p for p in directory.rglob("*") if p.is_file() and p.name not in _UNLEDGERED),
        key=lambda p: p.relative_to(directory).as_posix(),
    )


@dataclass(frozen=True, slots=True)
class CachedPackage:
    """One entry whose index files matched its ledger when it was looked up.

    The records file, the largest, is checked against the ledger when it is read instead, so its
    bytes are read once.
    """

    directory: Path
    content_digest: tuple[int, str]

    def content(self) -> DecodedPackage:
        """The package's decoded records; ``ValueError`` when they differ from the ledger or do not decode."""
        data = (self.directory / CONTENT).read_bytes()
        if (len(data), sha256_hex(data)) != self.content_digest:
            raise ValueError(f"{CONTENT} differs from the ledger")
        return decode_content(data)

    def text_indexes(self, runtime: PackageRuntime) -> PackageTextIndexes:
        """The package's text indexes, served from the entry; ``ValueError`` when they do not fit."""
        return PackageTextIndexes.open(runtime, self.directory)


class DerivedIndexCache:
    """Entries under ``root/<framework-id>/<snapshot-id>/<key>/``; safe for concurrent replicas."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._verified: dict[Path, CachedPackage] = {}

    def entry_directory(self, graph_package_id: str, manifest_sha256: str) -> Path:
        """Where the entry for this manifest and this code lives (whether or not it exists)."""
        framework_id, snapshot_id = split_graph_package_id(graph_package_id)
        key = hashlib.sha256(f"{derivation_fingerprint()}:{manifest_sha256}".encode()).hexdigest()
        return self.root / framework_id / snapshot_id / key

    def lookup(self, graph_package_id: str, manifest_sha256: str) -> CachedPackage | None:
        """The verified entry for these bytes, or ``None`` (absent, torn or edited entries alike)."""
        directory = self.entry_directory(graph_package_id, manifest_sha256)
        if directory in self._verified:
            return self._verified[directory]
        if not directory.is_dir():
            if directory.exists() or directory.is_symlink():
                self._discard(directory, graph_package_id, ValueError("the entry is not a directory"))
            return None
        try:
            entry = CachedPackage(directory, self._verify(directory, graph_package_id, manifest_sha256))
        except Exception as exc:  # any damage at all is a miss: a cache must never stop the server
            self._discard(directory, graph_package_id, exc)
            return None
        self._verified[directory] = entry
        return entry

    def content(self, graph_package_id: str, manifest_sha256: str) -> DecodedPackage | None:
        """The decoded records stored for these bytes, or ``None`` (a damaged entry is discarded)."""
        entry = self.lookup(graph_package_id, manifest_sha256)
        if entry is None:
            return None
        try:
            return entry.content()
        except Exception as exc:  # any damage at all is a miss: a cache must never stop the server
            self._discard(entry.directory, graph_package_id, exc)
            return None

    def entry(self, store: GraphStore) -> CachedPackage:
        """The package's entry: the one in place for these bytes, else one stored now from ``store``;
        ``ValueError`` or ``OSError`` when there is none and none can be stored."""
        runtime = store.runtime
        entry = self.lookup(runtime.graph_package_id, runtime.manifest_sha256)
        if entry is None:
            if not cacheable(runtime):
                raise ValueError("the entry its records came from is gone, and only a full gate stores one")
            entry = self._store(store)
            log.info("derived-index cache: stored %s", runtime.graph_package_id)
        return entry

    def text_indexes(self, store: GraphStore) -> PackageTextIndexes:
        """The package's text indexes: from its entry, else built into a new entry, else in memory."""
        runtime = store.runtime
        if not _sealed(runtime):
            return PackageTextIndexes.build(store)
        try:
            return self.entry(store).text_indexes(runtime)
        except (OSError, ValueError) as exc:
            log.warning("derived-index cache: not used for %s (%s); indexing in memory", runtime.graph_package_id, exc)
            return PackageTextIndexes.build(store)

    def _discard(self, directory: Path, graph_package_id: str, reason: Exception) -> None:
        """Entries appear whole (rename) and are never edited in place, so a damaged one stays damaged:
        remove it, and the next store writes it again."""
        log.warning(
            "derived-index cache: discarding the entry of %s (%s: %s)",
            graph_package_id,
            type(reason).__name__,
            str(reason)[:200],
        )
        self._verified.pop(directory, None)
        if directory.is_dir() and not directory.is_symlink():
            shutil.rmtree(directory, ignore_errors=True)
        else:
            directory.unlink(missing_ok=True)

    # -- writing ------------------------------------------------------------------------------

    def _store(self, store: GraphStore) -> CachedPackage:
        runtime = store.runtime
        final = self.entry_directory(runtime.graph_package_id, runtime.manifest_sha256)
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=final.parent))
        try:
            content = DecodedPackage(
                runtime.framework, list(runtime.items), list(runtime.components), runtime.relationships
            )
            (staging / CONTENT).write_bytes(encode_content(content))
            PackageTextIndexes.build(store, staging)
            content_digest = self._write_ledger(staging, runtime.graph_package_id, runtime.manifest_sha256)
            try:
                staging.rename(final)
            except OSError:
                if not final.is_dir():
                    raise
                # A concurrent replica stored the same entry first: serve its entry once it verifies.
                entry = self.lookup(runtime.graph_package_id, runtime.manifest_sha256)
                if entry is None:
                    raise ValueError("the entry stored by another process did not verify") from None
                return entry
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self._prune(final)
        self._verified[final] = CachedPackage(final, content_digest)
        return self._verified[final]

    @staticmethod
    def _write_ledger(directory: Path, graph_package_id: str, manifest_sha256: str) -> tuple[int, str]:
        """Write the ledger of every file in ``directory``; returns the records file's digest."""
        files = {path.relative_to(directory).as_posix(): file_digest(path) for path in _ledgered_files(directory)}
        ledger = CacheLedger(
            format=CACHE_FORMAT,
            graph_package_id=graph_package_id,
            manifest_sha256=manifest_sha256,
            derivation=derivation_fingerprint(),
            files=tuple(_LedgeredFile(path=name, bytes=size, sha256=sha) for name, (size, sha) in files.items()),
        )
        (directory / LEDGER).write_text(ledger.model_dump_json(by_alias=True, indent=1) + "\n", encoding="utf-8")
        return files[CONTENT]

    @staticmethod
    def _verify(directory: Path, graph_package_id: str, manifest_sha256: str) -> tuple[int, str]:
        """Check the ledger and every index file against it; returns the records file's listed digest."""
        ledger = CacheLedger.model_validate_json((directory / LEDGER).read_bytes())
        # One package, whichever way it is named (a supplied package's id adds its graph type and revision to
        # the snapshot id its directory bears): compare the framework and snapshot each id names.
        package = split_graph_package_id(graph_package_id)
        expected = (CACHE_FORMAT, package, manifest_sha256, derivation_fingerprint())
        recorded = (ledger.format, split_graph_package_id(ledger.graph_package_id))
        if (*recorded, ledger.manifest_sha256, ledger.derivation) != expected:
            raise ValueError("the ledger belongs to another package, manifest or code")
        listed = {f.path: (f.bytes, f.sha256) for f in ledger.files}
        present = {p.relative_to(directory).as_posix(): p for p in _ledgered_files(directory)}
        if set(present) != set(listed) or len(listed) != len(ledger.files) or CONTENT not in listed:
            raise ValueError("files differ from the ledger")
        for name, path in present.items():
            if name != CONTENT and file_digest(path) != listed[name]:
                raise ValueError(f"{name} differs from the ledger")
        return listed[CONTENT]

    @staticmethod
    def _prune(current: Path) -> None:
        """Remove the package's other entries (older code or bytes) and abandoned staging directories."""
        for sibling in current.parent.iterdir():
            if sibling == current or not sibling.is_dir():
                continue
            if sibling.name.startswith(STAGING_PREFIX):
                try:
                    if time.time() - sibling.stat().st_mtime < ABANDONED_STAGING_SECONDS:
                        continue  # possibly another replica's work in progress
                except OSError:
                    continue
            shutil.rmtree(sibling, ignore_errors=True)
            log.info("derived-index cache: removed the stale entry %s", sibling.name)
