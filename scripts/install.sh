#!/usr/bin/env bash
# Create .venv (if missing) and install the project, its test tools and the pinned curriculum
# data packages the build-time source adapters read. Idempotent; needs only the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev,sources]'
# These two ship data we read, but declare server dependencies we never run: install without them.
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
  'bncc-mcp==0.1.0' 'chiron-common-core-standards==0.1.0'
