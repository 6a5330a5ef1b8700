#!/usr/bin/env bash
# Everything the test suite, the benchmarks' side-by-side runs and the desktop bundle build need beyond
# serving: the project with its `dev` extra (pytest, hypothesis, jsonschema, pipx, uv, ruff, mypy, ...),
# the older official MCP clients the end-to-end tests drive the server with, the MCP conformance suite,
# the MCPB command line and the MCP Apps host SDK (npm), and nginx and Chromium (Debian). Runs
# scripts/install.sh first. Idempotent: each part is skipped when already present.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
scripts/install.sh dev,sources
# A separate environment with the 1.x MCP SDK, so the end-to-end tests also drive the server with an
# older official client (tests/e2e/sdk1_driver.py). Created once; reused when already present.
if ! .venv-sdk1/bin/python -c 'import importlib.metadata as m; assert m.version("mcp").startswith("1.")' 2>/dev/null; then
  "$PYTHON" -m venv .venv-sdk1
  .venv-sdk1/bin/python -m pip install --quiet --disable-pip-version-check 'mcp>=1.20,<2'
fi
# Older official clients, one environment per protocol version they negotiate, so the end-to-end tests
# (tests/e2e/test_protocol_versions.py) read results as clients of that era do: mcp 1.7.1 is the last
# release that speaks only 2024-11-05 (STDIO and SSE, no Streamable HTTP), 1.9.4 the last that speaks
# 2025-03-26. Both import a pydantic internal that pydantic 2.12 removed, hence the cap.
legacy_client() {  # DIRECTORY MCP_VERSION
  if ! "$1/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$2')" 2>/dev/null; then
    "$PYTHON" -m venv "$1"
    "$1/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$2" 'pydantic<2.12'
  fi
}
legacy_client .venv-mcp-2024-11-05 1.7.1
legacy_client .venv-mcp-2025-03-26 1.9.4
# The MCP conformance suite (a peer's tests, run by tests/e2e/test_conformance.py), from the npm registry.
if [ ! -x .tools/conformance/node_modules/.bin/conformance ]; then
  npm install --silent --no-audit --no-fund --prefix .tools/conformance '@modelcontextprotocol/conformance@0.1.13'
fi
# The MCPB command line, from the npm registry: packs the desktop bundle (scripts/build_bundle.py) and
# validates its manifest (.ci/run, tests/install/test_mcpb_bundle.py).
if [ ! -x .tools/mcpb/node_modules/.bin/mcpb ]; then
  npm install --silent --no-audit --no-fund --prefix .tools/mcpb '@anthropic-ai/mcpb@2.1.2'
fi
# The official MCP Apps host SDK (AppBridge) and TypeScript MCP client, from the npm registry: the test host
# page of tests/e2e/test_curriculum_map_browser.py loads them from here (tests/e2e/map_host.py).
if [ ! -f .tools/ext-apps/node_modules/@modelcontextprotocol/ext-apps/package.json ]; then
  npm install --silent --no-audit --no-fund --prefix .tools/ext-apps '@modelcontextprotocol/ext-apps@2.0.4'
fi
# axe-core, the accessibility engine the browser tests run inside the curriculum map (light and dark themes).
if [ ! -f .tools/axe-core/node_modules/axe-core/axe.min.js ]; then
  npm install --silent --no-audit --no-fund --prefix .tools/axe-core 'axe-core@4.11.0'
fi
# nginx, for tests/e2e/test_multihost.py (deploy/nginx/kgfegmcp.conf in front of two replicas),
# which fails rather than skips where nginx is missing. Installed from Debian only where possible
# (root, apt-get); apt's output goes to a log kept only when the installation fails.
if ! command -v nginx >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt_log="$(mktemp -t kgfegmcp-apt-XXXXXX.log)"
  apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light >>"$apt_log" 2>&1; }
  if apt_install || { apt-get update -qq >>"$apt_log" 2>&1 || true; apt_install; }; then
    rm -f "$apt_log"
  else
    echo "install_dev.sh: could not install nginx-light (see $apt_log); tests/e2e/test_multihost.py will fail" >&2
  fi
fi
# Chromium (Debian's package) for the browser tests (tests/e2e/test_curriculum_map_browser.py), which Playwright
# drives by its path: Playwright's own browser download is never used. Same conditions and log as nginx.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt_log="$(mktemp -t kgfegmcp-apt-XXXXXX.log)"
  apt_chromium() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >>"$apt_log" 2>&1; }
  if apt_chromium || { apt-get update -qq >>"$apt_log" 2>&1 || true; apt_chromium; }; then
    rm -f "$apt_log"
  else
    echo "install_dev.sh: could not install chromium (see $apt_log); the browser tests will fail" >&2
  fi
fi
