"""Closed package tree: the files on disk must be exactly the manifest's declared set.

Also discovers packages under ``<root>/<framework-id>/<snapshot-id>/`` without following
symlinks, reporting unsafe names and case-insensitive collisions instead of guessing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from kgfegmcp.core.finding_codes import FindingCode, require_declared
from kgfegmcp.core.identifiers import (
    identifier_problem,
    named_package_id,
    snapshot_problem,
    supplied_snapshot_framework,
)
from kgfegmcp.core.package_files import path_problem
from kgfegmcp.packages.findings import Finding
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.recording import is_recording_name

#: What the closed-tree scan of one package may find.
TREE_SCAN_CODES: tuple[FindingCode, ...] = (
    FindingCode.UNSAFE_PATH,
    FindingCode.CASE_COLLISION,
    FindingCode.UNDECLARED_ENTRY,
    FindingCode.INTERRUPTED_RECORDING,
    FindingCode.MISSING_ARTIFACT,
)
#: What discovering packages below a root may find (stage ``discovery``).
DISCOVERY_CODES: tuple[FindingCode, ...] = (
    FindingCode.UNSAFE_PATH,
    FindingCode.UNDECLARED_ENTRY,
    FindingCode.IDENTITY_MISMATCH,
    FindingCode.CASE_COLLISION,
)

INTERRUPTED_RECORDING = (
    "left by an interrupted `packages validate`: run `kgfegmcp packages validate` on this package "
    "to finish or roll back its recording"
)


def _finding(code: FindingCode, location: str, message: str, artifact: str | None = None) -> Finding:
    require_declared(code, TREE_SCAN_CODES, "scan_package_tree")
    return Finding(code=str(code), severity="error", artifact=artifact, location=location, message=message)


def _case_collisions(names: Iterable[str], where: str) -> list[Finding]:
    seen: dict[str, str] = {}
    found = []
    for name in sorted(names):
        folded = name.casefold()
        if folded in seen:
            found.append(
                _finding(FindingCode.CASE_COLLISION, where, f"{seen[folded]!r} and {name!r} differ only by case")
            )
        else:
            seen[folded] = name
    return found


@dataclass(slots=True)
class TreeScan:
    """What the closed-tree check saw: findings and the safe, present declared files."""

    findings: list[Finding] = field(default_factory=list)
    present: set[str] = field(default_factory=set)


def scan_package_tree(package_dir: Path, declared: dict[str, str]) -> TreeScan:
    """Compare the package directory with ``declared`` (path → logical name).

    Never follows a symlink; a declared path that is unsafe is reported and not opened.
    """
    scan = TreeScan()
    expected_files = {MANIFEST_FILENAME}
    expected_dirs: set[str] = set()
    for path, logical in sorted(declared.items()):
        problem = path_problem(path)
        if problem is not None:
            scan.findings.append(_finding(FindingCode.UNSAFE_PATH, path, f"declared path {problem}", logical))
            continue
        expected_files.add(path)
        parent = PurePosixPath(path).parent
        while str(parent) != ".":
            expected_dirs.add(str(parent))
            parent = parent.parent
    scan.findings.extend(_case_collisions(expected_files | expected_dirs, "manifest"))

    def walk(directory: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            scan.findings.append(
                _finding(FindingCode.UNSAFE_PATH, prefix or ".", f"directory cannot be read ({exc.strerror})")
            )
            return
        scan.findings.extend(_case_collisions((e.name for e in entries), prefix or "."))
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                scan.findings.append(_finding(FindingCode.UNSAFE_PATH, rel, "symlinks are not allowed in a package"))
            elif stat.S_ISDIR(mode):
                if rel not in expected_dirs:
                    scan.findings.append(
                        _finding(FindingCode.UNDECLARED_ENTRY, rel, "directory is not declared by the manifest")
                    )
                else:
                    walk(Path(entry.path), rel + "/")
            elif stat.S_ISREG(mode):
                if rel in expected_files:
                    scan.present.add(rel)
                elif is_recording_name(entry.name):
                    scan.findings.append(_finding(FindingCode.INTERRUPTED_RECORDING, rel, INTERRUPTED_RECORDING))
                else:
                    scan.findings.append(
                        _finding(FindingCode.UNDECLARED_ENTRY, rel, "file is not declared by the manifest")
                    )
            else:
                scan.findings.append(
                    _finding(FindingCode.UNSAFE_PATH, rel, "only regular files and directories are allowed")
                )

    walk(package_dir, "")
    for path in sorted(expected_files - scan.present - {MANIFEST_FILENAME}):
        scan.findings.append(
            _finding(FindingCode.MISSING_ARTIFACT, path, "declared file is missing", declared.get(path))
        )
    return scan


@dataclass(frozen=True, slots=True)
class PackageLocation:
    """One discovered package directory."""

    framework_id: str
    snapshot_id: str
    path: Path

    @property
    def graph_package_id(self) -> str:
        """The package id the directory names say (``<framework-id>@<snapshot-id>``, or a supplied snapshot id)."""
        return named_package_id(self.framework_id, self.snapshot_id)


@dataclass(slots=True)
class Discovery:
    """Discovered packages, plus findings that attach to a package or to the root."""

    packages: list[PackageLocation] = field(default_factory=list)
    package_findings: dict[str, list[Finding]] = field(default_factory=dict)
    root_findings: list[Finding] = field(default_factory=list)


def _discovery_finding(code: FindingCode, location: str, message: str) -> Finding:
    require_declared(code, DISCOVERY_CODES, "discover_packages")
    return Finding(code=str(code), severity="error", location=location, message=message, stage="discovery")


def _subdirectories(directory: Path, prefix: str, discovery: Discovery) -> list[os.DirEntry[str]]:
    dirs = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        rel = f"{prefix}{entry.name}"
        if entry.is_symlink():
            discovery.root_findings.append(
                _discovery_finding(FindingCode.UNSAFE_PATH, rel, "symlinks are not followed")
            )
        elif entry.is_dir(follow_symlinks=False):
            dirs.append(entry)
        else:
            discovery.root_findings.append(
                _discovery_finding(FindingCode.UNDECLARED_ENTRY, rel, "only package directories belong here")
            )
    return dirs


def discover_packages(root: Path) -> Discovery:
    """Find ``<framework-id>/<snapshot-id>/`` packages below ``root``, in sorted order."""
    discovery = Discovery()
    if not root.is_dir():
        return discovery
    frameworks = _subdirectories(root, "", discovery)
    framework_folds: dict[str, list[str]] = {}
    for entry in frameworks:
        framework_folds.setdefault(entry.name.casefold(), []).append(entry.name)
    for framework in frameworks:
        problem = identifier_problem(framework.name, "framework directory")
        if problem is not None:
            discovery.root_findings.append(_discovery_finding(FindingCode.IDENTITY_MISMATCH, framework.name, problem))
            continue
        clash = [n for n in framework_folds[framework.name.casefold()] if n != framework.name]
        snapshots = _subdirectories(Path(framework.path), framework.name + "/", discovery)
        snapshot_folds: dict[str, list[str]] = {}
        for entry in snapshots:
            snapshot_folds.setdefault(entry.name.casefold(), []).append(entry.name)
        for snapshot in snapshots:
            rel = f"{framework.name}/{snapshot.name}"
            problem = snapshot_problem(snapshot.name, "snapshot directory")
            named = supplied_snapshot_framework(snapshot.name)
            if problem is None and named is not None and named != framework.name:
                problem = f"snapshot directory names framework {named!r}, not its framework directory"
            if problem is not None:
                discovery.root_findings.append(_discovery_finding(FindingCode.IDENTITY_MISMATCH, rel, problem))
                continue
            location = PackageLocation(framework.name, snapshot.name, Path(snapshot.path))
            findings = []
            siblings = [n for n in snapshot_folds[snapshot.name.casefold()] if n != snapshot.name]
            for other in clash:
                findings.append(
                    _discovery_finding(FindingCode.CASE_COLLISION, rel, f"framework directory collides with {other!r}")
                )
            for other in siblings:
                findings.append(
                    _discovery_finding(FindingCode.CASE_COLLISION, rel, f"snapshot directory collides with {other!r}")
                )
            discovery.packages.append(location)
            if findings:
                discovery.package_findings[location.graph_package_id] = findings
    return discovery


def locate_package(path: Path) -> PackageLocation:
    """A package given by its own directory; identity comes from the two folder names."""
    resolved = path.absolute()
    return PackageLocation(resolved.parent.name, resolved.name, resolved)
