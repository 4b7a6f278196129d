#!/usr/bin/env bash
# Regenerates requirements/image.lock: every package a service image installs, pinned, with
# the hashes of every published file of that version (pip --require-hashes checks them).
# Universal: one lock for amd64 and arm64 images. Run after changing pyproject.toml's
# dependencies; tests/deploy/test_lock.py fails while the lock disagrees with them.
set -euo pipefail
cd "$(dirname "$0")/.."
uvx() { if command -v uv >/dev/null 2>&1; then uv "$@"; else .venv/bin/python -m uv "$@"; fi; }
uvx pip compile pyproject.toml --extra otlp --universal --python-version 3.11 \
  --generate-hashes --no-header --quiet --output-file requirements/image.lock
echo "wrote requirements/image.lock"
