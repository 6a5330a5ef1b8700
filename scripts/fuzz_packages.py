"""The ``package-tampering`` class of ``scripts/fuzz.py``: damaged and forged packages against the three gates.

Each case copies one real, passed package of a catalog into a scratch root, tampers with it, and runs
what an operator runs, each as a real process under a deadline: ``kgfegmcp doctor --json``, the
start-up gate (``kgfegmcp serve --transport stdio`` with stdin closed: it builds the catalog, then
ends at end of input) over a derived-index cache that was warm for the genuine bytes, and
``kgfegmcp packages validate --json`` (last: it records its verdict in the package).

The invariants, for every case:

- every process ends within ``--case-timeout`` (a hang is a violation);
- no process writes a traceback, and a process that fails ends with one coded line (``code: message``);
- the three agree: the start-up gate serves the package exactly when ``validate`` passes it and
  ``doctor`` finds nothing to fail;
- a scenario that damages the package (every named one) is refused by all three.

Named scenarios always run first (the sweep), in a fixed order; seeded random tampering fills the
rest of the budget, so a seed always replays the same cases. Bounded by a count instead (``--package-cases``
of ``scripts/fuzz.py``), a run takes a seeded sample of that many named scenarios, in their order, and
tops it up with random tampering beyond the 24. ``--matrix`` prints the sweep as the markdown table in
docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgfegmcp.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.validator import seal_of

KGFEGMCP = Path(sys.executable).parent / "kgfegmcp"
#: The name of this class in ``scripts/fuzz.py``.
TAMPERING = "package-tampering"
CODED_LINE = re.compile(r"^[a-z_]+: \S")
GIB = 1 << 30
#: A package without learning components (small, fast) and one with them.
SMALL = "brazil-bncc-computacao"
COMPONENTS = "brazil-bncc-ensino-fundamental"

Tamper = Callable[[Path, random.Random], None]


# -- editing a package the way a forger would ----------------------------------------------------


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
    Scenario("manifest-deep", "a manifest nested 100,000 deep", SMALL, _deep_manifest),
    Scenario("artifact-unreadable", "the relationships not readable", SMALL, _unreadable, unprivileged=True),
    Scenario("artifact-missing", "a declared artifact removed", SMALL, _missing),
    Scenario("undeclared-file", "a file the manifest does not declare", SMALL, _undeclared),
)


# -- random tampering ---------------------------------------------------------------------------


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


# -- running the gates --------------------------------------------------------------------------


@dataclass
class Gate:
    """One gate's process: how it ended, in what time, and what it wrote last on stderr."""

    name: str
    exit_code: int | None  # None: stopped at the deadline
    seconds: float
    stdout: str
    stderr: str

    @property
    def refused(self) -> bool:
        return self.exit_code not in (0, None)

    def last_line(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def code(self) -> str:
        """The error code the process ended with (its last stderr line), or its status."""
        if self.exit_code is None:
            return "HANG"
        if self.exit_code == 0:
            return "ok"
        if self.name == "doctor" and self.exit_code == 1:
            return "fail"
        match = re.match(r"^([a-z_]+): ", self.last_line())
        return match.group(1) if match else f"exit {self.exit_code}"


@dataclass
class Outcome:
    """What one tampered package did to the three gates."""

    name: str
    what: str
    gates: list[Gate] = field(default_factory=list)
    validate_status: str = "?"
    validate_codes: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


def _environment(root: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("KGFEGMCP_")}
    env.update(
        {
            "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root),
            "KGFEGMCP_PROFILES_DIR": str(SHIPPED_PROFILES_DIR),
            "KGFEGMCP_PROMPTS_DIR": str(SHIPPED_PROMPTS_DIR),
            "KGFEGMCP_CACHE_DIR": str(cache),
            "KGFEGMCP_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def _run(name: str, command: list[str], env: dict[str, str], timeout: float, user: list[str]) -> Gate:
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [*user, *command], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            code = None
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return Gate(name, code, seconds, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"))


def run_gates(root: Path, package: Path, cache: Path, timeout: float, unprivileged: bool) -> list[Gate]:
    """doctor, the start-up gate and validate, in that order (validate writes its verdict)."""
    env = _environment(root, cache)
    user: list[str] = []
    if unprivileged and os.geteuid() == 0:
        # The copy and its cache become the unprivileged user's (what the scenario made unreadable stays so).
        user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        for path in (root, cache, *root.rglob("*"), *cache.rglob("*")):
            os.lchown(path, 65534, 65534)
    return [
        _run("doctor", [str(KGFEGMCP), "doctor", "--json", "--root", str(root)], env, timeout, user),
        _run("serve", [str(KGFEGMCP), "serve", "--transport", "stdio", "--root", str(root)], env, timeout, user),
        _run("validate", [str(KGFEGMCP), "packages", "validate", "--json", str(package)], env, timeout, user),
    ]


def _doctor_says_why(doctor: Gate) -> bool:
    """Whether doctor's JSON holds a failing check with a detail and a fix."""
    try:
        checks = json.loads(doctor.stdout)
    except ValueError:
        return bool(CODED_LINE.match(doctor.last_line()))  # it could not even run its checks: a coded line
    return any(c.get("status") == "fail" and c.get("detail") and c.get("fix") for c in checks if isinstance(c, dict))


def judge(outcome: Outcome, must_refuse: bool) -> None:
    """The invariants of one case (see the module docstring)."""
    for gate in outcome.gates:
        if gate.exit_code is None:
            outcome.violations.append(f"{gate.name}: no end within the deadline (hang)")
        if "Traceback" in gate.stderr or "Traceback" in gate.stdout:
            outcome.violations.append(f"{gate.name}: wrote a traceback")
        if gate.refused and gate.name == "serve" and not CODED_LINE.match(gate.last_line()):
            outcome.violations.append(f"{gate.name}: ended without a coded line: {gate.last_line()[:200]!r}")
    doctor = outcome.gates[0]
    if doctor.refused and not _doctor_says_why(doctor):
        outcome.violations.append(f"doctor: failed without a failing check that says why: {doctor.stdout[-300:]!r}")
    validate = outcome.gates[-1]
    try:
        report = json.loads(validate.stdout.splitlines()[0]) if validate.stdout.strip() else {}
    except ValueError:
        report = {}
    outcome.validate_status = str(report.get("status", validate.code()))
    outcome.validate_codes = sorted({f.get("code", "?") for f in report.get("findings", []) if isinstance(f, dict)})
    if validate.refused and not report and not CODED_LINE.match(validate.last_line()):
        outcome.violations.append(f"validate: ended without a report or a coded line: {validate.last_line()[:200]!r}")
    verdicts = {gate.name: not gate.refused for gate in outcome.gates if gate.exit_code is not None}
    verdicts["validate"] = outcome.validate_status == "passed"
    if len(set(verdicts.values())) > 1:
        outcome.violations.append(f"the gates disagree: {verdicts}")
    if must_refuse and any(verdicts.values()):
        outcome.violations.append(f"a damaged package was accepted: {verdicts}")


class Catalog:
    """Pristine copies of the packages the scenarios need, and a derived-index cache warm for them.

    A package is copied and warmed the first time a scenario asks for it (a short run may need one).
    """

    def __init__(self, source_root: Path, scratch: Path, timeout: float) -> None:
        self.source_root = source_root
        self.scratch = scratch
        self.timeout = timeout
        self.pristine: dict[str, Path] = {}
        self.cache = scratch / "warm-cache"

    def _pristine(self, framework: str) -> Path:
        """The pristine copy of ``framework``'s newest snapshot, served once so the cache is warm for it."""
        if framework in self.pristine:
            return self.pristine[framework]
        snapshots = sorted(p for p in (self.source_root / framework).iterdir() if p.is_dir())
        if not snapshots:
            raise SystemExit(f"fuzz: no {framework} package under {self.source_root}")
        root = self.scratch / f"pristine-{framework}"
        target = root / framework / snapshots[-1].name
        shutil.copytree(snapshots[-1], target)
        warm = _run(
            "warm-up",
            [str(KGFEGMCP), "serve", "--transport", "stdio", "--root", str(root)],
            _environment(root, self.cache),
            self.timeout * 4,
            [],
        )
        if warm.exit_code != 0:
            raise SystemExit(f"fuzz: the pristine {framework} package is not served:\n{warm.stderr[-2000:]}")
        self.pristine[framework] = target
        return target

    @contextlib.contextmanager
    def copy(self, framework: str) -> Iterator[tuple[Path, Path, Path]]:
        """(root, package, cache): a fresh copy of one package and of the warm cache, removed afterwards."""
        package = self._pristine(framework)
        work = Path(tempfile.mkdtemp(prefix="tamper-", dir=self.scratch))
        for directory in (self.scratch, work):  # an unprivileged gate must reach the copy
            directory.chmod(0o755)
        try:
            copied = work / "root" / framework / package.name
            shutil.copytree(package, copied)
            shutil.copytree(self.cache, work / "cache")
            yield work / "root", copied, work / "cache"
        finally:
            for path in work.rglob("*"):  # undo what an unreadable scenario did, so removal works
                if not path.is_symlink():
                    path.chmod(0o700)
            shutil.rmtree(work, ignore_errors=True)


def run_tampering(
    source_root: Path,
    *,
    budget_seconds: float,
    seed: int,
    case_timeout: float,
    log: Callable[[str], None],
    cases: int | None = None,
) -> list[Outcome]:
    """The sweep of named scenarios, then seeded random tampering until the budget is spent.

    With ``cases``, exactly that many packages instead, whatever the time: a seeded sample of the named
    scenarios (in their order), then random tampering for the rest.
    """
    rng = random.Random(seed)
    started = time.monotonic()
    outcomes: list[Outcome] = []
    named = SCENARIOS
    if cases is not None:
        chosen = set(random.Random(f"sample-{seed}").sample(range(len(SCENARIOS)), min(cases, len(SCENARIOS))))
        named = tuple(scenario for index, scenario in enumerate(SCENARIOS) if index in chosen)

    def more() -> bool:
        if cases is None:
            return time.monotonic() - started < budget_seconds
        return len(outcomes) < cases

    with tempfile.TemporaryDirectory(prefix="kgfegmcp-tamper-") as scratch_name:
        catalog = Catalog(source_root, Path(scratch_name), case_timeout)
        for scenario in named:
            with catalog.copy(scenario.package) as (root, package, cache):
                scenario.tamper(package, rng)
                outcome = Outcome(scenario.name, scenario.what)
                outcome.gates = run_gates(root, package, cache, case_timeout, scenario.unprivileged)
                judge(outcome, must_refuse=True)
            outcomes.append(outcome)
            log(describe(outcome))
        number = 0
        while more():
            number += 1
            framework = COMPONENTS if rng.random() < 0.25 else SMALL  # now and then, the component collection
            with catalog.copy(framework) as (root, package, cache):
                what = random_tamper(package, rng)
                outcome = Outcome(f"random-{number}", what)
                outcome.gates = run_gates(root, package, cache, case_timeout, unprivileged=False)
                judge(outcome, must_refuse=False)
            outcomes.append(outcome)
            log(describe(outcome))
    return outcomes


def describe(outcome: Outcome) -> str:
    """One line per case: each gate's code and time, then any violation."""
    gates = "  ".join(f"{g.name} {g.code()} {g.seconds:.1f}s" for g in outcome.gates)
    what = f" ({outcome.what})" if outcome.name.startswith("random-") else ""
    verdict = f"validate {outcome.validate_status} {outcome.validate_codes}"
    line = f"{TAMPERING} {outcome.name}{what}: {verdict}  {gates}"
    return line + "".join(f"\n  VIOLATION {v}" for v in outcome.violations)


def matrix(outcomes: list[Outcome]) -> str:
    """The named scenarios as a markdown table (docs/reliability.md)."""
    rows = [
        "| scenario | what was done | `validate` | `doctor` | start-up (`serve`) |",
        "|---|---|---|---|---|",
    ]
    for outcome in outcomes:
        if outcome.name.startswith("random-"):
            continue
        doctor, serve, validate = outcome.gates
        codes = ", ".join(f"`{c}`" for c in outcome.validate_codes) or validate.code()
        rows.append(
            f"| `{outcome.name}` | {outcome.what} | {outcome.validate_status}: {codes} ({validate.seconds:.1f} s) "
            f"| {doctor.code()} ({doctor.seconds:.1f} s) | `{serve.code()}` ({serve.seconds:.1f} s) |"
        )
    return "\n".join(rows)
