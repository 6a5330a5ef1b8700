#!/usr/bin/env bash
# Set up KGForEdGlobalMCP on a fresh machine, build + validate the default catalog, and serve it.
#
#   scripts/setup.sh              set up, build, validate, then serve over HTTP on 127.0.0.1
#   scripts/setup.sh --no-serve   stop after building and validating
#
# 1. scripts/install.sh: create .venv if missing, `pip install -e '.[sources]'` (the `sources` extra
#    pins bncc==0.5.1), then bncc-mcp==0.1.0 and chiron-common-core-standards==0.1.0 with --no-deps
#    (we read their data files only); skipped when nothing changed. Nothing for tests (scripts/test.sh
#    installs that). The package registries are the only network access.
# 2. `kgfegmcp catalog init`: build the BNCC (4 packages) and CCSS ELA graph packages into the
#    graph-package root (KGFEGMCP_GRAPH_PACKAGES_DIR, here default data/graph_packages) and validate
#    each: pending packages get their terminal state, and their search indexes are stored in the
#    derived-index cache so the first start is quick.
# 3. Serve the accepted catalog over stateless Streamable HTTP at
#    http://127.0.0.1:${KGFEGMCP_HTTP_PORT:-8765}/mcp until interrupted (Ctrl-C).
#
# Running it again rebuilds the same pending bytes and revalidates them, so the packages end up
# byte-identical (check with: find data/graph_packages -type f | sort | xargs sha256sum).
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="${KGFEGMCP_GRAPH_PACKAGES_DIR:-data/graph_packages}"
SERVE=1
for argument in "$@"; do
  case "$argument" in
    --no-serve) SERVE=0 ;;
    *) echo "usage: scripts/setup.sh [--no-serve]" >&2; exit 2 ;;
  esac
done

scripts/install.sh
.venv/bin/kgfegmcp catalog init --root "${ROOT}"

SERVE_COMMAND=(.venv/bin/kgfegmcp serve --transport http --host 127.0.0.1 --root "${ROOT}")
if [ "$SERVE" -eq 1 ]; then
  exec "${SERVE_COMMAND[@]}"
fi
# The last line says the one command that serves what was built, as it is typed from this directory.
echo "built and validated; serve it over HTTP with: ${SERVE_COMMAND[*]}"
