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
# A separate environment with the 1.x MCP SDK, so the end-to-end tests also drive the server with an
# older official client (tests/e2e/sdk1_driver.py). Created once; reused when already present.
if ! .venv-sdk1/bin/python -c 'import importlib.metadata as m; assert m.version("mcp").startswith("1.")' 2>/dev/null; then
  "$PYTHON" -m venv .venv-sdk1
  .venv-sdk1/bin/python -m pip install --quiet --disable-pip-version-check 'mcp>=1.20,<2'
fi
# The MCP conformance suite (a peer's tests, run by tests/e2e/test_conformance.py), from the npm registry.
if [ ! -x .tools/conformance/node_modules/.bin/conformance ]; then
  npm install --silent --no-audit --no-fund --prefix .tools/conformance '@modelcontextprotocol/conformance@0.1.13'
fi
