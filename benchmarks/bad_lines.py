"""How long the three gates take on a nodes artifact re-sealed as a file of newlines.

Run: .venv/bin/python benchmarks/bad_lines.py [--mib 1024] [--line x] [--timeout 600] [--src OTHER/src]

A copy of a package of the default catalog (``--package``, under ``--root``) gets its nodes artifact
replaced by ``--mib`` MiB of newlines (or of ``--line`` repeated, one per line), its checksum and size
refreshed and its manifest resealed, as a forger would (``scripts/fuzzing/scenarios.py`` does the same).
Then ``kgfegmcp packages validate --json``, ``kgfegmcp doctor --json`` and the start-up gate
(``kgfegmcp serve --transport stdio`` with its input closed, over a cold derived-index cache) run on it
as real processes, each timed from start to end, each stopped at ``--timeout``. ``--src`` puts another
checkout's ``src`` first on ``PYTHONPATH`` (a baseline). Prints one JSON object per gate.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.validator import seal_of

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20


def reseal_with_lines(package: Path, mib: int, line: bytes = b"") -> None:
    """The nodes artifact as ``mib`` MiB of ``line`` lines (blank by default); checksum and size refreshed,
    manifest resealed."""
    manifest = json.loads((package / MANIFEST_FILENAME).read_bytes())
    entry = next(e for e in manifest["artifacts"] if e["logicalName"] == "nodes")
    digest = hashlib.sha256()
    block = (line + b"\n") * (MIB // (len(line) + 1))
    block += b"\n" * (MIB - len(block))
    with (package / entry["path"]).open("wb") as handle:
        for _ in range(mib):
            handle.write(block)
            digest.update(block)
    entry["sha256"], entry["bytes"] = digest.hexdigest(), mib * MIB
    manifest["validation"]["sealSha256"] = seal_of(PackageManifest.model_validate_json(json.dumps(manifest)))
    (package / MANIFEST_FILENAME).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def timed(name: str, arguments: list[str], environment: dict[str, str], timeout: float) -> dict[str, Any]:
    """One gate as a real process: seconds, exit code, bytes written, and the start of what it said."""
    started = time.monotonic()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "kgfegmcp.cli", *arguments],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=environment,
            cwd=REPOSITORY_ROOT,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        return {
            "gate": name,
            "seconds": round(time.monotonic() - started, 2),
            "exit": None,
            "stoppedAt": timeout,
            "stdoutBytes": len(expired.stdout or b""),
        }
    said = (run.stdout or run.stderr).decode("utf-8", "replace")
    return {
        "gate": name,
        "seconds": round(time.monotonic() - started, 2),
        "exit": run.returncode,
        "stdoutBytes": len(run.stdout),
        "said": said[:300],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=1024, help="MiB of lines in the nodes artifact (1024)")
    parser.add_argument("--line", default="", help="what each line holds (default: nothing, a blank line)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a gate is stopped (600)")
    parser.add_argument("--root", type=Path, default=REPOSITORY_ROOT / "data" / "graph_packages")
    parser.add_argument("--package", default="brazil-bncc-computacao", help="framework id of the package to copy")
    parser.add_argument("--src", type=Path, help="a checkout's src directory to run instead of this one")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-bad-lines-") as scratch:
        root = Path(scratch) / "graph_packages"
        shutil.copytree(arguments.root / arguments.package, root / arguments.package)
        (manifest,) = root.glob(f"{arguments.package}/*/{MANIFEST_FILENAME}")
        reseal_with_lines(manifest.parent, arguments.mib, arguments.line.encode("utf-8"))
        environment = {
            **os.environ,
            "KGFEGMCP_GRAPH_PACKAGES_DIR": str(root),
            "KGFEGMCP_CACHE_DIR": str(Path(scratch) / "cache"),
        }
        if arguments.src is not None:
            environment["PYTHONPATH"] = str(arguments.src.resolve())
        gates = (
            ("validate", ["packages", "validate", "--json", str(root)]),
            ("doctor", ["doctor", "--json"]),
            ("serve start-up", ["serve", "--transport", "stdio"]),
        )
        for name, command in gates:
            result = timed(name, command, environment, arguments.timeout)
            print(json.dumps({"mib": arguments.mib, "line": arguments.line, **result}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
