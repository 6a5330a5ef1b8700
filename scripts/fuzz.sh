#!/usr/bin/env bash
# Fuzz the MCP surface of a real HTTP server (seeded; see scripts/fuzz.py and docs/reliability.md).
#
#   scripts/fuzz.sh                          one sweep plus random cases for 30 s, default catalog
#   scripts/fuzz.sh --budget-seconds 600     a long run
#   scripts/fuzz.sh --cases 20 --package-cases 2    bounded by a count, not a clock: 20 cases of each
#                                            request class and 2 tampered packages, the same every run
#   scripts/fuzz.sh --seed 7 --graph-packages-dir /path/to/graph_packages
#
# Exits non-zero on any violated invariant.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python scripts/fuzz.py "$@"
