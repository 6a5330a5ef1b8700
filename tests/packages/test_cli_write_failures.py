"""The commands that write, on a real full disk, a read-only file system and a file in the way of the root.

Each failure must be one ``filesystem_error:`` line on stderr naming what could not be written and the
fix, exit code 2, no traceback, and nothing half-written left behind: a failed build leaves no directory
it created (a package it was replacing stays as it was), a failed recording leaves the package exactly
as it was (still pending), a failed ``catalog init`` leaves nothing under its root.

The disks are real: a small tmpfs (full after a few pages, or mounted read-only), mounted in a private
user and mount namespace (``unshare -rm``) that only the command under test and this script's shell
see, and that is gone when they exit (nothing on the host is mounted or changed). Where a namespace
cannot be made these tests fail, saying why, rather than skip: a skipped test proves nothing, and the
machines this suite runs on (Linux with user namespaces, as root or not) have them.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from case_export import one_standard_package
from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, InvalidPackagePolicy
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import TREE, base_graph, standard_world

pytestmark = pytest.mark.slow

KGFEGMCP = str(Path(sys.executable).parent / "kgfegmcp")
#: What ``packages build --source case`` makes of :func:`one_standard_package`.
CASE_PACKAGE = "example-science-standards@v1-0-20240301-100000"
#: Lists every file under the mount with its SHA-256, and every directory, so a test sees all that is left.
LISTING = 'find "$M" -mindepth 1 -type d | sort; find "$M" -type f -exec sha256sum {} + | sort -k 2'


@dataclass(frozen=True)
class Run:
    """One command run inside the namespace: its exit code, stderr, and what the mount held before and after."""

    returncode: int
    stderr: str
    before: str
    after: str

    @property
    def error_line(self) -> str:
        """The one line the command printed on stderr last (progress lines may come before it off a terminal)."""
        assert "Traceback" not in self.stderr, self.stderr[-3000:]
        return self.stderr.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def namespaces() -> None:
    """Fail, with the reason, where a private mount namespace with a tmpfs cannot be made."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.fail("`unshare` (util-linux) is needed to mount a small tmpfs for these tests")
    probe = subprocess.run(
        [
            unshare,
            "-rm",
            "sh",
            "-c",
            'M=$(mktemp -d) && mount -t tmpfs -o size=16k tmpfs "$M" && umount "$M"; r=$?; rmdir "$M"; exit $r',
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if probe.returncode != 0:
        pytest.fail(f"cannot mount a tmpfs in a user namespace (unshare -rm): {probe.stderr.strip()}")


#: Fills what is left of the mount.
FILL = 'dd if=/dev/zero of="$M/filler" bs=4k 2>/dev/null || true'


def shell(command: list[str]) -> str:
    """``command`` as one shell line; an argument starting with ``$M`` is expanded there (the mount)."""
    return " ".join(f'"{part}"' if part.startswith("$M") else shlex.quote(part) for part in command)


def run_on_mount(
    tmp_path: Path, mount_options: str, command: list[str], prepare: str = "", env: dict[str, str] | None = None
) -> Run:
    """Mount a tmpfs at ``$M`` (private to a new namespace), run ``prepare`` then ``command`` there.

    ``prepare`` is shell run first (copy a package in, fill the disk, remount read-only); ``command``
    may name ``$M``. The listing of the mount is taken right before and right after ``command``.
    """
    mount = tmp_path / "mnt"
    out = tmp_path / "out"
    mount.mkdir()
    out.mkdir()
    script = "\n".join(
        [
            "set -e",
            f"M={shlex.quote(str(mount))}",
            f"O={shlex.quote(str(out))}",
            f'mount -t tmpfs -o {mount_options} tmpfs "$M"',
            prepare,
            f'({LISTING}) >"$O/before"',
            "set +e",
            f'{shell(command)} >"$O/stdout" 2>"$O/stderr"',
            'echo $? >"$O/rc"',
            f'({LISTING}) >"$O/after"',
        ]
    )
    completed = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0 and (out / "rc").exists(), completed.stderr
    return Run(
        int((out / "rc").read_text()),
        (out / "stderr").read_text(errors="replace"),
        (out / "before").read_text(),
        (out / "after").read_text(),
    )


def own_profiles(tmp_path: Path) -> dict[str, str]:
    """The environment of a CASE build: a profiles root of its own, where the build stores the profile it derives."""
    root = tmp_path / "profiles"
    shutil.copytree(SHIPPED_PROFILES_DIR, root)
    return {"KGFEGMCP_PROFILES_DIR": str(root)}


def assert_coded(run: Run, start: str, *parts: str) -> None:
    assert run.returncode == 2, run.stderr[-3000:]
    line = run.error_line
    assert line.startswith(f"filesystem_error: {start}"), line
    assert " Next action: " in line
    for part in parts:
        assert part in line, line


@pytest.mark.usefixtures("namespaces")
def test_build_on_a_full_disk_leaves_nothing(tmp_path: Path) -> None:
    source = tmp_path / "science.json"
    source.write_text(json.dumps(one_standard_package()), encoding="utf-8")
    build = [KGFEGMCP, "packages", "build", "--source", "case", str(source), "--out", "$M/root"]
    run = run_on_mount(tmp_path, "size=64k", build, env=own_profiles(tmp_path))
    assert_coded(run, f"Could not write the package {CASE_PACKAGE} under ", "no space is left on the device")
    assert run.before == run.after == "", run.after  # not even the root or the framework directory


@pytest.mark.usefixtures("namespaces")
def test_a_build_of_several_packages_on_a_full_disk_removes_those_it_wrote(tmp_path: Path) -> None:
    """BNCC builds four packages; the first fits, a later one does not: none is left."""
    run = run_on_mount(tmp_path, "size=4m", [KGFEGMCP, "packages", "build", "--source", "bncc", "--out", "$M/root"])
    assert_coded(run, "Could not write the package brazil-bncc-", "no space is left on the device")
    assert "brazil-bncc-educacao-infantil" not in run.error_line  # the first one was written, then removed
    assert run.before == run.after == "", run.after


@pytest.mark.usefixtures("namespaces")
def test_rebuild_on_a_full_disk_keeps_the_package_it_was_replacing(tmp_path: Path) -> None:
    source = tmp_path / "science.json"
    source.write_text(json.dumps(one_standard_package()), encoding="utf-8")
    build = [KGFEGMCP, "packages", "build", "--source", "case", str(source), "--out", "$M/root"]
    prepare = f"{shell(build)} >/dev/null 2>&1\n{FILL}"
    run = run_on_mount(tmp_path, "size=2m", build, prepare=prepare, env=own_profiles(tmp_path))
    assert_coded(run, f"Could not write the package {CASE_PACKAGE} under ", "no space is left on the device")
    assert f"/root/{CASE_PACKAGE.replace('@', '/')}/package_manifest.json" in run.before
    assert run.after == run.before  # the earlier package, byte for byte; no staging or retired directory


@pytest.mark.usefixtures("namespaces")
def test_validate_on_a_full_disk_leaves_the_package_pending(tmp_path: Path) -> None:
    world = standard_world(tmp_path / "world")
    pending = world.write(base_graph(TREE))
    run = run_on_mount(
        tmp_path,
        "size=1m",
        [KGFEGMCP, "packages", "validate", "$M/root"],
        prepare=f'mkdir "$M/root" && cp -a {shlex.quote(str(world.packages / TREE))} "$M/root/"\n{FILL}',
        env={"KGFEGMCP_PROFILES_DIR": str(world.profiles_root)},
    )
    assert_coded(
        run,
        f"Could not record {pending.graph_package_id} passed in ",
        "(it is still pending)",
        "no space is left on the device",
    )
    assert "package_manifest.json" in run.before
    assert run.after == run.before  # no recording left, the manifest still pending, every byte as it was

    # The same package validates once there is room: the failed run left nothing to recover from.
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    result = lifecycle.validate(pending)
    assert result.accepted and result.recovered is None


@pytest.mark.usefixtures("namespaces")
def test_catalog_init_on_a_full_disk_leaves_nothing(tmp_path: Path) -> None:
    """Room for the first package, not for the second: the one written is removed again with the root."""
    run = run_on_mount(tmp_path, "size=4m", [KGFEGMCP, "catalog", "init", "--root", "$M/root"])
    assert_coded(run, "Could not write the package brazil-bncc-", "no space is left on the device")
    written = [line for line in run.stderr.splitlines() if line.strip().startswith("writing ")]
    assert len(written) >= 2, run.stderr  # progress off a terminal: one line per step
    assert run.after == "", run.after


@pytest.mark.usefixtures("namespaces")
def test_catalog_init_on_a_read_only_file_system(tmp_path: Path) -> None:
    run = run_on_mount(tmp_path, "size=64k,ro", [KGFEGMCP, "catalog", "init", "--root", "$M/graph_packages"])
    assert_coded(run, "Could not write the package brazil-bncc-", f"the file system is read-only ({tmp_path}/mnt/")
    assert run.after == ""


@pytest.mark.usefixtures("namespaces")
def test_catalog_init_into_an_existing_read_only_root_leaves_it_empty(tmp_path: Path) -> None:
    run = run_on_mount(
        tmp_path,
        "size=64k",
        [KGFEGMCP, "catalog", "init", "--root", "$M/graph_packages"],
        prepare='mkdir "$M/graph_packages" && mount -o remount,ro "$M"',
    )
    assert_coded(run, "Could not write the package brazil-bncc-", "the file system is read-only")
    assert run.before == run.after == f"{tmp_path}/mnt/graph_packages\n"


def test_catalog_init_onto_a_regular_file(tmp_path: Path) -> None:
    target = tmp_path / "graph_packages"
    target.write_text("a file, not a directory\n")
    completed = subprocess.run(
        [KGFEGMCP, "catalog", "init", "--root", str(target)], capture_output=True, text=True, timeout=300, check=False
    )
    run = Run(completed.returncode, completed.stderr, "", "")
    assert_coded(
        run, "Could not write the package brazil-bncc-", f"a file is in the way where a directory is needed ({target})"
    )
    assert target.read_text() == "a file, not a directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph_packages"]
