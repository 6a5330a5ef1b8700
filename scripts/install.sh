#!/usr/bin/env bash
# Create .venv (if missing) and install what building and serving the catalog need: the project with its
# `sources` extra (bncc==0.5.1) and the pinned curriculum data packages the build-time source adapters
# read. Nothing for tests: scripts/install_dev.sh adds that. Idempotent, and quick when nothing changed:
# the installation is stamped with a digest of what it installed from, and skipped while that matches.
# Needs only the package registries. Usage: scripts/install.sh [EXTRAS] (default: sources).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# What this installation is made from (this script, the project's dependencies and extras) and which
# extras it holds: skipped while the digest matches and every extra asked for is already there.
extras="${1:-sources}"
digest="$(cat scripts/install.sh pyproject.toml | sha256sum | cut -d' ' -f1)"
stamp=".venv/.kgfegmcp-install"
have_digest="" have_extras=""
# A missing or unreadable stamp is no stamp (and, under set -e, must not end the script).
{ [ -f "$stamp" ] && read -r have_digest have_extras < "$stamp"; } || true
needed=0
[ "$have_digest" = "$digest" ] && [ -x .venv/bin/kgfegmcp ] || needed=1
for extra in ${extras//,/ }; do
  case ",$have_extras," in *",$extra,"*) ;; *) needed=1 ;; esac
done
if [ "$needed" -eq 1 ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[$extras]"
  # These two ship data we read, but declare server dependencies we never run: install without them.
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    'bncc-mcp==0.1.0' 'chiron-common-core-standards==0.1.0'
  echo "$digest $extras" > "$stamp"
fi
# The checkout's bytecode, as pip writes it for an installed wheel: an editable install compiles nothing,
# and where PYTHONDONTWRITEBYTECODE is set Python would compile every module of src/ again at every start
# of the server (docs/performance.md, "Start-up"). Run every time: it rewrites only what changed.
.venv/bin/python -m compileall -q src/kgfegmcp
