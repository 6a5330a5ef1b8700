#!/usr/bin/env bash
# Set up KGForEdGlobalMCP on a fresh machine and build + validate the default catalog.
#
#   scripts/setup.sh
#
# 1. scripts/install.sh: create .venv if missing, `pip install -e '.[dev,sources]'` (the `sources`
#    extra pins bncc==0.5.1), then bncc-mcp==0.1.0 and chiron-common-core-standards==0.1.0 with
#    --no-deps (we read their data files only). The package registries are the only network access.
# 2. Build the BNCC (4 packages) and CCSS ELA graph packages as pending packages into the
#    graph-package root (KGFEGMCP_GRAPH_PACKAGES_DIR, default data/graph_packages).
# 3. Validate the root: pending packages get their terminal state; terminal ones are re-checked.
#
# Running it again rebuilds the same pending bytes and revalidates them, so the packages end up
# byte-identical (check with: find data/graph_packages -type f | sort | xargs sha256sum).
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="${KGFEGMCP_GRAPH_PACKAGES_DIR:-data/graph_packages}"

scripts/install.sh
mkdir -p "${ROOT}"
.venv/bin/kgfegmcp packages build --source bncc --out "${ROOT}"
.venv/bin/kgfegmcp packages build --source ccss --out "${ROOT}"
.venv/bin/kgfegmcp packages validate "${ROOT}"
