#!/usr/bin/env bash
# Before/after on one machine in one sitting: `planwire bench` on BASE (a commit, checked out in
# a throwaway git worktree) and on this working tree, alternately, ROUNDS times.
#   bash scripts/bench-ab.sh BASE ROUNDS -- [planwire bench arguments]
#   bash scripts/bench-ab.sh HEAD~1 3 -- --sessions 20 --turns 20 --idle 3
# Prints one line of summary figures per run; every run's full output and JSON stay in OUT
# (default /tmp/bench-ab). Compare within a round: a shared machine swings between rounds.
set -euo pipefail
base=${1:?usage: bench-ab.sh BASE ROUNDS -- ARGS}; rounds=${2:?usage: bench-ab.sh BASE ROUNDS -- ARGS}
shift 2; [ "${1:-}" = "--" ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/bench-ab}; mkdir -p "$out"
tree=$(mktemp -d); trap 'git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true' EXIT
git -C "$root" worktree add --detach "$tree" "$base" >/dev/null
ln -s "$root/.venv" "$tree/.venv"
for r in $(seq 1 "$rounds"); do
  for side in base new; do
    dir=$root; [ "$side" = base ] && dir=$tree
    # The other side's processes, if a run was interrupted, would share the two cores.
    pkill -f "services\..*\.main" 2>/dev/null || true
    (cd "$dir" && PYTHONPATH="$dir" "$root/.venv/bin/python" -m planwire bench "$@" \
      --json "$out/$side-$r.json" >"$out/$side-$r.txt" 2>&1)
    "$root/.venv/bin/python" - "$out/$side-$r.json" "$side" "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("turn_p50_ms", "turn_p99_ms", "turns_per_s", "cpu_ms_per_turn", "idle_cpu_pct")
print(f"{sys.argv[2]} round {sys.argv[3]}: " + ", ".join(f"{k} {d.get(k)}" for k in keys))
PY
  done
done
