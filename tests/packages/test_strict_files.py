"""Package files are strict, as an operator's commands meet them: real processes, real special files.

Whatever stands where a package declares a file (a FIFO, a socket, a directory, a symlink, a file
of another size, one no reader may open, JSON nested 100,000 deep or repeating a key) is a coded
finding in ``packages validate``, a refusal naming its code at start-up and a failing check in
``doctor``; never a hang, a raw traceback, or a read of more than the file may hold. Every command
runs in a subprocess with a timeout, so a reader that blocks fails the test instead of the test run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corrupt import SPECIAL_KINDS, artifact_path, make_special, read_manifest

from kgfegmcp.core.config import SHIPPED_PROMPTS_DIR
from kgfegmcp.core.errors import ProfileValidationError, PromptConfigurationError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.package_files import PackageFile, PackageFileError, PackageJsonError, parse_package_json
from kgfegmcp.packages.manifest import MANIFEST_FILENAME
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.prompts.repository import PromptConfigRepository, copy_generic_configs
from package_factory import LC, FixtureWorld, lc_graph

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
KGFEGMCP = shutil.which("kgfegmcp", path=str(Path(sys.executable).parent))
#: Where a command that blocks on a file is given up on (a healthy run takes a few seconds).
TIMEOUT = 90


def run(
    world: FixtureWorld,
    *args: str,
    swap: tuple[str, Path] | None = None,
    wrapper: tuple[str, ...] = (),
    **settings: str,
) -> subprocess.CompletedProcess[str]:
    """One ``kgfegmcp`` command over ``world``; it must finish, and with no traceback.

    ``swap`` runs it through ``swap_driver.py`` (that kind of special file replaces that path as the
    command opens it), ``wrapper`` under another command (``setpriv``).
    """
    assert KGFEGMCP, "the console script is installed with the project"
    prompts = world.base / "prompts"
    if not prompts.exists():
        copy_generic_configs(SHIPPED_PROMPTS_DIR, prompts)
    env = {
        **os.environ,
        "KGFEGMCP_GRAPH_PACKAGES_DIR": str(world.packages),
        "KGFEGMCP_PROFILES_DIR": str(world.profiles_root),
        "KGFEGMCP_PROMPTS_DIR": str(prompts),
        "KGFEGMCP_CACHE_DIR": "",
        "COLUMNS": "400",
        **settings,
    }
    aside = str(world.base / "aside")
    entry = [sys.executable, str(HERE / "swap_driver.py"), swap[0], str(swap[1]), aside, "--"] if swap else [KGFEGMCP]
    try:
        completed = subprocess.run(
            [*wrapper, *entry, *args],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`kgfegmcp {' '.join(args)}` did not finish in {TIMEOUT}s: it blocked on a package file")
    assert "Traceback" not in completed.stderr, completed.stderr[-3000:]
    return completed


def validate_reports(world: FixtureWorld, *paths: Path, **options: Any) -> dict[str, dict[str, Any]]:
    """``packages validate --json`` over ``paths``, which must fail: each package's report by id."""
    completed = run(world, "packages", "validate", "--json", *map(str, paths), **options)
    assert completed.returncode == 1, (completed.stdout, completed.stderr)
    reports = [json.loads(line) for line in completed.stdout.splitlines()]
    return {report["graphPackageId"]: report for report in reports}


def codes(report: dict[str, Any]) -> set[str]:
    return {finding["code"] for finding in report["findings"] if finding["severity"] == "error"}


def start_up(world: FixtureWorld, **options: Any) -> str:
    """Stderr of ``kgfegmcp serve --transport stdio`` refusing to start (its line wrapping undone)."""
    completed = run(world, "serve", "--transport", "stdio", **options)
    assert completed.returncode != 0 and completed.stdout == ""
    return " ".join(completed.stderr.split())


# -- the manifest ----------------------------------------------------------------------------------


def _deep(location: PackageLocation) -> None:
    depth = 100_000
    (location.path / MANIFEST_FILENAME).write_text('{"a":' * depth + "1" + "}" * depth)


def _repeated_rights(location: PackageLocation) -> None:
    """A second ``rights`` object turning bulk resources on (what ``json.loads`` would keep)."""
    manifest = read_manifest(location)
    bulk = json.dumps({**manifest["rights"], "allowBulkResource": True})
    text = json.dumps(manifest, indent=2, sort_keys=True)
    (location.path / MANIFEST_FILENAME).write_text(text[: text.rindex("}")] + f',"rights": {bulk}}}\n')


MANIFEST_DAMAGE = {
    **{kind: FindingCode.UNSAFE_PATH for kind in SPECIAL_KINDS},
    "deep": FindingCode.INVALID_MANIFEST,
    "repeated-rights": FindingCode.INVALID_MANIFEST,
}


