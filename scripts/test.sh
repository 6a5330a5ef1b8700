#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: install the product and the test tooling
# (scripts/install_dev.sh), then pytest.
# Extra arguments go to pytest (for example: scripts/test.sh -k cursor).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dev.sh
exec .venv/bin/python -m pytest "$@"
