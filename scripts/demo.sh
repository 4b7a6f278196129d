#!/usr/bin/env bash
# The demo on the embedded stack (Tansu + Valkey on loopback): installs, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/planwire demo "$@"