@pytest.fixture
def damaged_manifests(world: FixtureWorld) -> dict[str, str]:
    """One package per kind of damaged manifest, all under one root: graph-package id -> kind."""
    damaged = {}
    for kind in MANIFEST_DAMAGE:
        location = world.write(lc_graph(LC), snapshot_id=f"{kind}-manifest")
        if kind == "deep":
            _deep(location)
        elif kind == "repeated-rights":
            _repeated_rights(location)
        else:
            make_special(location.path / MANIFEST_FILENAME, kind, world.base / "aside")
        damaged[location.graph_package_id] = kind
    return damaged


def test_a_damaged_manifest_is_a_finding_in_packages_validate(
    world: FixtureWorld, damaged_manifests: dict[str, str]
) -> None:
    reports = validate_reports(world, world.packages)
    assert set(reports) == set(damaged_manifests)
    for package, kind in damaged_manifests.items():
        assert codes(reports[package]) == {MANIFEST_DAMAGE[kind]}, (kind, reports[package])
        assert reports[package]["status"] == "unreadable"
    rights = next(p for p, kind in damaged_manifests.items() if kind == "repeated-rights")
    assert 'repeats the key "rights"' in reports[rights]["findings"][0]["message"]


def test_a_damaged_manifest_is_named_at_start_up(world: FixtureWorld, damaged_manifests: dict[str, str]) -> None:
    stderr = start_up(world, KGFEGMCP_INVALID_PACKAGE_POLICY="quarantine")
    assert "catalog_error: No accepted graph package" in stderr
    for package, kind in damaged_manifests.items():
        assert f"not serving {package}" in stderr
        line = stderr.split(f"not serving {package}", 1)[1][:400]
        assert MANIFEST_DAMAGE[kind] in line, (kind, line)


def test_a_damaged_manifest_fails_its_doctor_check(world: FixtureWorld, damaged_manifests: dict[str, str]) -> None:
    completed = run(world, "doctor", "--json")
    assert completed.returncode == 1
    checks = {check["area"]: check for check in json.loads(completed.stdout)}
    for package in damaged_manifests:
        assert checks[f"package {package}"]["status"] == "fail", checks[f"package {package}"]


def test_manifest_document_refuses_what_is_not_one_strict_regular_file(
    world: FixtureWorld, damaged_manifests: dict[str, str]
) -> None:
    """``packages list`` and ``doctor`` read manifests through it: in a process of its own, as a FIFO
    among them would block a reader that opens it for good."""
    directories = [str(world.packages / LC / package.split("@")[1]) for package in damaged_manifests]
    script = (
        "import sys; from pathlib import Path; from kgfegmcp.packages.manifest import manifest_document; "
        "print([manifest_document(Path(p)) for p in sys.argv[1:]])"
    )
    try:
        completed = subprocess.run(
            [sys.executable, "-c", script, *directories], capture_output=True, text=True, timeout=TIMEOUT, check=True
        )
    except subprocess.TimeoutExpired:
        pytest.fail("manifest_document blocked on a manifest")
    assert completed.stdout.strip() == repr([None] * len(directories)), completed.stdout


# -- an artifact swapped for a special file between the tree scan and its read ---------------------


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_an_artifact_swapped_for_a_special_file_is_a_finding(world: FixtureWorld, kind: str) -> None:
    location = world.write(lc_graph(LC))
    nodes = artifact_path(location, "nodes")
    # Swapped as validation opens it, after the tree scan saw a regular file: checking the path first
    # cannot catch it, only checking the opened descriptor can.
    (report,) = validate_reports(world, location.path, swap=(kind, nodes)).values()
    assert codes(report) == {"unsafe_path"}, report
    assert report["findings"][0]["artifact"] == "nodes"
    shutil.rmtree(location.path)
    location = world.write(lc_graph(LC))
    stderr = start_up(world, swap=(kind, artifact_path(location, "nodes")))
    assert f"Pending package {location.graph_package_id} does not validate (unsafe_path)" in stderr


# -- size first, bounded reads ---------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "start-up"])
def test_an_artifact_of_another_size_is_refused_unread(world: FixtureWorld, command: str) -> None:
    """1 GiB of NULs without a newline where a small artifact is declared: refused by its size alone.

    The file is sparse, so it costs nothing here; a reader that read it would hash a gibibyte and
    build ever longer lines from it (quadratic), for minutes.
    """
    location = world.write(lc_graph(LC))
    nodes = artifact_path(location, "nodes")
    with nodes.open("r+b") as handle:
        handle.truncate(0)
        handle.truncate(1 << 30)
    if command == "validate":
        (report,) = validate_reports(world, location.path).values()
        assert codes(report) == {"checksum_mismatch"}
        (finding,) = report["findings"]
        assert (
            finding["artifact"] == "nodes" and f"has {1 << 30} bytes where the manifest declares" in finding["message"]
        )
        assert finding["message"].endswith("(not read)")
    else:
        stderr = start_up(world)
        assert "does not validate (checksum_mismatch)" in stderr


