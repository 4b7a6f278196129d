#!/usr/bin/env bash
# The whole test suite: installs Python and system dependencies, then runs pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash .ci/install-system-deps.sh
exec .venv/bin/python -m pytest "$@"
