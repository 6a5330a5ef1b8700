"""Build the MCPB bundle (`dist/kgfegmcp-<version>.mcpb`) for desktop hosts such as Claude Desktop.

Run: .venv/bin/python scripts/build_bundle.py [--catalog DIR] [--out dist] [--mcpb COMMAND]

The bundle is a `uv` bundle (manifest 0.4): the host runs `uv run --directory <bundle>`, which installs
Python and the locked dependencies itself. This script stages what that needs:
- manifest.json (repository root), its "tools" written from the server's tool rows as the bundle is staged;
- icon.png (repository root), pyproject.toml, README.md and src/kgfegmcp;
- graph_packages/: the default catalog, built and validated now (or copied from --catalog, which must
  be a validated root), so the bundle serves it on first start without the source packages;
- uv.lock, resolved now, so every install of this bundle gets the same dependency versions;
then packs the folder with `mcpb pack` (the installed .tools/mcpb, or `npx @anthropic-ai/mcpb`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR
from kgfegmcp.mcp.tool_lists import manifest_with_tools
from kgfegmcp.packages.tree import discover_packages
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.default_catalog import build_default_catalog

REPOSITORY = Path(__file__).resolve().parents[1]
MCPB_VERSION = "2.1.2"
LOCAL_MCPB = REPOSITORY / ".tools" / "mcpb" / "node_modules" / ".bin" / "mcpb"
#: Copied from the checkout into the bundle as they are; manifest.json, graph_packages/ and uv.lock are made here.
STAGED = ("icon.png", "pyproject.toml", "README.md")
NOT_SHIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def _version() -> str:
    """The distribution version, which the manifest must repeat."""
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    manifest = json.loads((REPOSITORY / "manifest.json").read_text(encoding="utf-8"))
    if manifest["version"] != project["version"]:
        raise SystemExit(f"manifest.json version {manifest['version']} != pyproject.toml version {project['version']}")
    return str(project["version"])


def _catalog(target: Path, source: Path | None) -> None:
    """The validated default catalog at ``target``: copied from ``source``, or built now."""
    if source is not None:
        discovery = discover_packages(source)
        if not discovery.packages:
            raise SystemExit(f"--catalog {source} holds no graph package")
        shutil.copytree(source, target, symlinks=False)
        return
    outcomes = build_default_catalog(target, ProfileRepository(SHIPPED_PROFILES_DIR), lambda step: print(f"  {step}"))
    failed = [o.outcome.graph_package_id for o in outcomes if not o.accepted]
    if failed:
        raise SystemExit(f"default catalog packages failed validation: {failed}")


def _uv() -> str:
    """uv from this environment (the dev extra installs it), else from PATH."""
    local = Path(sys.executable).with_name("uv")
    found = str(local) if local.exists() else shutil.which("uv")
    if found is None:
        raise SystemExit("uv is needed to lock the bundle's dependencies: pip install uv (or scripts/install_dev.sh)")
    return found


def _mcpb(explicit: str | None) -> list[str]:
    if explicit:
        return explicit.split()
    if LOCAL_MCPB.exists():
        return [str(LOCAL_MCPB)]
    return ["npx", "--yes", f"@anthropic-ai/mcpb@{MCPB_VERSION}"]


def build_bundle(out_dir: Path, catalog: Path | None = None, mcpb: str | None = None) -> Path:
    """Stage, lock, validate and pack the bundle; return the path of the .mcpb file."""
    version = _version()
    out_dir.mkdir(parents=True, exist_ok=True)
    bundle = out_dir.resolve() / f"kgfegmcp-{version}.mcpb"
    with tempfile.TemporaryDirectory(prefix="kgfegmcp-bundle-") as scratch:
        staging = Path(scratch) / "kgfegmcp"
        staging.mkdir()
        for name in STAGED:
            shutil.copy2(REPOSITORY / name, staging / name)
        manifest = manifest_with_tools((REPOSITORY / "manifest.json").read_text(encoding="utf-8"))
        (staging / "manifest.json").write_text(manifest, encoding="utf-8")
        shutil.copytree(REPOSITORY / "src" / "kgfegmcp", staging / "src" / "kgfegmcp", ignore=NOT_SHIPPED)
        print("catalog:")
        _catalog(staging / "graph_packages", catalog)
        print("locking dependencies (uv lock)")
        subprocess.run([_uv(), "lock", "--directory", str(staging), "--quiet"], check=True)
        command = _mcpb(mcpb)
        subprocess.run([*command, "validate", str(staging / "manifest.json")], check=True)
        bundle.unlink(missing_ok=True)
        subprocess.run([*command, "pack", str(staging), str(bundle)], check=True)
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    print(f"{bundle} ({bundle.stat().st_size / 1e6:.1f} MB, sha256 {digest})")
    return bundle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="A validated graph-package root to ship instead of a fresh build.")
    parser.add_argument("--out", type=Path, default=REPOSITORY / "dist", help="Where the .mcpb file is written.")
    parser.add_argument("--mcpb", help="The mcpb command (default: .tools/mcpb, else npx @anthropic-ai/mcpb).")
    arguments = parser.parse_args()
    build_bundle(arguments.out, arguments.catalog, arguments.mcpb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