def _deny_reading(path: Path) -> tuple[str, ...]:
    """Make ``path`` unreadable to a command: as root, run it without the capabilities that override that."""
    path.chmod(0)
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads any file; setpriv is needed to run the command without that power")
    wrapper = (setpriv, "--bounding-set=-dac_override,-dac_read_search", "--")
    if subprocess.run([*wrapper, "cat", str(path)], capture_output=True, check=False).returncode == 0:
        pytest.skip("this root keeps reading a file of mode 000 without CAP_DAC_OVERRIDE")
    return wrapper


def test_an_unreadable_artifact_is_a_finding_in_validate_and_at_start_up(world: FixtureWorld) -> None:
    location = world.write(lc_graph(LC))
    wrapper = _deny_reading(artifact_path(location, "nodes"))
    stderr = start_up(world, wrapper=wrapper)  # first: it only reads, and validate records the failure
    assert f"Pending package {location.graph_package_id} does not validate (unreadable_file)" in stderr
    (report,) = validate_reports(world, location.path, wrapper=wrapper).values()
    assert codes(report) == {"unreadable_file"}, report
    assert "Permission denied" in report["findings"][0]["message"]


# -- the one reader, directly ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_package_file_opens_only_regular_files(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "dir" / "file.json"
    path.parent.mkdir()
    path.write_text("{}")
    make_special(path, kind, tmp_path / "aside")
    with pytest.raises(PackageFileError) as refused:  # a FIFO does not block: there is no writer
        PackageFile.open(tmp_path, "dir/file.json")
    assert refused.value.code == FindingCode.UNSAFE_PATH


def test_package_file_follows_no_symlinked_directory(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "file.json").write_text("{}")
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "detailed").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PackageFileError) as refused:
        PackageFile.open(tmp_path / "package", "detailed/file.json")
    assert refused.value.code == FindingCode.UNSAFE_PATH


def test_package_file_reads_at_most_one_byte_past_its_size(tmp_path: Path) -> None:
    (tmp_path / "grows").write_bytes(b"12345")
    with PackageFile.open(tmp_path, "grows", expected_bytes=5) as handle:
        with (tmp_path / "grows").open("ab") as writer:
            writer.write(b"6" * 1000)
        assert handle.read_all() == b"123456"  # the growth shows as a size that differs, and stops there
    with pytest.raises(PackageFileError) as refused:
        PackageFile.open(tmp_path, "grows", expected_bytes=5)
    assert refused.value.code == FindingCode.CHECKSUM_MISMATCH


def test_package_json_names_a_repeated_key_and_bounds_depth() -> None:
    assert parse_package_json(b'{"a": {"b": 1}, "c": [{"b": 2}]}') == {"a": {"b": 1}, "c": [{"b": 2}]}
    with pytest.raises(PackageJsonError, match='repeats the key "b" in one object'):
        parse_package_json(b'{"a": {"b": 1, "b": 1}}')
    with pytest.raises(PackageJsonError, match="nested deeper than 64 levels"):
        parse_package_json(b"[" * 100_000 + b"]" * 100_000)


# -- profiles and prompt configurations: configuration errors, coded --------------------------------


def test_a_profile_repeating_a_key_is_a_profile_validation_error(world: FixtureWorld) -> None:
    path = world.profiles_root / LC / "1.0.json"
    path.write_bytes(path.read_bytes().replace(b"{", b'{"title": "Another title",', 1))
    with pytest.raises(ProfileValidationError, match='repeats the key "title"'):
        world.profiles().load(LC, "1.0")


def test_a_profile_that_is_a_fifo_is_refused_without_blocking(world: FixtureWorld) -> None:
    make_special(world.profiles_root / LC / "1.0.json", "fifo", world.base / "aside")
    with pytest.raises(ProfileValidationError, match="is a FIFO, not a regular file"):
        world.profiles().load(LC, "1.0")


def test_a_prompt_configuration_repeating_a_key_is_a_configuration_error(tmp_path: Path) -> None:
    prompts = copy_generic_configs(SHIPPED_PROMPTS_DIR, tmp_path / "prompts")
    common = max((prompts / "common").glob("*.json"))
    common.write_bytes(common.read_bytes().replace(b"{", b'{"version": "0.0",', 1))
    with pytest.raises(PromptConfigurationError, match='repeats the key "version"'):
        PromptConfigRepository(prompts).load([])
