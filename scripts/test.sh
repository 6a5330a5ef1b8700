#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: install the product and the test tooling
# (scripts/install_dev.sh), then pytest.
# Extra arguments go to pytest (for example: scripts/test.sh -k cursor).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dev.sh
# One worker per core (pytest-xdist); each module stays on one worker (tests/conftest.py). `-n 0` runs serially.
exec .venv/bin/python -m pytest -n auto --dist loadgroup "$@"
