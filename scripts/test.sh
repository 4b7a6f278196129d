#!/usr/bin/env bash
# The whole test suite: installs Python and system dependencies, then runs pytest.
# The real-model tests run in a second pytest process, so the other e2e tests' embedded
# stack is not idling on the same 2 cores while SmolLM2 works. Extra arguments go to both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash .ci/install-system-deps.sh
status=0
# Lint, format and types first: a slip fails fast, before minutes of tests.
.venv/bin/ruff check . || status=$?
.venv/bin/ruff format --check . || status=$?
# Types next (config in pyproject.toml: strict on schemas/ and shared/).
.venv/bin/mypy || status=$?
.venv/bin/python -m pytest -m "not model" "$@" || status=$?
.venv/bin/python -m pytest -m model "$@" || { rc=$?; [ "$rc" -eq 5 ] || status=$rc; }  # 5: none selected
exit "$status"
