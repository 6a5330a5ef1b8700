#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: install the product and the test tooling
# (scripts/install_dev.sh), then pytest.
# Extra arguments go to pytest (for example: scripts/test.sh -k cursor).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dev.sh

# The suite writes about 750 MB of packages, catalogs, logs and installs into temporary directories; on a
# disk-backed /tmp that I/O costs more than a minute of a run. When the caller has not chosen a TMPDIR and
# the machine has a RAM-backed /dev/shm with room to spare, the run's temporary files live there, in a
# directory of its own that is removed when the run passes (kept, and named, when it fails).
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] \
  && [ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -n 1)" -gt 4194304 ] 2>/dev/null; then
  run_tmp="$(mktemp -d /dev/shm/kgfegmcp-tests.XXXXXX)"
  export TMPDIR="$run_tmp"
fi

# This machine's environment sets PYTHONDONTWRITEBYTECODE; pytest then rewrites the assertions of every test
# module again in every worker of every run (six of the eight seconds collection takes). Test runs may cache
# bytecode (in the ignored __pycache__ folders); what the tests start sets its own environment.
export PYTHONDONTWRITEBYTECODE=

# One worker per core (pytest-xdist); each module stays on one worker, the longest handed out first
# (tests/conftest.py). `-n 0` runs serially.
status=0
.venv/bin/python -m pytest -n auto --dist loadscope --no-loadscope-reorder "$@" || status=$?
if [ -n "${run_tmp:-}" ]; then
  if [ "$status" -eq 0 ]; then
    rm -rf "$run_tmp"
  else
    echo "test.sh: the run's temporary files are kept in $run_tmp" >&2
  fi
fi
exit "$status"
